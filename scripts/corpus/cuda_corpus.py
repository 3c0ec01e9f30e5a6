# Compiles the CUDA C++ kernels in cuda/*.cu with nvcc to sm_80 PTX (one module per kernel) and
# writes each case with its inputs and a CPU reference (see corpus_io.py).
import math
import os
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_io import Buf, Scalar, bf16_bits, write_case  # noqa: E402

NVCC = os.environ.get('NVCC', '/usr/local/cuda/bin/nvcc')
rng = np.random.default_rng(99)
VERSION = subprocess.run([NVCC, '--version'], capture_output=True, text=True).stdout.strip().splitlines()[-1]


def ptx_of(name):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, f'{name}.ptx')
        subprocess.run([NVCC, '-ptx', '-arch=compute_80', '-O3', '-std=c++17', '-o', out,
                        os.path.join(HERE, 'cuda', f'{name}.cu')], check=True)
        return open(out).read()


def case(name, grid, block, args, shared=0):
    write_case(f'cu_{name}', f'nvcc ({VERSION}) -arch=compute_80: scripts/corpus/cuda/{name}.cu', ptx_of(name),
               name, list(grid) + [1] * (3 - len(grid)), list(block) + [1] * (3 - len(block)), shared, args)


def close(r, a=0.0):
    return ('close', r, a)


M32 = 0xFFFFFFFF

