# Compiles Triton kernels of triton_kernels.py for Blackwell (cc 100: `.target sm_100a`, tcgen05
# MMAs into tensor memory) and writes each case, named tt100_*, with its inputs and numpy reference
# (see corpus_io.py). Triton 3.8 writes `.version 9.3`; the toolkit's ptxas 13.0 (the project's
# reference assembler) takes the same PTX once the line says `.version 9.0`, so the case holds the
# rewritten text. Run through `npm run corpus:regen`; corpus-sm100.test.ts runs them on the sim as
# sm_100.
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault('TRITON_CACHE_DIR', tempfile.mkdtemp(prefix='tessera-corpus100-'))
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import triton_kernels as K  # noqa: E402
import triton_kernels_sm90 as K90  # noqa: E402
import triton_kernels_sm100 as K100  # noqa: E402
# after our triton_kernels: Gluon's import would otherwise bind that name to a package of its own
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

import gluon_kernels_sm100 as G100  # noqa: E402
from corpus_io import Buf, Scalar, Scratch, bf16_bits, bf16_float, write_case  # noqa: E402
from host_desc import HostDesc  # noqa: E402

TARGET = GPUTarget('cuda', 100, 32)
rng = np.random.default_rng(10000)
failures = []
TY = {'f16': 'fp16', 'f32': 'fp32', 'bf16': 'bf16', 'i32': 'i32', 'i8': 'i8', 'u8': 'u8', 'fp8e5': 'fp8e5', 'fp8e4nv': 'fp8e4nv'}


def case(name, fn, args, sig, grid, constexprs, num_warps=4, num_stages=1, need='tcgen05.mma', source=ASTSource, num_ctas=1):
    """sig: the Triton type of each runtime arg, in order. need: a PTX opcode the kernel must
    contain (so a case meant to exercise tcgen05 fails to generate rather than silently not).
    source: GluonASTSource for a Gluon kernel."""
    signature, it = {}, iter(sig)
    for n in fn.arg_names:
        signature[n] = 'constexpr' if n in constexprs else next(it)
    signature = {n: ('*' + TY[t[1:]] if t.startswith('*') else TY.get(t, t)) if t != 'constexpr' else t
                 for n, t in signature.items()}
    try:
        k = triton.compile(source(fn, signature, constexprs), target=TARGET,
                           options={'num_warps': num_warps, 'num_stages': num_stages, 'num_ctas': num_ctas})
    except Exception as e:  # noqa: BLE001
        failures.append(f'{name}: triton cannot compile it for sm_100a: {str(e).splitlines()[0][:200]}')
        return
    ptx = k.asm['ptx']
    assert '.target sm_100a' in ptx, name
    if need and need not in ptx:
        failures.append(f'{name}: the PTX has no {need}')
        return
    ptx = re.sub(r'^\.version 9\.\d+$', '.version 9.0', ptx, count=1, flags=re.M)
    md = k.metadata  # md.num_warps counts a warp-specialized kernel's worker warps too (its .reqntid)
    metas = iter(getattr(md, 'tensordesc_meta', None) or [])
    args = [x for a in args for x in (a.expand(next(metas)) if isinstance(a, HostDesc) else [a])]
    nprog = grid[0] * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
    extra = [Scratch(md.global_scratch_size * nprog), Scratch(getattr(md, 'profile_scratch_size', 0) * nprog)]
    g = list(grid) + [1] * (3 - len(grid))
    write_case(name, f'triton {triton.__version__} cc 100: {fn.__name__} num_warps={num_warps} num_stages={num_stages} (.version 9.3 -> 9.0)',
               ptx.replace(os.path.dirname(os.path.abspath(__file__)) + '/', 'scripts/corpus/'), md.name, g,
               [32 * md.num_warps, 1, 1], md.shared, list(args) + extra)


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


