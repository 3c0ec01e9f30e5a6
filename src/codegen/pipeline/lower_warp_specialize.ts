// Warp specialization on sm_90a (a `for` with the loop option `warpSpecialize: true`): the loop's
// tensor-descriptor loads that feed wgmma dots are issued by a producer warpgroup, and the
// numWarps warps of the kernel (whole warpgroups: the consumers) only wait, compute and release,
// as CUTLASS's warp-specialized sm90 GEMMs and Triton's `warp_specialize=True` structure it.
//
//   CTA:        numWarps consumer warps (tid < 32*numWarps: every layout is theirs, unchanged)
//               + one producer warpgroup (4 warps) after them: 32*(numWarps+4) threads
//   prologue:   all threads; mbarriers init'ed: full[s] (1 arrival + the stage's bytes),
//               empty[s] (32*numWarps arrivals); bar.sync 0; then the producer branches off
//   consumers:  setmaxnreg.inc; the kernel's code, barriers are `bar.sync 1, 32*numWarps`;
//               iteration i: wait full[i%S] (parity: the consumers' phase bit, flipped on wrap)
//               the body: wgmma reads stage i%S; every consumer thread arrives on empty[i%S]
//               after wait_group 0, or (the wgmma left in flight, overlappedDot) on empty of
//               stage (i-1)%S after wait_group 1; wait_group 0 after the loop
//               two consumer warpgroups of an attention loop take turns issuing their wgmma
//               (named barriers 2/3: FA3's ping-pong, ws_pingpong.ts)
//   producer:   setmaxnreg.dec; all but one thread leave; iteration i: from the S-th on, wait
//               empty[i%S] (parity: the producer's phase bit, flipped on wrap, as it was one
//               use ago); arrive.expect_tx full[i%S]; TMA copies of the tiles into stage i%S
//
// Program order: when the kernel may write memory before the loop (or its tile loop), the
// consumers fence (fence.proxy.async.global) and arrive on a `start` mbarrier on reaching the loop,
// and the producer waits on it before its first copy; otherwise its loads could pass the writes.
// The ring is at the start of shared memory; the scratch stays past it from the kernel's start
// to the loop's end (the producer fills stages while the code before the loop runs), or to the
// end of the persistent tile loop around it, which the producer runs too (ws_tiles.ts).
// The producer recomputes what it needs (the loop bounds, the tiles' offsets and the scalars
// before the loop they come from) in its own code; a loop it cannot run alone falls back to the
// plain TMA ring with the reason in the 'pipeline' stage (warpSpecializeNotes).
// Pointer loads on the cp.async ring (Triton's `ptrs += BK` form) get a producer of their own kind
// instead of TMA: all 128 producer threads issue cp.async and arrive on full[s] (ws_cpasync.ts).
import type { Op } from '../../ir/ops.js';
import { isPure } from '../../ir/effects.js';
import { descOperands } from '../../ir/tensor_desc.js';
import { isWgmmaLayout } from '../../compiler/layout.js';
import { loopStages } from '../../compiler/pipeline.js';
import { describeWriter, loopWriter } from '../../compiler/loop_writers.js';
import { movFor, type Lowering } from '../context.js';
import { backEdge, hoistConversions } from '../lower_control.js';
import { boxCoords, mapAddress, newBarriers, waitBarrier } from '../async/lower_tma.js';
import { bodyUsesScratch, lowerRingBody, planTmaRings, type TmaRingLoop } from './lower_tma_ring.js';
import { overlappedDot, setWgmmaPending } from '../tensor_cores/lower_wgmma.js';
import { regKind } from '../ptx_types.js';
import { setStaged } from '../smem/staged.js';
import { tensorMaps } from '../async/tensor_map.js';
import { tcgen05WsNote, tcgen05WsWhyNot, withWsTcgen05 } from './ws_tcgen05.js';
import { issueShared, type MulticastPlan } from '../async/tma_multicast.js';
import { planWsMulticast, wsClusterClose, wsClusterOpen, wsEmptyCount, wsRelease } from './ws_multicast.js';
import { isCombiner } from './ws_attention.js';
import { hoistWgmmaA } from '../tensor_cores/wgmma_a_hoist.js';
import { armPingPong, pingPongDots, pingPongNote } from './ws_pingpong.js';
import { CP_PRODUCER_THREADS, cpStaged, issueCpStage, lowerCpRingBody, planWsCpAsync, producerPasses } from './ws_cpasync.js';
import type { PipelinedLoop, PipelinePlan } from '../../compiler/pipeline.js';
import { consumerTileStart, producerTiles, tileBarrier, tileLoopOf, tileOrdered, tileRoots, type WsTileLoop, type WsTileRegs } from './ws_tiles.js';
import { convertsBeforeLoop, deferrableStore, deferStoreWait, waitDeferredStore } from '../async/deferred_store_wait.js';

