# Triton 3.8 kernels that exist for Blackwell (compiled for cc 100 by triton_corpus_sm100.py):
# tl.dot_scaled, the microscaled (MX) matmul that Triton lowers to the block-scaled
# tcgen05.mma kinds (mxf8f6f4, mxf4) with the e8m0 scale factors stored into tensor memory.
import triton
import triton.language as tl


@triton.jit
def dot_scaled(a, sa, b, sb, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               FA: tl.constexpr, FB: tl.constexpr):
    # a: M x K/PA bytes (e2m1: two per byte along K, the even element in the low half), sa: M x K/32
    # e8m0; b: K/PB x N bytes (packed along K likewise), sb: N x K/32; c: M x N f32. Sizes are
    # multiples of the blocks.
    PA: tl.constexpr = 2 if FA == 'e2m1' else 1
    PB: tl.constexpr = 2 if FB == 'e2m1' else 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rka = tl.arange(0, BK // PA)
    rkb = tl.arange(0, BK // PB)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K // BK):
        av = tl.load(a + rm[:, None] * (K // PA) + (k * (BK // PA) + rka)[None, :])
        bv = tl.load(b + (k * (BK // PB) + rkb)[:, None] * N + rn[None, :])
        sav = tl.load(sa + rm[:, None] * (K // 32) + (k * (BK // 32) + rs)[None, :])
        sbv = tl.load(sb + rn[:, None] * (K // 32) + (k * (BK // 32) + rs)[None, :])
        acc = tl.dot_scaled(av, sav, FA, bv, sbv, FB, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def persistent_desc_matmul(ad, bd, cd, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                           NUM_SMS: tl.constexpr, WS: tl.constexpr):
    # Triton's persistent matmul over host tensor descriptors (tutorial 09's form): each program walks
    # tiles pid, pid + NUM_SMS, ...; with WS the tile loop is warp-specialized (Blackwell: load, MMA
    # and epilogue partitions with setmaxnreg).
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(pid, tiles_m * tiles_n, NUM_SMS, flatten=True, warp_specialize=WS):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            av = ad.load([pm * BM, k * BK])
            bv = bd.load([k * BK, pn * BN])
            acc = tl.dot(av, bv, acc)
        cd.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def attention_fwd_causal(Q, K, V, O, sm_scale, L: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # flash attention forward with a causal mask: row m attends to keys n <= m only, so the loop
    # stops after the diagonal block and masked scores are -inf before the online softmax
    start = tl.program_id(0) * BM
    offm = start + tl.arange(0, BM)
    offd = tl.arange(0, D)
    q = tl.load(Q + offm[:, None] * D + offd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float('inf')
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for s in range(0, start + BM, BN):
        offn = s + tl.arange(0, BN)
        k = tl.load(K + offn[None, :] * D + offd[:, None])
        qk = tl.dot(q, k)
        qk = tl.where(offm[:, None] >= offn[None, :], qk, float('-inf'))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V + offn[:, None] * D + offd[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + offm[:, None] * D + offd[None, :], acc.to(tl.float16))


@triton.jit
def matmul_persistent_tma(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          NPROG: tl.constexpr):
    # tutorial 09 style: NPROG programs stride over the output tiles; A (M x K) and B (N x K, K-major)
    # are read and C (f32) written through device-side tensor descriptors (TMA)
    a_d = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_d = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    nn = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * nn
    for t in tl.range(tl.program_id(0), tiles, NPROG):
        pm = t // nn
        pn = t % nn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(0, tl.cdiv(K, BK)):
            av = a_d.load([pm * BM, ki * BK])
            bv = b_d.load([pn * BN, ki * BK])
            acc = tl.dot(av, bv.T, acc)
        c_d.store([pm * BM, pn * BN], acc)


@triton.jit
def matmul_ws(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the K loop warp-specialized (`warp_specialize=True`): a producer partition issues the TMA
    # loads, an MMA partition the tcgen05 MMAs, handing stages over through mbarriers
    a_d = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_d = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for ki in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        av = a_d.load([pm * BM, ki * BK])
        bv = b_d.load([pn * BN, ki * BK])
        acc = tl.dot(av, bv.T, acc)
    c_d.store([pm * BM, pn * BN], acc)
