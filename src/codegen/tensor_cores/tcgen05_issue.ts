// The issue of a tcgen05 dot's MMAs (sm_100a): one thread issues them (the elected thread, tid 0,
// in warp 0), so the descriptors, the per-k-step address arithmetic, the instruction descriptor,
// the MMAs and their commit are that thread's work. The other warps branch past it (a branch
// uniform per warp: `bra.uni` on "not warp 0") instead of running each line predicated off, as
// Triton's cc 100 kernels put the MMAs under `if warp == 0`. Everything after the branch's target
// (the mbarrier wait, tcgen05.ld) is every thread's again. In flash attention this is two dots'
// issue (about 18 instructions each) the 3 other warps no longer step through per iteration.
import type { Lowering } from '../context.js';

/**
 * Emits the branch of every warp but warp 0 (`warp0`: its predicate) past the issue; returns the
 * function that places the branch's target, to be called right after the commit.
 */
export function skipToIssueEnd(cx: Lowering, warp0: string): () => void {
  const end = cx.e.label('mma_issued');
  cx.emit(`@!${warp0} bra.uni ${end};`);
  return () => cx.e.placeLabel(end);
}