type Rule = (cx: Lowering, op: Op) => void;

/** Warps of the producer partition: a whole warpgroup (setmaxnreg acts on warpgroups). */
export const PRODUCER_WARPS = 4;
/** The producer's register budget after setmaxnreg.dec (it only computes addresses). */
export const PRODUCER_REGS = 40;

export interface WarpSpecializedLoop {
  readonly ring: TmaRingLoop;
  /** Pointer loads on the cp.async ring instead of TMA tiles (ring.tiles is empty): the producer's 128 threads issue cp.async (ws_cpasync.ts). */
  readonly cp?: PipelinedLoop;
  /** Ops before the loop (top level, pure scalars) the producer lowers again, in program order. */
  readonly remat: readonly Op[];
  /** Registers per thread: at launch (.maxnreg) and for the consumers after setmaxnreg.inc. */
  readonly maxnreg: number;
  readonly consumerRegs: number;
  /** The persistent tile loop around the loop, which the producer runs too (ws_tiles.ts). */
  readonly tiles?: WsTileLoop;
  /** The kernel's first write of memory before the loop (or its tile loop): the producer starts after the consumers' writes. */
  readonly preWrite?: Op;
  /** Two consumer warpgroups of an attention loop: the wgmma dots they take turns issuing (ws_pingpong.ts). */
  readonly pingPong?: readonly Op[];
}

export interface WarpSpecializePlan {
  readonly loop?: WarpSpecializedLoop;
  /** One line per loop that asked for warp specialization: taken, or why not. */
  readonly notes: string[];
}

const loopName = (op: Op): string => `loop %${op.regions[0]!.args[0]!.id}`;

/** Register budgets: the launch's (65536 over the CTA's threads) and the consumers' after the producer gives its back. */
export function registerSplit(numWarps: number): { maxnreg: number; consumerRegs: number } {
  const threads = 32 * (numWarps + PRODUCER_WARPS);
  const maxnreg = Math.min(248, Math.floor(65536 / threads / 8) * 8);
  const consumerRegs = Math.min(256, Math.floor((65536 - 32 * PRODUCER_WARPS * PRODUCER_REGS) / (32 * numWarps) / 8) * 8);
  return { maxnreg, consumerRegs };
}

