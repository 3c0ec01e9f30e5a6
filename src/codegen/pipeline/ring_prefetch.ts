// The plain (non-warp-specialized) TMA ring across a persistent tile loop (sm_90a): the next
// tile's first D stages are issued at the end of this tile's K loop, before its epilogue, so
// their copies land while the epilogue (stmatrix -> shared -> TMA store) runs, and the epilogue's
// bulk-store wait is deferred to after the next tile's K loop (async/deferred_store_wait.ts).
//
//   tile loop:  ordered = a store of the tile loop may overlap a ring tensor (run time, ws_tiles.ts)
//   K loop:     prologue (stages 0..D-1) only when not prefetched; before it thread 0 completes
//               the previous tile's store (the next loads may read it when ordered)
//               ... the ring ...
//   after it:   if the next tile exists and !ordered: bar.sync (every warp is done with every
//               stage); the tile's pure scalar ops again for the next tile (its offsets, bounds);
//               thread 0 issues its stages 0..D-1; prefetched = true
//               thread 0 waits for the previous tile's store; the epilogue
//   after the tile loop: thread 0 waits for the last store
//
// Shared memory: the epilogue's tile may no longer share the drained ring's bytes (the prefetched
// copies land in the ring while the epilogue writes its tile), so the scratch lies past the ring
// for the whole tile loop: shared = ring + tile. Done only where that fits the opt-in maximum per
// block of sm_90 (227 KiB); elsewhere the loop keeps the ring it had (the reason in the PTX).
import type { Op, Value } from '../../ir/ops.js';
import { isPure } from '../../ir/effects.js';
import { descOperands } from '../../ir/tensor_desc.js';
import type { Lowering } from '../context.js';
import { movFor } from '../context.js';
import { regKind } from '../ptx_types.js';
import { tileGeometry } from '../async/tensor_map.js';
import { convertsBeforeLoop, deferrableStore, deferStoreWait, waitDeferredStore } from '../async/deferred_store_wait.js';
import { tileLoopOf, tileOrdered, type WsTileLoop } from './ws_tiles.js';
import type { TmaRingLoop } from './lower_tma_ring.js';

/** sm_90's largest dynamic shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB). */
const SM90_SHARED_OPTIN = 227 * 1024;

export interface RingPrefetch {
  readonly tiles: WsTileLoop;
  /** Ops of the tile loop's body before the K loop that the next tile's issue lowers again (pure scalars). */
  readonly remat: Op[];
  /** Set while the tile loop is lowered: the run-time overlap predicate, its negation, "stages 0..D-1 already issued". */
  regs?: { ordered: string; free: string; pre: string };
}

/** The prefetch plan of ring `l` (a K loop directly in a top-level tile loop), or why it has none. */
export function planRingPrefetch(cx: Lowering, l: TmaRingLoop, usesScratch: boolean, clustered: boolean): RingPrefetch | string {
  if (cx.target !== 'sm_90a') return 'sm_90a only';
  if (clustered) return 'a cluster (the multicast ring is not prefetched)';
  const where = tileLoopOf(cx, l.loop);
  if (typeof where === 'string' || !where.tiles) return 'not directly in a top-level tile loop';
  const t = where.tiles;
  const body = t.loop.regions[0]!;
  if (body.args.length !== 1) return 'the tile loop carries values';
  const store = deferrableStore(t.loop, l.loop, usesScratch || convertsBeforeLoop(cx, l.loop), l.tiles.map((x) => x.load));
  if (typeof store === 'string') return store;
  const S = l.numStages;
  const need = S * l.stageBytes + tileGeometry(store).bytes + 1024;
  if (need > SM90_SHARED_OPTIN) return `the ring (${S * l.stageBytes} B) and the epilogue's tile past it need ${need} B of shared memory, over sm_90's ${SM90_SHARED_OPTIN}`;
  // the values the next tile's issue needs: the K loop's bounds and the offsets' inputs from the tile body
  const at = body.ops.indexOf(l.loop);
  const defs = new Map<number, Op>();
  for (const o of body.ops.slice(0, at)) for (const r of o.results) defs.set(r.id, o);
  const inK = new Set<number>();
  for (const o of l.loop.regions[0]!.ops) for (const r of o.results) inK.add(r.id);
  l.loop.regions[0]!.args.forEach((a) => inK.add(a.id));
  const need2 = new Set<Op>();
  let why: string | undefined;
  const visit = (v: Value): void => {
    const d = defs.get(v.id);
    if (!d || need2.has(d) || why) return;
    if (!isPure(d) || d.regions.length || d.results.some((r) => r.type.shape.length)) {
      why = `the next tile's offsets need '${d.kind}', not a pure scalar op`;
      return;
    }
    need2.add(d);
    d.operands.forEach(visit);
  };
  [l.loop.operands[0]!, l.loop.operands[1]!, ...l.tiles.flatMap((t) => descOperands(t.load).offsets), ...l.slice.flatMap((o) => o.operands)].filter((v) => !inK.has(v.id)).forEach(visit);
  if (why) return why;
  deferStoreWait(cx, store);
  return { tiles: t, remat: body.ops.slice(0, at).filter((o) => need2.has(o)) };
}

