// Exact float remainder (C fmod) for f32 and f64. `a - trunc(a/b)*b` is wrong once a/b no longer
// fits the mantissa (fmod(65504, 1e-40)) or b is infinite, so this is long division on the integer
// mantissas, several bits per step, like fmod in any libm:
//   |x| = mx * 2^ex, |y| = my * 2^ey (biased exponents, hidden bit restored, subnormals as e = 1)
//   mx %= my; while ex > ey: k = min(ex - ey, K); mx = (mx << k) % my; ex -= k
//   the result mx * 2^ey is renormalized (clz) and takes x's sign.
// Specials first: NaN when x is inf/NaN, y is NaN or y is 0; x itself when |x| < |y| (y = inf too).
import type { Lowering } from '../context.js';

interface Format {
  readonly bits: 32 | 64;
  readonly mantBits: number;
  readonly absMask: string;
  readonly signMask: string;
  readonly maxFinite: string;
  readonly inf: string;
  readonly nan: string;
  /** Bits shifted per step: mx < 2^(mantBits+1), so mx << K must fit the register. */
  readonly step: number;
}
const F32: Format = { bits: 32, mantBits: 23, absMask: '0x7fffffff', signMask: '0x80000000', maxFinite: '0x7f7fffff', inf: '0x7f800000', nan: '0x7fffffff', step: 8 };
const F64: Format = {
  bits: 64, mantBits: 52, absMask: '0x7fffffffffffffff', signMask: '0x8000000000000000', maxFinite: '0x7fefffffffffffff',
  inf: '0x7ff0000000000000', nan: '0x7fffffffffffffff', step: 10,
};

export function emitFmod(cx: Lowering, t: 'f32' | 'f64', d: string, a: string, b: string): void {
  const f = t === 'f32' ? F32 : F64;
  const B = `b${f.bits}`, U = `u${f.bits}`, R = f.bits === 32 ? 'b32' : 'b64';
  const hidden = `0x${(1n << BigInt(f.mantBits)).toString(16)}`;
  const mantMask = `0x${((1n << BigInt(f.mantBits)) - 1n).toString(16)}`;
  const [bx, ux, uy, mx, my, r] = [cx.reg(R), cx.reg(R), cx.reg(R), cx.reg(R), cx.reg(R), cx.reg(R)];
  const [ex, ey, k, s] = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
  const [pNaN, q, pSmall] = [cx.reg('pred'), cx.reg('pred'), cx.reg('pred')];
  const lNaN = cx.e.label('fmod_nan'), lSmall = cx.e.label('fmod_small'), lLoop = cx.e.label('fmod_loop');
  const lNorm = cx.e.label('fmod_norm'), lEnd = cx.e.label('fmod_end');
  const e = (line: string): void => cx.emit(line);

  e(`mov.${B} ${bx}, ${a};`);
  e(`and.${B} ${ux}, ${bx}, ${f.absMask};`);
  e(`mov.${B} ${uy}, ${b};`);
  e(`and.${B} ${uy}, ${uy}, ${f.absMask};`);
  e(`setp.gt.${U} ${pNaN}, ${ux}, ${f.maxFinite};`); // x is inf or NaN
  e(`setp.gt.${U} ${q}, ${uy}, ${f.inf};`); // y is NaN
  e(`or.pred ${pNaN}, ${pNaN}, ${q};`);
  e(`setp.eq.${U} ${q}, ${uy}, 0;`);
  e(`or.pred ${pNaN}, ${pNaN}, ${q};`);
  e(`@${pNaN} bra ${lNaN};`);
  e(`setp.lt.${U} ${pSmall}, ${ux}, ${uy};`);
  e(`@${pSmall} bra ${lSmall};`);
  // exponents (>= 1) and mantissas with the hidden bit
  const split = (u: string, m: string, ee: string): void => {
    if (f.bits === 32) e(`shr.u32 ${ee}, ${u}, ${f.mantBits};`);
    else {
      e(`shr.u64 ${m}, ${u}, ${f.mantBits};`);
      e(`cvt.u32.u64 ${ee}, ${m};`);
    }
    e(`and.${B} ${m}, ${u}, ${mantMask};`);
    e(`setp.ne.u32 ${q}, ${ee}, 0;`);
    e(`@${q} or.${B} ${m}, ${m}, ${hidden};`);
    e(`max.u32 ${ee}, ${ee}, 1;`);
  };
  split(ux, mx, ex);
  split(uy, my, ey);
  e(`rem.${U} ${mx}, ${mx}, ${my};`);
  cx.e.placeLabel(lLoop);
  e(`sub.u32 ${k}, ${ex}, ${ey};`);
  e(`setp.eq.u32 ${q}, ${k}, 0;`);
  e(`@${q} bra ${lNorm};`);
  e(`min.u32 ${k}, ${k}, ${f.step};`);
  e(`shl.${B} ${mx}, ${mx}, ${k};`);
  e(`rem.${U} ${mx}, ${mx}, ${my};`);
  e(`sub.u32 ${ex}, ${ex}, ${k};`);
  e(`bra ${lLoop};`);
  cx.e.placeLabel(lNorm);
  // shift the hidden bit back into place, or as far as the exponent allows (a subnormal result)
  e(`clz.${B} ${s}, ${mx};`);
  e(`sub.u32 ${s}, ${s}, ${f.bits - 1 - f.mantBits};`);
  e(`sub.u32 ${k}, ${ey}, 1;`);
  e(`min.u32 ${s}, ${s}, ${k};`);
  e(`shl.${B} ${mx}, ${mx}, ${s};`);
  e(`sub.u32 ${ey}, ${ey}, ${s};`);
  e(`and.${B} ${r}, ${mx}, ${hidden};`);
  e(`setp.ne.${U} ${q}, ${r}, 0;`);
  if (f.bits === 32) e(`shl.b32 ${r}, ${ey}, ${f.mantBits};`);
  else {
    e(`cvt.u64.u32 ${r}, ${ey};`);
    e(`shl.b64 ${r}, ${r}, ${f.mantBits};`);
  }
  e(`and.${B} ${my}, ${mx}, ${mantMask};`);
  e(`or.${B} ${r}, ${r}, ${my};`);
  e(`selp.${B} ${r}, ${r}, ${mx}, ${q};`);
  e(`and.${B} ${bx}, ${bx}, ${f.signMask};`);
  e(`or.${B} ${r}, ${r}, ${bx};`);
  e(`mov.${B} ${d}, ${r};`);
  e(`bra ${lEnd};`);
  cx.e.placeLabel(lNaN);
  e(`mov.${B} ${d}, ${f.nan};`);
  e(`bra ${lEnd};`);
  cx.e.placeLabel(lSmall);
  e(`mov.${B} ${d}, ${bx};`);
  cx.e.placeLabel(lEnd);
}
