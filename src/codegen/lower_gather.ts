// gather. When src and index share a shape and the dim lies in one warp (compiler/sort_layout.ts),
// every lane holds the same rows of src as of the output: the element at position p of the dim
// sits in lane (p / sizePerThread) % lanes of the dim's lane field and in the register whose
// offset holds p's other bits, so one shfl.sync.idx per register of the row and a select
// (Triton's warp-local gather). Otherwise
// src goes row-major to shared memory and each output element is one ld.shared. Indices are
// taken modulo the dim's length (the interpreter refuses an index outside it).
import type { Op } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { layoutKey, threadShifts } from '../compiler/layout.js';
import { gatherByShuffle } from '../compiler/sort_layout.js';
import { rowMajorStrides, type Lowering } from './context.js';
import { regKind } from './ptx_types.js';
import { loadScalar } from './lower_reduce.js';
import { storeTile } from './lower_shared.js';
import { smemBytesOf } from './lower_shared.js';

type Rule = (cx: Lowering, op: Op) => void;

/** shfl.sync.idx of one register of dtype t from lane `src` (a register). */
function shuffleIdx(cx: Lowering, t: ElemType, v: string, src: string): string {
  const k = regKind(t);
  const out = cx.newRegs(t, 1)[0]!;
  const sh = (d: string, s: string): void => cx.emit(`shfl.sync.idx.b32 ${d}, ${s}, ${src}, 31, -1;`);
  if (k === 'b64' || k === 'f64') {
    const lo = cx.reg('b32');
    const hi = cx.reg('b32');
    cx.emit(`mov.b64 {${lo}, ${hi}}, ${v};`);
    sh(lo, lo);
    sh(hi, hi);
    cx.emit(`mov.b64 ${out}, {${lo}, ${hi}};`);
  } else if (k === 'b16') {
    const w = cx.reg('b32');
    cx.emit(`cvt.u32.u16 ${w}, ${v};`);
    sh(w, w);
    cx.emit(`cvt.u16.u32 ${out}, ${w};`);
  } else if (k === 'pred') {
    const w = cx.reg('b32');
    cx.emit(`selp.u32 ${w}, 1, 0, ${v};`);
    sh(w, w);
    cx.emit(`setp.ne.u32 ${out}, ${w}, 0;`);
  } else sh(out, v);
  return out;
}

/** The index as a u32 in [0, n): 64-bit indices narrowed, then masked. */
function position(cx: Lowering, t: ElemType, r: string, n: number): string {
  const p = cx.reg('b32');
  if (regKind(t) === 'b64') cx.emit(`cvt.u32.u64 ${p}, ${r};`);
  else cx.emit(`mov.b32 ${p}, ${r};`);
  cx.emit(`and.b32 ${p}, ${p}, ${n - 1};`);
  return p;
}

function select(cx: Lowering, t: ElemType, p: string, a: string, b: string): string {
  const out = cx.newRegs(t, 1)[0]!;
  const k = regKind(t);
  if (k === 'pred') {
    const np = cx.reg('pred');
    const x = cx.reg('pred');
    cx.emit(`and.pred ${x}, ${p}, ${a};`);
    cx.emit(`not.pred ${np}, ${p};`);
    cx.emit(`and.pred ${np}, ${np}, ${b};`);
    cx.emit(`or.pred ${out}, ${x}, ${np};`);
  } else cx.emit(`selp.${k === 'f32' ? 'f32' : k === 'f64' ? 'f64' : k} ${out}, ${a}, ${b}, ${p};`);
  return out;
}

