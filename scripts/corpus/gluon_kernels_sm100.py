# Gluon kernels (Triton's lower-level language, triton.experimental.gluon) for the sm_100 corpus:
# what Triton 3.8's tl.* frontend never emits for our kernels, here cluster launch control.
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import clc, mbarrier


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
