// TMA pipelining on sm_90a and sm_100a (a tcgen05 dot left in flight: tcgen05_ring.ts): a loop
// whose tensor-descriptor loads feed tensor-core dots keeps numStages stages of those tiles in
// shared memory, each filled by TMA S-1 iterations ahead by thread 0 and guarded by its own
// mbarrier (expect_tx of the stage's bytes), as Triton's warp-specialization-free Hopper
// pipeline does. The dot reads its stage directly (StagedTile, staged.ts): each tile is in the
// swizzled layout of smem_swizzle.ts, one TMA box per column block.
//
//   prologue:    bar.sync; issue iterations 0..D-1 into stages 0..D-1   (D = S-1)
//   iteration i: wait stage i%S's mbarrier (parity: bit i%S of `phases`, flipped after the wait)
//                bar.sync                        -> every warp is done with stage (i-1)%S
//                issue iteration i+D into stage (i+D)%S (skipped past the end)
//                the body: dots read stage i%S
// A wgmma dot left in flight across iterations (overlapped) makes D = S-2 (see tmaRingFor).
//   issue:       thread 0: mbarrier.arrive.expect_tx [bar], stage bytes; a cp.async.bulk.tensor per box
// Every issued stage is consumed before the loop ends, so each stage's parity bit stays in step
// with its mbarrier across runs of the loop (a ring loop inside another loop).
// A loop that writes global memory (a store, atomic or descriptor store) gets no ring: its loads
// may read what an earlier iteration wrote (compiler/loop_writers.ts).
import type { Op, Value } from '../../ir/ops.js';
import { descOperands } from '../../ir/tensor_desc.js';
import { isPure } from '../../ir/effects.js';
import { layoutKey } from '../../compiler/layout.js';
import { loopWriter } from '../../compiler/loop_writers.js';
import { loopStages } from '../../compiler/pipeline.js';
import { movFor, type Lowering } from '../context.js';
import { backEdge, hoistConversions } from '../lower_control.js';
import { boxCoords, elected, hasTma, mapAddress, newBarriers, waitBarrier } from '../async/lower_tma.js';
import { overlappedDot, setWgmmaPending } from '../tensor_cores/lower_wgmma.js';
import { regKind } from '../ptx_types.js';
import { SWIZZLE_ALIGN, swizzleFor } from '../smem/smem_swizzle.js';
import { setStaged } from '../smem/staged.js';
import { descElem, tensorMaps, tileGeometry, type TileGeometry } from '../async/tensor_map.js';
import { ringOperand } from './ring_operands.js';
import { isCombiner } from './ws_attention.js';
import { fenceGlobalWrites } from '../async/proxy_fence.js';
import { roundTf32Stage } from './ring_tf32.js';
import { clusterSync, emptyCount, issueShared, planMulticast, releaseStage, type MulticastPlan } from '../async/tma_multicast.js';
import { planRingPrefetch, prefetchNextTile, prefetchTileLoop, prologueUnlessPrefetched, type RingPrefetch } from './ring_prefetch.js';
import { waitDeferredStore } from '../async/deferred_store_wait.js';
import { slotBytes } from './ring_half_slot.js';
import { withTcgen05AHoist } from '../tensor_cores/tcgen05_a_hoist.js';

type Rule = (cx: Lowering, op: Op) => void;

interface RingTile {
  readonly load: Op<'desc_load'>;
  /** What the dots read: the load's value, or its reshape to 2-D (a [1, .., R, C] block). */
  readonly value: Value;
  readonly g: TileGeometry;
  /** Byte offset in a stage (1024-aligned). */
  readonly offset: number;
  readonly reshape?: Op;
  /** The transpose of the load the dots read (an 8-bit b loaded [N, K]): the stage holds it transposed. */
  readonly trans?: Op;
}
export interface TmaRingLoop {
  readonly loop: Op;
  readonly numStages: number;
  readonly step: number;
  readonly tiles: RingTile[];
  readonly stageBytes: number;
  /** Body ops that compute the tiles' offsets (lowered again for each issue). */
  readonly slice: Op[];
  /** Body ops the ring replaces (the loads, and slice ops only they use). */
  readonly skip: Set<Op>;
}