# --- warp collectives ---------------------------------------------------------------------------
T = 128
v = rng.integers(-2**20, 2**20, T).astype(np.int32)
out = np.zeros((T, 5), np.int32)
for t in range(T):
    w, lane = t // 32 * 32, t % 32
    out[t, 0] = v[w + (lane * 7) % 32]
    out[t, 1] = v[t] if lane < 3 else v[t - 3]
    src = lane % 16 + 5
    out[t, 2] = v[t] if src >= 16 else v[w + lane // 16 * 16 + src]
    out[t, 3] = v[w + (lane ^ 6)]
    out[t, 4] = v[w + (lane ^ 1)]
case('warp_shfl', [2], [64], [Buf('i32', v), Buf('i32', count=T * 5, expect=out.ravel())])

v = rng.integers(-100, 101, T).astype(np.int32)
v[64:96] = np.abs(v[64:96])  # warp 2: match_all finds every lane equal
out = np.zeros((T, 8), np.uint32)
for t in range(T):
    w, lane = t // 32 * 32, t % 32
    wv = v[w:w + 32]
    bal = lambda bits: sum(1 << i for i, b in enumerate(bits) if b)  # noqa: E731
    out[t, 0] = bal(wv > 0)
    out[t, 1] = int(all(wv > -90))
    out[t, 2] = int(any(wv > 95))
    out[t, 3] = bal((wv & 3) == (v[t] & 3))
    hi = wv >> 30
    same = all(hi == hi[0])
    out[t, 4] = M32 if same else 0
    out[t, 5] = int(same)
    out[t, 6] = bal((wv[:16] & 1) != 0) if lane < 16 else 0
    out[t, 7] = M32
case('warp_vote', [2], [64], [Buf('i32', v), Buf('u32', count=T * 8, expect=out.ravel())])

T = 64
v = rng.integers(0, 2**32, T, dtype=np.uint64).astype(np.uint32)
v[40:44] = [0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0]
out = np.zeros((T, 8), np.uint32)
for t in range(T):
    w, lane = t // 32 * 32, t % 32
    wv = [int(x) for x in v[w:w + 32]]
    half = wv[:16] if lane < 16 else wv[16:]
    sv = [x - (1 << 32) if x >> 31 else x for x in wv]
    red = lambda f, xs: f(xs)  # noqa: E731
    import functools
    out[t] = [sum(wv) & M32, min(wv), max(sv) & M32, functools.reduce(lambda a, b: a & b, wv),
              functools.reduce(lambda a, b: a | b, wv), functools.reduce(lambda a, b: a ^ b, wv), sum(half) & M32, max(half)]
case('warp_redux', [1], [64], [Buf('u32', v), Buf('u32', count=T * 8, expect=out.ravel())])

# --- bit intrinsics -----------------------------------------------------------------------------
n = 256
a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
a[:4] = [0, 1, 0x80000000, M32]
b[:4] = [M32, 0, 33, 31]


def clz(x, bits):
    return bits - x.bit_length()


def ffs(x):
    return (x & -x).bit_length()


def brev(x, bits):
    return int(format(x, f'0{bits}b')[::-1], 2)


out = np.zeros((n, 12), np.uint32)
for i in range(n):
    x, y = int(a[i]), int(b[i])
    xl = (x << 32) | y
    s = y & 0x7777
    both = x | (y << 32)
    perm = sum(((both >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))
    hl = (y << 32) | x
    fl = ((hl << (y & 31)) >> 32) & M32
    fr = (hl >> ((y >> 27) & 31)) & M32
    flc = ((hl << min(y & 63, 32)) >> 32) & M32
    frc = (hl >> min(y >> 26, 32)) & M32
    out[i] = [bin(x).count('1'), clz(x, 32), brev(x, 32), perm, fl, fr, flc, frc, ffs(x),
              bin(xl).count('1') + (clz(xl, 64) << 8), (brev(xl, 64) >> 17) & M32,
              ffs(xl & 0xFFFFFFFF00000000) + (((x * y) >> 32) & 0xFF00)]
case('bit_intrinsics', [2], [128], [Buf('u32', a), Buf('u32', b), Buf('u32', count=n * 12, expect=out.ravel()), Scalar(n)])

# --- half2 / bf16x2 -----------------------------------------------------------------------------


def to_bf16(x64):
    """f64 -> bf16 bits, one rounding (nearest even)."""
    x64 = np.asarray(x64, np.float64)
    m, e = np.frexp(x64)
    r = np.ldexp(np.round(np.ldexp(m, 8)), e - 8)
    return bf16_bits(r.astype(np.float32))  # r has 8 significant bits: exact in f32 and bf16


n = 64
h = [rng.uniform(-4, 4, 2 * n).astype(np.float16) for _ in range(3)]
h[0][:4] = [0.5, -0.5, 0.7, 0.0]
H = [x.astype(np.float64) for x in h]
x, y, z = H
res = [x + y, x * y, x * y + z, np.maximum(x, y), np.minimum(x, y), np.maximum(x * y + z, 0), np.clip(x + y, 0, 1), np.abs(x) + y]
res[5] = res[5] + 0.0  # relu and saturate give +0, never -0
res[6] = res[6] + 0.0
hout = np.stack([r.astype(np.float16).reshape(n, 2) for r in res], 1).ravel()
p = bf16_bits(rng.uniform(-4, 4, 2 * n).astype(np.float32))
q = bf16_bits(rng.uniform(-4, 4, 2 * n).astype(np.float32))
P = (p.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
Q = (q.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
bres = [to_bf16(P + Q), to_bf16(P * Q + P), to_bf16(np.maximum(P, Q)), to_bf16(np.maximum(P * Q + Q, 0) + 0.0)]
bout = np.stack([r.reshape(n, 2) for r in bres], 1).ravel()
case('half2_math', [1], [64], [Buf('f16', h[0]), Buf('f16', h[1]), Buf('f16', h[2]), Buf('f16', count=n * 16, expect=hout),
                               Buf('bf16', p), Buf('bf16', q), Buf('bf16', count=n * 8, expect=bout), Scalar(n)])

# --- atomics ------------------------------------------------------------------------------------
n = 1000
xv = (rng.integers(-800, 800, n) / 8).astype(np.float32)
idx = np.arange(n)
fmax = np.array([xv[idx % 4 == k].max() for k in range(4)], np.float32)
dsum = np.array([xv[idx % 2 == k].astype(np.float64).sum() for k in range(2)])
hsum = np.array([float((xv > 0).sum()), 0.5 * n], np.float16)
case('atomics_cas', [8], [128], [Buf('f32', xv), Scalar(n), Buf('f32', np.full(4, -np.inf, np.float32), expect=fmax),
                                 Buf('f64', np.zeros(2), expect=dsum), Buf('f16', np.zeros(2, np.float16), expect=hsum),
                                 Buf('u32', np.zeros(1, np.uint32), expect=np.array([n % 17], np.uint32)),
                                 Buf('i32', np.zeros(1, np.int32), expect=np.array([7], np.int32))])

# --- memory: dynamic shared, local arrays, device calls ------------------------------------------
B, G = 128, 3
xv = rng.integers(-1000, 1000, B * G).astype(np.float32)
case('dyn_shared', [G], [B], [Buf('f32', xv), Buf('f32', count=G, expect=xv.reshape(G, B).sum(1)),
                              Buf('f32', count=G * B, expect=xv.reshape(G, B)[:, ::-1].ravel())], shared=2 * B * 4)
n = 200
iv = rng.integers(-50, 50, n).astype(np.int32)
ref = np.zeros(n, np.int32)
for i in range(n):
    buf = [int(iv[(i + k) % n]) for k in range(16)]
    acc = 0
    for k in range(16):
        av = buf[(k * 5 + i) & 15]
        buf[av & 15] += k
        acc += buf[(av + k) & 15] * 3 + av
    ref[i] = acc + buf[int(iv[i]) & 15]
case('local_array', [2], [128], [Buf('i32', iv), Buf('i32', count=n, expect=ref), Scalar(n)])

# --- math ---------------------------------------------------------------------------------------
n = 128
dv = rng.uniform(-15, 15, n)
dv[:3] = [0.0, 1.0, -2.5]


def erfinv(y):
    return statistics.NormalDist().inv_cdf((y + 1) / 2) / math.sqrt(2)


dref = np.array([[math.sin(t), math.exp(t * 0.1), math.pow(abs(t) + 0.5, 1.7), math.lgamma(abs(t) + 0.1), erfinv(t / 16.0),
                  math.log1p(abs(t)), math.atan2(t, 3.0), math.copysign(abs(t) ** (1 / 3), t), math.sqrt(abs(t)),
                  float((Fraction(t) * Fraction(t) - 1) and 0) or 0.0] for t in dv])
# fma(v, v, -1) / (v + 20): one rounding for the fma, one for the division
dref[:, 9] = [float(Fraction(float(Fraction(t) * Fraction(t) - 1)) / Fraction(t + 20.0)) if True else 0 for t in dv]
case('f64_libm', [1], [128], [Buf('f64', dv), Buf('f64', count=n * 10, expect=dref.ravel(), tol=close(1e-14, 1e-15)), Scalar(n)])

fv = rng.uniform(-3, 3, n).astype(np.float32)
F = fv.astype(np.float64)
fref = np.stack([np.sin(F), np.cos(F), np.exp(np.float32(fv * np.float32(0.1)).astype(np.float64)),
                 np.log(np.float32(np.abs(fv) + np.float32(1e-3)).astype(np.float64)), np.power(np.float32(np.abs(fv) + np.float32(0.5)).astype(np.float64), np.float64(np.float32(1.3))),
                 np.tanh(np.float32(fv * np.float32(0.2)).astype(np.float64)), np.vectorize(math.erf)(np.float32(fv * np.float32(0.2)).astype(np.float64)), np.sqrt(np.abs(F)),
                 np.exp(np.float32(fv * np.float32(0.1)).astype(np.float64)), np.sin(F), F / 3.0, 1 / np.sqrt(np.abs(F) + 1.0)], 1).astype(np.float32)
case('f32_libm', [1], [128], [Buf('f32', fv), Buf('f32', count=n * 12, expect=fref.ravel(), tol=close(3e-6, 3e-6)), Scalar(n)])


def round_f32(fr, mode):
    """A rational rounded to f32: 'rn' nearest even, 'rd' down, 'ru' up, 'rz' toward zero."""
    r = np.float32(float(fr))  # float() rounds to nearest f64, then to f32: fix up below
    lo = r if Fraction(float(r)) <= fr else np.nextafter(r, np.float32(-np.inf))
    hi = lo if Fraction(float(lo)) == fr else np.nextafter(lo, np.float32(np.inf))
    if mode == 'rd':
        return lo
    if mode == 'ru':
        return hi
    if mode == 'rz':
        return lo if fr >= 0 else hi
    dl, dh = fr - Fraction(float(lo)), Fraction(float(hi)) - fr
    if dl != dh:
        return lo if dl < dh else hi
    return lo if (int(np.float32(lo).view(np.uint32)) & 1) == 0 else hi


n = 128
av = rng.uniform(-10, 10, n).astype(np.float32)
bv = rng.uniform(-10, 10, n).astype(np.float32)
av[:4] = [0.25, -0.25, 0.35, 1.25]
bv[:4] = [0.1, -0.3, 0.5, -0.7]
zv = rng.uniform(-5, 5, n)
fo = np.zeros((n, 8), np.float32)
io = np.zeros((n, 6), np.int32)
for i in range(n):
    x, y, z = Fraction(float(av[i])), Fraction(float(bv[i])), Fraction(float(zv[i]))
    sq = np.float32(math.sqrt(abs(float(av[i]))))
    while Fraction(float(sq)) ** 2 > abs(x):
        sq = np.nextafter(sq, np.float32(-1))
    while Fraction(float(np.nextafter(sq, np.float32(np.inf)))) ** 2 <= abs(x):
        sq = np.nextafter(sq, np.float32(np.inf))
    fo[i] = [round_f32(x + y, 'rd'), round_f32(x + y, 'ru'), round_f32(x * y, 'rz'), round_f32(x / y, 'rn'), round_f32(z, 'rz'),
             np.rint(av[i] * np.float32(3)), np.rint(bv[i] * np.float32(5)), sq]
    io[i] = [np.rint(av[i] * np.float32(10)), np.floor(av[i] * np.float32(10)), np.ceil(bv[i] * np.float32(10)), math.trunc(zv[i] * 100.0),
             np.rint(np.abs(av[i]) * np.float32(100)), np.rint(bv[i] * np.float32(7))]
case('rounding', [1], [128], [Buf('f32', av), Buf('f32', bv), Buf('f64', zv), Buf('i32', count=n * 6, expect=io.ravel()), Buf('f32', count=n * 8, expect=fo.ravel()), Scalar(n)])

# --- SIMD video ---------------------------------------------------------------------------------
n = 128
a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
b[:3] = [0, 0x10000, 0xFFFF0000]


def lanes(x, w):
    return [(x >> (w * k)) & ((1 << w) - 1) for k in range(32 // w)]


def pack(ls, w):
    return sum((v & ((1 << w) - 1)) << (w * k) for k, v in enumerate(ls))


def sgn(v, w):
    return v - (1 << w) if v >> (w - 1) else v


out = np.zeros((n, 8), np.uint32)
for i in range(n):
    x, y = int(a[i]), int(b[i])
    X4, Y4, X2, Y2 = lanes(x, 8), lanes(y, 8), lanes(x, 16), lanes(y, 16)
    out[i] = [pack([abs(p - q) for p, q in zip(X4, Y4)], 8), pack([p + q for p, q in zip(X2, Y2)], 16),
              pack([0xFF if p > q else 0 for p, q in zip(X4, Y4)], 8), pack([p - q for p, q in zip(X4, Y4)], 8),
              pack([max(p, q) for p, q in zip(X2, Y2)], 16), pack([(p + q + 1) >> 1 for p, q in zip(X4, Y4)], 8),
              sum(abs(sgn(p, 16) - sgn(q, 16)) for p, q in zip(X2, Y2)),
              pack([0xFFFF if p == q else 0 for p, q in zip(X2, lanes(x ^ (y & 0xFFFF), 16))], 16)]
case('video_simd', [1], [128], [Buf('u32', a), Buf('u32', b), Buf('u32', count=n * 8, expect=out.ravel()), Scalar(n)])

# --- cooperative groups, CUB ----------------------------------------------------------------------
T = 128
v = rng.integers(-1000, 1000, T).astype(np.int32)
out = np.zeros((T, 4), np.int32)
for t in range(T):
    w, lane = t // 32 * 32, t % 32
    s16, s8 = t // 16 * 16, t // 8 * 8
    active = [l for l in range(32) if v[w + l] & 1]
    out[t] = [v[s16:s16 + 16].sum(), v[s8:s8 + 8].max(), v[t] if t % 8 == 7 else v[t + 1],
              (active.index(lane) * 100 + len(active)) if v[t] & 1 else 0]
case('coop_groups', [2], [64], [Buf('i32', v), Buf('i32', count=T * 4, expect=out.ravel())])

G = 2
v = rng.integers(-100000, 100000, G * 512).astype(np.int32)
vb = v.reshape(G, 512)
excl = np.concatenate([np.zeros((G, 1), np.int64), np.cumsum(vb, 1)[:, :-1]], 1).astype(np.int32)
case('cub_block', [G], [128], [Buf('i32', v), Buf('i32', count=G, expect=vb.sum(1).astype(np.int32)), Buf('i32', count=G * 512, expect=excl.ravel()),
                               Buf('i32', count=G * 512, expect=np.sort(vb, 1).ravel())])

# --- tensor cores -------------------------------------------------------------------------------
Kd = 64
A = rng.uniform(-1, 1, (16, Kd)).astype(np.float16)
Bt = rng.uniform(-1, 1, (16, Kd)).astype(np.float16)  # column-major B: column n is Bt[n]
ref = (A.astype(np.float64) @ Bt.astype(np.float64).T).astype(np.float32)
case('wmma_f16', [1], [32], [Buf('f16', A), Buf('f16', Bt), Buf('f32', count=256, expect=ref.ravel(), tol=close(1e-5, 1e-5)), Scalar(Kd)])


def tf32(x):
    """cvt.rna.tf32.f32: keep 10 mantissa bits, ties away from zero."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


Kd = 32
A = rng.uniform(-1, 1, (16, Kd)).astype(np.float32)
Bm = rng.uniform(-1, 1, (Kd, 16)).astype(np.float32)
ref = (tf32(A).astype(np.float64) @ tf32(Bm).astype(np.float64)).astype(np.float32)
case('wmma_tf32', [1], [32], [Buf('f32', A), Buf('f32', Bm), Buf('f32', count=256, expect=ref.ravel(), tol=close(1e-5, 1e-5)), Scalar(Kd)])

# --- grid-stride loop, 64-bit indexing ----------------------------------------------------------
n = 3000
xv = rng.integers(-2**20, 2**20, n) / 8.0
yv = rng.integers(-2**20, 2**20, n) / 4.0
hv = np.zeros(n, np.int64)
for i in range(n):
    k = (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    s = k ^ (k >> 29)
    s = s - (1 << 64) if s >> 63 else s
    hv[i] = int(s / 7) if abs(s) < 2**52 else (abs(s) // 7) * (1 if s >= 0 else -1)
    hv[i] += i % 13
case('grid_stride', [4], [128], [Buf('f64', xv), Buf('f64', yv, expect=1.5 * xv + yv), Buf('i64', count=n, expect=hv), Scalar(1.5), Scalar(n)])

# --- batch 2: block sync collectives, cp.async pipelines, more tensor-core types, 64-bit shuffles,
# f64 directed rounding ----------------------------------------------------------------------------
B, G = 128, 2
v = rng.integers(-1000, 1000, B * G).astype(np.int32)
v[5], v[B + 7] = 995, -950
out = np.zeros((G * B, 7), np.int64)
for g in range(G):
    blk = v[g * B:(g + 1) * B]
    orr = 0
    for e in blk:
        orr |= 1 << (int(e) & 31)
    for t in range(B):
        out[g * B + t] = [int((blk > 0).sum()), int(all(blk > -900)), int(any(blk > 990)), int(blk.sum()), int(blk.min()), orr,
                          int(blk[t]) if t % 32 < 8 else 0]
case('sync_count', [G], [B], [Buf('i32', v), Buf('i32', count=G * B * 7, expect=out.astype(np.uint32).view(np.int32).ravel())])

tiles = 3
i16 = rng.integers(-8, 8, tiles * 64 * 4).astype(np.float32)
i8 = rng.integers(-8, 8, tiles * 64 * 2).astype(np.float32)
i4 = rng.integers(-8, 8, tiles * 64).astype(np.float32)
ref = np.zeros(64, np.float32)
for t in range(64):
    for k in range(tiles):
        a4 = i16.reshape(-1, 4)[k * 64 + 63 - t]
        b2 = i8.reshape(-1, 2)[k * 64 + ((t + 1) & 63)]
        ref[t] += a4[0] + 2 * a4[1] + 3 * a4[2] + 4 * a4[3] + 5 * b2[0] + 6 * b2[1] + 7 * i4[k * 64 + (t ^ 5)]
case('pipeline_async', [1], [64], [Buf('f32', i16), Buf('f32', i8), Buf('f32', i4), Buf('f32', count=64, expect=ref), Scalar(tiles)])

Kd = 48
A = rng.integers(-128, 128, (16, Kd)).astype(np.int8)
Bt = rng.integers(-128, 128, (16, Kd)).astype(np.int8)
case('wmma_i8', [1], [32], [Buf('i8', A), Buf('i8', Bt), Buf('i32', count=256, expect=(A.astype(np.int64) @ Bt.astype(np.int64).T).astype(np.int32).ravel()), Scalar(Kd)])
Kd = 32
A = bf16_bits(rng.uniform(-1, 1, (16, Kd)).astype(np.float32))
Bt = bf16_bits(rng.uniform(-1, 1, (16, Kd)).astype(np.float32))
Af = (A.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
Bf = (Bt.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
ref = (1.0 + Af @ Bf.T).astype(np.float32).T  # stored column-major
case('wmma_bf16', [1], [32], [Buf('bf16', A), Buf('bf16', Bt), Buf('f32', count=256, expect=ref.ravel(), tol=close(1e-5, 1e-5)), Scalar(Kd)])

T = 64
dv = rng.uniform(-100, 100, T)
lv = rng.integers(-2**62, 2**62, T, dtype=np.int64)
od = np.zeros((T, 2))
ol = np.zeros((T, 2), np.int64)
for w in range(0, T, 32):
    s = list(dv[w:w + 32])
    for o in (16, 8, 4, 2, 1):
        s = [s[lane] + s[lane ^ o] for lane in range(32)]
    for lane in range(32):
        t = w + lane
        od[t] = [s[lane], dv[w + 31 - lane]]
        ol[t] = [lv[t] if lane == 31 else lv[t + 1], lv[t] if lane % 4 < 2 else lv[t - 2]]
case('shfl64', [2], [32], [Buf('f64', dv), Buf('i64', lv), Buf('f64', count=T * 2, expect=od.ravel()), Buf('i64', count=T * 2, expect=ol.ravel())])


def round_f64(fr, mode):
    """A rational rounded to f64 ('rn', 'rd', 'ru', 'rz')."""
    r = float(fr)  # Fraction -> float is correctly rounded to nearest
    if mode == 'rn' or Fraction(r) == fr:
        return r
    lo = r if Fraction(r) < fr else math.nextafter(r, -math.inf)
    hi = math.nextafter(lo, math.inf)
    return {'rd': lo, 'ru': hi, 'rz': lo if fr > 0 else hi}[mode]


n = 128
av = rng.uniform(-10, 10, n)
bv = rng.uniform(-10, 10, n)
od = np.zeros((n, 6))
ol = np.zeros((n, 2), np.int64)
of = np.zeros((n, 2), np.float32)
for i in range(n):
    x, y = Fraction(av[i]), Fraction(bv[i])
    sq = math.sqrt(abs(av[i]))
    while Fraction(sq) ** 2 < abs(x):
        sq = math.nextafter(sq, math.inf)
    while Fraction(math.nextafter(sq, 0)) ** 2 >= abs(x):
        sq = math.nextafter(sq, 0)
    od[i] = [round_f64(x + y, 'rd'), round_f64(x * y, 'ru'), round_f64(x * y + 1, 'rz'), round_f64(x / y, 'rz'), sq, round_f64(1 / y, 'rn')]
    p, q = av[i] * 1e6, bv[i] * 1e6
    ol[i] = [round(p), math.ceil(q)]  # Python's round() is half-to-even
    of[i] = [round_f32(Fraction(int(av[i] * 1e12)), 'rd'), round_f32(Fraction(int(abs(bv[i]) * 1e15)), 'ru')]
case('dround', [1], [128], [Buf('f64', av), Buf('f64', bv), Buf('f64', count=n * 6, expect=od.ravel()), Buf('i64', count=n * 2, expect=ol.ravel()),
                            Buf('f32', count=n * 2, expect=of.ravel()), Scalar(n)])

# --- batch 3: printf, cache hints and 64-bit/bf16 atomics, half math ------------------------------
v = rng.integers(-1000, 1000, 64).astype(np.int32)
case('printf_kernel', [1], [64], [Buf('i32', v), Buf('i32', count=64, expect=v * 2 + 1)])

n = 256
xv = rng.uniform(-10, 10, n).astype(np.float32)
yref = np.concatenate([xv + xv[::-1], xv[(np.arange(n) * 7) % n] * np.float32(2)]).astype(np.float32)
acc = sum((i + 1) << 20 for i in range(n)) & 0xFFFFFFFFFFFFFFFF
mx = max(int(np.trunc(a)) * -1000000000 for a in xv)
bacc = bf16_bits(np.array([256.0, 2.0 * (xv > 0).sum()], np.float32))
case('mem_hints', [2], [128], [Buf('f32', xv), Buf('f32', count=2 * n, expect=yref), Buf('u64', np.zeros(1, np.uint64), expect=np.array([acc], np.uint64)),
                               Buf('i64', np.array([-2**63], np.int64), expect=np.array([mx], np.int64)), Buf('bf16', np.zeros(2, np.uint16), expect=bacc), Scalar(n)])


def round_to(fr, mode, ty):
    """A rational rounded to the float type `ty` ('rn' nearest even, 'rd', 'ru', 'rz')."""
    r = ty(float(fr))
    lo = r if Fraction(float(r)) <= fr else np.nextafter(r, ty(-np.inf))
    hi = lo if Fraction(float(lo)) == fr else np.nextafter(lo, ty(np.inf))
    if mode == 'rd':
        return lo
    if mode == 'ru':
        return hi
    if mode == 'rz':
        return lo if fr >= 0 else hi
    dl, dh = fr - Fraction(float(lo)), Fraction(float(hi)) - fr
    if dl != dh:
        return lo if dl < dh else hi
    return lo if (int(np.array(lo).view(np.uint16 if ty == np.float16 else np.uint32)) & 1) == 0 else hi


n = 128
xv = (rng.uniform(0.1, 4, n) * rng.choice([-1, 1], n)).astype(np.float32)
hv = xv.astype(np.float16).astype(np.float64)
approx = np.stack([np.exp(hv), np.sin(hv), np.sqrt(np.abs(hv)), 1 / hv, hv / 3.0], 1).astype(np.float16)
cvt = np.array([[round_to(Fraction(float(v)), m, np.float16) for m in ('rz', 'rd', 'ru')] for v in xv], np.float16)
case('half_approx', [1], [128], [Buf('f32', xv), Buf('f16', count=n * 5, expect=approx.ravel(), tol=('ulp', 1)), Buf('f16', count=n * 3, expect=cvt.ravel()), Scalar(n)])
