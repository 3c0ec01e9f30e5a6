// Warp specialization across a persistent tile loop (lower_warp_specialize.ts does the K loop):
// when the warp-specialized K loop sits directly in a top-level `for` (persistentTiles'
// `programId(0)` stepping by `numPrograms(0)`), the producer walks the same tile sequence itself
// and keeps filling the ring with the next tile's stages while the consumers run the current
// tile's epilogue, as CUTLASS's persistent warp-specialized sm90 GEMMs do. The ring's stage index
// and phase bits run on across tiles in both partitions (set once, in the prologue), and the
// shared scratch (the epilogue's stmatrix tile) stays past the ring for the whole tile loop.
//
// Program order (docs/semantics.md): the next tile's loads must see the current tile's stores
// when the two can touch the same bytes. The producer checks it at run time: when a descriptor
// store of the tile loop overlaps the byte span of a ring tensor (or the loop writes through a
// pointer, which has no span), it waits, at each tile after its first, on a `tile done`
// mbarrier the consumers arrive on when they start the next tile (after the epilogue's full
// bulk wait and barrier). Otherwise it never waits for the epilogue.
import type { Op, Value } from '../../ir/ops.js';
import { descOperands } from '../../ir/tensor_desc.js';
import { byteSize } from '../../ir/types.js';
import { loopWriter } from '../../compiler/loop_writers.js';
import { movFor, type Lowering } from '../context.js';
import { newBarriers, waitBarrier } from '../async/lower_tma.js';
import { descElem } from '../async/tensor_map.js';
import { regKind } from '../ptx_types.js';
import { waitDeferredStore } from '../async/deferred_store_wait.js';

/** The tile loop around a warp-specialized K loop. */
export interface WsTileLoop {
  readonly loop: Op;
  /** Ops of the tile loop's body before the K loop that the producer lowers again (pure scalars). */
  remat: Op[];
  /** Descriptor stores of the tile loop whose span the producer compares with the ring's tensors. */
  readonly stores: readonly Op<'desc_store'>[];
  /** The loop writes through a pointer too: the producer always waits for the previous tile. */
  readonly alwaysOrdered: boolean;
}

/**
 * Where the K loop `op` sits: at the kernel's top level (no tile loop), directly in a top-level
 * `for` the producer can run itself (the tile loop), or why neither.
 */
export function tileLoopOf(cx: Lowering, op: Op): { tiles?: WsTileLoop } | string {
  const top = cx.func.body.ops;
  if (top.includes(op)) return {};
  const outer = top.find((o) => o.kind === 'for' && o.regions[0]!.ops.includes(op));
  if (!outer) return "not at the kernel's top level nor directly in a top-level tile loop (the producer runs those loops alone)";
  const step = outer.operands[2]!;
  const c = cx.info.get(step).constant;
  const byNumPrograms = top.some((o) => o.kind === 'num_programs' && o.results[0]!.id === step.id);
  if (!byNumPrograms && !(c !== undefined && Number.isInteger(c) && c > 0)) return 'the tile loop\'s step is neither numPrograms nor a known positive constant';
  const body = outer.regions[0]!.ops;
  const at = body.indexOf(op);
  const before = loopWriter({ ...outer.regions[0]!, ops: body.slice(0, at) });
  if (before) return `the tile loop writes memory before the K loop (${before.kind}): the next tile's loads would pass it`;
  const after = body.slice(at + 1);
  const stores = after.filter((o): o is Op<'desc_store'> => o.kind === 'desc_store');
  const rest = loopWriter({ ...outer.regions[0]!, ops: after.filter((o) => o.kind !== 'desc_store') });
  return { tiles: { loop: outer, remat: [], stores, alwaysOrdered: rest !== undefined } };
}

/** Values the producer needs for the tile loop (its bounds, the stores' and loads' spans). */
export function tileRoots(t: WsTileLoop, loads: readonly Op<'desc_load'>[]): Value[] {
  const spans = t.alwaysOrdered ? [] : [...t.stores, ...loads].flatMap((o) => {
    const d = descOperands(o);
    return [d.base, ...d.shape, ...d.strides];
  });
  return [t.loop.operands[0]!, t.loop.operands[1]!, t.loop.operands[2]!, ...spans];
}

/** Registers shared by both partitions: the `tile done` mbarrier and the consumers' "a tile ran" flag. */
export interface WsTileRegs {
  readonly done: string;
  readonly later: string;
}

export function tileBarrier(cx: Lowering, consumers: number): WsTileRegs {
  const { bar } = newBarriers(cx, 1, () => consumers);
  const later = cx.reg('pred');
  cx.e.emitPrologue(`setp.ne.u32 ${later}, 0, 0;`);
  return { done: bar, later };
}

/**
 * Consumers, at the start of each tile's K loop: from the second tile on, tell the producer the
 * previous tile is done (its epilogue's stores waited for, behind a consumer barrier).
 */