const alignUp = (n: number, a: number): number => Math.ceil(n / a) * a;

/**
 * Why `load` cannot ride a ring in `body`, or its offset slice (ops of the body it needs), the
 * value the dots read and the reshape that drops a [1, .., R, C] block's unit dims (batched
 * tensors: `desc.load([z, m, k]).reshape([R, C])`).
 */
function ringable(cx: Lowering, load: Op<'desc_load'>, body: Op['regions'][number], uses: Map<number, Op[]>): string | { slice: Set<Op>; value: Value; reshape?: Op; trans?: Op } {
  const t = descElem(load); // the element types the ring takes: ring_operands.ts
  const block = load.attrs.block;
  if (block.length < 2 || block.slice(0, -2).some((b) => b !== 1)) return 'not a 2-D block (or one with leading unit dims)';
  const g = tileGeometry(load);
  if (!g.swizzle || g.swizzle !== swizzleFor(g.rowBytes)) return 'its tile cannot be swizzled (rows not a multiple of 8, or rows under 32 bytes)';
  let value = load.results[0]!;
  let reshape: Op | undefined;
  if (block.length > 2) {
    const us = uses.get(value.id) ?? [];
    const r = us[0];
    if (us.length !== 1 || r!.kind !== 'reshape' || !body.ops.includes(r!) || r!.results[0]!.type.shape.length !== 2) return 'a block with unit dims not reshaped to 2-D in the loop';
    reshape = r;
    value = r!.results[0]!;
  }
  const use = ringOperand(cx, t, value, body, uses);
  if (typeof use === 'string') return use;
  value = use.value;
  // the offsets: pure ops of the body on the induction variable and values from outside
  const inBody = new Map<number, Op>();
  for (const x of body.ops) for (const r of x.results) inBody.set(r.id, x);
  const carried = new Set(body.args.slice(1).map((a) => a.id));
  const slice = new Set<Op>();
  const visit = (id: number): string | undefined => {
    if (carried.has(id)) return 'an offset depends on a loop-carried value';
    const d = inBody.get(id);
    if (!d || slice.has(d)) return undefined;
    if (!isPure(d) || d.regions.length) return `an offset is computed by '${d.kind}'`;
    slice.add(d);
    for (const o of d.operands) {
      const why = visit(o.id);
      if (why) return why;
    }
    return undefined;
  };
  for (const o of descOperands(load).offsets) {
    const why = visit(o.id);
    if (why) return why;
  }
  return { slice, value, ...(reshape ? { reshape } : {}), ...(use.trans ? { trans: use.trans } : {}) };
}

/**
 * The loops to ring: innermost `for`s with a constant positive step and ringable descriptor loads;
 * `reasons` gets, per loop, why each descriptor load left off is (for the 'pipeline' stage).
 */
