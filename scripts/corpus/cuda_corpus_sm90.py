# Compiles the CUDA C++ kernels in cuda90/*.cu with nvcc for sm_90a (one module per kernel) and
# writes each case, named cu90_*, with its inputs and a CPU reference (see corpus_io.py). The fp8
# reference is ml_dtypes' float8_e4m3fn/float8_e5m2 (round to nearest even) after clamping to the
# largest finite value, which is what .satfinite does for finite inputs.
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_io import Buf, Scalar, write_case  # noqa: E402

NVCC = os.environ.get('NVCC', '/usr/local/cuda/bin/nvcc')
rng = np.random.default_rng(9091)
VERSION = subprocess.run([NVCC, '--version'], capture_output=True, text=True).stdout.strip().splitlines()[-1]


def ptx_of(name):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, f'{name}.ptx')
        subprocess.run([NVCC, '-ptx', '-arch=sm_90a', '-O3', '-std=c++17', '-o', out,
                        os.path.join(HERE, 'cuda90', f'{name}.cu')], check=True)
        return open(out).read()


def case(name, grid, block, args, shared=0, need=None):
    ptx = ptx_of(name)
    assert '.target sm_90a' in ptx, name
    if need:
        assert need in ptx, f'{name}: no {need} in the PTX'
    write_case(f'cu90_{name}', f'nvcc ({VERSION}) -arch=sm_90a: scripts/corpus/cuda90/{name}.cu', ptx,
               name, list(grid) + [1] * (3 - len(grid)), list(block) + [1] * (3 - len(block)), shared, args)


# cp.async.bulk through cuda::memcpy_async + cuda::barrier
x = rng.integers(-1000, 1000, 4 * 256).astype(np.float32) / 8
want = np.zeros_like(x)
for b in range(4):
    for t in range(256):
        want[b * 256 + t] = x[b * 256 + 255 - t] * 2 + t
case('bulk_copy', [4], [256], [Buf('f32', x), Buf('f32', count=x.size, expect=want)], need='cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes')

# fp8 conversions
n = 256
v = np.concatenate([rng.uniform(-600, 600, 64), rng.uniform(-2, 2, 64), rng.uniform(-0.02, 0.02, 64),
                    np.array([0.0, -0.0, 448.0, 449.0, 464.0, 57344.0, 61440.0, 1e9, -1e9, np.inf, -np.inf, 2.0 ** -9, 2.0 ** -10,
                              3 * 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 1.0625, 1.1875, 1.125, 1.375]),
                    rng.uniform(-70000, 70000, 64 - 20)]).astype(np.float32)
v = np.concatenate([v, rng.uniform(-1, 1, 2 * n - v.size).astype(np.float32)])[:2 * n]
pairs = v.reshape(n, 2)  # float2 {x, y}


def fp8(a, dt, mx):
    c = np.clip(a.astype(np.float64), -mx, mx).astype(np.float32)
    return c.astype(dt).view(np.uint8).astype(np.uint16)


def to_half_bits(codes, dt):
    return codes.astype(np.uint8).view(dt).astype(np.float16).view(np.uint16).astype(np.uint32)


e4x, e4y = fp8(pairs[:, 0], ml_dtypes.float8_e4m3fn, 448.0), fp8(pairs[:, 1], ml_dtypes.float8_e4m3fn, 448.0)
e5x, e5y = fp8(pairs[:, 0], ml_dtypes.float8_e5m2, 57344.0), fp8(pairs[:, 1], ml_dtypes.float8_e5m2, 57344.0)
e4 = (e4y << 8) | e4x  # {hi: y, lo: x}
e5 = (e5y << 8) | e5x
b4 = (to_half_bits(e4y, ml_dtypes.float8_e4m3fn) << 16) | to_half_bits(e4x, ml_dtypes.float8_e4m3fn)
b5 = (to_half_bits(e5y, ml_dtypes.float8_e5m2) << 16) | to_half_bits(e5x, ml_dtypes.float8_e5m2)
case('fp8_cvt', [2], [128], [Buf('f32', pairs.ravel()), Buf('u16', count=n, expect=e4.astype(np.uint16)),
                             Buf('u16', count=n, expect=e5.astype(np.uint16)), Buf('u32', count=n, expect=b4.astype(np.uint32)),
                             Buf('u32', count=n, expect=b5.astype(np.uint32)), Scalar(n)], need='cvt.rn.satfinite.e4m3x2.f32')

# wgmma from inline PTX
A = (rng.integers(-8, 9, (64, 16)) / 4).astype(np.float16)
B = (rng.integers(-8, 9, (16, 16)) / 4).astype(np.float16)
C = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
case('wgmma_f16', [1], [128], [Buf('f16', A.ravel()), Buf('f16', B.ravel()), Buf('f32', count=64 * 16, expect=C.ravel())],
     need='wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16')

# a cluster of 4 CTAs (__cluster_dims__): distributed shared memory through cluster.map_shared_rank,
# a remote atomicAdd and cluster.sync() (its own generator, so the cases above keep their inputs)
crng = np.random.default_rng(9092)
x = crng.integers(-1000, 1000, 8 * 128).astype(np.int32)
want = np.zeros_like(x)
csum = np.zeros(2, np.int64)  # per cluster: sum of (v & 1)
for b in range(8):
    r = b % 4
    other = (r + 1) % 4
    ob = b - r + other
    for t in range(128):
        v = int(x[ob * 128 + 127 - t]) * 3 + other
        want[b * 128 + t] = v + 1000 * r
        csum[b // 4] += v & 1
cnt = np.array([csum[b // 4] + 100000 * 4 for b in range(8)], np.int32)
case('cluster_dsmem', [8], [128], [Buf('i32', x), Buf('i32', count=x.size, expect=want), Buf('i32', count=8, expect=cnt),
                                  Scalar(x.size)], need='mapa.u64')
