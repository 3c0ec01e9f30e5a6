// Reductions along one axis, in three steps: combine the thread's own registers, then butterfly
// shuffles across the lanes that hold the axis (shfl.sync.bfly), then shared memory across the
// warps that hold it. The combiner region is inlined on scalars each time it is applied.
import type { Op } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { laneRep, layoutKey, threadShifts, type BlockedLayout, type Layout } from '../compiler/layout.js';
import { addrStr, rowMajorStrides, type Lowering } from './context.js';
import { regKind } from './ptx_types.js';
import { smemBytesOf } from './lower_shared.js';

type Rule = (cx: Lowering, op: Op) => void;

/** Applies the combiner region of `op` to (acc..., x...). */
export function combine(cx: Lowering, op: Op, acc: string[], xs: string[]): string[] {
  const region = op.regions[0]!;
  const res = cx.scope(() => cx.region(region, [...acc, ...xs].map((r) => [r]), (o) => cx.lowerOp(o)));
  return res.map((r) => r[0]!);
}

/** shfl.sync.bfly of one register of dtype `t` with lane mask `mask`. */
export function shuffleXor(cx: Lowering, t: ElemType, src: string, mask: number): string {
  const k = regKind(t);
  const out = cx.newRegs(t, 1)[0]!;
  const sh = (d: string, s: string): void => cx.emit(`shfl.sync.bfly.b32 ${d}, ${s}, ${mask}, 31, -1;`);
  if (k === 'b64' || k === 'f64') {
    const lo = cx.reg('b32');
    const hi = cx.reg('b32');
    cx.emit(`mov.b64 {${lo}, ${hi}}, ${src};`);
    sh(lo, lo);
    sh(hi, hi);
    cx.emit(`mov.b64 ${out}, {${lo}, ${hi}};`);
  } else if (k === 'b16') {
    const w = cx.reg('b32');
    cx.emit(`cvt.u32.u16 ${w}, ${src};`);
    sh(w, w);
    cx.emit(`cvt.u16.u32 ${out}, ${w};`);
  } else if (k === 'pred') {
    const w = cx.reg('b32');
    cx.emit(`selp.u32 ${w}, 1, 0, ${src};`);
    sh(w, w);
    cx.emit(`setp.ne.u32 ${out}, ${w}, 0;`);
  } else sh(out, src);
  return out;
}

/** Lanes/warps that hold distinct elements along `axis` (replicas are not combined twice). */
export function axisBits(b: BlockedLayout, size: number, axis: number): { lane: number[]; warp: number[] } {
  const sh = threadShifts(b);
  const lane: number[] = [];
  const warp: number[] = [];
  const spt = b.sizePerThread[axis]!;
  const tpw = b.threadsPerWarp[axis]!;
  for (let j = 0; 1 << j < tpw; j++) if ((1 << j) * spt < size) lane.push(sh.lane[axis]! + j);
  for (let j = 0; 1 << j < b.warpsPerCTA[axis]!; j++) if ((1 << j) * spt * tpw * laneRep(b, axis) < size) warp.push(sh.warp[axis]! + j);
  return { lane, warp };
}