/** Decides the warp-specialized loop of the kernel (at most one) and why other asking loops are not. */
export function planWarpSpecialize(cx: Lowering, numStages: number, otherRings: (loop: Op) => boolean, pipeline?: PipelinePlan): WarpSpecializePlan {
  const notes: string[] = [];
  const asking: Op[] = [];
  const find = (ops: readonly Op[]): void => ops.forEach((o) => {
    if (o.kind === 'for' && (o as Op<'for'>).attrs.warpSpecialize) asking.push(o);
    o.regions.forEach((r) => find(r.ops));
  });
  find(cx.func.body.ops);
  let chosen: WarpSpecializedLoop | undefined;
  for (const op of asking) {
    const why = chosen ? 'only one loop per kernel is warp-specialized' : whyNot(cx, op, numStages, otherRings, pipeline);
    if (typeof why === 'string') {
      notes.push(`${loopName(op)}: not warp-specialized: ${why}; plain pipeline`);
      continue;
    }
    chosen = why;
    if (cx.target === 'sm_100a') {
      notes.push(`${loopName(op)}: ${tcgen05WsNote(cx, why, PRODUCER_REGS)}`);
      continue;
    }
    notes.push(`${loopName(op)}: warp-specialized: 1 producer warpgroup (${why.cp ? `cp.async by its ${CP_PRODUCER_THREADS} threads, ${why.cp.loads.length} tile(s), full[s] expects ${CP_PRODUCER_THREADS} arrivals` : `TMA, ${why.ring.tiles.length} tile(s)`}), ${cx.numWarps / 4} consumer warpgroup(s), ${why.ring.numStages} stages of ${why.ring.stageBytes} bytes, full/empty mbarriers; setmaxnreg ${PRODUCER_REGS}/${why.consumerRegs} (launch ${why.maxnreg})${why.tiles ? `; inside tile ${loopName(why.tiles.loop)}, which the producer runs too: the ring runs on across tiles, the next tile's loads overlap the epilogue${why.tiles.alwaysOrdered ? ` (after the previous tile is done: ${why.cp ? 'the tile loop writes memory, and pointer loads have no span to compare' : 'the tile loop writes through a pointer'})` : why.tiles.stores.length ? ' (unless a store overlaps a ring tensor: checked at run time)' : ''}` : ''}${why.preWrite ? `; the producer starts after the consumers' writes before the loop (${why.preWrite.kind}): program order` : ''}${why.pingPong ? pingPongNote(why.pingPong) : ''}`);
  }
  return { ...(chosen ? { loop: chosen } : {}), notes };
}

