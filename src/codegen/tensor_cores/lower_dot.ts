// dot(a [M,K], b [K,N], acc [M,N]). Lowerings are pluggable (a table keyed by name):
// 'mma' (default) puts dots in the wgmma layout on wgmma (sm_90a, lower_wgmma.ts), dots in the
// tcgen05 layout on tcgen05 (sm_100a, lower_tcgen05.ts), dots with an mma form (compiler/mma_kinds.ts: f16, bf16, tf32, i8/u8)
// whose shape tiles on tensor cores (lower_mma.ts) and every other dot on 'fma': a and b go to
// shared memory row-major, then a k-loop where each thread loads the a-values of its rows and the b-values of its columns and does one FMA per
// accumulator register. The layout pass makes the choice (mmaLayoutOf): a result in an mma layout means tensor cores.
import type { Op, Value } from '../../ir/ops.js';
import { isFloat, type ElemType } from '../../ir/types.js';
import { rowMajorStrides, type Lowering } from '../context.js';
import { castOne, fromF32, toF32 } from '../lower_elementwise.js';
import { smemBytesOf, storeTile } from '../lower_shared.js';
import { isHalf, regBits, regKind } from '../ptx_types.js';
import { mmaDot } from './lower_mma.js';
import { wgmmaDot } from './lower_wgmma.js';
import { tcgen05Dot } from './lower_tcgen05.js';
import { tf32Regs } from './mma_fragments.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';

export type DotLowering = (cx: Lowering, op: Op) => void;

const fmaDot: DotLowering = (cx, op) => {
  const [a, b] = op.operands as [Value, Value];
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const r = op.results[0]!;
  const L = cx.layoutOf(r);
  const ta = a.type.elem;
  const tb = b.type.elem;
  const tc = r.type.elem;
  if (tc === 'bool' || ta === 'bool' || tb === 'bool') cx.fail('dot is not defined for bool');
  const sa = smemBytesOf(ta);
  const sb = smemBytesOf(tb);
  const bOff = Math.ceil((M * K * sa) / 16) * 16;
  cx.needShared(bOff + K * N * sb);
  // the accumulator first: a layout conversion goes through the same shared scratch as a and b
  const accIn = cx.operand(op, 2);
  cx.barrier();
  // inputPrecision 'tf32' rounds f32 inputs the same way on FMA as on tensor cores
  const tf32 = ta === 'f32' && dotInputPrecision(op) === 'tf32';
  const regsIn = (v: Value): string[] => (tf32 ? tf32Regs(cx, cx.regs(v)) : cx.regs(v));
  storeTile(cx, ta, regsIn(a), cx.layoutOf(a), a.type.shape, rowMajorStrides(a.type.shape), 0);
  storeTile(cx, tb, regsIn(b), cx.layoutOf(b), b.type.shape, rowMajorStrides(b.type.shape), bOff);
  cx.barrier();

  // compute type: f32 for f16/bf16 accumulators, else the accumulator's own type
  const ct: ElemType = isHalf(tc) ? 'f32' : tc;
  const slots = cx.slots(r, L);
  const accRegs = slots.map((_, i) => {
    const d = cx.newRegs(ct, 1)[0]!;
    if (isHalf(tc)) cx.emit(`mov.f32 ${d}, ${toF32(cx, tc, accIn[accIn.length === 1 ? 0 : i]!)};`);
    else cx.emit(`mov.b${regBits(regKind(ct))} ${d}, ${accIn[accIn.length === 1 ? 0 : i]};`);
    return d;
  });
  const base = cx.reg('b32');
  cx.emit(`mov.u32 ${base}, ${cx.smemBase()};`);
  const rowKey = new Map<number, string>();
  const colKey = new Map<number, string>();
  slots.forEach((s) => {
    if (!rowKey.has(s.off[0]!)) {
      const m = cx.coordReg(L, [M, N], s, 0);
      const ad = cx.reg('b32');
      cx.emit(`mad.lo.u32 ${ad}, ${m}, ${K * sa}, ${base};`);
      rowKey.set(s.off[0]!, ad);
    }
    if (!colKey.has(s.off[1]!)) {
      const n = cx.coordReg(L, [M, N], s, 1);
      const ad = cx.reg('b32');
      cx.emit(`mad.lo.u32 ${ad}, ${n}, ${sb}, ${base};`);
      cx.emit(`add.u32 ${ad}, ${ad}, ${bOff};`);
      colKey.set(s.off[1]!, ad);
    }
  });
  const k = cx.reg('b32');
  cx.emit(`mov.u32 ${k}, 0;`);
  const top = cx.e.label('dot_k');
  cx.e.placeLabel(top);
  const ld = (t: ElemType, addr: string): string => {
    const raw = cx.newRegs(t, 1)[0]!;
    cx.emit(`ld.shared.b${regBits(regKind(t))} ${raw}, [${addr}];`);
    if (t === ct) return raw;
    const c = cx.newRegs(ct, 1)[0]!;
    if (isHalf(t) && ct === 'f32') return toF32(cx, t, raw);
    castOne(cx, t, ct, c, raw);
    return c;
  };
  const av = new Map<number, string>();
  const bv = new Map<number, string>();
  rowKey.forEach((ad, key) => av.set(key, ld(ta, ad)));
  colKey.forEach((ad, key) => bv.set(key, ld(tb, ad)));
  slots.forEach((s, i) => {
    const x = av.get(s.off[0]!)!;
    const y = bv.get(s.off[1]!)!;
    const d = accRegs[i]!;
    if (isFloat(ct)) cx.emit(`fma.rn.${ct} ${d}, ${x}, ${y}, ${d};`);
    else {
      cx.emit(`mad.lo.${regKind(ct) === 'b64' ? 's64' : 's32'} ${d}, ${x}, ${y}, ${d};`);
      if (ct === 'i8' || ct === 'i16' || ct === 'u8') castOne(cx, 'i32', ct, d, d);
    }
  });
  rowKey.forEach((ad) => cx.emit(`add.u32 ${ad}, ${ad}, ${sa};`));
  colKey.forEach((ad) => cx.emit(`add.u32 ${ad}, ${ad}, ${N * sb};`));
  const p = cx.reg('pred');
  cx.emit(`add.u32 ${k}, ${k}, 1;`);
  cx.emit(`setp.lt.u32 ${p}, ${k}, ${K};`);
  cx.emit(`@${p} bra.uni ${top};`);
  if (isHalf(tc)) {
    const out = cx.newRegs(tc, accRegs.length);
    accRegs.forEach((f, i) => fromF32(cx, tc, f, out[i]!));
    cx.define(r, out);
  } else cx.define(r, accRegs);
};

/** Registered dot lowerings; `compile` picks one by name. */
export const DOT_LOWERINGS: Record<string, DotLowering> = {
  fma: fmaDot,
  mma: (cx, op) => void (wgmmaDot(cx, op) || tcgen05Dot(cx, op) || mmaDot(cx, op) || fmaDot(cx, op)),
};
export const DEFAULT_DOT = 'mma';