export function planTmaRings(cx: Lowering, numStages: number, skipLoops: (op: Op) => boolean, reasons?: Map<Op, string[]>, combiners = false): Map<Op, TmaRingLoop> {
  const out = new Map<Op, TmaRingLoop>();
  if (!hasTma(cx)) return out;
  const uses = new Map<number, Op[]>();
  const see = (ops: readonly Op[]): void => {
    for (const o of ops) {
      for (const v of o.operands) (uses.get(v.id) ?? uses.set(v.id, []).get(v.id)!).push(o);
      o.regions.forEach((r) => see(r.ops));
    }
  };
  see(cx.func.body.ops);
  const visit = (ops: readonly Op[]): void => {
    for (const op of ops) {
      op.regions.forEach((r) => visit(r.ops));
      if (op.kind !== 'for' || skipLoops(op)) continue;
      const S = loopStages(op, numStages); // the loop's own numStages overrides the kernel's
      if (S < 2) continue;
      const body = op.regions[0]!;
      // innermost, straight-line bodies only (`combiners`: reductions' combine regions allowed,
      // ws_attention.ts; always on sm_100a: flash attention's key loop, whose tcgen05 dots wait
      // for their own commits in the iteration, so the bar.sync before a refill releases the stage)
      if (body.ops.some((o) => o.regions.length && !((combiners || cx.target === 'sm_100a') && isCombiner(o)))) continue;
      // a loop that writes memory keeps its loads in program order: a TMA copy of iteration i+D
      // would run before the writes of i..i+D (compiler/loop_writers.ts; noted in the 'pipeline' stage)
      if (loopWriter(body)) continue;
      const step = cx.info.get(op.operands[2]!).constant;
      if (step === undefined || !Number.isInteger(step) || step <= 0) continue;
      const tiles: RingTile[] = [];
      const slice = new Set<Op>();
      let offset = 0;
      for (const o of body.ops) {
        if (o.kind !== 'desc_load') continue;
        const r = ringable(cx, o as Op<'desc_load'>, body, uses);
        if (typeof r === 'string') {
          if (reasons) (reasons.get(op) ?? reasons.set(op, []).get(op)!).push(`desc_load %${o.results[0]!.id}: ${r}`);
          continue;
        }
        r.slice.forEach((x) => slice.add(x));
        const g = tileGeometry(o as Op<'desc_load'>);
        tiles.push({ load: o as Op<'desc_load'>, value: r.value, ...(r.reshape ? { reshape: r.reshape } : {}), ...(r.trans ? { trans: r.trans } : {}), g, offset });
        offset = alignUp(offset + slotBytes(cx, o, g), SWIZZLE_ALIGN); // a 2-CTA pair's B: half (ring_half_slot.ts)
      }
      if (!tiles.length) continue;
      const skip = new Set<Op>(tiles.flatMap((t) => [t.load, ...(t.reshape ? [t.reshape] : []), ...(t.trans ? [t.trans] : [])]));
      for (let i = body.ops.length - 1; i >= 0; i--) {
        const x = body.ops[i]!;
        if (slice.has(x) && x.results.every((r) => (uses.get(r.id) ?? []).every((u) => skip.has(u)))) skip.add(x);
      }
      out.set(op, { loop: op, numStages: S, step, tiles, stageBytes: offset, slice: body.ops.filter((x) => slice.has(x)), skip });
    }
  };
  visit(cx.func.body.ops);
  return out;
}

/** Ops a ring loop's body may hold and still leave the shared scratch alone. */
const REGISTER_ONLY = new Set(['const', 'arange', 'splat', 'broadcast', 'expand_dims', 'unary', 'binary', 'cmp', 'select', 'fma', 'cast', 'bitcast', 'addptr', 'hint', 'program_id', 'num_programs', 'yield']);

/**
 * Whether the body uses the scratch while the ring is live (a conversion, a staged operand, a
 * reduction...). When it does not, the ring shares the scratch's bytes, as the cp.async ring
 * does: the ring's opening barrier and the one every scratch user starts with keep them apart,
 * and no TMA write is in flight after the loop (every issued stage was waited for).
 */
export function bodyUsesScratch(cx: Lowering, l: TmaRingLoop): boolean {
  const staged = new Set(l.tiles.map((t) => t.value.id));
  const converts = (o: Op, i: number): boolean => {
    const v = o.operands[i]!;
    const want = cx.plan.expected.get(o)?.[i];
    return v.type.shape.length > 0 && want !== undefined && layoutKey(want) !== layoutKey(cx.layoutOf(v));
  };
  return l.loop.regions[0]!.ops.some((o) => {
    if (l.skip.has(o)) return false;
    if (o.kind === 'dot') return !staged.has(o.operands[0]!.id) || !staged.has(o.operands[1]!.id) || converts(o, 2);
    if (!REGISTER_ONLY.has(o.kind)) return true;
    return o.operands.some((_, i) => converts(o, i));
  });
}