function whyNot(cx: Lowering, op: Op, numStages: number, otherRings: (loop: Op) => boolean, pipeline?: PipelinePlan): string | WarpSpecializedLoop {
  if (cx.target !== 'sm_90a' && cx.target !== 'sm_100a') return `needs sm_90a or sm_100a (target ${cx.target})`;
  if (cx.numWarps % 4) return `numWarps ${cx.numWarps} is not whole consumer warpgroups (4, 8, ...)`;
  const where = tileLoopOf(cx, op);
  if (typeof where === 'string') return where;
  let tiles = where.tiles;
  if (cx.func.body.ops.some((o) => o.kind === 'exit_if')) return 'the kernel may return early: the producer would wait for consumers that left';
  const S = loopStages(op, numStages);
  if (S < 2) return `numStages ${S}: no ring to fill`;
  const body = op.regions[0]!;
  const writer = loopWriter(body);
  if (writer) return describeWriter(writer);
  const step = cx.info.get(op.operands[2]!).constant;
  if (step === undefined || !Number.isInteger(step) || step <= 0) return 'step is not a known positive constant';
  if (body.ops.some((o) => o.regions.length && !isCombiner(o))) return 'the body has nested regions (loops or ifs)';
  const reasons = new Map<Op, string[]>();
  let ring = planTmaRings(cx, numStages, (o) => o !== op, reasons, true).get(op);
  let cp: PipelinedLoop | undefined;
  if (!ring && body.ops.some((o) => o.kind === 'load')) {
    // pointer loads: the cp.async producer (ws_cpasync.ts)
    const c = planWsCpAsync(cx, op, S, pipeline);
    if (typeof c === 'string') return c;
    [ring, cp] = [c.ring, c.cp];
    // pointer loads have no span to compare with the tile loop's stores: any store orders the next tile (ws_tiles.ts)
    if (tiles?.stores.length) tiles = { ...tiles, alwaysOrdered: true };
  }
  if (!ring) return `no descriptor load of a swizzlable 2-D tile feeding only tensor-core dots in the body${reasons.has(op) ? ` (${reasons.get(op)!.join('; ')})` : ''}`;
  const ringed = new Set<Op>([...ring.tiles.map((t) => t.load), ...(cp?.loads.map((c) => c.load) ?? [])]);
  const left = body.ops.find((o) => (o.kind === 'load' || o.kind === 'desc_load') && !ringed.has(o));
  const why = left && reasons.get(op)?.find((r) => r.startsWith(`desc_load %${left.results[0]!.id}:`));
  if (why) return `${why}: not on the ring`;
  if (left?.kind === 'load') return `load %${left.results[0]!.id} beside descriptor loads: one loop's producer issues either TMA or cp.async, not both`;
  if (left) return `desc_load %${left.results[0]!.id} is not on the ring`;
  const staged = cp ? cpStaged(cp) : new Set(ring.tiles.map((t) => t.value.id));
  const tc = cx.target === 'sm_100a' ? tcgen05WsWhyNot(cx, op, ring, tiles?.loop) : undefined; // ws_tcgen05.ts
  if (tc) return tc;
  if (cx.target !== 'sm_100a') for (const o of body.ops) {
    if (o.kind !== 'dot' || !o.operands.slice(0, 2).some((v) => staged.has(v.id))) continue;
    if (!isWgmmaLayout(cx.layoutOf(o.results[0]!), o.operands[0]!.type.shape[0]!, cx.numWarps)) return 'a dot on its tiles is not a wgmma (consumer warpgroups run wgmma)';
  }
  if (otherRings(op)) return 'another loop of the kernel has a ring in shared memory (the producer fills this one during the whole kernel)';
  // what the producer recomputes: top-level pure scalar ops the bounds and offsets depend on
  const top = new Map<number, Op>();
  cx.func.body.ops.forEach((o) => o.results.forEach((r) => top.set(r.id, o)));
  // in a tile loop: also the body's ops before the loop; a value it carries is not the producer's
  const tileBody = tiles ? tiles.loop.regions[0]!.ops.slice(0, tiles.loop.regions[0]!.ops.indexOf(op)) : [];
  tileBody.forEach((o) => o.results.forEach((r) => top.set(r.id, o)));
  const tileCarried = new Set(tiles ? tiles.loop.regions[0]!.args.slice(1).map((a) => a.id) : []);
  const need = new Set<Op>();
  const visit = (id: number): string | undefined => {
    if (tileCarried.has(id)) return `the producer cannot recompute %${id} (carried by the tile loop)`;
    const d = top.get(id);
    if (!d || need.has(d)) return undefined;
    // the cp.async producer recomputes tiles too (its address slice reads them), as consumer threads
    if (!isPure(d) || d.regions.length || (!cp && d.results.some((r) => r.type.shape.length))) return `the producer cannot recompute %${id} (${d.kind} before the loop; it recomputes pure ${cp ? 'ops' : 'scalars'} only)`;
    need.add(d);
    for (const v of d.operands) {
      const why = visit(v.id);
      if (why) return why;
    }
    return undefined;
  };
  const inBody = new Set(body.ops.flatMap((o) => o.results.map((r) => r.id)));
  const offsets = ring.tiles.flatMap((t) => descOperands(t.load).offsets);
  const roots = [op.operands[0]!, op.operands[1]!, ...offsets, ...ring.slice.flatMap((o) => o.operands), ...(tiles ? tileRoots(tiles, ring.tiles.map((t) => t.load)) : [])].filter((v) => !inBody.has(v.id));
  for (const v of roots) {
    const why = visit(v.id);
    if (why) return why;
  }
  if (tiles) tiles.remat = tileBody.filter((o) => need.has(o));
  // program order: the loop's loads must see the kernel's writes before it (the consumers run those)
  const topOps = cx.func.body.ops;
  const preWrite = loopWriter({ ...cx.func.body, ops: topOps.slice(0, topOps.indexOf(tiles ? tiles.loop : op)) });
  // the ping-pong is planned for TMA-fed consumers only (no cp.async-fed attention is tested)
  const pp = cx.target === 'sm_90a' && !cp ? pingPongDots(cx, op, overlappedDot(cx, op, staged)) : undefined;
  return { ring: { ...ring, numStages: S }, ...(cp ? { cp } : {}), remat: topOps.filter((o) => need.has(o)), ...registerSplit(cx.numWarps), ...(tiles ? { tiles } : {}), ...(preWrite ? { preWrite } : {}), ...(Array.isArray(pp) ? { pingPong: pp } : {}) };
}

interface WsState {
  readonly l: WarpSpecializedLoop;
  full?: string;
  empty?: string;
  /** In a tile loop: the consumers' ring position (kept across tiles) and the tile-done mbarrier. */
  ring?: RingPos;
  tile?: WsTileRegs;
  /** With writes before the loop: the mbarrier the consumers arrive on once they are done (and its phase, 0). */
  start?: { bar: string; phase: string };
  /** In a cluster: the tiles multicast to the CTAs that share them (ws_multicast.ts). */
  mc?: MulticastPlan;
  /** In a tile loop: the epilogue store whose bulk wait is deferred (deferred_store_wait.ts), and the overlap predicate. */
  defer?: { store: Op; ordered?: string };
}
type RingPos = [rd: string, full: string, empty: string, idx: string, phase: string];

