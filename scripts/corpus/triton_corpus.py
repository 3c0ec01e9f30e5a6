# Compiles the Triton kernels of triton_kernels.py to sm_80 PTX and writes each case with its
# inputs and numpy reference (see corpus_io.py). Run through `npm run corpus:regen`.
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault('TRITON_CACHE_DIR', tempfile.mkdtemp(prefix='tessera-corpus-'))
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import triton_kernels as K  # noqa: E402
from corpus_io import Buf, Scalar, Scratch, bf16_bits, bf16_float, write_case  # noqa: E402

TARGET = GPUTarget('cuda', 80, 32)
rng = np.random.default_rng(1234)
failures = []
TY = {'fp8e5': 'fp8e5', 'fp8e4nv': 'fp8e4nv', 'f16': 'fp16', 'f32': 'fp32', 'f64': 'fp64', 'bf16': 'bf16', 'i8': 'i8', 'u8': 'u8', 'i16': 'i16',
      'u16': 'u16', 'i32': 'i32', 'u32': 'u32', 'i64': 'i64', 'u64': 'u64'}


def case(name, fn, args, sig, grid, constexprs=None, num_warps=4, num_stages=3):
    """sig: the Triton type of each runtime arg, in order ('*f32', 'i32', 'f32', ...)."""
    names = [n for n in fn.arg_names]
    constexprs = constexprs or {}
    signature, it = {}, iter(sig)
    for n in names:
        signature[n] = 'constexpr' if n in constexprs else next(it)
    signature = {n: ('*' + TY[t[1:]] if t.startswith('*') else TY.get(t, t)) if t != 'constexpr' else t
                 for n, t in signature.items()}
    try:
        k = triton.compile(ASTSource(fn, signature, constexprs), target=TARGET,
                           options={'num_warps': num_warps, 'num_stages': num_stages})
    except Exception as e:  # noqa: BLE001
        failures.append(f'{name}: triton cannot compile it for sm_80: {str(e).splitlines()[0][:200]}')
        return
    md = k.metadata
    nprog = grid[0] * grid[1] * grid[2] if len(grid) == 3 else grid[0] * (grid[1] if len(grid) > 1 else 1)
    extra = [Scratch(md.global_scratch_size * nprog), Scratch(getattr(md, 'profile_scratch_size', 0) * nprog)]
    g = list(grid) + [1] * (3 - len(grid))
    write_case(name, f'triton {triton.__version__}: {fn.__name__} num_warps={num_warps} num_stages={num_stages}',
               k.asm['ptx'].replace(os.path.dirname(os.path.abspath(__file__)) + '/', 'scripts/corpus/'), md.name, g, [32 * num_warps, 1, 1], md.shared, list(args) + extra)