/** `rules.for` lowers the planned loops as TMA rings, at the start of shared memory. */
export function withTmaRing(rules: Record<string, Rule>, cx: Lowering, numStages: number, skipLoops: (op: Op) => boolean): void {
  const plan = planTmaRings(cx, numStages, skipLoops);
  if (!plan.size) return;
  let own = 0;
  let shared = 0;
  const owners = new Set<Op>(); // rings whose body uses the scratch: it starts past them in the loop
  const prefetch = new Map<Op, RingPrefetch>(); // K loop -> its plan; tile loop -> its K loop's plan (ring_prefetch.ts)
  for (const l of plan.values()) {
    const bytes = l.numStages * l.stageBytes;
    const pf = planRingPrefetch(cx, l, bodyUsesScratch(cx, l), planMulticast(cx, l.loop, l.tiles) !== 'no cluster');
    if (typeof pf !== 'string') {
      // the next tile's copies land during the epilogue: the scratch lies past the ring for the whole tile loop
      prefetch.set(l.loop, pf).set(pf.tiles.loop, pf);
      own = Math.max(own, bytes);
    } else if (pf !== 'not directly in a top-level tile loop') cx.e.emitPrologue(`// loop %${l.loop.regions[0]!.args[0]!.id}: no next-tile prefetch: ${pf}`);
    if (typeof pf !== 'string') continue;
    if (bodyUsesScratch(cx, l)) {
      own = Math.max(own, bytes);
      owners.add(l.loop);
    } else shared = Math.max(shared, bytes);
  }
  // a cp.async ring reserved before (withPipeline) lies within sharedBytes: keep it reserved too
  if (own) cx.reserveShared(Math.max(own, cx.sharedBytes));
  cx.sharedBytes = Math.max(cx.sharedBytes, shared);
  const plain = rules.for!;
  rules.for = (c, op) => {
    const l = plan.get(op);
    const pf = prefetch.get(op);
    if (pf && !l) prefetchTileLoop(c, pf, [...plan.values()].find((x) => prefetch.get(x.loop) === pf)!.tiles.map((t) => t.load), () => c.withRingLive(() => plain(c, op)));
    else if (!l) plain(c, op);
    // a tcgen05 dot's loop-invariant A (attention's Q) is stored once, held past the ring (tcgen05_a_hoist.ts)
    else if (owners.has(op)) c.withRingLive(() => withTcgen05AHoist(c, op, 0, () => tmaRingFor(c, op, l)));
    else withTcgen05AHoist(c, op, l.numStages * l.stageBytes, () => tmaRingFor(c, op, l, pf));
  };
}

