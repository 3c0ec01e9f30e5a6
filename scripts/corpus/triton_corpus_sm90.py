# Compiles Triton kernels of triton_kernels.py for Hopper (cc 90: `.target sm_90a`, wgmma and the
# sm_90 memory forms) and writes each case, named tt90_*, with its inputs and numpy reference (see
# corpus_io.py). Run through `npm run corpus:regen`; the corpus test runs these on the sim as sm_90.
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault('TRITON_CACHE_DIR', tempfile.mkdtemp(prefix='tessera-corpus90-'))
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import triton_kernels as K  # noqa: E402
import triton_kernels_sm90 as K90  # noqa: E402
from corpus_io import Buf, Scalar, Scratch, bf16_bits, bf16_float, write_case  # noqa: E402
from host_desc import HostDesc  # noqa: E402

TARGET = GPUTarget('cuda', 90, 32)
rng = np.random.default_rng(9090)
failures = []
TY = {'fp8e5': 'fp8e5', 'fp8e4nv': 'fp8e4nv', 'f16': 'fp16', 'f32': 'fp32', 'bf16': 'bf16', 'i8': 'i8', 'u8': 'u8',
      'i32': 'i32', 'u32': 'u32'}


def case(name, fn, args, sig, grid, constexprs=None, num_warps=4, num_stages=3, need=None):
    """sig: the Triton type of each runtime arg, in order. need: a PTX opcode the kernel must
    contain (so a case meant to exercise wgmma fails to generate rather than silently not)."""
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
        failures.append(f'{name}: triton cannot compile it for sm_90a: {str(e).splitlines()[0][:200]}')
        return
    ptx = k.asm['ptx']
    assert '.target sm_90a' in ptx, name
    if need and need not in ptx:
        failures.append(f'{name}: the PTX has no {need}')
        return
    md = k.metadata  # md.num_warps counts a warp-specialized kernel's producer warps too (its .reqntid)
    metas = iter(getattr(md, 'tensordesc_meta', None) or [])
    args = [x for a in args for x in (a.expand(next(metas)) if isinstance(a, HostDesc) else [a])]
    nprog = grid[0] * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
    extra = [Scratch(md.global_scratch_size * nprog), Scratch(getattr(md, 'profile_scratch_size', 0) * nprog)]
    g = list(grid) + [1] * (3 - len(grid))
    write_case(name, f'triton {triton.__version__} cc 90: {fn.__name__} num_warps={num_warps} num_stages={num_stages}',
               ptx.replace(os.path.dirname(os.path.abspath(__file__)) + '/', 'scripts/corpus/'), md.name, g, [32 * md.num_warps, 1, 1], md.shared, list(args) + extra)