const gather: Rule = (cx, op) => {
  const { axis } = (op as Op<'gather'>).attrs;
  const [src, index] = op.operands as [Op['operands'][0], Op['operands'][0]];
  const t = src!.type.elem;
  const it = index!.type.elem;
  const sShape = src!.type.shape;
  const n = sShape[axis]!;
  const res = op.results[0]!;
  const outL = cx.layoutOf(res);
  const oShape = res.type.shape;
  const slots = cx.slots(res, outL);
  const idx = cx.operand(op, 1);
  const pos = slots.map((_, i) => position(cx, it, idx[idx.length === 1 ? 0 : i]!, n));

  if (gatherByShuffle(sShape, oShape, axis)) {
    if (outL.kind !== 'blocked') return cx.fail(`gather by shuffles needs a blocked layout, got ${layoutKey(outL)}`);
    const vals = cx.operand(op, 0); // in outL: the plan gives src, index and result one layout
    const spt = outL.sizePerThread[axis]!;
    const logS = Math.log2(spt);
    const sh = threadShifts(outL).lane[axis]!;
    const width = Math.log2(outL.threadsPerWarp[axis]!);
    const lanes = Math.min(outL.threadsPerWarp[axis]!, n / spt); // lanes holding distinct positions
    const { lane } = cx.thread();
    const others = cx.reg('b32');
    cx.emit(`and.b32 ${others}, ${lane}, ${~(((1 << width) - 1) << sh) >>> 0};`);
    const rowOf = (off: readonly number[]): string => off.map((o, d) => (d === axis ? 0 : o)).join(',');
    const row = new Map<string, number[]>(); // the thread's slots of one row (its registers along the dim)
    slots.forEach((s, i) => {
      const k = rowOf(s.off);
      row.set(k, [...(row.get(k) ?? []), i]);
    });
    const out = slots.map((s, i) => {
      // position p: lane field (p / spt) % lanes; register: the other bits, as the slot offsets hold them
      const p = pos[i]!;
      const srcLane = cx.reg('b32');
      cx.emit(`shr.u32 ${srcLane}, ${p}, ${logS};`);
      cx.emit(`and.b32 ${srcLane}, ${srcLane}, ${lanes - 1};`);
      if (sh) cx.emit(`shl.b32 ${srcLane}, ${srcLane}, ${sh};`);
      cx.emit(`or.b32 ${srcLane}, ${srcLane}, ${others};`);
      const cands = row.get(rowOf(s.off))!;
      const pick = (j: number): string => vals[vals.length === 1 ? 0 : j]!;
      let v = shuffleIdx(cx, t, pick(cands[0]!), srcLane);
      if (cands.length > 1) {
        const reg = cx.reg('b32');
        cx.emit(`and.b32 ${reg}, ${p}, ${~((lanes - 1) << logS) >>> 0};`);
        for (const j of cands.slice(1)) {
          const w = shuffleIdx(cx, t, pick(j), srcLane);
          const eq = cx.reg('pred');
          cx.emit(`setp.eq.u32 ${eq}, ${reg}, ${slots[j]!.off[axis]};`);
          v = select(cx, t, eq, w, v);
        }
      }
      return v;
    });
    cx.define(res, out);
    return;
  }

  // through shared memory: src row-major, then one load per output element
  const srcL = cx.layoutOf(src!);
  const strides = rowMajorStrides(sShape);
  const sz = smemBytesOf(t);
  cx.needShared(sShape.reduce((a, d) => a * d, 1) * sz);
  cx.barrier();
  storeTile(cx, t, cx.regs(src!), srcL, sShape, strides);
  cx.barrier();
  const base = cx.reg('b32');
  cx.emit(`mov.u32 ${base}, ${cx.smemBase()};`);
  const out = slots.map((s, i) => {
    const a = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${a}, ${pos[i]}, ${strides[axis]! * sz}, ${base};`);
    for (let d = 0; d < oShape.length; d++) {
      if (d === axis || oShape[d] === 1) continue;
      cx.emit(`mad.lo.u32 ${a}, ${cx.coordReg(outL, oShape, s, d)}, ${strides[d]! * sz}, ${a};`);
    }
    return loadScalar(cx, t, { reg: a, imm: 0 });
  });
  cx.define(res, out);
};

export const GATHER_RULES: Record<string, Rule> = { gather };
