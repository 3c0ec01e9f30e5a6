# Compiles the CUDA C++ kernels in cuda100/*.cu with nvcc for sm_100a (one module per source file)
# and writes each case, named cu100_<entry>, with its inputs and a numpy reference (see
# corpus_io.py). The kernels drive tcgen05 through inline PTX with descriptors of their own (see
# cuda100/tcgen05.cuh); corpus-sm100.test.ts runs them with the sim as a B200.
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_io import Buf, TMap, bf16_bits, write_case  # noqa: E402

NVCC = os.environ.get('NVCC', '/usr/local/cuda/bin/nvcc')
rng = np.random.default_rng(10010)
VERSION = subprocess.run([NVCC, '--version'], capture_output=True, text=True).stdout.strip().splitlines()[-1]


def ptx_of(src):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, f'{src}.ptx')
        subprocess.run([NVCC, '-ptx', '-arch=sm_100a', '-O3', '-std=c++17', '-o', out,
                        os.path.join(HERE, 'cuda100', f'{src}.cu')], check=True)
        return open(out).read()


def case(src, entry, grid, block, args, shared=0, need=()):
    ptx = ptx_of(src)
    assert '.target sm_100a' in ptx, entry
    for s in need:
        assert s in ptx, f'{entry}: no {s} in the PTX'
    write_case(f'cu100_{entry}', f'nvcc ({VERSION}) -arch=sm_100a: scripts/corpus/cuda100/{src}.cu', ptx,
               entry, list(grid) + [1] * (3 - len(grid)), list(block) + [1] * (3 - len(block)), shared, args)


def small_f16(shape):
    # multiples of 1/8 in [-2, 2]: every product and the sums over K = 64 are exact in f32
    return (rng.integers(-16, 17, shape) / 8).astype(np.float16)


TC = ('tcgen05.alloc.cta_group::1', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one', 'tcgen05.ld.sync.aligned.32x32b',
      'tcgen05.wait::ld', 'tcgen05.dealloc', 'tcgen05.relinquish_alloc_permit')

# f16 x f16 -> f32, A K-major and B MN-major, 128B swizzle, M = 128, K = 64, N = 128 and 256
for n in (128, 256):
    A, B = small_f16((128, 64)), small_f16((64, n))
    C = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
    case('tc_f16', f'tc_f16_128x{n}x64', [1], [128], [Buf('f16', A), Buf('f16', B), Buf('f32', count=C.size, expect=C.ravel())],
         shared=1024 + 16384 + 64 * n * 2 + 16, need=TC + ('tcgen05.mma.cta_group::1.kind::f16',))

# kind::f8f6f4, e4m3 x e5m2 -> f32 (A K-major no swizzle, B K-major 64B swizzle), N = 64: the
# values are multiples of 1/8 (e4m3) and 1/4 (e5m2), so every sum is exact in f32
a8 = (rng.integers(-32, 33, (128, 64)) / 8).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
b8 = (rng.integers(-16, 17, (64, 64)) / 4).astype(np.float32).astype(ml_dtypes.float8_e5m2)
C = (a8.astype(np.float64) @ b8.astype(np.float64)).astype(np.float32)
case('tc_8bit', 'tc_f8f6f4_e4m3_e5m2', [1], [128],
     [Buf('u8', a8.view(np.uint8)), Buf('u8', b8.view(np.uint8)), Buf('u32', count=C.size, expect=C.view(np.uint32).ravel())],
     shared=1024 + 8192 + 4096 + 16, need=TC + ('tcgen05.mma.cta_group::1.kind::f8f6f4',))

# kind::i8, s8 (A MN-major, 64B swizzle) x u8 (B K-major, no swizzle) -> s32, N = 128, full ranges
ai = rng.integers(-128, 128, (128, 64)).astype(np.int8)
bi = rng.integers(0, 256, (64, 128)).astype(np.uint8)
C = ai.astype(np.int64) @ bi.astype(np.int64)
case('tc_8bit', 'tc_i8_s8u8_mn_a', [1], [128], [Buf('i8', ai), Buf('u8', bi), Buf('i32', count=C.size, expect=C.astype(np.int32).ravel())],
     shared=1024 + 8192 + 8192 + 16, need=TC + ('tcgen05.mma.cta_group::1.kind::i8',))

# TMA-fed kind::f16 on 2 CTAs: the operands arrive by cp.async.bulk.tensor through 128B-swizzled
# tensor maps (CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, SWIZZLE_128B = 3), C = 128 x 256
A, B = small_f16((128, 64)), small_f16((64, 256))
C = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
mapA = TMap(Buf('f16', A), 6, [64, 128], [64 * 2], [64, 128], [1, 1], 0, 3, 0, 0)
mapB = TMap(Buf('f16', B), 6, [256, 64], [256 * 2], [64, 64], [1, 1], 0, 3, 0, 0)
case('tc_tma_f16', 'tc_tma_f16', [2], [128], [mapA, mapB, Buf('f32', count=C.size, expect=C.ravel())],
     shared=1024 + 16384 + 16384 + 32,
     need=TC + ('cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes', 'tcgen05.mma.cta_group::1.kind::f16'))

# A in tensor memory (tcgen05.st, then [a_tmem] operands), M = 64 (half the datapath), bf16, two
# commits to one mbarrier (phases 0 and 1); B K-major with the 32B swizzle
A = (rng.integers(-16, 17, (64, 64)) / 8).astype(np.float32)
B = (rng.integers(-16, 17, (64, 64)) / 8).astype(np.float32)
C = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
case('tc_tmem_a', 'tc_bf16_tmem_a_m64', [1], [128], [Buf('bf16', bf16_bits(A)), Buf('bf16', bf16_bits(B)), Buf('f32', count=C.size, expect=C.ravel())],
     need=TC + ('tcgen05.st.sync.aligned.32x32b.x32', 'tcgen05.wait::st', 'tcgen05.mma.cta_group::1.kind::f16 [%r'))

# kind::mxf8f6f4.block_scale.scale_vec::1X, e4m3 x e4m3 with ue8m0 scales 2^-1..2^1 per row of A
# (column of B) and 32 of K, copied into tensor memory by tcgen05.cp.32x128b.warpx4 from the
# ((32,4),4) tile (row r byte 4j + id: the scale of row r + 32j for K block id; the other bytes
# hold other exponents, so reading the wrong byte changes the result); exact sums
a8 = (rng.integers(-16, 17, (128, 64)) / 8).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
b8 = (rng.integers(-16, 17, (64, 64)) / 8).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
ea = rng.integers(126, 129, (128, 2))
eb = rng.integers(126, 129, (64, 2))


def scale_tile(e, rows):
    t = rng.integers(120, 123, 512).astype(np.uint8)  # noise: exponents no scale uses
    for r in range(rows):
        for kk in range(2):
            t[(r % 32) * 16 + 4 * (r // 32) + kk] = e[r, kk]
    return t


As = a8.astype(np.float64) * np.repeat(2.0 ** (ea - 127), 32, axis=1)
Bs = b8.astype(np.float64) * np.repeat(2.0 ** (eb - 127), 32, axis=1).T
C = (As @ Bs).astype(np.float32)
case('tc_mxf8', 'tc_mxf8_e4m3_scaled', [1], [128],
     [Buf('u8', a8.view(np.uint8)), Buf('u8', b8.view(np.uint8)), Buf('u8', scale_tile(ea, 128)), Buf('u8', scale_tile(eb, 64)),
      Buf('f32', count=C.size, expect=C.ravel())],
     need=TC + ('tcgen05.cp.cta_group::1.32x128b.warpx4', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X'))
