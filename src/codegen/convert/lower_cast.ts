// Casts and bitcasts, one register at a time: the conversion table of docs/semantics.md
// (float->int truncates and saturates, int->int wraps or extends by the source's signedness,
// f16/bf16 go through f32 where that rounds once (lower_round_once.ts where it would not), bool is
// 0/1; fp8 in lower_fp8.ts).
import type { Op } from '../../ir/ops.js';
import { bitWidth, isFloat, isPtr, isRtzCast, isSigned, type DType, type ElemType } from '../../ir/types.js';
import { blockedOf } from '../../compiler/layout.js';
import { movFor, TARGET_SM, type Lowering } from '../context.js';
import { fromF32, normalize, perElem, toF32 } from '../lower_elementwise.js';
import { bitcastFp8, castFp8, involvesFp8 } from './lower_fp8.js';
import { bf16NeedsOnce, castToBf16Once } from './lower_round_once.js';
import { CVT_TYPE, halfBits, immediate, INT_OP_TYPE, isHalf, isNarrowInt, regKind } from '../ptx_types.js';

type Rule = (cx: Lowering, op: Op) => void;
const elemOf = (op: Op, i = 0): ElemType => op.operands[i]!.type.elem;

/** Element conversion `from` -> `to` of one register (`rtz`: a float downcast toward zero). */
export function castOne(cx: Lowering, from: ElemType, to: ElemType, d: string, a: string, rounding?: 'rtz'): void {
  if (from === to) return cx.emit(`${movFor(to)} ${d}, ${a};`);
  if (rounding === 'rtz') return castTowardZero(cx, from, to, d, a);
  if (involvesFp8(from, to)) return castFp8(cx, from, to, d, a);
  if (isPtr(from) || isPtr(to)) {
    if (to === 'i64' || from === 'i64' || isPtr(to)) return cx.emit(`mov.b64 ${d}, ${a};`);
    cx.fail(`cast ${from} -> ${to} is not supported`);
  }
  if (from === 'bool') {
    if (isHalf(to)) return movHalfFromPred(cx, to, d, a);
    const k = regKind(to);
    const one = to === 'f32' || to === 'f64' ? immediate(to, 1) : '1';
    const zero = to === 'f32' || to === 'f64' ? immediate(to, 0) : '0';
    return cx.emit(`selp.${k === 'f32' || k === 'f64' ? k : `b${k.endsWith('64') ? 64 : 32}`} ${d}, ${one}, ${zero}, ${a};`);
  }
  if (to === 'bool') {
    if (isHalf(from)) return cx.emit(`setp.neu.f32 ${d}, ${toF32(cx, from, a)}, 0f00000000;`);
    const ty = isFloat(from) ? (from === 'f64' ? 'f64' : 'f32') : INT_OP_TYPE[from as DType]!;
    const zero = from === 'f32' ? '0f00000000' : from === 'f64' ? '0d0000000000000000' : '0';
    return cx.emit(`setp.${isFloat(from) ? 'neu' : 'ne'}.${ty} ${d}, ${a}, ${zero};`);
  }
  const fT = CVT_TYPE[from as DType]!;
  const tT = CVT_TYPE[to as DType]!;
  if (isFloat(from) && isFloat(to)) {
    if (isHalf(from) && isHalf(to)) return fromF32(cx, to, toF32(cx, from, a), d);
    if (bitWidth(to) > bitWidth(from)) {
      if (to === 'f64' && isHalf(from)) return cx.emit(`cvt.f64.f32 ${d}, ${toF32(cx, from, a)};`);
      return cx.emit(`cvt.${tT}.${fT} ${d}, ${a};`);
    }
    if (to === 'bf16' && from === 'f64') return castToBf16Once(cx, from, d, a);
    return cx.emit(`cvt.rn.${tT}.${fT} ${d}, ${a};`);
  }
  if (isFloat(to)) {
    if (to === 'bf16' && bf16NeedsOnce(from)) return castToBf16Once(cx, from, d, a);
    if (to === 'bf16') {
      // i8, u8, i16: exact in f32, then one rounding
      const f = cx.reg('f32');
      cx.emit(`cvt.rn.f32.${fT} ${f}, ${a};`);
      return fromF32(cx, to, f, d);
    }
    return cx.emit(`cvt.rn.${tT}.${fT} ${d}, ${a};`);
  }
  if (isFloat(from)) {
    // float -> int truncates toward zero (PTX saturates out-of-range values; NaN gives 0)
    // PTX float->int conversions saturate to the destination type (NaN -> 0), as our semantics say
    const src = isHalf(from) ? toF32(cx, from, a) : a;
    const sT = isHalf(from) ? 'f32' : fT;
    const narrow: Partial<Record<ElemType, string>> = { i8: 's8', u8: 'u8', i16: 's16' };
    return cx.emit(`cvt.rzi.${narrow[to] ?? tT}.${sT} ${d}, ${src};`);
  }
  // int -> int: widen with the source's signedness, narrow by wrapping
  const fb = regKind(from) === 'b64' ? 64 : 32;
  const tb = regKind(to) === 'b64' ? 64 : 32;
  if (fb === tb) cx.emit(`mov.b${tb} ${d}, ${a};`);
  else if (tb === 64) cx.emit(`cvt.${isSigned(from) ? 's64.s32' : 'u64.u32'} ${d}, ${a};`);
  else cx.emit(`cvt.u32.u64 ${d}, ${a};`);
  normalize(cx, to, d);
}
/**
 * Float downcast toward zero: one cvt.rz, except f64 -> bf16 before sm_90 (no such cvt), which
 * truncates twice, to f32 and on to bf16: truncations compose (each keeps a prefix of the bits).
 */
