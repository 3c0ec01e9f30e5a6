// Conversions and fma that round once (docs/semantics.md) where PTX has no single instruction for
// the target: to bf16 from f64 and from 32/64-bit integers (sm_80 has only cvt.rn.bf16.f32; sm_90
// adds cvt.rn.bf16.{f64,s32,u32,s64,u64}, PTX ISA 7.8), and fma on bf16.
//
// Why round-to-odd works. RO_p(x) truncates x to p significant bits and, when that dropped
// anything, sets the last kept bit. Rounding RO_p(x) to nearest at q <= p - 2 bits gives RN_q(x):
// the kept bits above q are x's own, and the sticky last bit only decides between "exactly on a
// tie" and "just past it" (it can never create or cross a tie, because a tie needs the bits below
// q+1 to be all zero, and RO leaves a 1 there exactly when x had something there). It composes:
// RO_q(RO_p(x)) = RO_q(x) for q < p (the discarded bits of the first are kept as the sticky bit).
// f32 has p = 24 >= bf16's 8 + 2, and the same exponent range, so subnormals and overflow agree
// (a value past FLT_MAX truncates to FLT_MAX, which is odd and rounds on to inf as x would).
import type { Lowering } from '../context.js';
import { TARGET_SM } from '../context.js';
import type { ElemType } from '../../ir/types.js';

/** Integer cvt spellings of the sources that need round-to-odd on the way to bf16. */
const WIDE: Partial<Record<ElemType, 's32' | 'u32' | 's64'>> = { i32: 's32', u32: 'u32', i64: 's64' };

/** Whether `from -> bf16` must not go through a plain cvt.rn.f32 (it would round twice). */
export const bf16NeedsOnce = (from: ElemType): boolean => from === 'f64' || WIDE[from] !== undefined;

/** d (bf16) = a (f64, i32, u32 or i64) rounded once, to nearest even. */
export function castToBf16Once(cx: Lowering, from: ElemType, d: string, a: string): void {
  const src = from === 'f64' ? 'f64' : WIDE[from]!;
  if (TARGET_SM[cx.target] >= 90) {
    cx.requirePtxVersion(7.8);
    return cx.emit(`cvt.rn.bf16.${src} ${d}, ${a};`);
  }
  cx.emit(`cvt.rn.bf16.f32 ${d}, ${roundToOddF32(cx, src, a)};`);
}

/**
 * RO_24(a) as an f32 register: truncate (cvt.rz), convert back (exact: the truncation is in the
 * source's range), and set the last bit when the two differ (NaN compares unequal and stays NaN).
 */
export function roundToOddF32(cx: Lowering, src: 'f64' | 's32' | 'u32' | 's64', a: string): string {
  const f = cx.reg('f32');
  cx.emit(`cvt.rz.f32.${src} ${f}, ${a};`);
  const back = cx.reg(src === 'f64' ? 'f64' : src === 's64' ? 'b64' : 'b32');
  cx.emit(src === 'f64' ? `cvt.f64.f32 ${back}, ${f};` : `cvt.rzi.${src}.f32 ${back}, ${f};`);
  const p = cx.reg('pred');
  cx.emit(`setp.${src === 'f64' ? 'neu' : 'ne'}.${src} ${p}, ${back}, ${a};`);
  return stickyBit(cx, f, p, 'b32');
}

/** `v` with its lowest bit set where `p` holds (v: an f32 or f64 register); returns the new register. */
function stickyBit(cx: Lowering, v: string, p: string, bits: 'b32' | 'b64'): string {
  const w = cx.reg(bits);
  cx.emit(`mov.${bits} ${w}, ${v};`);
  const o = cx.reg(bits);
  cx.emit(`or.${bits} ${o}, ${w}, 1;`);
  const s = cx.reg(bits);
  cx.emit(`selp.${bits} ${s}, ${o}, ${w}, ${p};`);
  const r = cx.reg(bits === 'b32' ? 'f32' : 'f64');
  cx.emit(`mov.${bits} ${r}, ${s};`);
  return r;
}

/**
 * d = fma(a, b, c) on bf16, one rounding of the exact a*b + c. In f64 the product of two bf16
 * values is exact (16 bits, exponents far inside f64's range) and TwoSum (Knuth: six rounded
 * additions, exact without overflow) gives the rounding error of p + c; the sum truncated
 * (add.rz) with the sticky bit set where that error is nonzero is RO_53(a*b + c), then RO_24 and
 * cvt.rn.bf16.f32 round it once more, to nearest, exactly as the sum itself would round.
 * (fma.rn.f32 then cvt.rn.bf16.f32 rounds twice: 1.25 * 2.40625 = 3.0078125 is a bf16 tie, and
 * 2^-100 added to it must round up.)
 */
export function fmaBf16Once(cx: Lowering, d: string, a: string, b: string, c: string): void {
  const wide = (r: string): string => {
    const f = cx.reg('f32');
    cx.emit(`cvt.f32.bf16 ${f}, ${r};`);
    const g = cx.reg('f64');
    cx.emit(`cvt.f64.f32 ${g}, ${f};`);
    return g;
  };
  const [x, y, z] = [wide(a), wide(b), wide(c)];
  const op = (ins: string, u: string, v: string): string => {
    const r = cx.reg('f64');
    cx.emit(`${ins}.f64 ${r}, ${u}, ${v};`);
    return r;
  };
  const p = op('mul.rn', x, y);
  // TwoSum(p, z): s + err = p + z exactly
  const s = op('add.rn', p, z);
  const bb = op('sub.rn', s, p);
  const err = op('add.rn', op('sub.rn', p, op('sub.rn', s, bb)), op('sub.rn', z, bb));
  const t = op('add.rz', p, z);
  const inexact = cx.reg('pred');
  // an infinite or NaN operand makes err NaN: then t is already the IEEE answer (inf or NaN)
  cx.emit(`setp.neu.f64 ${inexact}, ${err}, 0d0000000000000000;`);
  const finite = cx.reg('pred');
  cx.emit(`testp.finite.f64 ${finite}, ${s};`);
  cx.emit(`and.pred ${inexact}, ${inexact}, ${finite};`);
  const ro53 = stickyBit(cx, t, inexact, 'b64');
  // add.rz of x + (-x) is +0 as IEEE's rn, but an exact zero from two zeros keeps their sign rule: use s
  const sum = cx.reg('f64');
  cx.emit(`selp.f64 ${sum}, ${ro53}, ${s}, ${inexact};`);
  cx.emit(`cvt.rn.bf16.f32 ${d}, ${roundToOddF32(cx, 'f64', sum)};`);
}