/** Around the tile loop's lowering: the overlap predicate before it, the last store's wait after it. */
export function prefetchTileLoop(cx: Lowering, pf: RingPrefetch, loads: readonly Op<'desc_load'>[], lower: () => void): void {
  const ordered = tileOrdered(cx, pf.tiles, loads);
  const free = cx.reg('pred');
  cx.emit(`not.pred ${free}, ${ordered};`);
  const pre = cx.reg('pred');
  cx.emit(`setp.ne.u32 ${pre}, 0, 0;`);
  pf.regs = { ordered, free, pre };
  lower();
  waitDeferredStore(cx, 'the last tile\'s store completes before the code after the tile loop and the kernel\'s end');
}

/** The K loop's prologue, skipped where the previous tile prefetched it; else after the previous store completes. */
export function prologueUnlessPrefetched(cx: Lowering, pf: RingPrefetch, prologue: () => void): void {
  const skip = cx.e.label('prefetched');
  cx.emit(`@${pf.regs!.pre} bra.uni ${skip};`);
  waitDeferredStore(cx, 'the previous tile\'s store completes before this tile\'s loads (they may read it; a no-op on the first tile)');
  prologue();
  cx.e.placeLabel(skip);
}

/**
 * After the K loop: the next tile's first stages, where there is a next tile and no store may
 * overlap a ring tensor. `issue(lb, ub)` issues stages 0..D-1 of a run with those bounds.
 */
export function prefetchNextTile(cx: Lowering, pf: RingPrefetch, kLoop: Op, issue: (lb: string, ub: string) => void): void {
  const { free, pre } = pf.regs!;
  const op = pf.tiles.loop;
  const ivArg = op.regions[0]!.args[0]!;
  const ivT = ivArg.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const [ub, step] = [1, 2].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const next = cx.newRegs(ivT, 1)[0]!;
  const q = cx.reg('pred');
  const skip = cx.e.label('noprefetch');
  cx.emit('// the next tile\'s first stages, before this tile\'s epilogue (ring_prefetch.ts)');
  cx.emit(`setp.ne.u32 ${pre}, 0, 0;`);
  cx.emit(`add.${ty} ${next}, ${cx.regs(ivArg)[0]!}, ${step};`);
  cx.emit(`setp.lt.and.${ty} ${q}, ${next}, ${ub}, ${free};`);
  cx.emit(`@!${q} bra.uni ${skip};`);
  cx.barrier(); // every warp is done with every stage (the last wgmma waited for)
  const keep: Value[] = [ivArg, ...pf.remat.flatMap((o) => o.results)];
  cx.preserving(keep, () => {
    const nv = cx.newRegs(ivT, 1)[0]!;
    cx.emit(`${movFor(ivT)} ${nv}, ${next};`);
    cx.define(ivArg, [nv]);
    for (const o of pf.remat) cx.lowerOp(o);
    issue(cx.regs(kLoop.operands[0]!)[0]!, cx.regs(kLoop.operands[1]!)[0]!);
  });
  cx.emit(`setp.eq.u32 ${pre}, 0, 0;`);
  cx.e.placeLabel(skip);
}