function tmaRingFor(cx: Lowering, op: Op, l: TmaRingLoop, pf?: RingPrefetch): void {
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const body = op.regions[0]!;
  const S = l.numStages;
  const SB = l.stageBytes;
  // a wgmma dot may stay in flight into the next iteration (lower_wgmma.ts overlappedDot), still
  // reading its stage: then tiles are issued S-2 iterations ahead, into the stage read two
  // iterations ago, whose wgmma the dot's wait_group 1 of the last iteration completed
  const overlapped = S >= 3 ? overlappedDot(cx, op, new Set(l.tiles.map((t) => t.value.id))) : undefined;
  if (overlapped) setWgmmaPending(cx, overlapped, 1);
  const D = overlapped ? S - 2 : S - 1; // issue distance
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  cx.emit(`// TMA ring: ${S} stages of ${SB} bytes, ${l.tiles.length} tile(s), one mbarrier per stage, issued ${D} ahead`);
  // in a cluster, tiles every CTA of a group loads alike are multicast (async/tma_multicast.ts)
  const mc = planMulticast(cx, op, l.tiles);
  if (typeof mc === 'string') cx.emit(`// no TMA multicast: ${mc}`);
  const multi = typeof mc === 'string' ? undefined : mc;
  const maps = l.tiles.map((t, k) => (multi?.shares[k] ? '' : mapAddress(cx, tensorMaps(cx).mapFor(t.load, t.g))));
  // phases: bit k = parity stage k waits for next; with multicast, S empty mbarriers follow the S full ones
  const { at: bars, phase: phases } = newBarriers(cx, multi ? 2 * S : S, (k) => (multi && k >= S ? emptyCount(cx, multi) : 1));
  const p = elected(cx); // the issuing thread's predicate, made before the ring's registers
  // Stage k's shared address and its mbarrier's, derived from the constant symbols where they are
  // used (`mov` of the symbol, `mad` of the stage index): only the stage index and the parity bits
  // cross the back edge. Pointers advanced and wrapped on the back edge, with the bases they wrap
  // to, were live across the whole loop body, and with them ptxas took 211 registers for the
  // sm_100a flash loop instead of 184 (docs/compiler.md, flash_d128).
  // With multicast the two bases are the exception: held in registers set before the ring, the
  // loop's `mad`s read them. Re-derived from the symbols in the loop instead, ptxas kept the shared
  // window's base in a vector register for the whole kernel, and each TMA copy's (uniform) address
  // operands took an R2UR from it: +15 SASS on the sm_90a 2x1 row (617 -> 632; 606 held).
  const hold = (sym: string): string | undefined => {
    if (!multi) return undefined;
    const r = cx.reg('b32');
    cx.emit(`mov.u32 ${r}, ${sym};`);
    return r;
  };
  const held = new Map<string, string | undefined>([[cx.smemSymbol(), hold(cx.smemSymbol())], [bars, hold(bars)]]);
  const at = (sym: string, idx: string | number, stride: number): string => {
    const r = cx.reg('b32');
    const base = held.get(sym);
    if (base && typeof idx === 'string') cx.emit(`mad.lo.u32 ${r}, ${idx}, ${stride}, ${base};`);
    else if (base && typeof idx === 'number') cx.emit(`add.u32 ${r}, ${base}, ${idx * stride};`);
    else if (typeof idx === 'number') {
      // one constant after the symbol (a PTX address operand is a symbol plus one constant)
      const [, name, off] = /^(.*?)(?:\+(\d+))?$/.exec(sym)!;
      const k = Number(off ?? 0) + idx * stride;
      cx.emit(`mov.u32 ${r}, ${name}${k ? `+${k}` : ''};`);
    } else {
      const base = cx.reg('b32');
      cx.emit(`mov.u32 ${base}, ${sym};`);
      cx.emit(`mad.lo.u32 ${r}, ${idx}, ${stride}, ${base};`);
    }
    return r;
  };
  const stageAt = (idx: string | number): string => at(cx.smemSymbol(), idx, SB);
  const barAt = (idx: string | number): string => at(bars, idx, 8);
  const issue = (iv: string, stage: string, bar: string): void => issueStage(cx, l, maps, ub, iv, stage, bar, multi);
  /** Stages 0..D-1: the first D iterations of a run from `lo` (bound `hi`). */
  const issueFirst = (lo: string, hi: string): void => {
    for (let j = 0; j < D; j++) {
      const ivj = cx.newRegs(ivT, 1)[0]!;
      cx.emit(`add.${ty} ${ivj}, ${lo}, ${j * l.step};`);
      issueStage(cx, l, maps, hi, ivj, stageAt(j), barAt(j), multi);
    }
  };
  const prologue = (): void => {
    fenceGlobalWrites(cx, op); // the program's writes before the loop, for the ring's TMA reads
    // an earlier run of a ring (or the scratch) may still be reading these bytes: in this CTA, or
    // with multicast in any CTA of the cluster (whose mbarriers must also be initialised)
    if (multi) clusterSync(cx);
    else cx.barrier();
    issueFirst(lb, ub);
  };
  if (pf) prologueUnlessPrefetched(cx, pf, prologue); // the previous tile may have issued them (ring_prefetch.ts)
  else prologue();

  const rdIdx = cx.reg('b32'); // the stage this iteration reads
  // multicast: the refilled stage's index, the empty barriers' parity bits, the run's iteration count
  const [wrIdx, ePhases, count] = multi ? [0, 1, 2].map(() => cx.reg('b32')) : [];
  if (multi) {
    cx.emit(`mov.u32 ${wrIdx!}, ${D};`);
    cx.emit(`mov.u32 ${ePhases!}, 0;`);
    cx.emit(`mov.u32 ${count!}, 0;`);
  }
  /**
   * Before refilling stage wrIdx (iteration `ivn`, if there is one) when this run used it before:
   * thread 0 releases it in every CTA of the cluster, then waits until every CTA has released it.
   */
  const waitEmpty = (ivn: string): void => {
    const q = cx.reg('pred');
    const skip = cx.e.label('mc_full');
    const empty = cx.reg('b32');
    const parity = cx.reg('b32');
    const bit = cx.reg('b32');
    cx.emit(`setp.lt.${ty} ${q}, ${ivn}, ${ub};`);
    cx.emit(`setp.ge.and.u32 ${q}, ${count!}, ${S - D}, ${q};`);
    cx.emit(`add.u32 ${empty}, ${wrBar}, ${8 * S};`);
    cx.emit(`and.pred ${q}, ${q}, ${p};`);
    cx.emit('// multicast: this CTA is done with the stage; every CTA of the cluster must be before it is refilled');
    releaseStage(cx, multi!, q, empty);
    cx.emit(`@!${q} bra ${skip};`);
    cx.emit(`bfe.u32 ${parity}, ${ePhases!}, ${wrIdx!}, 1;`);
    waitBarrier(cx, empty, parity);
    cx.emit(`shl.b32 ${bit}, 1, ${wrIdx!};`);
    cx.emit(`xor.b32 ${ePhases!}, ${ePhases!}, ${bit};`);
    cx.e.placeLabel(skip);
  };
  cx.emit(`mov.u32 ${rdIdx}, 0;`);
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label('tfor');
  const end = cx.e.label('endtfor');
  const done = cx.reg('pred');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${ty} ${done}, ${iv}, ${ub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  // this iteration's stage and the one it refills (D ahead; carried with multicast, whose empty
  // barriers' parity bits are indexed by it)
  let wrIx = wrIdx;
  if (!wrIx) {
    const q = cx.reg('pred');
    wrIx = cx.reg('b32');
    cx.emit(`add.u32 ${wrIx}, ${rdIdx}, ${D};`);
    cx.emit(`setp.ge.u32 ${q}, ${wrIx}, ${S};`);
    cx.emit(`@${q} sub.u32 ${wrIx}, ${wrIx}, ${S};`);
  }
  const [rd, rdBar, wr, wrBar] = [stageAt(rdIdx), barAt(rdIdx), stageAt(wrIx), barAt(wrIx)];
  const parity = cx.reg('b32');
  const bit = cx.reg('b32');
  cx.emit(`bfe.u32 ${parity}, ${phases}, ${rdIdx}, 1;`);
  waitBarrier(cx, rdBar, parity);
  cx.emit(`shl.b32 ${bit}, 1, ${rdIdx};`);
  cx.emit(`xor.b32 ${phases}, ${phases}, ${bit};`);
  cx.barrier();
  const ivn = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`add.${ty} ${ivn}, ${iv}, ${D * l.step};`);
  if (multi) waitEmpty(ivn);
  issue(ivn, wr, wrBar);

  const yields = lowerRingBody(cx, op, l, iv, carried, rd);
  backEdge(cx, op, carried, yields);
  // the next stage: the stage indices advance by one, wrapping
  const wrap = (r: string, step: number, first: string, past: string): void => {
    const q = cx.reg('pred');
    cx.emit(`add.u32 ${r}, ${r}, ${step};`);
    cx.emit(`setp.eq.u32 ${q}, ${r}, ${past};`);
    cx.emit(`selp.b32 ${r}, ${first}, ${r}, ${q};`);
  };
  const zero = cx.reg('b32');
  const nS = cx.reg('b32');
  cx.emit(`mov.u32 ${zero}, 0;`);
  cx.emit(`mov.u32 ${nS}, ${S};`);
  wrap(rdIdx, 1, zero, nS);
  if (multi) {
    wrap(wrIdx!, 1, zero, nS);
    cx.emit(`add.u32 ${count!}, ${count!}, 1;`);
  }
  cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  if (overlapped) cx.emit('wgmma.wait_group.sync.aligned 0;');
  if (pf) {
    prefetchNextTile(cx, pf, op, issueFirst);
    waitDeferredStore(cx, 'the previous tile\'s store has drained during this K loop: its shared tile may be rewritten');
  }
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
}

