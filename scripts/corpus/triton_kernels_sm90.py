# Triton 3.8 kernels that only make sense on Hopper (compiled for cc 90 by triton_corpus_sm90.py):
# device-side tensor descriptors (tensormap.replace + TMA loads/stores) and a TMA-fed wgmma matmul.
import triton
import triton.language as tl


@triton.jit
def tma_scale(x, o, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    di = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(o, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    v = di.load([pid_m * BM, pid_n * BN])
    do.store([pid_m * BM, pid_n * BN], v * 2 + 1)


@triton.jit
def tma_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    da = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    db = tl.make_tensor_descriptor(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    dc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = da.load([pid_m * BM, k * BK])
        bv = db.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    dc.store([pid_m * BM, pid_n * BN], acc)


@triton.jit
def fp8_matmul(a, bt, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a: M x K row-major; bt: N x K row-major (B transposed, K-major as fp8 wgmma wants); sizes are
    # multiples of the blocks, so the loads need no mask
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        av = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        bv = tl.load(bt + rn[:, None] * K + (k + rk)[None, :])
        acc = tl.dot(av, tl.trans(bv), acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def persistent_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      NUM_SMS: tl.constexpr, WS: tl.constexpr):
    # the persistent, descriptor-based matmul of Triton's tutorial 09 (device-side descriptors),
    # optionally warp-specialized
    da = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    db = tl.make_tensor_descriptor(b, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    dc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_m * num_n
    for tile in tl.range(start, num_tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        pid_m = tile // num_n
        pid_n = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            av = da.load([pid_m * BM, ki * BK])
            bv = db.load([pid_n * BN, ki * BK])
            acc = tl.dot(av, bv.T, acc)
        dc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
