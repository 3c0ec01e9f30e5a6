// Inclusive scans along one axis: Hillis-Steele steps through shared memory. Each step writes
// the current partials, then every element combines the partial `s` places earlier (later for
// reverse scans) with its own: log2(n) steps, any associative combiner region.
import type { Op } from '../ir/ops.js';
import { numel, type ElemType } from '../ir/types.js';
import { addrStr, rowMajorStrides, type Lowering } from './context.js';
import { combine } from './lower_reduce.js';
import { smemBytesOf, storeTile } from './lower_shared.js';
import { regBits, regKind } from './ptx_types.js';

type Rule = (cx: Lowering, op: Op) => void;

/** d = p ? a : b for a register of dtype `t`. */
export function selectReg(cx: Lowering, t: ElemType, p: string, a: string, b: string): string {
  const k = regKind(t);
  const d = cx.newRegs(t, 1)[0]!;
  if (k === 'pred') {
    const x = cx.reg('pred');
    const y = cx.reg('pred');
    cx.emit(`and.pred ${x}, ${p}, ${a};`);
    cx.emit(`not.pred ${y}, ${p};`);
    cx.emit(`and.pred ${y}, ${y}, ${b};`);
    cx.emit(`or.pred ${d}, ${x}, ${y};`);
  } else cx.emit(`selp.b${regBits(k)} ${d}, ${a}, ${b}, ${p};`);
  return d;
}

const scan: Rule = (cx, op) => {
  const { axis, reverse } = (op as Op<'scan'>).attrs;
  const x0 = op.operands[0]!;
  const shape = x0.type.shape;
  const l = cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(x0);
  const types = op.operands.map((v) => v.type.elem);
  const sizes = types.map(smemBytesOf);
  const n = numel(shape);
  const offsets = sizes.map((_, j) => sizes.slice(0, j).reduce((a, s) => a + s * n, 0));
  cx.needShared(sizes.reduce((a, s) => a + s * n, 0));
  const strides = rowMajorStrides(shape);
  const slots = cx.slots(x0, l);
  let cur = op.operands.map((_, i) => cx.operand(op, i).slice());
  if (cur.some((c) => c.length === 1 && slots.length > 1)) cur = cur.map((c) => (c.length === 1 ? slots.map(() => c[0]!) : c));
  const coords = slots.map((s) => cx.coordReg(l, shape, s, axis));
  const size = shape[axis]!;
  for (let s = 1; s < size; s *= 2) {
    cx.barrier();
    types.forEach((t, j) => storeTile(cx, t, cur[j]!, l, shape, strides, offsets[j]!));
    cx.barrier();
    const addrs = types.map((t, j) => cx.linearAddrs(l, shape, sizes[j]!, strides, offsets[j]!));
    const next = cur.map((c) => c.slice());
    slots.forEach((_, i) => {
      const p = cx.reg('pred');
      if (reverse) cx.emit(`setp.lt.s32 ${p}, ${coords[i]}, ${size - s};`);
      else cx.emit(`setp.ge.s32 ${p}, ${coords[i]}, ${s};`);
      const others = types.map((t, j) => {
        const a = addrs[j]![i]!;
        const delta = (reverse ? 1 : -1) * s * strides[axis]! * sizes[j]!;
        const o = cx.newRegs(t, 1)[0]!;
        const k = regKind(t);
        if (k === 'pred') {
          const w = cx.reg('b32');
          cx.emit(`mov.b32 ${w}, 0;`);
          cx.emit(`@${p} ld.shared.u8 ${w}, ${addrStr({ reg: a.reg, imm: a.imm + delta })};`);
          cx.emit(`setp.ne.u32 ${o}, ${w}, 0;`);
        } else {
          cx.emit(`mov.b${regBits(k)} ${o}, ${cur[j]![i]};`);
          cx.emit(`@${p} ld.shared.b${regBits(k)} ${o}, ${addrStr({ reg: a.reg, imm: a.imm + delta })};`);
        }
        return o;
      });
      const combined = combine(cx, op, others, cur.map((c) => c[i]!));
      combined.forEach((r, j) => (next[j]![i] = selectReg(cx, types[j]!, p, r, cur[j]![i]!)));
    });
    cur = next;
  }
  op.results.forEach((r, j) => cx.define(r, cur[j]!));
};

export const SCAN_RULES: Record<string, Rule> = { scan };
