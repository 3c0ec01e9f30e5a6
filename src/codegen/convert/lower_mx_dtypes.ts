// The MX storage dtypes (f8e8m0, f4e2m1) to and from f32, one register at a time, by integer and
// compare operations on every target (src/ir/mx.ts is the reference; docs/semantics.md). A value
// lives in the low byte of a 16-bit register, as fp8 does (f4e2m1: its code in the low nibble).
//   f8e8m0 -> f32: code << 23 (code 0 is 2^-127, the f32 subnormal 0x00400000; 0xFF NaN).
//   f32 -> f8e8m0: 2^floor(log2 x), i.e. the f32 exponent field of a positive x (0 for a positive
//                  subnormal, which clamps to 2^-127); +inf 0xFE; NaN, zero and negatives 0xFF.
//   f4e2m1 -> f32: magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6: codes 2..7 are (1 + m/2) * 2^(e-1), built
//                  as f32 bits; 0 and 1 (0.5) selected; the sign from bit 3 (-0 kept).
//   f32 -> f4e2m1: nearest even, saturating: the code counts the midpoints |x| passes (a tie goes
//                  to the even code: '>' above an odd code, '>=' above an even one); NaN gives
//                  +6 (0x7), as cvt.rn.satfinite.e2m1x2.f32 does.
// On sm_100a f4e2m1 uses the hardware conversions instead (PTX ISA "cvt": e2m1x2 packings, sm_100a):
// `cvt.rn.satfinite.e2m1x2.f32` rounds as above (the code in the low nibble comes from the second
// source), `cvt.rn.f16x2.e2m1x2` decodes exactly (every e2m1 value is an f16); their 8-bit
// operand lives in a scoped `.reg .b8`, a type our register file does not otherwise need.
// f8e8m0 stays integer code: cvt's ue8m0 forms leave zero and negatives undefined, where the MX
// rule gives 0xFF.
import type { Lowering } from '../context.js';

const NAN_F32 = '0x7fffffff';

/** f8e8m0 or f4e2m1 register `a` -> a new f32 register (exact). */
export function mxToF32(cx: Lowering, t: 'f8e8m0' | 'f4e2m1', a: string): string {
  if (t === 'f4e2m1' && cx.target === 'sm_100a') {
    const pair = cx.reg('b32'), h = cx.reg('b16'), f = cx.reg('f32');
    cx.emit('{');
    cx.emit('.reg .b8 %mx8;');
    cx.emit(`cvt.u8.u16 %mx8, ${a};`);
    cx.emit(`cvt.rn.f16x2.e2m1x2 ${pair}, %mx8;`); // the low nibble's value in the low half, the high one's (not the code) above
    cx.emit('}');
    cx.emit(`cvt.u16.u32 ${h}, ${pair};`);
    cx.emit(`cvt.f32.f16 ${f}, ${h};`);
    return f;
  }
  const c = cx.reg('b32'), bits = cx.reg('b32'), p = cx.reg('pred'), f = cx.reg('f32');
  cx.emit(`cvt.u32.u16 ${c}, ${a};`);
  if (t === 'f8e8m0') {
    cx.emit(`and.b32 ${c}, ${c}, 255;`);
    cx.emit(`shl.b32 ${bits}, ${c}, 23;`);
    cx.emit(`setp.eq.u32 ${p}, ${c}, 0;`);
    cx.emit(`selp.b32 ${bits}, 0x00400000, ${bits}, ${p};`);
    cx.emit(`setp.eq.u32 ${p}, ${c}, 255;`);
    cx.emit(`selp.b32 ${bits}, ${NAN_F32}, ${bits}, ${p};`);
  } else {
    const m = cx.reg('b32'), x = cx.reg('b32');
    cx.emit(`and.b32 ${m}, ${c}, 7;`);
    cx.emit(`shr.u32 ${bits}, ${m}, 1;`);
    cx.emit(`add.u32 ${bits}, ${bits}, 126;`);
    cx.emit(`shl.b32 ${bits}, ${bits}, 23;`);
    cx.emit(`and.b32 ${x}, ${m}, 1;`);
    cx.emit(`shl.b32 ${x}, ${x}, 22;`);
    cx.emit(`or.b32 ${bits}, ${bits}, ${x};`);
    cx.emit(`mul.lo.u32 ${x}, ${m}, 0x3f000000;`); // codes 0 and 1: 0 and 0.5
    cx.emit(`setp.lt.u32 ${p}, ${m}, 2;`);
    cx.emit(`selp.b32 ${bits}, ${x}, ${bits}, ${p};`);
    cx.emit(`shl.b32 ${x}, ${c}, 28;`);
    cx.emit(`and.b32 ${x}, ${x}, 0x80000000;`);
    cx.emit(`or.b32 ${bits}, ${bits}, ${x};`);
  }
  cx.emit(`mov.b32 ${f}, ${bits};`);
  return f;
}

/** f32 register `f` -> f8e8m0 or f4e2m1 register `d` (one rounding, as src/ir/mx.ts). */
export function f32ToMx(cx: Lowering, t: 'f8e8m0' | 'f4e2m1', d: string, f: string): void {
  if (t === 'f4e2m1' && cx.target === 'sm_100a') {
    cx.emit('{');
    cx.emit('.reg .b8 %mx8;');
    cx.emit(`cvt.rn.satfinite.e2m1x2.f32 %mx8, 0f00000000, ${f};`); // f's code in the low nibble
    cx.emit(`cvt.u16.u8 ${d}, %mx8;`);
    cx.emit('}');
    return;
  }
  const c = cx.reg('b32'), p = cx.reg('pred');
  if (t === 'f8e8m0') {
    const u = cx.reg('b32');
    cx.emit(`mov.b32 ${u}, ${f};`);
    cx.emit(`shr.u32 ${c}, ${u}, 23;`); // the sign bit is 0 wherever this is kept
    cx.emit(`setp.gt.f32 ${p}, ${f}, 0f00000000;`);
    cx.emit(`selp.u32 ${c}, ${c}, 255, ${p};`);
    cx.emit(`setp.eq.f32 ${p}, ${f}, 0f7F800000;`);
    cx.emit(`selp.u32 ${c}, 254, ${c}, ${p};`);
  } else {
    const a = cx.reg('f32'), s = cx.reg('b32'), k = cx.reg('b32');
    cx.emit(`abs.f32 ${a}, ${f};`);
    cx.emit(`mov.u32 ${c}, 0;`);
    // the midpoints between consecutive magnitudes, and how a tie rounds (to the even code)
    const mids: [string, number][] = [['gt', 0.25], ['ge', 0.75], ['gt', 1.25], ['ge', 1.75], ['gt', 2.5], ['ge', 3.5], ['gt', 5]];
    for (const [cmp, v] of mids) {
      const hex = new DataView(new Float32Array([v]).buffer).getUint32(0, true).toString(16).toUpperCase().padStart(8, '0');
      cx.emit(`set.${cmp}.u32.f32 ${k}, ${a}, 0f${hex};`); // 0xffffffff when passed
      cx.emit(`sub.u32 ${c}, ${c}, ${k};`);
    }
    cx.emit(`mov.b32 ${s}, ${f};`);
    cx.emit(`shr.u32 ${s}, ${s}, 28;`);
    cx.emit(`and.b32 ${s}, ${s}, 8;`);
    cx.emit(`or.b32 ${c}, ${c}, ${s};`);
    cx.emit(`setp.nan.f32 ${p}, ${f}, ${f};`);
    cx.emit(`selp.u32 ${c}, 7, ${c}, ${p};`);
  }
  cx.emit(`cvt.u16.u32 ${d}, ${c};`);
}