export function consumerTileStart(cx: Lowering, r: WsTileRegs, deferred?: { ordered: string }): void {
  if (deferred) {
    // the epilogue's store was not waited for (deferred_store_wait.ts): complete it first where the producer waits on it
    const q = cx.reg('pred');
    cx.emit(`and.pred ${q}, ${r.later}, ${deferred.ordered};`);
    waitDeferredStore(cx, 'the next tile\'s loads may read what it stored: its writes complete before the tile-done arrival', q);
  }
  cx.emit('// tile done: the previous tile\'s epilogue has stored (the producer waits on it only when a store may overlap a ring tensor)');
  cx.emit(`@${r.later} fence.proxy.async.global;`); // generic-proxy stores before the producer's TMA reads
  cx.emit(`@${r.later} mbarrier.arrive.shared::cta.b64 _, [${r.done}];`);
  cx.emit(`setp.eq.u32 ${r.later}, 0, 0;`);
}

/** [lo, hi): the bytes a descriptor's tensor may touch (base + size * (1 + sum (shape_i - 1) * stride_i)). */
function span(cx: Lowering, o: Op<'desc_load'> | Op<'desc_store'>): [string, string] {
  const d = descOperands(o);
  const lo = cx.regs(d.base)[0]!;
  const acc = cx.reg('b64');
  cx.emit(`mov.u64 ${acc}, 1;`);
  const wide = (v: Value): string => {
    const r = cx.regs(v)[0]!;
    if (regKind(v.type.elem) === 'b64') return r;
    const w = cx.reg('b64');
    cx.emit(`cvt.s64.s32 ${w}, ${r};`);
    return w;
  };
  d.shape.forEach((s, i) => {
    const n = wide(s);
    const m = cx.reg('b64');
    cx.emit(`sub.s64 ${m}, ${n}, 1;`);
    cx.emit(`mad.lo.s64 ${acc}, ${m}, ${wide(d.strides[i]!)}, ${acc};`);
  });
  const hi = cx.reg('b64');
  cx.emit(`mad.lo.s64 ${hi}, ${acc}, ${byteSize(descElem(o))}, ${lo};`);
  return [lo, hi];
}

/** A predicate, true when the next tile's loads must wait for this tile's stores (a store may overlap a ring tensor, or a pointer write). */
export function tileOrdered(cx: Lowering, t: WsTileLoop, loads: readonly Op<'desc_load'>[]): string {
  const ordered = cx.reg('pred');
  if (t.alwaysOrdered || !t.stores.length) cx.emit(`setp.${t.alwaysOrdered ? 'eq' : 'ne'}.u32 ${ordered}, 0, 0;`);
  else {
    cx.emit('// the next tile\'s loads wait for this tile\'s stores only where a store may overlap a ring tensor');
    cx.emit(`setp.ne.u32 ${ordered}, 0, 0;`);
    const ls = loads.map((l) => span(cx, l));
    for (const s of t.stores) {
      const [slo, shi] = span(cx, s);
      for (const [llo, lhi] of ls) {
        const [a, b] = [cx.reg('pred'), cx.reg('pred')];
        cx.emit(`setp.lt.u64 ${a}, ${slo}, ${lhi};`);
        cx.emit(`setp.lt.u64 ${b}, ${llo}, ${shi};`);
        cx.emit(`and.pred ${a}, ${a}, ${b};`);
        cx.emit(`or.pred ${ordered}, ${ordered}, ${a};`);
      }
    }
  }
  return ordered;
}

/**
 * The producer's tile loop around `kLoop` (the K loop's issue code): the same tiles as the
 * consumers', no barrier with them; a wait on the previous tile only when a store may overlap.
 */
export function producerTiles(cx: Lowering, t: WsTileLoop, r: WsTileRegs, loads: readonly Op<'desc_load'>[], kLoop: () => void): void {
  const op = t.loop;
  const [lb, ub, step] = [0, 1, 2].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const ordered = tileOrdered(cx, t, loads);
  const [parity, first, skip] = [cx.reg('b32'), cx.reg('pred'), cx.e.label('wstile_go')];
  cx.emit(`mov.u32 ${parity}, 0;`);
  cx.emit(`setp.eq.u32 ${first}, 0, 0;`);
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label('wstile');
  const end = cx.e.label('endwstile');
  const done = cx.reg('pred');
  cx.emit('// producer tile loop: the consumers\' tile sequence; the ring runs on across tiles');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${ty} ${done}, ${iv}, ${ub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  cx.emit(`@${first} bra.uni ${skip};`);
  cx.emit(`@!${ordered} bra.uni ${skip};`);
  waitBarrier(cx, r.done, parity);
  cx.emit(`xor.b32 ${parity}, ${parity}, 1;`);
  cx.e.placeLabel(skip);
  cx.emit(`setp.ne.u32 ${first}, 0, 0;`);
  cx.scope(() => {
    cx.define(op.regions[0]!.args[0]!, [iv]);
    for (const o of t.remat) cx.lowerOp(o);
    kLoop();
  });
  cx.emit(`add.${ty} ${iv}, ${iv}, ${step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
}
