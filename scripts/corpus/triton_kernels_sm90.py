# Triton 3.8 kernels that only make sense on Hopper (compiled for cc 90 by triton_corpus_sm90.py):
# device-side tensor descriptors (tensormap.replace + TMA loads/stores), a TMA-fed wgmma matmul,
# host-side tensor descriptors and flash attention backward.
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


# Host-side tensor descriptors (triton.tools.tensor_descriptor.TensorDescriptor): each descriptor
# argument reaches the kernel as a CUtensorMap by value plus its shape and strides, the map encoded
# on the host by the launcher (cuTensorMapEncodeTiled).
@triton.jit
def host_desc_scale(xd, od, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    v = xd.load([pid_m * BM, pid_n * BN])
    od.store([pid_m * BM, pid_n * BN], v * 2 + 1)


@triton.jit
def host_desc_matmul(ad, bd, cd, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = ad.load([pid_m * BM, k * BK])
        bv = bd.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    cd.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


# Flash attention backward (non-causal), in the shape of Triton's tutorial 06: a preprocess that
# forms Delta = rowsum(O * dO), then dK/dV per block of keys and dQ per block of queries, with the
# forward's log-sum-exp in base-2 units (LSE2 = log2(sum exp(S))), so P = exp2(S * log2(e) - LSE2).
@triton.jit
def attention_bwd_pre(O, DO, Delta, D: tl.constexpr, BM: tl.constexpr):
    offm = tl.program_id(0) * BM + tl.arange(0, BM)
    offd = tl.arange(0, D)
    o = tl.load(O + offm[:, None] * D + offd[None, :]).to(tl.float32)
    do = tl.load(DO + offm[:, None] * D + offd[None, :]).to(tl.float32)
    tl.store(Delta + offm, tl.sum(o * do, axis=1))


@triton.jit
def attention_bwd_dkdv(Q, K, V, DO, LSE2, Delta, DK, DV, sm_scale, L: tl.constexpr, D: tl.constexpr,
                       BM: tl.constexpr, BN: tl.constexpr):
    offn = tl.program_id(0) * BN + tl.arange(0, BN)
    offd = tl.arange(0, D)
    k = tl.load(K + offn[:, None] * D + offd[None, :])
    v = tl.load(V + offn[:, None] * D + offd[None, :])
    dk = tl.zeros([BN, D], dtype=tl.float32)
    dv = tl.zeros([BN, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for s in range(0, L, BM):
        offm = s + tl.arange(0, BM)
        qT = tl.load(Q + offm[None, :] * D + offd[:, None])
        lse = tl.load(LSE2 + offm)
        pT = tl.math.exp2(tl.dot(k, qT) * qk_scale - lse[None, :])
        do = tl.load(DO + offm[:, None] * D + offd[None, :])
        dv = tl.dot(pT.to(tl.float16), do, dv)
        delta = tl.load(Delta + offm)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - delta[None, :])
        dk = tl.dot(dsT.to(tl.float16), tl.trans(qT), dk)
    tl.store(DK + offn[:, None] * D + offd[None, :], (dk * sm_scale).to(tl.float16))
    tl.store(DV + offn[:, None] * D + offd[None, :], dv.to(tl.float16))


@triton.jit
def attention_bwd_dq(Q, K, V, DO, LSE2, Delta, DQ, sm_scale, L: tl.constexpr, D: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
    offm = tl.program_id(0) * BM + tl.arange(0, BM)
    offd = tl.arange(0, D)
    q = tl.load(Q + offm[:, None] * D + offd[None, :])
    do = tl.load(DO + offm[:, None] * D + offd[None, :])
    lse = tl.load(LSE2 + offm)
    delta = tl.load(Delta + offm)
    dq = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for s in range(0, L, BN):
        offn = s + tl.arange(0, BN)
        kT = tl.load(K + offn[None, :] * D + offd[:, None])
        vT = tl.load(V + offn[None, :] * D + offd[:, None])
        p = tl.math.exp2(tl.dot(q, kT) * qk_scale - lse[:, None])
        dp = tl.dot(do, vT)
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(tl.float16), tl.trans(kT), dq)
    tl.store(DQ + offm[:, None] * D + offd[None, :], (dq * sm_scale).to(tl.float16))


# Warp-specialized (tl.range(..., warp_specialize=True)): a producer warp issues the TMA loads and
# the consumer warpgroup runs wgmma, handing stages over through mbarriers. The PTX has several
# inline-asm mbarrier waits, each a `{ waitLoop: ... @!complete bra.uni waitLoop; }` block with the
# same label, and here the waits do spin (each side waits for the other).
@triton.jit
def host_desc_matmul_ws(ad, bd, cd, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        av = ad.load([pid_m * BM, k * BK])
        bv = bd.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    cd.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