/**
 * Thread 0 fills the stage at `stage` (its full mbarrier at `bar`) with the tiles of the iteration
 * whose induction variable is `iv` (skipped at or past `ub`): expect_tx of the stage's bytes, one
 * cp.async.bulk.tensor per box. The offsets' slice is lowered again for `iv`.
 */
export function issueStage(cx: Lowering, l: TmaRingLoop, maps: readonly string[], ub: string, iv: string, stage: string, bar: string, multi?: MulticastPlan): void {
  const op = l.loop;
  const body = op.regions[0]!;
  const ty = regKind(op.operands[0]!.type.elem) === 'b64' ? 's64' : 's32';
  const p = elected(cx);
  const q = cx.reg('pred');
  const skip = cx.e.label('tma_skip');
  cx.emit(`setp.ge.${ty} ${q}, ${iv}, ${ub};`);
  cx.emit(`@${q} bra.uni ${skip};`);
  cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    for (const o of l.slice) cx.lowerOp(o);
    cx.emit(`@${p} mbarrier.arrive.expect_tx.shared::cta.b64 _, [${bar}], ${l.tiles.reduce((n, t) => n + t.g.bytes, 0)};`);
    l.tiles.forEach((t, k) => {
      const share = multi?.shares[k];
      if (share) return issueShared(cx, multi!, share, t, t.offset, stage, bar);
      for (let j = 0; j < t.g.boxes; j++) {
        const off = t.offset + j * t.g.rows * t.g.swizzle;
        cx.emit(`@${p} cp.async.bulk.tensor.${t.load.attrs.block.length}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [${stage}${off ? `+${off}` : ''}], [${maps[k]}, ${boxCoords(cx, t.load, t.g, j)}], [${bar}];`);
      }
    });
  });
  cx.e.placeLabel(skip);
}

