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