def f32(n, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


def close(r, a=0.0):
    return ('close', r, a)


# --- tutorials ---------------------------------------------------------------------------------
n = 1000
x, y = f32(n), f32(n)
case('tt_vadd', K.vadd, [Buf('f32', x), Buf('f32', y), Buf('f32', count=n, expect=x + y), Scalar(n)],
     ['*f32'] * 3 + ['i32'], [4], {'BLOCK': 256})

R, C = 13, 100
x = f32(R * C, -4, 4)
xr = x.reshape(R, C).astype(np.float64)
e = np.exp(xr - xr.max(1, keepdims=True))
sm = (e / e.sum(1, keepdims=True)).astype(np.float32).ravel()
for nw in (1, 2, 4, 8):
    case(f'tt_softmax_w{nw}', K.softmax, [Buf('f32', count=R * C, expect=sm, tol=close(1e-5, 1e-9)), Buf('f32', x), Scalar(C), Scalar(C), Scalar(R), Scalar(C)],
         ['*f32', '*f32', 'i32', 'i32', 'i32', 'i32'], [R], {'BLOCK': 128}, num_warps=nw)


def mm_case(name, dt, out_dt, prec, M, N, Kd, BM, BN, BK, stages, nw=4, tol=None):
    store = dt
    if dt == 'fp8e5':  # e5m2 is the high byte of an f16
        store = 'u8'
        A = (f32(M * Kd).reshape(M, Kd).astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
        B = (f32(Kd * N).reshape(Kd, N).astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
        e5 = lambda u: (u.astype(np.uint16) << 8).view(np.float16).astype(np.float64)  # noqa: E731
        ref = e5(A) @ e5(B)
    elif dt in ('i8',):
        a = rng.integers(-128, 128, (M, Kd)).astype(np.int8)
        b = rng.integers(-128, 128, (Kd, N)).astype(np.int8)
        ref = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
        A, B = a, b
    elif dt == 'bf16':
        A, B = bf16_bits(f32(M * Kd).reshape(M, Kd)), bf16_bits(f32(Kd * N).reshape(Kd, N))
        ref = bf16_float(A).astype(np.float64) @ bf16_float(B).astype(np.float64)
    elif dt == 'f16':
        A, B = f32(M * Kd).reshape(M, Kd).astype(np.float16), f32(Kd * N).reshape(Kd, N).astype(np.float16)
        ref = A.astype(np.float64) @ B.astype(np.float64)
    else:
        A, B = f32(M * Kd).reshape(M, Kd), f32(Kd * N).reshape(Kd, N)
        ref = A.astype(np.float64) @ B.astype(np.float64)
    if out_dt == 'f16':
        ref = ref.astype(np.float16)
    elif out_dt == 'bf16':
        ref = bf16_bits(ref.astype(np.float32))
    elif out_dt == 'f32':
        ref = ref.astype(np.float32)
    acc = 'int32' if dt == 'i8' else 'float32'
    import triton.language as tl
    case(name, K.matmul, [Buf(store, A), Buf(store, B), Buf(out_dt, count=M * N, expect=ref, tol=tol or ('exact',)),
                          Scalar(M), Scalar(N), Scalar(Kd), Scalar(Kd), Scalar(1), Scalar(N), Scalar(1), Scalar(N), Scalar(1)],
         ['*' + dt, '*' + dt, '*' + out_dt] + ['i32'] * 9, [((M + BM - 1) // BM) * ((N + BN - 1) // BN)],
         {'BM': BM, 'BN': BN, 'BK': BK, 'GROUP': 2, 'PREC': prec, 'OUT': getattr(tl, acc)}, num_warps=nw, num_stages=stages)


mm_case('tt_matmul_f16', 'f16', 'f16', 'ieee', 64, 64, 64, 32, 32, 32, 1, tol=close(2e-3, 1e-3))
mm_case('tt_matmul_f16_pipelined', 'f16', 'f16', 'ieee', 64, 64, 128, 32, 32, 32, 3, tol=close(2e-3, 1e-3))
mm_case('tt_matmul_f16_w8_s4', 'f16', 'f32', 'ieee', 64, 64, 128, 64, 64, 32, 4, nw=8, tol=close(1e-4, 1e-4))
mm_case('tt_matmul_bf16', 'bf16', 'f32', 'ieee', 32, 48, 64, 32, 16, 32, 2, tol=close(1e-4, 1e-4))
mm_case('tt_matmul_tf32', 'f32', 'f32', 'tf32', 32, 32, 64, 32, 32, 16, 2, tol=close(1e-2, 1e-2))
mm_case('tt_matmul_tf32x3', 'f32', 'f32', 'tf32x3', 32, 32, 64, 32, 32, 16, 2, tol=close(1e-5, 1e-5))
mm_case('tt_matmul_f32_ieee', 'f32', 'f32', 'ieee', 32, 32, 40, 16, 16, 16, 1, nw=2, tol=close(1e-5, 1e-5))
mm_case('tt_matmul_i8', 'i8', 'i32', 'ieee', 32, 32, 64, 32, 32, 32, 2)
mm_case('tt_matmul_fp8e5', 'fp8e5', 'f32', 'ieee', 32, 32, 64, 32, 32, 32, 2, tol=close(1e-5, 1e-5))
mm_case('tt_matmul_f16_w1', 'f16', 'f32', 'ieee', 16, 16, 32, 16, 16, 16, 1, nw=1, tol=close(1e-4, 1e-4))

# layernorm forward and backward (the tutorial's, with its spin lock)
R, N = 8, 200
X = f32(R * N, -2, 2).reshape(R, N)
W, Bb = f32(N), f32(N)
mean = X.astype(np.float64).mean(1)
var = ((X - mean[:, None]) ** 2).mean(1)
rstd = 1 / np.sqrt(var + 1e-5)
Y = ((X - mean[:, None]) * rstd[:, None] * W + Bb).astype(np.float32)
case('tt_layernorm_fwd', K.layernorm_fwd,
     [Buf('f32', X), Buf('f32', count=R * N, expect=Y, tol=close(1e-5, 1e-5)), Buf('f32', W), Buf('f32', Bb),
      Buf('f32', count=R, expect=mean.astype(np.float32), tol=close(1e-5, 1e-6)),
      Buf('f32', count=R, expect=rstd.astype(np.float32), tol=close(1e-5, 1e-6)), Scalar(N), Scalar(N), Scalar(1e-5)],
     ['*f32'] * 6 + ['i32', 'i32', 'f32'], [R], {'BLOCK': 64})
DY = f32(R * N).reshape(R, N)
xhat = (X - mean[:, None]) * rstd[:, None]
wdy = W * DY
c1 = (xhat * wdy).sum(1) / N
c2 = wdy.sum(1) / N
DX = ((wdy - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]).astype(np.float32)
G = 4
dw = np.zeros((G, N))
db = np.zeros((G, N))
for r in range(R):
    dw[r % G] += DY[r] * xhat[r]
    db[r % G] += DY[r]
case('tt_layernorm_bwd_lock', K.layernorm_bwd_dx,
     [Buf('f32', count=R * N, expect=DX, tol=close(1e-4, 1e-5)), Buf('f32', DY),
      Buf('f32', count=G * N, expect=dw.astype(np.float32).ravel(), tol=close(1e-4, 1e-5)),
      Buf('f32', count=G * N, expect=db.astype(np.float32).ravel(), tol=close(1e-4, 1e-5)),
      Buf('f32', X), Buf('f32', W), Buf('f32', mean.astype(np.float32)), Buf('f32', rstd.astype(np.float32)),
      Buf('i32', count=2 * G), Scalar(N), Scalar(N)],
     ['*f32'] * 8 + ['*i32', 'i32', 'i32'], [R], {'GROUP': G, 'BLOCK': 256})

n = 700
x = f32(n)
keep = (rng.uniform(0, 1, n) > 0.5).astype(np.int8)
case('tt_dropout', K.dropout_mask, [Buf('f32', x), Buf('i8', keep), Buf('f32', count=n, expect=np.where(keep != 0, x / np.float32(0.5), 0).astype(np.float32), tol=('ulp', 1)),
                                    Scalar(n), Scalar(0.5)], ['*f32', '*i8', '*f32', 'i32', 'f32'], [3], {'BLOCK': 256})


def philox(seed, offs, rounds=10):
    """Triton's tl.randint: Philox 4x32 on (offset, 0, 0, 0) with key (seed lo, seed hi); first word."""
    c0 = offs.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, seed & 0xFFFFFFFF)
    k1 = np.full_like(c0, (seed >> 32) & 0xFFFFFFFF)
    M32 = 0xFFFFFFFF
    for _ in range(rounds):
        p0 = c0 * np.uint64(0xD2511F53)
        p1 = c2 * np.uint64(0xCD9E8D57)
        n0 = ((p1 >> np.uint64(32)) ^ c1 ^ k0) & M32
        n2 = ((p0 >> np.uint64(32)) ^ c3 ^ k1) & M32
        c1, c3 = p1 & M32, p0 & M32
        c0, c2 = n0, n2
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    return c0.astype(np.uint32)


n = 300
case('tt_randint_philox', K.rand_uniform, [Buf('u32', count=n, expect=philox(42, np.arange(n))), Scalar(n), Scalar(42)],
     ['*u32', 'i32', 'i32'], [2], {'BLOCK': 256})

L, D = 64, 32
q, k, v = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(3))
s = q.astype(np.float64) @ k.astype(np.float64).T * 0.125
p = np.exp(s - s.max(1, keepdims=True))
o = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
case('tt_attention_fwd', K.attention_fwd, [Buf('f16', q), Buf('f16', k), Buf('f16', v), Buf('f16', count=L * D, expect=o.astype(np.float16), tol=close(1e-2, 2e-3)), Scalar(0.125)],
     ['*f16'] * 4 + ['f32'], [L // 32], {'L': L, 'D': D, 'BM': 32, 'BN': 16})

# --- reductions, scans, sorts ------------------------------------------------------------------
R, C = 6, 64
for dt, nw in (('f32', 4), ('i32', 1), ('f16', 2), ('f64', 8)):
    if dt == 'i32':
        x = rng.integers(-1000, 1000, R * C).astype(np.int32)
    else:
        x = rng.permutation(R * C).astype(np.float64) / 7 - 20
        x = x.astype({'f32': np.float32, 'f16': np.float16, 'f64': np.float64}[dt])
    xr = x.reshape(R, C)
    if dt == 'f16':
        ssum = xr.astype(np.float32).sum(1).astype(np.float16)
        tol = close(2e-3, 2e-3)
    elif dt == 'i32':
        ssum, tol = xr.sum(1).astype(np.int32), ('exact',)
    else:
        ssum, tol = xr.astype(np.float64).sum(1).astype(x.dtype), close(1e-5, 1e-6)
    case(f'tt_reduce_{dt}_w{nw}', K.row_reduce,
         [Buf(dt, x), Buf(dt, count=R, expect=ssum, tol=tol), Buf(dt, count=R, expect=xr.max(1)), Buf(dt, count=R, expect=xr.min(1)),
          Buf('i32', count=R, expect=xr.argmax(1).astype(np.int32)), Buf('i32', count=R, expect=xr.argmin(1).astype(np.int32))],
         ['*' + dt] * 4 + ['*i32', '*i32'], [R], {'C': C}, num_warps=nw)
x = rng.integers(-50, 50, 16 * 32).astype(np.int32)
case('tt_col_reduce_i32', K.col_reduce, [Buf('i32', x), Buf('i32', count=32, expect=x.reshape(16, 32).sum(0).astype(np.int32))], ['*i32', '*i32'], [1], {'R': 16, 'C': 32})

R, C = 4, 128
x = rng.integers(-3, 4, R * C).astype(np.int32)
case('tt_scan_i32', K.scans, [Buf('i32', x), Buf('i32', count=R * C, expect=np.cumsum(x.reshape(R, C), 1).astype(np.int32).ravel()),
                              Buf('i32', count=R * C, expect=np.cumprod(x.reshape(R, C).astype(np.int64), 1).astype(np.int32).ravel())],
     ['*i32'] * 3, [R], {'C': C})
x = rng.uniform(0.9, 1.1, R * C).astype(np.float32)
case('tt_scan_f32', K.scans, [Buf('f32', x), Buf('f32', count=R * C, expect=np.cumsum(x.reshape(R, C).astype(np.float64), 1).astype(np.float32).ravel(), tol=close(1e-5)),
                              Buf('f32', count=R * C, expect=np.cumprod(x.reshape(R, C).astype(np.float64), 1).astype(np.float32).ravel(), tol=close(1e-5))],
     ['*f32'] * 3, [R], {'C': C}, num_warps=2)
for dt in ('f32', 'i32', 'f16'):
    x = (rng.integers(-500, 500, R * C) if dt == 'i32' else rng.uniform(-9, 9, R * C)).astype({'f32': np.float32, 'i32': np.int32, 'f16': np.float16}[dt])
    xr = x.reshape(R, C)
    case(f'tt_sort_{dt}', K.sort_flip, [Buf(dt, x), Buf(dt, count=R * C, expect=np.sort(xr, 1).ravel()), Buf(dt, count=R * C, expect=np.sort(xr, 1)[:, ::-1].ravel()),
                                        Buf(dt, count=R * C, expect=xr[:, ::-1].ravel())], ['*' + dt] * 4, [R], {'C': C})

# --- casts --------------------------------------------------------------------------------------
n = 500
base = np.concatenate([rng.uniform(-100, 100, n - 12), [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 65504, 70000, 1e-8, -1e-30, np.inf, -np.inf]]).astype(np.float32)
casts = [
    ('f32', 'f16', base, base.astype(np.float16)),
    ('f32', 'bf16', base, bf16_bits(base)),
    ('f32', 'f64', base, base.astype(np.float64)),
    ('f64', 'f32', base.astype(np.float64) * 1.000000123, (base.astype(np.float64) * 1.000000123).astype(np.float32)),
    ('f16', 'f32', base.astype(np.float16), base.astype(np.float16).astype(np.float32)),
    ('bf16', 'f32', bf16_bits(base), bf16_float(bf16_bits(base))),
    ('bf16', 'f16', bf16_bits(base[:-2]), bf16_float(bf16_bits(base[:-2])).astype(np.float16)),
    ('f32', 'i8', base[:-12].clip(-127, 127), np.trunc(base[:-12].clip(-127, 127)).astype(np.int8)),
    ('f32', 'i16', base[:-12], np.trunc(base[:-12]).astype(np.int16)),
    ('f32', 'i64', base[:-12] * 1e6, np.trunc((base[:-12] * np.float32(1e6)).astype(np.float32)).astype(np.int64)),
    ('f32', 'u32', np.abs(base[:-12]) * 1e6, np.trunc(np.abs(base[:-12]) * np.float32(1e6)).astype(np.uint32)),
    ('i32', 'f32', rng.integers(-2**31, 2**31, n).astype(np.int32), rng.integers(0, 1, n)),
    ('u32', 'f32', rng.integers(0, 2**32, n).astype(np.uint32), None),
    ('i64', 'f64', rng.integers(-2**62, 2**62, n).astype(np.int64), None),
    ('i8', 'i32', rng.integers(-128, 128, n).astype(np.int8), None),
    ('u8', 'i32', rng.integers(0, 256, n).astype(np.uint8), None),
    ('i32', 'i8', rng.integers(-2**31, 2**31, n).astype(np.int32), None),
    ('i64', 'i16', rng.integers(-2**62, 2**62, n).astype(np.int64), None),
    ('u16', 'u64', rng.integers(0, 2**16, n).astype(np.uint16), None),
    ('i16', 'f16', rng.integers(-3000, 3000, n).astype(np.int16), None),
]
NP = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 'i8': np.int8, 'u8': np.uint8, 'i16': np.int16,
      'u16': np.uint16, 'i32': np.int32, 'u32': np.uint32, 'i64': np.int64, 'u64': np.uint64}
for src, dst, xin, want in casts:
    if want is None or src == 'i32':
        want = xin.astype(NP[dst])  # numpy's int->int wraps and int->float rounds to nearest, as PTX cvt does
    case(f'tt_cast_{src}_{dst}', K.cast, [Buf(src, xin), Buf(dst, count=xin.size, expect=want), Scalar(xin.size)],
         ['*' + src, '*' + dst, 'i32'], [(xin.size + 255) // 256], {'BLOCK': 256})
x = f32(100)
case('tt_bitcast_f32_i32', K.cast_bitcast, [Buf('f32', x), Buf('i32', count=100, expect=x.view(np.int32)), Scalar(100)], ['*f32', '*i32', 'i32'], [1], {'BLOCK': 128})

# --- math ---------------------------------------------------------------------------------------
n = 512
mathf = {
    'sin': (np.sin, -50, 50), 'cos': (np.cos, -50, 50), 'exp': (np.exp, -20, 20), 'log': (np.log, 1e-3, 1e4),
    'erf': (lambda v: np.vectorize(math.erf)(v), -4, 4), 'tanh': (np.tanh, -6, 6), 'sqrt': (np.sqrt, 0, 1e4),
    'rsqrt': (lambda v: 1 / np.sqrt(v), 1e-3, 1e4), 'tl_exp': (np.exp, -20, 20), 'tl_sin': (np.sin, -3, 3),
    'tl_log': (np.log, 1e-3, 1e3), 'asin': (np.arcsin, -1, 1), 'atan': (np.arctan, -20, 20), 'cbrt': (np.cbrt, -1e3, 1e3),
    'lgamma': (lambda v: np.vectorize(math.lgamma)(v), 0.1, 30), 'floor': (np.floor, -1e3, 1e3), 'ceil': (np.ceil, -1e3, 1e3),
    'rint': (np.rint, -1e3, 1e3), 'expm1': (np.expm1, -3, 3), 'log1p': (np.log1p, -0.9, 10),
}
TOL32 = {'sqrt': ('exact',), 'floor': ('exact',), 'ceil': ('exact',), 'rint': ('exact',), 'tl_exp': close(2e-6, 1e-30),
         'tl_sin': close(0, 2e-6), 'tl_log': close(0, 2e-6), 'rsqrt': ('ulp', 4), 'lgamma': close(1e-6, 1e-6)}
for op, (f, lo, hi) in mathf.items():
    x = rng.uniform(lo, hi, n).astype(np.float32)
    want = f(x.astype(np.float64)).astype(np.float32)
    case(f'tt_math_{op}_f32', K.unary, [Buf('f32', x), Buf('f32', count=n, expect=want, tol=TOL32.get(op, ('ulp', 4))), Scalar(n)],
         ['*f32', '*f32', 'i32'], [2], {'OP': op, 'BLOCK': 256})
for op in ('sin', 'exp', 'log', 'erf', 'sqrt', 'lgamma', 'atan'):
    f, lo, hi = mathf[op]
    x = rng.uniform(lo, hi, n)
    tol = ('exact',) if op == 'sqrt' else close(1e-13, 1e-14) if op == 'lgamma' else ('ulp', 4)  # lgamma: absolute near its roots at 1 and 2
    case(f'tt_math_{op}_f64', K.unary, [Buf('f64', x), Buf('f64', count=n, expect=f(x), tol=tol), Scalar(n)],
         ['*f64', '*f64', 'i32'], [2], {'OP': op, 'BLOCK': 256})

a = rng.uniform(0.1, 10, n).astype(np.float32)
b = rng.uniform(-4, 4, n).astype(np.float32)
A64, B64 = a.astype(np.float64), b.astype(np.float64)
bin_f = {'pow': (np.power(A64, B64), ('ulp', 4)), 'fmod': (np.fmod(A64 * 10, B64), None), 'atan2': (np.arctan2(A64, B64), ('ulp', 4)),
         'hypot': (np.hypot(A64, B64), ('ulp', 4)), 'div_rn': (A64 / B64, ('exact',)), 'fdiv': (A64 / B64, ('ulp', 2)),
         'minmax': (np.minimum(A64, B64) * 2 + np.maximum(A64, B64), ('exact',)),
         'where': (np.where(A64 > B64, A64 - B64, B64 * 3), ('exact',)), 'clamp': (np.clip(A64, -np.abs(B64), np.abs(B64)), ('exact',))}
for op, (want, tol) in bin_f.items():
    xa = a * 10 if op == 'fmod' else a
    if op == 'fmod':
        want = np.fmod(xa.astype(np.float64), B64)
        tol = ('exact',)
    xb = np.abs(b) if op == 'clamp' else b  # tl.clamp needs lo <= hi
    case(f'tt_binary_{op}_f32', K.binary, [Buf('f32', xa), Buf('f32', xb), Buf('f32', count=n, expect=want.astype(np.float32), tol=tol), Scalar(n)],
         ['*f32', '*f32', '*f32', 'i32'], [2], {'OP': op, 'BLOCK': 256})
ua = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
ub = rng.integers(1, 2**32, n, dtype=np.uint64).astype(np.uint32)
case('tt_binary_umulhi_u32', K.binary, [Buf('u32', ua), Buf('u32', ub), Buf('u32', count=n, expect=((ua.astype(np.uint64) * ub.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)), Scalar(n)],
     ['*u32'] * 3 + ['i32'], [2], {'OP': 'umulhi', 'BLOCK': 256})
for dt in ('i32', 'u32', 'i64', 'i16', 'u16'):
    t = NP[dt]
    info = np.iinfo(t)
    xa = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
    xb = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
    xb[xb == 0] = 3
    if info.min < 0:
        xb[(xa == info.min) & (xb == -1)] = 5
    # Triton's // and % truncate toward zero (C semantics)
    A_, B_ = xa.astype(object), xb.astype(object)
    q = np.array([abs(p) // abs(r) * (1 if (p >= 0) == (r >= 0) else -1) for p, r in zip(A_, B_)], dtype=object)
    rem = A_ - q * B_
    want = np.array([(int(qq) + int(rr) * 1000) for qq, rr in zip(q, rem)], dtype=object)
    bits = 8 * np.dtype(t).itemsize
    wrap = np.array([((int(w) + (1 << bits)) % (1 << bits)) for w in want], dtype=np.uint64)
    want = wrap.astype(np.dtype(t).str.replace('i', 'u')).view(t)
    case(f'tt_binary_idiv_{dt}', K.binary, [Buf(dt, xa), Buf(dt, xb), Buf(dt, count=n, expect=want), Scalar(n)],
         ['*' + dt] * 3 + ['i32'], [2], {'OP': 'idiv', 'BLOCK': 256})
for dt in ('i32', 'u32', 'i64', 'u64'):
    t = NP[dt]
    info = np.iinfo(t)
    xa = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
    xb = rng.integers(info.min, info.max, n, endpoint=True, dtype=t)
    with np.errstate(over='ignore'):
        sh = (xa << (xb & t(15))) ^ (xa >> (xb & t(7)))
        bt = (xa & xb) | ((xa ^ xb) << t(3))
    case(f'tt_binary_shifts_{dt}', K.binary, [Buf(dt, xa), Buf(dt, xb), Buf(dt, count=n, expect=sh), Scalar(n)], ['*' + dt] * 3 + ['i32'], [2], {'OP': 'shifts', 'BLOCK': 256})
    case(f'tt_binary_bits_{dt}', K.binary, [Buf(dt, xa), Buf(dt, xb), Buf(dt, count=n, expect=bt), Scalar(n)], ['*' + dt] * 3 + ['i32'], [2], {'OP': 'bits', 'BLOCK': 256})

# --- atomics ------------------------------------------------------------------------------------
n = 1000
x = rng.integers(-2**20, 2**20, n).astype(np.int32)
b = np.arange(n) % 8
red = lambda f, init: np.array([f(x[b == i]) for i in range(8)], np.int32)  # noqa: E731
case('tt_atomics_i32', K.atomics,
     [Buf('i32', x), Buf('i32', np.zeros(8, np.int32), expect=red(np.sum, 0)), Buf('i32', np.full(8, -2**31, np.int32), expect=red(np.max, 0)),
      Buf('i32', np.full(8, 2**31 - 1, np.int32), expect=red(np.min, 0)), Buf('i32', np.full(8, -1, np.int32), expect=red(np.bitwise_and.reduce, 0)),
      Buf('i32', np.zeros(8, np.int32), expect=red(np.bitwise_or.reduce, 0)), Scalar(n)], ['*i32'] * 6 + ['i32'], [4], {'BLOCK': 256})
x = (rng.integers(-64, 64, n) / 8).astype(np.float32)  # exact in any order
case('tt_atomic_fadd_f32', K.atomic_fadd, [Buf('f32', x), Buf('f32', np.zeros(4, np.float32), expect=np.array([x[np.arange(n) % 4 == i].sum() for i in range(4)], np.float32)), Scalar(n)],
     ['*f32', '*f32', 'i32'], [4], {'BLOCK': 256}, num_warps=2)
x = (rng.integers(-64, 64, 8 * 128) / 4).astype(np.float32)
case('tt_spin_lock', K.spin_lock_sum, [Buf('f32', x), Buf('f32', np.zeros(1, np.float32), expect=np.array([x.sum()], np.float32)), Buf('i32', np.zeros(1, np.int32), expect=np.zeros(1, np.int32))],
     ['*f32', '*f32', '*i32'], [8], {'BLOCK': 128})
x = rng.integers(0, 32, 1024).astype(np.int32)
case('tt_histogram', K.histogram, [Buf('i32', x), Buf('i32', count=32, expect=np.bincount(x, minlength=32).astype(np.int32)), Scalar(1024)],
     ['*i32', '*i32', 'i32'], [1], {'BINS': 32, 'BLOCK': 1024})

# --- shapes and layouts -------------------------------------------------------------------------
for dt, R, C in (('f32', 32, 64), ('f16', 64, 16), ('i8', 32, 32), ('f64', 16, 8)):
    x = (rng.integers(-100, 100, R * C)).astype(NP[dt])
    case(f'tt_transpose_{dt}', K.transpose2d, [Buf(dt, x), Buf(dt, count=R * C, expect=x.reshape(R, C).T.ravel())], ['*' + dt] * 2, [1], {'R': R, 'C': C})
N = 64
xa, xb = f32(N), f32(N)
case('tt_join_split', K.join_split, [Buf('f32', xa), Buf('f32', xb), Buf('f32', count=2 * N, expect=np.stack([xa, xb], 1).ravel()),
                                     Buf('f32', count=2 * N, expect=np.stack([xa, xb], 1).ravel()), Buf('f32', count=N, expect=xa * 2), Buf('f32', count=N, expect=xb * 2)],
     ['*f32'] * 6, [1], {'N': N})
R, C = 37, 45
x = f32(R * C)
case('tt_masked_2d', K.masked_2d, [Buf('f32', x), Buf('f32', count=R * C, expect=(x.reshape(R, C) * 2 + np.arange(R)[:, None]).astype(np.float32).ravel()),
                                   Scalar(R), Scalar(C), Scalar(C)], ['*f32', '*f32', 'i32', 'i32', 'i32'], [3, 2], {'BR': 16, 'BC': 32})
n = 3000
x = rng.integers(-2**40, 2**40, n).astype(np.int64)
case('tt_int64_index', K.int64_index, [Buf('i64', x), Buf('i64', count=n, expect=x * 3 - (x >> 7) + np.arange(n)), Scalar(n)], ['*i64', '*i64', 'i64'], [3], {'BLOCK': 1024}, num_warps=8)


# --- batch 2: block pointers, custom combine functions, gather, inline asm, pipelined loops -----
M, N, Kd = 40, 24, 48
A = f32(M * Kd).reshape(M, Kd).astype(np.float16)
Bm = f32(Kd * N).reshape(Kd, N).astype(np.float16)
case('tt_block_ptr_matmul', K.block_ptr_matmul, [Buf('f16', A), Buf('f16', Bm), Buf('f32', count=M * N, expect=(A.astype(np.float64) @ Bm.astype(np.float64)).astype(np.float32), tol=close(1e-5, 1e-5)),
                                                 Scalar(M), Scalar(N), Scalar(Kd)], ['*f16', '*f16', '*f32', 'i32', 'i32', 'i32'], [3, 2], {'BM': 16, 'BN': 16, 'BK': 16})
R, C = 4, 64
x = rng.integers(-50, 50, R * C).astype(np.float32)
yv = rng.integers(-1, 2, R * C).astype(np.float32)  # the scan's multipliers: |result| stays small and exact
xr, yr = x.reshape(R, C), yv.reshape(R, C)
amax = np.abs(xr).argmax(1)  # first index of the largest |x|
scan = np.zeros((R, C), np.float32)
for r in range(R):
    b_ = xr[r, 0]
    scan[r, 0] = b_
    for k in range(1, C):  # scan of (a, b) pairs with (a1,b1) o (a2,b2) = (a1*a2, b1*a2 + b2), a = y, b = x
        b_ = b_ * yr[r, k] + xr[r, k]
        scan[r, k] = b_
case('tt_custom_reduce_scan', K.custom_reduce_scan, [Buf('f32', x), Buf('f32', yv), Buf('f32', count=R, expect=xr[np.arange(R), amax]),
                                                     Buf('i32', count=R, expect=amax.astype(np.int32)), Buf('f32', count=R * C, expect=scan.ravel())],
     ['*f32', '*f32', '*f32', '*i32', '*f32'], [R], {'C': C})
C = 128
x = f32(C)
j = rng.integers(0, C, C).astype(np.int32)
case('tt_gather', K.gather_rows, [Buf('f32', x), Buf('i32', j), Buf('f32', count=C, expect=x[j])], ['*f32', '*i32', '*f32'], [1], {'C': C})
n = 256
ua = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
ub = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
# prmt 0x3210 passes the first operand's bytes through; shf.l.wrap with lo = hi = x rotates x left by 7
want = np.array([((int(p) << 7) | (int(p) >> 25)) & 0xFFFFFFFF for p in ua], np.uint32)
case('tt_inline_asm_prmt_shf', K.inline_asm_prmt, [Buf('u32', ua), Buf('u32', ub), Buf('u32', count=n, expect=want), Scalar(n)], ['*u32', '*u32', '*u32', 'i32'], [1], {'BLOCK': 256})
R, C = 8, 128
x = rng.permutation(R * C).astype(np.float32)
case('tt_max_return_indices', K.max_with_indices, [Buf('f32', x), Buf('f32', count=R, expect=x.reshape(R, C).max(1)), Buf('i32', count=R, expect=x.reshape(R, C).argmax(1).astype(np.int32))],
     ['*f32', '*f32', '*i32'], [R], {'C': C}, num_warps=2)
R, C = 6, 512
x = rng.integers(-64, 64, R * C).astype(np.float32)
case('tt_pipelined_rowsum', K.pipelined_rowsum, [Buf('f32', x), Buf('f32', count=R, expect=x.reshape(R, C).sum(1)), Scalar(R)], ['*f32', '*f32', 'i32'], [R], {'C': C, 'BC': 64}, num_stages=3)

for f in failures:
    print('NOT IN CORPUS:', f)