def mm_case(name, dt, out_dt, prec, M, N, Kd, BM, BN, BK, stages, nw=4, tol=None):
    store = dt
    if dt == 'i8':
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
    if dt != 'i8':
        ref = ref.astype(np.float16 if out_dt == 'f16' else np.float32)
    case(name, K.matmul, [Buf(store, A), Buf(store, B), Buf(out_dt, count=M * N, expect=ref, tol=tol or ('exact',)),
                          Scalar(M), Scalar(N), Scalar(Kd), Scalar(Kd), Scalar(1), Scalar(N), Scalar(1), Scalar(N), Scalar(1)],
         ['*' + dt, '*' + dt, '*' + out_dt] + ['i32'] * 9, [((M + BM - 1) // BM) * ((N + BN - 1) // BN)],
         {'BM': BM, 'BN': BN, 'BK': BK, 'GROUP': 2, 'PREC': prec, 'OUT': tl.int32 if dt == 'i8' else tl.float32},
         num_warps=nw, num_stages=stages)


mm_case('tt100_matmul_f16', 'f16', 'f32', 'ieee', 128, 128, 64, 128, 128, 64, 1, tol=close(1e-5, 1e-5))
mm_case('tt100_matmul_f16_2x2', 'f16', 'f32', 'ieee', 256, 256, 128, 128, 128, 64, 1, tol=close(1e-5, 1e-5))
mm_case('tt100_matmul_f16_pipelined', 'f16', 'f32', 'ieee', 128, 256, 256, 128, 128, 64, 3, tol=close(1e-5, 1e-5))
mm_case('tt100_matmul_f16_f16out', 'f16', 'f16', 'ieee', 128, 64, 64, 128, 64, 32, 1, tol=close(2e-3, 1e-3))
mm_case('tt100_matmul_bf16', 'bf16', 'f32', 'ieee', 128, 64, 128, 128, 64, 64, 2, tol=close(1e-5, 1e-5))
mm_case('tt100_matmul_tf32', 'f32', 'f32', 'tf32', 128, 64, 64, 128, 64, 32, 2, tol=close(1e-2, 1e-2))
mm_case('tt100_matmul_f16_m64', 'f16', 'f32', 'ieee', 64, 64, 64, 64, 64, 32, 1, tol=close(1e-5, 1e-5))

mm_case('tt100_matmul_i8', 'i8', 'i32', 'ieee', 128, 64, 128, 128, 64, 64, 2)

# fp8 (e5m2, e4m3): B given transposed (K-major), finite values of magnitude below 16 so the f32
# accumulator's roundings stay within the tolerance of the float64 reference
for dt, name, dec in (('fp8e5', 'tt100_matmul_fp8e5', e5), ('fp8e4nv', 'tt100_matmul_fp8e4', e4)):
    M, N, Kd = 128, 64, 128
    A8 = rng.integers(0, 256, (M, Kd)).astype(np.uint8)
    B8 = rng.integers(0, 256, (N, Kd)).astype(np.uint8)
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
         ['*' + dt, '*' + dt, '*f32', 'i32', 'i32', 'i32'], [1, 1], {'BM': 128, 'BN': 64, 'BK': 64})

# flash attention forward (Triton's tutorial shape, non-causal): S = QK^T and O += PV on tcgen05,
# the online softmax between them on tensor-memory loads and stores
L, D = 256, 64
q, k, v = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(3))
s = q.astype(np.float64) @ k.astype(np.float64).T * 0.125
p = np.exp(s - s.max(1, keepdims=True))
o = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
case('tt100_attention_fwd', K.attention_fwd, [Buf('f16', q), Buf('f16', k), Buf('f16', v),
                                              Buf('f16', count=L * D, expect=o.astype(np.float16), tol=close(1e-2, 2e-3)), Scalar(0.125)],
     ['*f16'] * 4 + ['f32'], [L // 128], {'L': L, 'D': D, 'BM': 128, 'BN': 64})

# tl.dot_scaled (microscaled matmul): e4m3 x e4m3 becomes kind::mxf8f6f4 (A stored into tensor
# memory), e2m1 x e2m1 kind::mxf4 (two e2m1 a byte in shared memory), e4m3 x e2m1 kind::mxf8f6f4
# with B's e2m1 in the padded 16-byte chunks; the e8m0 scales go to tensor memory with
# tcgen05.st. The reference decodes every element and scale (2^(s-127)) in float64. A rng of its
# own keeps the cases above unchanged.
rng_mx = np.random.default_rng(10029)


def e2m1(u):
    u = u.astype(np.int64)
    s, e, m = u >> 3, (u >> 1) & 3, u & 1
    v = np.where(e == 0, m * 0.5, (1 + m / 2.0) * 2.0 ** (e - 1.0))
    return np.where(s == 1, -v, v)


def mx_operand(fmt, rows, k):
    """fmt codes for rows x k elements (e4m3: exponents up to 2^3, no NaN), their bytes (e2m1: two
    per byte along k, the even element low) and float64 values."""
    if fmt == 'e4m3':
        u = rng_mx.integers(0, 256, (rows, k)).astype(np.uint8)
        e = (u >> 3) & 15
        u[e > 10] = (u[e > 10] & 0x87) | (10 << 3)
        return u, e4(u)
    u = rng_mx.integers(0, 16, (rows, k)).astype(np.uint8)
    return (u[:, 0::2] | (u[:, 1::2] << 4)).astype(np.uint8), e2m1(u)


def dot_scaled_case(name, fa, fb, M, N, Kd, BM=128, BN=128, BK=128):
    a, av = mx_operand(fa, M, Kd)
    bt, bv = mx_operand(fb, N, Kd)  # B transposed: N x K, packed along K
    b = np.ascontiguousarray(bt.T)  # K/PB x N
    sa = rng_mx.integers(120, 134, (M, Kd // 32)).astype(np.uint8)
    sb = rng_mx.integers(120, 134, (N, Kd // 32)).astype(np.uint8)
    sa[3, 0], sb[5, Kd // 32 - 1] = 127 - 20, 127 + 20  # ragged: scales far from 1
    A = av * np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
    B = bv * np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1)
    ref = (A @ B.T).astype(np.float32)
    # the f32 accumulator rounds each MMA's partial sum: an absolute tolerance from the largest
    # sum of |products| (cancellation leaves results far smaller than their terms)
    atol = float((np.abs(A) @ np.abs(B).T).max()) * 2.0 ** -20
    case(name, K100.dot_scaled, [Buf('u8', a), Buf('u8', sa), Buf('u8', b), Buf('u8', sb),
                                 Buf('f32', count=M * N, expect=ref, tol=close(1e-5, atol)), Scalar(M), Scalar(N), Scalar(Kd)],
         ['*u8', '*u8', '*u8', '*u8', '*f32', 'i32', 'i32', 'i32'], [M // BM, N // BN],
         {'BM': BM, 'BN': BN, 'BK': BK, 'FA': fa, 'FB': fb}, need='block_scale')


dot_scaled_case('tt100_dot_scaled_mxfp8', 'e4m3', 'e4m3', 128, 128, 256)
dot_scaled_case('tt100_dot_scaled_mxfp4', 'e2m1', 'e2m1', 128, 256, 256)
dot_scaled_case('tt100_dot_scaled_mxfp8_mxfp4', 'e4m3', 'e2m1', 256, 128, 128)
# N = 256 in one MMA: scale_B's 256 columns in 8 tensor-memory columns
dot_scaled_case('tt100_dot_scaled_mxfp4_n256', 'e2m1', 'e2m1', 128, 256, 256, BN=256)

# second tiles (appended after the cases above so their inputs stay as they were)
mm_case('tt100_matmul_bf16_128x128', 'bf16', 'f32', 'ieee', 256, 128, 128, 128, 128, 32, 2, tol=close(1e-5, 1e-5))
mm_case('tt100_matmul_tf32_128x128', 'f32', 'f32', 'tf32', 128, 128, 64, 128, 128, 16, 1, tol=close(1e-2, 1e-2))
mm_case('tt100_matmul_i8_128x128', 'i8', 'i32', 'ieee', 128, 256, 128, 128, 128, 128, 1)


# flash attention forward, causal (row m sees keys n <= m) and not, at D = 64 and 128
def attention_case(name, fn, L, D, BN):
    q, k, v = (f32(L * D).reshape(L, D).astype(np.float16) for _ in range(3))
    sc = 1.0 / np.sqrt(D)
    s = q.astype(np.float64) @ k.astype(np.float64).T * sc
    if fn is K100.attention_fwd_causal:
        s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    o = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
    case(name, fn, [Buf('f16', q), Buf('f16', k), Buf('f16', v),
                    Buf('f16', count=L * D, expect=o.astype(np.float16), tol=close(1e-2, 2e-3)), Scalar(sc)],
         ['*f16'] * 4 + ['f32'], [L // 128], {'L': L, 'D': D, 'BM': 128, 'BN': BN})


attention_case('tt100_attention_fwd_causal', K100.attention_fwd_causal, 256, 64, 64)
attention_case('tt100_attention_fwd_d128', K.attention_fwd, 256, 128, 64)
attention_case('tt100_attention_fwd_causal_d128', K100.attention_fwd_causal, 256, 128, 64)


# persistent (tensor descriptors, 2 programs over 4 tiles) and warp-specialized matmuls, f16 in, f32 out
def desc_mm_case(name, fn, M, N, Kd, grid, extra, stages):
    A = f32(M * Kd).reshape(M, Kd).astype(np.float16)
    B = f32(N * Kd).reshape(N, Kd).astype(np.float16)
    ref = (A.astype(np.float64) @ B.astype(np.float64).T).astype(np.float32)
    case(name, fn, [Buf('f16', A), Buf('f16', B), Buf('f32', count=M * N, expect=ref, tol=close(1e-5, 1e-5)),
                    Scalar(M), Scalar(N), Scalar(Kd)],
         ['*f16', '*f16', '*f32', 'i32', 'i32', 'i32'], grid, dict({'BM': 128, 'BN': 128, 'BK': 64}, **extra),
         num_stages=stages)


desc_mm_case('tt100_matmul_persistent_tma', K100.matmul_persistent_tma, 256, 256, 128, [2], {'NPROG': 2}, 3)
desc_mm_case('tt100_matmul_ws', K100.matmul_ws, 256, 128, 256, [2, 1], {}, 3)

# persistent matmuls over host tensor descriptors: 2 programs walk the 4 output tiles (2 each),
# plain and warp-specialized (tl.range(..., warp_specialize=True): load, MMA and epilogue
# partitions with setmaxnreg, 8 warps). A rng of its own keeps the cases above unchanged.
rng_pm = np.random.default_rng(10031)
for ws in (False, True):
    M = N = 256
    Kd = 320
    A = (rng_pm.integers(-4, 5, (M, Kd)) / 4).astype(np.float16)
    B = (rng_pm.integers(-4, 5, (Kd, N)) / 4).astype(np.float16)
    ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16)
    case('tt100_persistent_matmul' + ('_ws' if ws else ''), K100.persistent_desc_matmul,
         [HostDesc(Buf('f16', A), [M, Kd]), HostDesc(Buf('f16', B), [Kd, N]),
          HostDesc(Buf('f16', count=M * N, expect=ref, tol=close(2e-3, 2e-3)), [M, N]), Scalar(M), Scalar(N), Scalar(Kd)],
         ['tensordesc<fp16[128, 64]>', 'tensordesc<fp16[64, 128]>', 'tensordesc<fp16[128, 128]>', 'i32', 'i32', 'i32'], [2],
         {'BM': 128, 'BN': 128, 'BK': 64, 'NUM_SMS': 2, 'WS': ws}, num_stages=3, need='setmaxnreg' if ws else 'tcgen05.mma')

# cluster launch control (Gluon: clc.try_cancel / load_result): 40 blocks of 512, each CTA takes
# further blocks by cancelling launches that have not started; hits counts each block's CTAs.
rng_clc = np.random.default_rng(10047)
n_clc = 40 * 512 - 100
xc, yc = rng_clc.uniform(-1, 1, n_clc).astype(np.float32), rng_clc.uniform(-1, 1, n_clc).astype(np.float32)
case('tt100_gluon_clc_add', G100.clc_add, [Buf('f32', xc), Buf('f32', yc), Buf('f32', count=n_clc, expect=xc + yc),
                                     Buf('i32', count=40, expect=np.ones(40, np.int32)), Scalar(n_clc)],
     ['*f32', '*f32', '*f32', '*i32', 'i32'], [40], {'BLOCK': 512}, need='clusterlaunchcontrol.try_cancel',
     source=GluonASTSource)

# the 2-CTA MMA (Gluon: TensorMemoryLayout(two_ctas=True), num_ctas=2; `.reqnctapercluster 2`): a
# 256 x 128 f32 tile from 256 x 64 and 64 x 128 f16 on one CTA pair
rng_2cta = np.random.default_rng(10053)
A2 = (rng_2cta.integers(-8, 9, (256, 64)) / 8).astype(np.float16)
B2 = (rng_2cta.integers(-8, 9, (64, 128)) / 8).astype(np.float16)
case('tt100_gluon_matmul_2cta', G100.matmul_2cta,
     [Buf('f16', A2), Buf('f16', B2), Buf('f32', count=256 * 128, expect=(A2.astype(np.float64) @ B2.astype(np.float64)).astype(np.float32))],
     ['*f16', '*f16', '*f32'], [2], {'BM': 256, 'BN': 128, 'BK': 64}, need='tcgen05.mma.cta_group::2', source=GluonASTSource, num_ctas=2)

if failures:
    print('\n'.join(failures), file=sys.stderr)
    sys.exit(1)
