// A tcgen05 dot left in flight across the iterations of its K loop (sm_100a): the loop's ring
// (codegen/pipeline/tcgen05_ring.ts, or the cp.async ring of lower_pipeline.ts) owns the synchronization, as Triton's cc 100 pipeline does.
// While the ring lowers its body it registers the dot here with the mbarrier of the stage the
// dot reads; the dot (lower_tcgen05.ts) then commits its MMAs to that barrier (the stage's
// EMPTY barrier: it completes when those MMAs, and every earlier one, have read their operands)
// and does not wait: the ring waits for it before it refills the stage, and once after the loop
// before the accumulator is read back. Only a dot whose accumulator stays in TMEM
// (tcgen05_resident.ts) and whose operands are both ring tiles is left in flight: any other
// dot's result is read in the iteration, so it must wait for its own MMAs. A native dot_scaled
// (lower_tcgen05_scaled.ts) left in flight copies its scales into TMEM with tcgen05.cp each
// iteration, and a later tcgen05.cp is not ordered after an earlier MMA that reads its columns:
// it alternates two sets of scale columns (iteration i writes set i%2, `scaleSet`), so the copy of
// i+1 never writes the columns the in-flight MMAs of i read; set i%2 was last read by the MMAs of
// i-2, whose commit the ring waited for in i-1. The TMEM allocation counts both sets (scaleSets).
import type { Op } from '../../ir/ops.js';
import type { Lowering } from '../context.js';

interface Inflight {
  /** b32 register: the shared address of the mbarrier the dot's MMAs commit to. */
  readonly commitTo: string;
  /** The stages were written by the generic proxy (cp.async): fence.proxy.async before the MMAs. */
  readonly generic?: boolean;
  /**
   * A 2-CTA pair (pipeline/tcgen05_pair.ts): the MMAs are `.cta_group::2` (M 256) issued by this
   * predicate, the commit multicast to the barrier at the same offset in each CTA of `mask`.
   */
  readonly pair?: { readonly issuer: string; readonly mask: string };
  /** A dot_scaled's: b32 register, 0 or 1, the scale-column set (and scale scratch) of this iteration. */
  readonly scaleSet?: string;
}
const inflight = new WeakMap<Lowering, Map<Op, Inflight>>();

/** Sets (or, with undefined, clears) the barrier `dot` commits to instead of waiting. */
export function setInflight(cx: Lowering, dot: Op, s: Inflight | undefined): void {
  let m = inflight.get(cx);
  if (!m) inflight.set(cx, (m = new Map()));
  if (s) m.set(dot, s);
  else m.delete(dot);
}
export const inflightOf = (cx: Lowering, dot: Op): Inflight | undefined => inflight.get(cx)?.get(dot);

const doubled = new WeakMap<Lowering, Set<Op>>();
/** Marks dot_scaled `op` as left in flight by its ring (before the TMEM allocation is made): two scale-column sets. */
export function setDoubleScales(cx: Lowering, op: Op): void {
  let s = doubled.get(cx);
  if (!s) doubled.set(cx, (s = new Set()));
  s.add(op);
}
/** The sets of scale columns dot_scaled `op` takes in TMEM: 2 when left in flight, else 1. */
export const scaleSetsOf = (cx: Lowering, op: Op): number => (doubled.get(cx)?.has(op) ? 2 : 1);
