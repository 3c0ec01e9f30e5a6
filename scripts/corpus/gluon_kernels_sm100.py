# Gluon kernels (Triton's lower-level language, triton.experimental.gluon) for the sm_100 corpus:
# what Triton 3.8's tl.* frontend never emits for our kernels: cluster launch control and the
# 2-CTA (cta_group::2) MMA.
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory, clc,
                                                                 fence_async_shared, mbarrier, tcgen05_mma)


@gluon.jit
def clc_add(x_ptr, y_ptr, out_ptr, hits_ptr, n, BLOCK: gl.constexpr):
    """out = x + y, one BLOCK per program, scheduled by cluster launch control: after its block a
    CTA cancels a not-yet-launched one (clusterlaunchcontrol.try_cancel) and does that block
    instead, until no launch is left to cancel. hits[b] counts the CTAs that did block b: all
    ones when every block was done exactly once."""
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    res = gl.allocate_shared_memory(gl.int64, [2], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    pid = gl.program_id(0)
    phase = 0
    while pid >= 0:
        offs = pid * BLOCK + gl.arange(0, BLOCK, layout)
        m = offs < n
        x = gl.load(x_ptr + offs, mask=m)
        y = gl.load(y_ptr + offs, mask=m)
        gl.store(out_ptr + offs, x + y, mask=m)
        gl.atomic_add(hits_ptr + pid + 0 * offs, 1, mask=offs == pid * BLOCK)
        mbarrier.expect(bar, 16)
        clc.try_cancel(res, bar)
        mbarrier.wait(bar, phase)
        phase ^= 1
        r = clc.load_result(res)
        pid = gl.where(r.is_canceled(), r.program_id(0), -1)
    mbarrier.invalidate(bar)


@gluon.jit
def matmul_2cta(a_ptr, b_ptr, c_ptr, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr):
    """C (BM x BN, f32) = A (BM x BK) @ B (BK x BN), f16, on a CTA pair (num_ctas=2): one
    tcgen05.mma.cta_group::2 per K step issued by the even CTA, each CTA holding BM/2 rows of A
    and of the accumulator and BN/2 columns of B in its own memory; the commit multicasts its
    arrival to both CTAs' mbarriers."""
    la: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0], cga_layout=[[1, 0]])
    lb: gl.constexpr = gl.BlockedLayout([1, 8], [2, 16], [4, 1], [1, 0], cga_layout=[[0, 1]])
    ra = gl.arange(0, BM, gl.SliceLayout(1, la))
    ka = gl.arange(0, BK, gl.SliceLayout(0, la))
    a = gl.load(a_ptr + ra[:, None] * BK + ka[None, :])
    kb = gl.arange(0, BK, gl.SliceLayout(1, lb))
    cb = gl.arange(0, BN, gl.SliceLayout(0, lb))
    b = gl.load(b_ptr + kb[:, None] * BN + cb[None, :])
    sa_l: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16, cga_layout=[[1, 0]])
    sb_l: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BK, BN], gl.float16, cga_layout=[[0, 1]])
    sa = gl.allocate_shared_memory(gl.float16, [BM, BK], sa_l, a)
    sb = gl.allocate_shared_memory(gl.float16, [BK, BN], sb_l, b)
    fence_async_shared()
    gl.barrier(cluster=True)  # the peer's halves are in its shared memory before the pair MMA reads them
    acc_l: gl.constexpr = TensorMemoryLayout(block=(BM // 2, BN), col_stride=1, cga_layout=[[1, 0]], two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [BM, BN], acc_l)
    bar = mbarrier.allocate_mbarrier()
    mbarrier.init(bar, count=1)
    tcgen05_mma(sa, sb, acc, use_acc=False, mbarriers=[bar])
    mbarrier.wait(bar, phase=0, deps=[sa, sb])
    out = acc.load()
    lo: gl.constexpr = out.type.layout
    rc = gl.arange(0, BM, gl.SliceLayout(1, lo))
    cc = gl.arange(0, BN, gl.SliceLayout(0, lo))
    gl.store(c_ptr + rc[:, None] * BN + cc[None, :], out)
