// C pow for f32 and f64: |x|^y = exp2(y * log2|x|), then C's rules for signs and special values.
// f32 (not `precise`) uses the hardware lg2/ex2 approximations, as Triton does; f64 (and precise
// f32) uses the accurate log2/exp2 sequences of math.ts in its own type, so large results do not
// overflow an f32 on the way. The error grows with |y * log2 x| (about 2^-52 * |y log2 x| for f64).
import type { Lowering } from '../context.js';
import { emitUnaryMath } from './math.js';
import { immediate } from '../ptx_types.js';

export function emitPow(cx: Lowering, t: 'f32' | 'f64', d: string, x: string, y: string, precise: boolean): void {
  const c = (v: number): string => immediate(t, v);
  const bits = t === 'f32' ? 32 : 64;
  const e = (line: string): void => cx.emit(line);
  const ax = cx.reg(t), l = cx.reg(t), r = cx.reg(t);
  e(`abs.${t} ${ax}, ${x};`);
  if (t === 'f32' && !precise) {
    e(`lg2.approx.f32 ${l}, ${ax};`);
    e(`mul.rn.f32 ${l}, ${l}, ${y};`);
    e(`ex2.approx.f32 ${r}, ${l};`);
  } else {
    emitUnaryMath(cx.e, 'log2', t, l, ax, true);
    e(`mul.rn.${t} ${l}, ${l}, ${y};`);
    emitUnaryMath(cx.e, 'exp2', t, r, l, true);
  }
  // A negative base takes the sign of an odd integer y, and is NaN for a non-integer y (finite
  // nonzero x only: pow(-0, 0.5) = 0, pow(-inf, 0.5) = inf).
  const yi = cx.reg(t), h = cx.reg(t), hi = cx.reg(t);
  const isInt = cx.reg('pred'), odd = cx.reg('pred'), signed = cx.reg('pred');
  const xb = cx.reg(bits === 32 ? 'b32' : 'b64');
  e(`cvt.rzi.${t}.${t} ${yi}, ${y};`);
  e(`setp.eq.${t} ${isInt}, ${yi}, ${y};`);
  e(`mul.rn.${t} ${h}, ${y}, ${c(0.5)};`);
  e(`cvt.rzi.${t}.${t} ${hi}, ${h};`);
  e(`setp.neu.${t} ${odd}, ${hi}, ${h};`);
  e(`and.pred ${odd}, ${odd}, ${isInt};`);
  e(`mov.b${bits} ${xb}, ${x};`);
  e(`setp.lt.s${bits} ${signed}, ${xb}, 0;`);
  e(`and.pred ${odd}, ${odd}, ${signed};`);
  e(`@${odd} neg.${t} ${r}, ${r};`);
  const bad = cx.reg('pred'), fin = cx.reg('pred');
  e(`setp.lt.${t} ${bad}, ${x}, ${c(0)};`);
  e(`setp.gt.${t} ${fin}, ${x}, ${c(-Infinity)};`);
  e(`and.pred ${bad}, ${bad}, ${fin};`);
  e(`and.pred ${bad}, ${bad}, !${isInt};`);
  e(`@${bad} mov.${t} ${r}, ${c(NaN)};`);
  // C pow: pow(x, 0) = pow(1, y) = pow(-1, +-inf) = 1 for every x and y (NaN included)
  const e0 = cx.reg('pred'), x1 = cx.reg('pred'), ay = cx.reg(t);
  e(`setp.eq.${t} ${e0}, ${y}, ${c(0)};`);
  e(`setp.eq.${t} ${x1}, ${x}, ${c(1)};`);
  e(`or.pred ${e0}, ${e0}, ${x1};`);
  e(`abs.${t} ${ay}, ${y};`);
  e(`setp.eq.${t} ${x1}, ${ay}, ${c(Infinity)};`);
  e(`setp.eq.and.${t} ${x1}, ${x}, ${c(-1)}, ${x1};`);
  e(`or.pred ${e0}, ${e0}, ${x1};`);
  e(`selp.${t} ${d}, ${c(1)}, ${r}, ${e0};`);
}
