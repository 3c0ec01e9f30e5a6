// fp8 (f8e4m3, f8e5m2) conversions, one register at a time. An fp8 value lives in the low byte of
// a 16-bit register (high byte zero). The rules are docs/semantics.md's (src/ir/fp8.ts is the
// reference): to fp8, one rounding to nearest even of the exact value, overflow (±inf included)
// saturating to ±max, NaN to NaN; from fp8, exact.
//
// sm_89 and later have the conversions in hardware: `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` and
// `cvt.rn.f16x2.{e4m3x2,e5m2x2}` (two values per instruction; we use one lane). On sm_80 the same
// results come from integer and exact float operations:
//   decode: the fp8 exponent and fraction bits are moved to the top of an f32 (`mag << 20` for
//           e4m3, `<< 21` for e5m2) and the f32 is scaled by 2^(127-bias) — one exact multiply that
//           also turns fp8 subnormals into the right (f32 subnormal → normal) value; e4m3's
//           S.1111.111 and e5m2's exponent 31 are patched to NaN/inf.
//   encode: normal results round the f32 bits with the integer carry trick (add 0x7ffff.. plus the
//           kept LSB, shift); subnormal results add 2^k whose f32 ulp is the fp8 subnormal step,
//           so `add.rn.f32` does the rounding; then saturation, sign and NaN are selected.
import type { Fp8DType } from '../../ir/fp8.js';
import { FP8_FORMATS } from '../../ir/fp8.js';
import { isFp8, isMiniFloat, type ElemType } from '../../ir/types.js';
import { f32ToMx, mxToF32 } from './lower_mx_dtypes.js';
import { hasFp8Cvt, type Lowering } from '../context.js';
import { f32Hex } from '../ptx_types.js';

const PTX_NAME: Record<Fp8DType, string> = { f8e4m3: 'e4m3x2', f8e5m2: 'e5m2x2' };

/** f32 bit pattern of 2^e as a hex PTX float immediate. */
const pow2 = (e: number): string => `0f${f32Hex(2 ** e)}`;
const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;
const f32Bits = (x: number): number => parseInt(f32Hex(x), 16);

/** fp8 register `a` -> f16 register `d` (exact). */
export function fp8ToF16(cx: Lowering, t: Fp8DType, d: string, a: string): void {
  if (hasFp8Cvt(cx.target)) {
    const w = cx.reg('b32');
    const hi = cx.reg('b16');
    cx.emit(`cvt.rn.f16x2.${PTX_NAME[t]} ${w}, ${a};`);
    cx.emit(`mov.b32 {${d}, ${hi}}, ${w};`);
    return;
  }
  if (t === 'f8e5m2') {
    // e5m2 is the top byte of an f16 (same exponent width and bias), specials included.
    cx.emit(`shl.b16 ${d}, ${a}, 8;`);
    return;
  }
  const f = fp8ToF32(cx, t, a);
  cx.emit(`cvt.rn.f16.f32 ${d}, ${f};`); // exact: every e4m3 value is an f16 value
}

/** fp8 register `a` -> a new f32 register (exact). */
export function fp8ToF32(cx: Lowering, t: Fp8DType, a: string): string {
  const f = cx.reg('f32');
  if (hasFp8Cvt(cx.target) || t === 'f8e5m2') {
    const h = cx.reg('b16');
    fp8ToF16(cx, t, h, a);
    cx.emit(`cvt.f32.f16 ${f}, ${h};`);
    return f;
  }
  const fmt = FP8_FORMATS[t];
  const b = cx.reg('b32');
  const mag = cx.reg('b32');
  const bits = cx.reg('b32');
  const nan = cx.reg('pred');
  cx.emit(`cvt.u32.u16 ${b}, ${a};`);
  cx.emit(`and.b32 ${mag}, ${b}, 127;`);
  cx.emit(`and.b32 ${bits}, ${b}, 128;`);
  cx.emit(`shl.b32 ${bits}, ${bits}, 24;`);
  const m = cx.reg('b32');
  cx.emit(`shl.b32 ${m}, ${mag}, ${23 - fmt.mant};`);
  cx.emit(`or.b32 ${bits}, ${bits}, ${m};`);
  cx.emit(`mov.b32 ${f}, ${bits};`);
  cx.emit(`mul.rn.f32 ${f}, ${f}, ${pow2(127 - fmt.bias)};`);
  cx.emit(`setp.eq.u32 ${nan}, ${mag}, 127;`); // S.1111.111
  cx.emit(`selp.f32 ${f}, 0f7FFFFFFF, ${f}, ${nan};`);
  return f;
}

