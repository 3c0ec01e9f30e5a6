// The epilogue's bulk-store wait, deferred across a persistent tile loop (sm_90a warp
// specialization, pipeline/ws_tiles.ts). A descriptor store in a tile loop normally waits for its
// TMA copy right after issuing it (tma_store_wait.ts: a later tile's access may observe it), so
// the store drains while every consumer waits. Here its issuing thread commits the bulk group and
// goes on; it waits (cp.async.bulk.wait_group 0) only
//   - after the next tile's K loop, before the epilogue's first barrier (so before anything can
//     write the shared tile again): the store drains while the next tile's K loop runs;
//   - at the next tile's start, before the consumers' `tile done` arrival, when the tile loop's
//     stores may overlap a ring tensor (the run-time check of ws_tiles.ts): the next tile's loads
//     then read what this tile stored (a read after a write needs the writes complete, not only
//     the shared source read: `.read` would not do);
//   - after the tile loop, before the kernel's later code and its end.
// The wait is the full one, not `.read`, at the reuse too: two bulk stores of the same bytes (a
// tile loop that stores one tile twice) are unordered unless the first has completed, and a whole
// K loop later it has, so the full wait costs what `.read` would.
// Deferred only when nothing else can see the tile or the stored bytes before those waits: the
// store is the tile loop's only global access after the K loop (and the last), nothing in the
// tile loop before the K loop touches global memory, and the K loop's body uses no scratch.
import type { Op } from '../../ir/ops.js';
import { isPure } from '../../ir/effects.js';
import { descOperands } from '../../ir/tensor_desc.js';
import type { Lowering } from '../context.js';
import { elected } from './lower_tma.js';
import { layoutKey } from '../../compiler/layout.js';
import { definedInside } from '../../ir/walk.js';

const deferred = new WeakMap<Lowering, Set<Op>>();

/** Impure ops that touch no global memory (as tma_store_wait.ts). */
const NO_MEMORY = new Set(['print', 'assert', 'yield', 'return']);
const touchesGlobal = (op: Op): boolean => (op.regions.length ? op.regions.some((r) => r.ops.some(touchesGlobal)) : !isPure(op) && !NO_MEMORY.has(op.kind));

/**
 * The descriptor store of `tileLoop` whose wait may be deferred (see above), or why none:
 * `kLoop` is the warp-specialized K loop directly in it; `kLoopUsesScratch` whether its body
 * uses the shared scratch.
 */
export function deferrableStore(tileLoop: Op, kLoop: Op, kLoopUsesScratch: boolean, loads: readonly Op<'desc_load'>[]): Op<'desc_store'> | string {
  const body = tileLoop.regions[0]!.ops;
  const at = body.indexOf(kLoop);
  if (kLoopUsesScratch) return 'the K loop uses the shared scratch';
  if (body.slice(0, at).some(touchesGlobal)) return 'the tile loop touches global memory before its K loop';
  const after = body.slice(at + 1).filter(touchesGlobal);
  if (after.length !== 1 || after[0]!.kind !== 'desc_store') return 'the epilogue\'s only global access is not one descriptor store';
  // the overlap check runs before the tile loop, on the descriptors' bases, shapes and strides
  const inside = definedInside(tileLoop);
  const d = [after[0]!, ...loads].flatMap((o) => {
    const x = descOperands(o as Op<'desc_store'>);
    return [x.base, ...x.shape, ...x.strides];
  });
  if (d.some((v) => inside.has(v.id))) return 'a descriptor is made inside the tile loop (the overlap check runs before it)';
  return after[0] as Op<'desc_store'>;
}

/** Marks `store` as deferred: its lowering commits the bulk group and does not wait. */
export function deferStoreWait(cx: Lowering, store: Op): void {
  (deferred.get(cx) ?? deferred.set(cx, new Set()).get(cx)!).add(store);
}

export const isDeferred = (cx: Lowering, store: Op): boolean => deferred.get(cx)?.has(store) ?? false;

/** The issuing thread waits for the deferred store's copies to complete (under `pred` too, if given). */
export function waitDeferredStore(cx: Lowering, why: string, pred?: string): void {
  const p = elected(cx);
  cx.emit(`// deferred epilogue store: ${why}`);
  if (!pred) {
    cx.emit(`@${p} cp.async.bulk.wait_group 0;`);
    return;
  }
  const q = cx.reg('pred');
  cx.emit(`and.pred ${q}, ${p}, ${pred};`);
  cx.emit(`@${q} cp.async.bulk.wait_group 0;`);
}

/**
 * Whether lowering `loop` converts a value from before it to another layout before the loop
 * starts (its carried inits, hoisted conversions, a hoisted wgmma A): such a conversion may go
 * through the scratch, where the deferred store's tile lies.
 */
export function convertsBeforeLoop(cx: Lowering, loop: Op): boolean {
  const inside = definedInside(loop);
  const differs = (v: Op['operands'][number], want: Parameters<typeof layoutKey>[0] | undefined): boolean =>
    v.type.shape.length > 0 && want !== undefined && layoutKey(want) !== layoutKey(cx.layoutOf(v));
  if (loop.operands.slice(3).some((v, k) => differs(v, cx.layoutOf(loop.results[k]!)))) return true;
  const walk = (ops: readonly Op[]): boolean => ops.some((o) => {
    const want = cx.plan.expected.get(o);
    if (o.kind === 'dot' && !inside.has(o.operands[0]!.id)) return true; // a loop-invariant A: hoisted wgmma fragments
    if (want && o.kind !== 'yield' && o.operands.some((v, i) => !inside.has(v.id) && differs(v, want[i]))) return true;
    return o.regions.some((r) => walk(r.ops));
  });
  return walk(loop.regions[0]!.ops);
}