/**
 * Arms a warp-specialized lowering: the ring is reserved for the whole kernel, consumer barriers
 * become named ones, and `rules.for` lowers the loop's consumer side. Returns the producer's
 * entry branch (lines for after the prologue) and a call that lowers its code after the
 * kernel's (at the end of the body), or undefined.
 */
export function withWarpSpecialize(rules: Record<string, Rule>, cx: Lowering, plan: WarpSpecializePlan): { entry: () => string[]; producer: () => void } | undefined {
  const l = plan.loop;
  if (!l) return undefined;
  if (cx.target === 'sm_100a') return withWsTcgen05(rules, cx, plan, PRODUCER_REGS); // a load warp, an MMA warp, epilogue warps
  const st: WsState = { l };
  const n = 32 * cx.numWarps;
  cx.reserveShared(l.ring.numStages * l.ring.stageBytes);
  cx.barrierThreads = n;
  // the mbarriers, init'ed in the prologue by thread 0 before the partitions part
  const S = l.ring.numStages;
  const mc = l.cp ? 'no cluster' : planWsMulticast(cx, l.ring, l.tiles); // cp.async copies are not multicast
  if (typeof mc === 'string') {
    if (mc !== 'no cluster') cx.e.emitPrologue(`// no TMA multicast: ${mc}`);
  } else st.mc = mc;
  // full[s]: one arrival with the stage's bytes (TMA), or one per producer thread (cp.async .noinc arrivals)
  const { bar } = newBarriers(cx, 2 * S, (k) => (k < S ? (l.cp ? CP_PRODUCER_THREADS : 1) : wsEmptyCount(cx, st.mc, n)));
  st.full = bar;
  st.empty = cx.reg('b32');
  cx.e.emitPrologue(`add.u32 ${st.empty}, ${bar}, ${8 * S};`);
  if (l.tiles) {
    // a tile loop around the loop: the ring's stage and phase run on from tile to tile
    st.tile = tileBarrier(cx, n);
    const pos = [0, 1, 2, 3, 4].map(() => cx.reg('b32')) as RingPos;
    cx.e.emitPrologue('// warp specialization: the consumers\' ring position (stage, phase), kept across tiles');
    [cx.smemSymbol(), st.full, st.empty, '0', '0'].forEach((v, k) => cx.e.emitPrologue(`mov.u32 ${pos[k]}, ${v};`));
    st.ring = pos;
    const store = deferrableStore(l.tiles.loop, l.ring.loop, bodyUsesScratch(cx, l.ring) || convertsBeforeLoop(cx, l.ring.loop), l.ring.tiles.map((t) => t.load));
    if (typeof store === 'string') cx.e.emitPrologue(`// the epilogue's bulk-store wait is not deferred: ${store}`);
    else {
      deferStoreWait(cx, store);
      st.defer = { store };
    }
  }
  if (l.preWrite) st.start = newBarriers(cx, 1, () => n);
  const plain = rules.for!;
  const ret = rules.return!;
  // in a cluster the consumers' last remote releases may trail: one cluster barrier before they exit
  rules.return = (c, op) => {
    wsClusterClose(c, st.mc);
    ret(c, op);
  };
  // the consumers' writes before the loop are done: fenced for the producer's TMA reads (async proxy), then announced
  const started = (c: Lowering): void => {
    if (!st.start) return;
    c.emit('// the writes before the loop are done: the producer may load (program order)');
    c.emit('fence.proxy.async.global;');
    c.emit(`mbarrier.arrive.shared::cta.b64 _, [${st.start.bar}];`);
  };
  // the producer may write any stage from the kernel's start until the loop's last wait: the
  // scratch stays past the ring until then (after it, as for the plain ring, the two may overlap:
  // every scratch user starts with a consumer barrier, and no copy is in flight)
  cx.enterRingLive();
  // the cp.async producer of an ordered tile loop issues no copy of tile t+1 before the consumers'
  // `tile done` of tile t, and tile t's copies have all landed: the ring is idle during the
  // epilogue, whose scratch may share its bytes (a 128x256 f32 conversion tile fits beside no ring)
  const idleEpilogue = Boolean(l.cp && l.tiles?.alwaysOrdered);
  rules.for = (c, op) => {
    if (op === l.tiles?.loop) {
      // the producer fills the next tile's stages during this tile's epilogue: the scratch
      // (the epilogue's stmatrix tile) stays past the ring until the tile loop ends
      started(c);
      if (st.defer) st.defer.ordered = tileOrdered(c, l.tiles, l.ring.tiles.map((t) => t.load));
      plain(c, op);
      if (st.defer) waitDeferredStore(c, 'the last tile\'s store completes before the code after the tile loop and the kernel\'s end');
      if (!idleEpilogue) c.leaveRingLive();
      return;
    }
    if (op !== l.ring.loop) return plain(c, op);
    if (!l.tiles) started(c);
    consumerFor(c, op, st);
    // the previous tile's store drained during this K loop; the epilogue writes its shared tile next
    if (st.defer) waitDeferredStore(c, 'the previous tile\'s store has drained during this K loop: its shared tile may be rewritten');
    if (!l.tiles || idleEpilogue) c.leaveRingLive();
  };
  const label = 'ws_producer';
  return {
    entry: () => {
      const { tid } = cx.thread();
      const p = cx.reg('pred');
      return [
        `\t// warp specialization: warps ${cx.numWarps}..${cx.numWarps + PRODUCER_WARPS - 1} are the producer`,
        `\tsetp.ge.u32 ${p}, ${tid}, ${n};`,
        ...wsClusterOpen(cx, st.mc),
        `\t@${p} bra.uni ${label};`,
        `\tsetmaxnreg.inc.sync.aligned.u32 ${l.consumerRegs};`,
      ];
    },
    producer: () => {
      cx.emit('ret;');
      cx.e.placeLabel(label);
      producer(cx, st);
    },
  };
}