/** f32 register `f` -> fp8 register `d`: nearest even, saturating, NaN -> NaN. */
export function f32ToFp8(cx: Lowering, t: Fp8DType, d: string, f: string): void {
  if (hasFp8Cvt(cx.target)) {
    // The second source fills the upper byte: +0 keeps the register's high byte zero.
    const z = cx.reg('f32');
    cx.emit(`mov.f32 ${z}, 0f00000000;`);
    cx.emit(`cvt.rn.satfinite.${PTX_NAME[t]}.f32 ${d}, ${z}, ${f};`);
    return;
  }
  const fmt = FP8_FORMATS[t];
  const drop = 23 - fmt.mant; // f32 fraction bits dropped
  const u = cx.reg('b32');
  const a = cx.reg('b32');
  const s = cx.reg('b32');
  cx.emit(`mov.b32 ${u}, ${f};`);
  cx.emit(`and.b32 ${a}, ${u}, 0x7fffffff;`);
  cx.emit(`shr.u32 ${s}, ${u}, 24;`);
  cx.emit(`and.b32 ${s}, ${s}, 128;`);
  // normal results: round the f32 bits to `mant` fraction bits (a carry moves into the exponent)
  const nrm = cx.reg('b32');
  const lsb = cx.reg('b32');
  cx.emit(`shr.u32 ${lsb}, ${a}, ${drop};`);
  cx.emit(`and.b32 ${lsb}, ${lsb}, 1;`);
  cx.emit(`add.u32 ${lsb}, ${lsb}, ${hex(2 ** (drop - 1) - 1)};`);
  cx.emit(`add.u32 ${nrm}, ${a}, ${lsb};`);
  cx.emit(`shr.u32 ${nrm}, ${nrm}, ${drop};`);
  cx.emit(`sub.u32 ${nrm}, ${nrm}, ${(127 - fmt.bias) << fmt.mant};`);
  // subnormal results: 2^k has an ulp of 2^(emin - mant), so the f32 add rounds to the fp8 step
  const k = fmt.emin - fmt.mant + 23;
  const fa = cx.reg('f32');
  const y = cx.reg('f32');
  const sub = cx.reg('b32');
  cx.emit(`mov.b32 ${fa}, ${a};`);
  cx.emit(`add.rn.f32 ${y}, ${fa}, ${pow2(k)};`);
  cx.emit(`mov.b32 ${sub}, ${y};`);
  cx.emit(`sub.u32 ${sub}, ${sub}, ${hex(f32Bits(2 ** k))};`);
  const p = cx.reg('pred');
  const c = cx.reg('b32');
  cx.emit(`setp.lt.u32 ${p}, ${a}, ${hex(f32Bits(2 ** fmt.emin))};`);
  cx.emit(`selp.b32 ${c}, ${sub}, ${nrm}, ${p};`);
  cx.emit(`setp.ge.u32 ${p}, ${a}, ${hex(f32Bits(fmt.max))};`); // ±max and beyond, ±inf included
  cx.emit(`selp.b32 ${c}, ${fmt.maxCode}, ${c}, ${p};`);
  cx.emit(`or.b32 ${c}, ${c}, ${s};`);
  cx.emit(`setp.gt.u32 ${p}, ${a}, 0x7f800000;`); // NaN
  cx.emit(`selp.b32 ${c}, ${fmt.nanCode}, ${c}, ${p};`);
  cx.emit(`cvt.u16.u32 ${d}, ${c};`);
}

/** Whether castOne should hand this conversion to castFp8 (fp8 or an MX dtype on either side). */
export const involvesFp8 = (from: ElemType, to: ElemType): boolean => isMiniFloat(from) || isMiniFloat(to);

/** A storage float (fp8, f8e8m0, f4e2m1) register -> a new f32 register (exact). */
const miniToF32 = (cx: Lowering, t: ElemType, a: string): string => (isFp8(t) ? fp8ToF32(cx, t, a) : mxToF32(cx, t as 'f8e8m0' | 'f4e2m1', a));
/** f32 register `f` -> storage float register `d` (the one rounding). */
const f32ToMini = (cx: Lowering, t: ElemType, d: string, f: string): void => (isFp8(t) ? f32ToFp8(cx, t, d, f) : f32ToMx(cx, t as 'f8e8m0' | 'f4e2m1', d, f));

/**
 * fp8 / f8e8m0 / f4e2m1 <-> f32/f16/bf16/each other (the casts the verifier allows; the language
 * routes every other conversion through f32): decode exactly to f32, then one rounding.
 */
export function castFp8(cx: Lowering, from: ElemType, to: ElemType, d: string, a: string): void {
  if (isMiniFloat(from)) {
    if (to === 'f16' && isFp8(from)) return fp8ToF16(cx, from, d, a);
    const f = miniToF32(cx, from, a);
    if (to === 'f32') return void cx.emit(`mov.f32 ${d}, ${f};`);
    if (to === 'bf16' || to === 'f16') return void cx.emit(`cvt.rn.${to}.f32 ${d}, ${f};`); // exact but for f8e8m0 -> f16 (one rounding)
    if (isMiniFloat(to)) return f32ToMini(cx, to, d, f);
    return cx.fail(`cast ${from} -> ${to} is not supported (cast through f32)`);
  }
  if (!isMiniFloat(to)) return cx.fail(`castFp8 called for ${from} -> ${to}`);
  if (from === 'f32') return f32ToMini(cx, to, d, a);
  if (from === 'f16' || from === 'bf16') {
    // exact widening, then the one rounding
    const f = cx.reg('f32');
    cx.emit(`cvt.f32.${from} ${f}, ${a};`);
    return f32ToMini(cx, to, d, f);
  }
  return cx.fail(`cast ${from} -> ${to} is not supported (cast through f32)`);
}

/** Bitcast between a storage float (b16 register, low byte) and an 8-bit integer (32-bit register). */
export function bitcastFp8(cx: Lowering, from: ElemType, to: ElemType, d: string, a: string): void {
  if (isMiniFloat(from) && isMiniFloat(to)) return void cx.emit(`mov.b16 ${d}, ${a};`);
  if (isMiniFloat(from)) {
    cx.emit(`cvt.u32.u16 ${d}, ${a};`);
    if (to === 'i8') cx.emit(`cvt.s32.s8 ${d}, ${d};`);
    else if (to !== 'u8') cx.fail(`bitcast ${from} -> ${to} changes the width`);
    return;
  }
  if (from !== 'i8' && from !== 'u8') return cx.fail(`bitcast ${from} -> ${to} changes the width`);
  cx.emit(`cvt.u16.u32 ${d}, ${a};`);
  cx.emit(`and.b16 ${d}, ${d}, 0x00ff;`);
}