function castTowardZero(cx: Lowering, from: ElemType, to: ElemType, d: string, a: string): void {
  if (!isRtzCast(from, to)) cx.fail(`cast ${from} -> ${to} toward zero: only float downcasts round toward zero`);
  const src = isHalf(from) ? toF32(cx, from, a) : a;
  const sT = isHalf(from) ? 'f32' : CVT_TYPE[from as DType]!;
  if (from === 'f64' && to === 'bf16') {
    if (TARGET_SM[cx.target] >= 90) {
      cx.requirePtxVersion(7.8);
      return cx.emit(`cvt.rz.bf16.f64 ${d}, ${a};`);
    }
    const f = cx.reg('f32');
    cx.emit(`cvt.rz.f32.f64 ${f}, ${a};`);
    return cx.emit(`cvt.rz.bf16.f32 ${d}, ${f};`);
  }
  cx.emit(`cvt.rz.${CVT_TYPE[to as DType]!}.${sT} ${d}, ${src};`);
}
function movHalfFromPred(cx: Lowering, t: ElemType, d: string, a: string): void {
  cx.emit(`selp.b16 ${d}, 0x${halfBits(t as 'f16', 1).toString(16)}, 0x0000, ${a};`);
}

const cast: Rule = (cx, op) => {
  const to = (op as Op<'cast'>).attrs.to;
  const from = elemOf(op);
  const rounding = (op as Op<'cast'>).attrs.rounding;
  if (!rounding && from === 'f32' && (to === 'f16' || to === 'bf16') && castPairs(cx, op, to)) return;
  perElem(cx, op, (d, [a]) => castOne(cx, from, to, d, a!, rounding));
};

/**
 * f32 -> f16/bf16 two elements at a time where a thread holds neighbours along the fastest dim:
 * one `cvt.rn.{f16,bf16}x2.f32` (the same rounding as two scalar cvt) whose word is remembered
 * (Lowering.noteWord), so packing the pair again (an mma A fragment, a 32-bit store) is free and
 * the halves' unpack is dead code when nothing else reads them. False: no pairs.
 */
function castPairs(cx: Lowering, op: Op, to: 'f16' | 'bf16'): boolean {
  const r = op.results[0]!;
  const src = cx.operand(op, 0);
  const l = cx.layoutOf(r);
  const b = blockedOf(l);
  if (!b || src.length === 1) return false;
  const slots = cx.slots(r);
  const at = new Map(slots.map((s, i) => [s.off.join(','), i]));
  const partnerAlong = (d: number) => (i: number): number | undefined => {
    const off = slots[i]!.off;
    if (off[d]! % 2 !== 0) return undefined;
    return at.get(off.map((o, k) => (k === d ? o + 1 : o)).join(','));
  };
  // pairs along the fastest dim with neighbours in a thread: order[0] first; the tcgen05
  // accumulator layout (order [0, 1], a row a thread) pairs along its row (tcgen05_tmem_a.ts packs
  // P's pairs into the words it stores to tensor memory)
  const d = b.order.find((dd) => slots.some((_, i) => partnerAlong(dd)(i) !== undefined));
  if (d === undefined) return false;
  const partner = partnerAlong(d);
  const out = cx.newRegs(to, slots.length);
  const done = new Set<number>();
  slots.forEach((_, i) => {
    if (done.has(i)) return;
    const j = partner(i);
    if (j === undefined || done.has(j)) {
      castOne(cx, 'f32', to, out[i]!, src[i]!);
      done.add(i);
      return;
    }
    // the first operand goes to the upper half
    const w = cx.reg('b32');
    cx.emit(`cvt.rn.${to}x2.f32 ${w}, ${src[j]}, ${src[i]};`);
    cx.emit(`mov.b32 {${out[i]}, ${out[j]}}, ${w};`);
    cx.noteWord(out[i]!, out[j]!, w);
    done.add(i).add(j);
  });
  cx.define(r, out);
  return true;
}
const bitcast: Rule = (cx, op) => {
  const to = (op as Op<'bitcast'>).attrs.to;
  const from = elemOf(op);
  if (involvesFp8(from, to)) {
    if (bitWidth(from) !== bitWidth(to)) cx.fail(`bitcast ${from} -> ${to} changes the width`);
    return perElem(cx, op, (d, [a]) => bitcastFp8(cx, from, to, d, a!));
  }
  // i16 lives sign-extended in a 32-bit register, f16/bf16 in a 16-bit one: move the bits across
  // (a value conversion here would turn f16 103.375 into 103)
  if (from === 'i16' && isHalf(to)) return perElem(cx, op, (d, [a]) => cx.emit(`cvt.u16.u32 ${d}, ${a};`));
  if (isHalf(from) && to === 'i16') return perElem(cx, op, (d, [a]) => cx.emit(`cvt.s32.s16 ${d}, ${a};`));
  if (from === 'bool' || to === 'bool' || isNarrowInt(from) || isNarrowInt(to)) {
    if (bitWidth(from) !== bitWidth(to)) cx.fail(`bitcast ${from} -> ${to} changes the width`);
    return perElem(cx, op, (d, [a]) => castOne(cx, from, to, d, a!));
  }
  perElem(cx, op, (d, [a]) => cx.emit(`mov.b${bitWidth(to)} ${d}, ${a};`));
};

export const CAST_RULES: Record<string, Rule> = { cast, bitcast };