def f32(n, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


def close(r, a=0.0):
    return ('close', r, a)


def e5(u):
    return (u.astype(np.uint16) << 8).view(np.float16).astype(np.float64)


def e4(u):
    u = u.astype(np.int64)
    s, e, m = u >> 7, (u >> 3) & 15, u & 7
    v = np.where(e == 0, m * 2.0 ** -9, (1 + m / 8.0) * 2.0 ** (e - 7.0))
    return np.where(s == 1, -v, v)


def mm_case(name, dt, out_dt, prec, M, N, Kd, BM, BN, BK, stages, nw=4, tol=None, need='wgmma.mma_async'):
    store = dt
    if dt in ('fp8e5', 'fp8e4nv'):
        store = 'u8'
        A = rng.integers(0, 256, (M, Kd)).astype(np.uint8)
        B = rng.integers(0, 256, (Kd, N)).astype(np.uint8)
        if dt == 'fp8e5':  # finite values only (exponent 31 is inf/NaN)
            A[(A & 0x7C) == 0x7C] &= 0xF3
            B[(B & 0x7C) == 0x7C] &= 0xF3
            ref = e5(A) @ e5(B)
        else:  # no NaN (S.1111.111)
            A[(A & 0x7F) == 0x7F] = 0x3F
            B[(B & 0x7F) == 0x7F] = 0x3F
            ref = e4(A) @ e4(B)
    elif dt == 'i8':
        A = rng.integers(-128, 128, (M, Kd)).astype(np.int8)
        B = rng.integers(-128, 128, (Kd, N)).astype(np.int8)
        ref = (A.astype(np.int64) @ B.astype(np.int64)).astype(np.int32)
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
    elif out_dt == 'f32':
        ref = ref.astype(np.float32)
    acc = 'int32' if dt == 'i8' else 'float32'
    case(name, K.matmul, [Buf(store, A), Buf(store, B), Buf(out_dt, count=M * N, expect=ref, tol=tol or ('exact',)),
                          Scalar(M), Scalar(N), Scalar(Kd), Scalar(Kd), Scalar(1), Scalar(N), Scalar(1), Scalar(N), Scalar(1)],
         ['*' + dt, '*' + dt, '*' + out_dt] + ['i32'] * 9, [((M + BM - 1) // BM) * ((N + BN - 1) // BN)],
         {'BM': BM, 'BN': BN, 'BK': BK, 'GROUP': 2, 'PREC': prec, 'OUT': getattr(tl, acc)}, num_warps=nw, num_stages=stages, need=need)


mm_case('tt90_matmul_f16', 'f16', 'f32', 'ieee', 128, 128, 64, 64, 64, 32, 1, tol=close(1e-5, 1e-5))
mm_case('tt90_matmul_f16_f16out', 'f16', 'f16', 'ieee', 64, 128, 64, 64, 128, 32, 1, tol=close(2e-3, 1e-3))
mm_case('tt90_matmul_f16_pipelined', 'f16', 'f32', 'ieee', 128, 128, 256, 64, 128, 64, 3, tol=close(1e-5, 1e-5))
mm_case('tt90_matmul_f16_w8', 'f16', 'f32', 'ieee', 128, 128, 128, 128, 128, 64, 3, nw=8, tol=close(1e-5, 1e-5))
mm_case('tt90_matmul_bf16', 'bf16', 'f32', 'ieee', 64, 64, 128, 64, 64, 64, 2, tol=close(1e-5, 1e-5))
mm_case('tt90_matmul_tf32', 'f32', 'f32', 'tf32', 64, 64, 64, 64, 64, 32, 2, tol=close(1e-2, 1e-2))
mm_case('tt90_matmul_i8', 'i8', 'i32', 'ieee', 64, 64, 128, 64, 64, 64, 2)

L, D = 128, 64
q, k, v = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(3))
s = q.astype(np.float64) @ k.astype(np.float64).T * 0.125
p = np.exp(s - s.max(1, keepdims=True))
o = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
case('tt90_attention_fwd', K.attention_fwd, [Buf('f16', q), Buf('f16', k), Buf('f16', v), Buf('f16', count=L * D, expect=o.astype(np.float16), tol=close(1e-2, 2e-3)), Scalar(0.125)],
     ['*f16'] * 4 + ['f32'], [L // 64], {'L': L, 'D': D, 'BM': 64, 'BN': 64}, need='wgmma.mma_async')

# device-side tensor descriptors: tensormap.replace in shared memory, tensormap.cp_fenceproxy to
# the global scratch, TMA loads and stores (odd sizes: the edge boxes are partly out of bounds)
M, N = 80, 72
x = f32(M * N, -8, 8)
case('tt90_tma_scale', K90.tma_scale, [Buf('f32', x), Buf('f32', count=M * N, expect=x * 2 + 1), Scalar(M), Scalar(N)],
     ['*f32', '*f32', 'i32', 'i32'], [3, 3], {'BM': 32, 'BN': 32}, need='tensormap.replace')
M, N, Kd = 96, 80, 96
A, B = f32(M * Kd).reshape(M, Kd).astype(np.float16), f32(Kd * N).reshape(Kd, N).astype(np.float16)
ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
case('tt90_tma_matmul', K90.tma_matmul, [Buf('f16', A), Buf('f16', B), Buf('f32', count=M * N, expect=ref, tol=close(1e-5, 1e-5)),
                                          Scalar(M), Scalar(N), Scalar(Kd)],
     ['*f16', '*f16', '*f32', 'i32', 'i32', 'i32'], [2, 2], {'BM': 64, 'BN': 64, 'BK': 32}, need='cp.async.bulk.tensor')

# fp8 on wgmma (e5m2, e4m3): B given transposed (K-major), as Triton's fp8 dot wants it
for dt, name, dec in (('fp8e5', 'tt90_matmul_fp8e5', e5), ('fp8e4nv', 'tt90_matmul_fp8e4', e4)):
    M, N, Kd = 64, 64, 128
    A8 = rng.integers(0, 256, (M, Kd)).astype(np.uint8)
    B8 = rng.integers(0, 256, (N, Kd)).astype(np.uint8)
    # magnitudes below 16 (exponent fields capped), so the accumulator's rounding after each wgmma
    # (K = 32 per instruction) stays within a few ulps of the partial sums (absolute 1e-3 at most)
    for X in (A8, B8):
        if dt == 'fp8e5':
            e = (X >> 2) & 31
            X[e > 18] = (X[e > 18] & 0x83) | (18 << 2)
        else:
            e = (X >> 3) & 15
            X[e > 10] = (X[e > 10] & 0x87) | (10 << 3)
    ref = (dec(A8) @ dec(B8).T).astype(np.float32)
    case(name, K90.fp8_matmul, [Buf('u8', A8), Buf('u8', B8), Buf('f32', count=M * N, expect=ref, tol=close(1e-5, 1e-3)),
                                Scalar(M), Scalar(N), Scalar(Kd)],
         ['*' + dt, '*' + dt, '*f32', 'i32', 'i32', 'i32'], [1, 1], {'BM': 64, 'BN': 64, 'BK': 64}, need='wgmma.mma_async')

# persistent matmul over device-side descriptors (2 programs walk 6 tiles), plain and
# warp-specialized; B is given as N x K
M, N, Kd = 192, 128, 128
A, Bt = f32(M * Kd).reshape(M, Kd).astype(np.float16), f32(N * Kd).reshape(N, Kd).astype(np.float16)
ref = (A.astype(np.float64) @ Bt.astype(np.float64).T).astype(np.float16)
for ws in (False, True):
    case('tt90_persistent_matmul' + ('_ws' if ws else ''), K90.persistent_matmul,
         [Buf('f16', A), Buf('f16', Bt), Buf('f16', count=M * N, expect=ref, tol=close(2e-3, 2e-3)), Scalar(M), Scalar(N), Scalar(Kd)],
         ['*f16', '*f16', '*f16', 'i32', 'i32', 'i32'], [2], {'BM': 64, 'BN': 64, 'BK': 64, 'NUM_SMS': 2, 'WS': ws},
         num_warps=4, num_stages=3, need='wgmma.mma_async')

# flash attention forward with wider heads and 8 warps (m64n128 wgmma, two warpgroups)
L, D = 256, 128
q, k, v = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(3))
s_ = q.astype(np.float64) @ k.astype(np.float64).T * 0.088
p_ = np.exp(s_ - s_.max(1, keepdims=True))
o_ = (p_ / p_.sum(1, keepdims=True)) @ v.astype(np.float64)
case('tt90_attention_fwd_d128_w8', K.attention_fwd, [Buf('f16', q), Buf('f16', k), Buf('f16', v), Buf('f16', count=L * D, expect=o_.astype(np.float16), tol=close(1e-2, 2e-3)), Scalar(0.088)],
     ['*f16'] * 4 + ['f32'], [L // 128], {'L': L, 'D': D, 'BM': 128, 'BN': 64}, num_warps=8, need='wgmma.mma_async')

# host-side tensor descriptors: the launcher encodes each CUtensorMap (cuTensorMapEncodeTiled) and
# passes it by value; odd sizes, so the edge boxes are partly out of bounds (zero-filled loads,
# clipped stores)
M, N = 80, 72
x = f32(M * N, -8, 8)
case('tt90_host_desc_scale', K90.host_desc_scale,
     [HostDesc(Buf('f32', x), [M, N]), HostDesc(Buf('f32', count=M * N, expect=x * 2 + 1), [M, N])],
     ['tensordesc<fp32[32, 32]>', 'tensordesc<fp32[32, 32]>'], [3, 3], {'BM': 32, 'BN': 32}, need='cp.async.bulk.tensor')
M, N, Kd = 96, 80, 96
A, B = f32(M * Kd).reshape(M, Kd).astype(np.float16), f32(Kd * N).reshape(Kd, N).astype(np.float16)
ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16)
case('tt90_host_desc_matmul', K90.host_desc_matmul,
     [HostDesc(Buf('f16', A), [M, Kd]), HostDesc(Buf('f16', B), [Kd, N]),
      HostDesc(Buf('f16', count=M * N, expect=ref, tol=close(2e-3, 2e-3)), [M, N]), Scalar(Kd)],
     ['tensordesc<fp16[64, 32]>', 'tensordesc<fp16[32, 64]>', 'tensordesc<fp16[64, 64]>', 'i32'], [2, 2],
     {'BM': 64, 'BN': 64, 'BK': 32}, need='wgmma.mma_async')

# flash attention backward (non-causal): Delta, then dK/dV and dQ on wgmma, against the float64
# gradients of softmax(Q K^T * scale) V
L, D, scale = 128, 64, 0.125
q, k, v, do = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(4))
q64, k64, v64, do64 = (t.astype(np.float64) for t in (q, k, v, do))
S = q64 @ k64.T * scale
P = np.exp(S - S.max(1, keepdims=True))
P /= P.sum(1, keepdims=True)
o = (P @ v64).astype(np.float16)
lse2 = ((S.max(1) + np.log(np.exp(S - S.max(1, keepdims=True)).sum(1))) * np.log2(np.e)).astype(np.float32)
delta = (o.astype(np.float64) * do64).sum(1)
dP = do64 @ v64.T
dS = P * (dP - delta[:, None])
dq, dk, dv = dS @ k64 * scale, dS.T @ q64 * scale, P.T @ do64
case('tt90_attention_bwd_pre', K90.attention_bwd_pre,
     [Buf('f16', o), Buf('f16', do), Buf('f32', count=L, expect=delta.astype(np.float32), tol=close(1e-5, 1e-5))],
     ['*f16', '*f16', '*f32'], [L // 64], {'D': D, 'BM': 64})
bwd_in = [Buf('f16', q), Buf('f16', k), Buf('f16', v), Buf('f16', do), Buf('f32', lse2), Buf('f32', delta.astype(np.float32))]
case('tt90_attention_bwd_dkdv', K90.attention_bwd_dkdv,
     bwd_in + [Buf('f16', count=L * D, expect=dk.astype(np.float16), tol=close(1e-2, 1e-4)),
               Buf('f16', count=L * D, expect=dv.astype(np.float16), tol=close(1e-2, 1e-4)), Scalar(scale)],
     ['*f16'] * 4 + ['*f32'] * 2 + ['*f16'] * 2 + ['f32'], [L // 64], {'L': L, 'D': D, 'BM': 64, 'BN': 64},
     need='wgmma.mma_async')
case('tt90_attention_bwd_dq', K90.attention_bwd_dq,
     bwd_in + [Buf('f16', count=L * D, expect=dq.astype(np.float16), tol=close(1e-2, 1e-4)), Scalar(scale)],
     ['*f16'] * 4 + ['*f32'] * 2 + ['*f16', 'f32'], [L // 64], {'L': L, 'D': D, 'BM': 64, 'BN': 64},
     need='wgmma.mma_async')

# warp-specialized host-descriptor matmul: the producer and consumer warps spin in mbarrier waits
# that share one label name in sibling { } blocks (waitLoop:), 4 k-steps over 3 stages
M, N, Kd = 96, 80, 128
A, B = f32(M * Kd).reshape(M, Kd).astype(np.float16), f32(Kd * N).reshape(Kd, N).astype(np.float16)
ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16)
case('tt90_host_desc_matmul_ws', K90.host_desc_matmul_ws,
     [HostDesc(Buf('f16', A), [M, Kd]), HostDesc(Buf('f16', B), [Kd, N]),
      HostDesc(Buf('f16', count=M * N, expect=ref, tol=close(2e-3, 2e-3)), [M, N]), Scalar(Kd)],
     ['tensordesc<fp16[64, 32]>', 'tensordesc<fp16[32, 64]>', 'tensordesc<fp16[64, 64]>', 'i32'], [2, 2],
     {'BM': 64, 'BN': 64, 'BK': 32}, need='setmaxnreg')

for f in failures:
    print('NOT IN CORPUS:', f)