/** The consumers' loop: wait for a full stage, run the body on it, release it. */
function consumerFor(cx: Lowering, op: Op, st: WsState): void {
  const l = st.l.ring;
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const body = op.regions[0]!;
  const S = l.numStages;
  // the wgmma of iteration i may stay in flight into i+1 (lower_wgmma.ts overlappedDot): its
  // wait_group 1 then completes the wgmma of i-1, whose stage is released one iteration late
  const cp = st.l.cp;
  const overlapped = overlappedDot(cx, op, cp ? cpStaged(cp) : new Set(l.tiles.map((t) => t.value.id)));
  if (overlapped) setWgmmaPending(cx, overlapped, 1);
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  hoistWgmmaA(cx, op); // a loop-invariant A (attention's Q): register fragments once, before the loop
  cx.emit(`// warp-specialized loop (consumers): ${S} stages of ${l.stageBytes} bytes filled by the producer warpgroup${overlapped ? ', wgmma in flight into the next iteration' : ''}`);
  const [rd, full, empty, idx, phase] = st.ring ?? ([0, 1, 2, 3, 4].map(() => cx.reg('b32')) as RingPos);
  if (st.tile) {
    consumerTileStart(cx, st.tile, st.defer?.ordered ? { ordered: st.defer.ordered } : undefined);
    cx.emit('// ring position (stage, phase) carried over from the previous tile');
  } else {
    cx.emit(`mov.u32 ${rd}, ${cx.smemSymbol()};`);
    cx.emit(`mov.u32 ${full}, ${st.full};`);
    cx.emit(`mov.u32 ${empty}, ${st.empty};`);
    cx.emit(`mov.u32 ${idx}, 0;`);
    cx.emit(`mov.u32 ${phase}, 0;`);
  }
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const prev = overlapped ? { bar: cx.reg('b32'), live: cx.reg('pred') } : undefined; // the stage to release next
  const turn = st.l.pingPong && armPingPong(cx, st.l.pingPong, lb, ub, ty);
  if (prev) cx.emit(`setp.ne.u32 ${prev.live}, 0, 0;`);
  const top = cx.e.label('wsfor');
  const end = cx.e.label('endwsfor');
  const done = cx.reg('pred');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${ty} ${done}, ${iv}, ${ub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  turn?.(iv, l.step);
  waitBarrier(cx, full, phase); // the producer's copies of this stage have landed
  const yields = cp ? lowerCpRingBody(cx, op, cp, iv, carried, rd) : lowerRingBody(cx, op, l, iv, carried, rd);
  if (prev) {
    // wait_group 1 completed the previous iteration's wgmma: its stage is free; this one is next
    wsRelease(cx, st.mc, prev.bar, prev.live);
    cx.emit(`mov.u32 ${prev.bar}, ${empty};`);
    cx.emit(`setp.eq.u32 ${prev.live}, 0, 0;`);
  } else {
    // every dot on the stage waited for its wgmma (wait_group 0): this thread is done with it
    wsRelease(cx, st.mc, empty);
  }
  backEdge(cx, op, carried, yields);
  advance(cx, S, l.stageBytes, rd, full, empty, idx, phase);
  cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  // the last wgmma (the producer has issued every stage: no release is awaited any more)
  if (overlapped) cx.emit('wgmma.wait_group.sync.aligned 0;');
  // in a tile loop the producer reuses that stage for a later tile: release it now
  if (prev && st.tile) wsRelease(cx, st.mc, prev.bar, prev.live);
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
}

/** The next stage: its address and mbarriers; past the last, back to stage 0 with the phase bit flipped. */
function advance(cx: Lowering, S: number, SB: number, rd: string, full: string, empty: string, idx: string, phase: string): void {
  const wrap = cx.reg('pred');
  cx.emit(`add.u32 ${idx}, ${idx}, 1;`);
  cx.emit(`add.u32 ${rd}, ${rd}, ${SB};`);
  cx.emit(`add.u32 ${full}, ${full}, 8;`);
  cx.emit(`add.u32 ${empty}, ${empty}, 8;`);
  cx.emit(`setp.eq.u32 ${wrap}, ${idx}, ${S};`);
  cx.emit(`@${wrap} mov.u32 ${idx}, 0;`);
  cx.emit(`@${wrap} sub.u32 ${rd}, ${rd}, ${S * SB};`);
  cx.emit(`@${wrap} sub.u32 ${full}, ${full}, ${8 * S};`);
  cx.emit(`@${wrap} sub.u32 ${empty}, ${empty}, ${8 * S};`);
  cx.emit(`@${wrap} xor.b32 ${phase}, ${phase}, 1;`);
}

/** The producer partition: one thread walks the loop's iterations and fills the ring by TMA (cp.async: all 128, ws_cpasync.ts). */
function producer(cx: Lowering, st: WsState): void {
  const { ring: l, remat } = st.l;
  const op = l.loop;
  const body = op.regions[0]!;
  const S = l.numStages;
  const { tid } = cx.thread();
  cx.emit(`setmaxnreg.dec.sync.aligned.u32 ${PRODUCER_REGS};`);
  const other = cx.reg('pred');
  cx.emit(`setp.ne.u32 ${other}, ${tid}, ${32 * cx.numWarps};`);
  const exit = st.mc ? cx.e.label('ws_exit') : undefined; // in a cluster: the closing cluster barrier first
  const cp = st.l.cp;
  // TMA: one thread issues, the rest of the warpgroup has nothing to do; cp.async: all 128 issue
  if (!cp) cx.emit(exit ? `@${other} bra ${exit};` : `@${other} ret;`);
  const issuer = st.mc ? cx.reg('pred') : undefined;
  if (issuer) cx.emit(`setp.eq.u32 ${issuer}, 0, 0;`);
  cx.scope(() => {
    // the cp.async producer lowers the tiles before the loop per iteration, as the consumer threads
    // it plays (those of the tile loop's body too: each tile's pointer bases, after its scalars)
    const isTensor = (o: Op): boolean => o.results.some((r) => r.type.shape.length > 0);
    const tileTensors = cp && st.l.tiles ? st.l.tiles.remat.filter(isTensor) : [];
    const tensors = cp ? [...remat.filter(isTensor), ...tileTensors] : [];
    for (const o of remat) if (!tensors.includes(o)) cx.lowerOp(o);
    const passes = cp ? producerPasses(cx) : [];
    const ivT = op.operands[0]!.type.elem;
    const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
    const maps = l.tiles.map((t, k) => (st.mc?.shares[k] ? '' : mapAddress(cx, tensorMaps(cx).mapFor(t.load, t.g)))); // a multicast tile: its own map (issueShared)
    const [wr, full, empty, idx, phase, count] = [0, 1, 2, 3, 4, 5].map(() => cx.reg('b32')) as [string, string, string, string, string, string];
    cx.emit(`mov.u32 ${wr}, ${cx.smemSymbol()};`);
    cx.emit(`mov.u32 ${full}, ${st.full};`);
    cx.emit(`mov.u32 ${empty}, ${st.empty};`);
    cx.emit(`mov.u32 ${idx}, 0;`);
    cx.emit(`mov.u32 ${phase}, 0;`);
    cx.emit(`mov.u32 ${count}, 0;`);
    // the K loop's issue code (inside the producer's own tile loop when there is one: ws_tiles.ts)
    const kLoop = (): void => {
      const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
      const iv = cx.newRegs(ivT, 1)[0]!;
      cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
      const top = cx.e.label('wsprod');
      const end = cx.e.label('endwsprod');
      const fresh = cx.e.label('wsfresh');
      const done = cx.reg('pred');
      const first = cx.reg('pred');
      const parity = cx.reg('b32');
      cx.e.placeLabel(top);
      cx.emit(`setp.ge.${ty} ${done}, ${iv}, ${ub};`);
      cx.emit(`@${done} bra.uni ${end};`);
      // the stage's previous use (S iterations ago) must be released by every consumer thread
      cx.emit(`setp.lt.u32 ${first}, ${count}, ${S};`);
      cx.emit(`@${first} bra.uni ${fresh};`);
      cx.emit(`xor.b32 ${parity}, ${phase}, 1;`);
      waitBarrier(cx, empty, parity);
      cx.e.placeLabel(fresh);
      cx.scope(() => {
        cx.define(body.args[0]!, [iv]);
        if (cp) return issueCpStage(cx, cp, passes, tensors, iv, wr, full);
        for (const o of l.slice) cx.lowerOp(o);
        cx.emit(`mbarrier.arrive.expect_tx.shared::cta.b64 _, [${full}], ${l.tiles.reduce((n, t) => n + t.g.bytes, 0)};`);
        l.tiles.forEach((t, k) => {
          const share = st.mc?.shares[k];
          if (share) return issueShared(cx, st.mc!, share, t, t.offset, wr, full, issuer);
          for (let j = 0; j < t.g.boxes; j++) {
            const off = t.offset + j * t.g.rows * t.g.swizzle;
            cx.emit(`cp.async.bulk.tensor.${t.load.attrs.block.length}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [${wr}${off ? `+${off}` : ''}], [${maps[k]}, ${boxCoords(cx, t.load, t.g, j)}], [${full}];`);
          }
        });
      });
      cx.emit(`add.u32 ${count}, ${count}, 1;`);
      advance(cx, S, l.stageBytes, wr, full, empty, idx, phase);
      cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
      cx.emit(`bra.uni ${top};`);
      cx.e.placeLabel(end);
    };
    if (st.start) {
      cx.emit('// the consumers\' writes before the loop first (program order: the loads must see them)');
      waitBarrier(cx, st.start.bar, st.start.phase);
    }
    const tileLoop = st.l.tiles && { ...st.l.tiles, remat: st.l.tiles.remat.filter((o) => !tileTensors.includes(o)) };
    if (tileLoop) producerTiles(cx, tileLoop, st.tile!, l.tiles.map((t) => t.load), kLoop);
    else kLoop();
    if (exit) cx.e.placeLabel(exit);
    wsClusterClose(cx, st.mc);
    if (cp) cx.emit('cp.async.wait_all;'); // every copy landed (its arrival done) before the thread exits
    cx.emit('ret;');
  });
}