/**
 * The loop body over a ring stage (`rd` = the stage's shared address): the staged tiles read from
 * it, the ring's own loads skipped. Returns the yielded registers. Shared with warp specialization.
 */
export function lowerRingBody(cx: Lowering, op: Op, l: TmaRingLoop, iv: string, carried: readonly string[][], rd: string): string[][] {
  const body = op.regions[0]!;
  return cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    body.args.slice(1).forEach((a, k) => {
      cx.define(a, carried[k]!);
      cx.own(a, body);
    });
    roundTf32Stage(cx, l.tiles, rd); // f32 tiles of tf32 dots: rounded as the reference does
    for (const t of l.tiles) {
      const base = cx.reg('b32');
      cx.emit(`add.u32 ${base}, ${rd}, ${t.offset};`);
      setStaged(cx, t.value, { base, rows: t.g.rows, rowBytes: t.g.rowBytes, swizzle: t.g.swizzle, transposed: !!t.trans });
    }
    let out: string[][] = [];
    for (const o of body.ops) {
      if (o.kind === 'yield') out = o.operands.map((v, i) => cx.regsIn(v, cx.layoutOf(op.results[i]!)));
      else if (!l.skip.has(o)) cx.lowerOp(o);
    }
    for (const t of l.tiles) setStaged(cx, t.value, undefined);
    return out;
  });
}