const reduce: Rule = (cx, op) => {
  const axis = (op as Op<'reduce'>).attrs.axis;
  const x0 = op.operands[0]!;
  const inL = (cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(x0)) as Layout;
  const b = inL.kind === 'blocked' ? inL : cx.fail(`reduce input must be in a blocked layout, got ${layoutKey(inL)}`);
  const shape = x0.type.shape;
  const ins = op.operands.map((_, i) => cx.operand(op, i));
  const types = op.operands.map((v) => v.type.elem);
  const outL = cx.layoutOf(op.results[0]!);
  const outShape = op.results[0]!.type.shape;
  const outSlots = cx.slots(op.results[0]!, outL);
  const outIndex = new Map(outSlots.map((s, i) => [s.off.filter((_, d) => outL.kind !== 'slice' || d !== outL.dim).join(','), i]));

  // 1. in-thread
  const acc: string[][] = outSlots.map(() => []);
  cx.slots(x0, inL).forEach((s, i) => {
    const key = s.off.filter((_, d) => d !== axis).join(',');
    const k = outIndex.get(key) ?? cx.fail(`reduce: no output register for [${key}]`);
    const xs = ins.map((r) => r[r.length === 1 ? 0 : i]!);
    acc[k] = acc[k]!.length ? combine(cx, op, acc[k]!, xs) : xs;
  });
  // 2. across lanes
  const bits = axisBits(b, shape[axis]!, axis);
  for (const bit of bits.lane) {
    for (let k = 0; k < acc.length; k++) {
      const other = acc[k]!.map((r, j) => shuffleXor(cx, types[j]!, r, 1 << bit));
      acc[k] = combine(cx, op, acc[k]!, other);
    }
  }
  // 3. across warps, through shared memory: slot [out element][warp along axis]
  if (bits.warp.length) {
    const W = 1 << bits.warp.length;
    const sizes = types.map(smemBytesOf);
    const region = sizes.map((sz) => outSlotsTotal(outShape) * W * sz);
    const offsets = region.map((_, j) => region.slice(0, j).reduce((a, x) => a + x, 0));
    cx.needShared(region.reduce((a, x) => a + x, 0));
    const { warp } = cx.thread();
    const wa = cx.reg('b32');
    cx.emit(`bfe.u32 ${wa}, ${warp}, ${bits.warp[0]}, ${bits.warp.length};`);
    cx.barrier();
    const addrs = types.map((t, j) => cx.linearAddrs(outL, outShape, sizes[j]! * W, rowMajorStrides(outShape), offsets[j]!));
    types.forEach((t, j) => {
      const wOff = cx.reg('b32');
      cx.emit(`mul.lo.u32 ${wOff}, ${wa}, ${sizes[j]};`);
      addrs[j]!.forEach((a, k) => {
        const r = cx.reg('b32');
        cx.emit(`add.u32 ${r}, ${a.reg}, ${wOff};`);
        storeScalar(cx, t, { reg: r, imm: a.imm }, acc[k]![j]!);
      });
    });
    cx.barrier();
    for (let k = 0; k < acc.length; k++) {
      let cur: string[] | undefined;
      for (let w = 0; w < W; w++) {
        const xs = types.map((t, j) => {
          const a = addrs[j]![k]!;
          return loadScalar(cx, t, { reg: a.reg, imm: a.imm + w * sizes[j]! });
        });
        cur = cur ? combine(cx, op, cur, xs) : xs;
      }
      acc[k] = cur!;
    }
  }
  op.results.forEach((r, j) => cx.define(r, acc.map((a) => a[j]!)));
};
const outSlotsTotal = (shape: readonly number[]): number => shape.reduce((a, x) => a * x, 1);

export function storeScalar(cx: Lowering, t: ElemType, a: { reg: string; imm: number }, src: string): void {
  const k = regKind(t);
  if (k === 'pred') {
    const w = cx.reg('b32');
    cx.emit(`selp.u32 ${w}, 1, 0, ${src};`);
    cx.emit(`st.shared.u8 ${addrStr(a)}, ${w};`);
  } else cx.emit(`st.shared.b${smemBytesOf(t) * 8} ${addrStr(a)}, ${src};`);
}
export function loadScalar(cx: Lowering, t: ElemType, a: { reg: string; imm: number }): string {
  const out = cx.newRegs(t, 1)[0]!;
  const k = regKind(t);
  if (k === 'pred') {
    const w = cx.reg('b32');
    cx.emit(`ld.shared.u8 ${w}, ${addrStr(a)};`);
    cx.emit(`setp.ne.u32 ${out}, ${w}, 0;`);
  } else cx.emit(`ld.shared.b${smemBytesOf(t) * 8} ${out}, ${addrStr(a)};`);
  return out;
}

export const REDUCE_RULES: Record<string, Rule> = { reduce };
