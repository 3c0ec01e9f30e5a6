// PTX instruction sequences for unary float math (f32 and f64), written into the code generator's
// emitter. The default f32 lowering follows Triton: hardware approximations (ex2/lg2/sin/cos/tanh
// .approx, sqrt.approx, div.full). `precise` f32 and every f64 sequence use only correctly rounded
// instructions (add/mul/fma/div.rn/sqrt.rn/cvt/bit ops) around range reductions and polynomials,
// so their accuracy is a property of this file alone. Sequences never branch: both sides are
// computed and selected with selp; no `.func` helpers are needed.
//
// Max error measured by test/codegen/math.test.ts (each instruction evaluated exactly; f32 against
// exact values, f64 against V8's Math.* which is itself within 1 ulp, erf against a 192-bit series):
//   f32 precise: exp, exp2, log <= 1 ulp; log2, sin, cos, sigmoid, rsqrt <= 1.5; tanh <= 2; sqrt 0.5
//   f64:         exp, exp2, log, log2, sigmoid, rsqrt <= 1 ulp vs Math.*; sin, cos, tanh <= 2; sqrt 0.5
//   erf (always accurate, f32 and f64): <= 1 ulp (measured 0.84 f32, 1.0 f64)
// sin/cos reduce with a three-part Cody-Waite pi/2 (no Payne-Hanek): verified for |x| <= 2^21 in
// f32 and |x| <= 1e15 in f64; beyond about 2^22 (f32) / 2^52 (f64) results are NOT accurate.
// Fast f32 paths inherit the PTX ISA's .approx bounds (e.g. ex2.approx: 2 ulp plus the rounding
// of x*log2(e), which grows with |x|; sin/cos.approx lose accuracy quickly outside [-pi, pi]).
import type { UnaryFn } from '../../ir/ops.js';
import { TesseraError } from '../../ir/errors.js';
import type { PtxEmitter, RegKind } from '../emitter.js';
import { f32Hex, f64Hex } from '../ptx_types.js';
import { atanhTail, cosTail, ERFC_F32, ERFC_F64, erfTaylor, expm1Tail, sinTail } from './math-coeffs.js';

export type FloatDType = 'f32' | 'f64';

/** An op/dtype pair that has no math lowering (e.g. `not` on a float). Code: E_COMPILE. */
export class MathLoweringError extends TesseraError {
  readonly fn: string;
  readonly dtype: string;
  constructor(fn: string, dtype: string) {
    super('E_COMPILE', `math: no PTX lowering for unary '${fn}' on ${dtype}`);
    this.fn = fn;
    this.dtype = dtype;
  }
}

/** Per-dtype facts: bit layout, constant splits, polynomial sizes, clamp ranges. */
interface FloatSpec {
  readonly t: FloatDType;
  readonly bits: 'b32' | 'b64';
  readonly int: 's32' | 's64';
  readonly mant: number; // explicit mantissa bits
  readonly bias: number;
  readonly imm: (v: number) => string;
  readonly ln2: readonly [number, number]; // hi + lo
  readonly log2e: readonly [number, number];
  readonly pio2: readonly [number, number, number];
  readonly expClamp: readonly [number, number];
  readonly exp2Clamp: readonly [number, number];
  readonly expm1Deg: number;
  readonly sinDeg: number;
  readonly cosDeg: number;
  readonly atanhTerms: number;
  readonly tanhMaxY: number; // tanh(|x|) rounds to 1 beyond y = 2|x| = this
  readonly erfTaylorTerms: number;
  readonly erfc: { readonly lo: number; readonly hi: number; readonly coeffs: readonly number[] };
  readonly tiny: number; // smallest normal
  readonly tinyScaleLog2: number; // subnormals are scaled up by 2^this before log
}

// Constant splits: hi carries the value rounded to the format, lo the rest (facts: digits of
// ln 2, log2 e and pi/2).
const LN2_D: [number, number] = [0.6931471805599453, 2.3190468138462996e-17];
const LOG2E_D: [number, number] = [1.4426950408889634, 2.0355273740931033e-17];
const TWO_OVER_SQRT_PI_LO = 1.5335459613165881e-17; // 2/sqrt(pi) - its double
const PIO2_D: [number, number, number] = [1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33];

/** Splits a double-double/triple constant into f32 parts. */
function splitF32(parts: readonly number[], n: number): number[] {
  const out: number[] = [];
  let rest = [...parts];
  for (let i = 0; i < n; i++) {
    const h = Math.fround(rest.reduce((a, b) => a + b, 0));
    out.push(h);
    // rest - h, keeping the small parts exact enough for three f32 pieces
    rest = [rest[0]! - h, ...rest.slice(1)];
  }
  return out;
}

const SPECS: Record<FloatDType, FloatSpec> = {
  f32: {
    t: 'f32', bits: 'b32', int: 's32', mant: 23, bias: 127,
    imm: (v) => `0f${f32Hex(v)}`,
    ln2: splitF32(LN2_D, 2) as [number, number],
    log2e: splitF32(LOG2E_D, 2) as [number, number],
    pio2: splitF32(PIO2_D, 3) as [number, number, number],
    expClamp: [-104, 89], exp2Clamp: [-152, 129],
    expm1Deg: 7, sinDeg: 9, cosDeg: 10, atanhTerms: 4, tanhMaxY: 20,
    erfTaylorTerms: 12, erfc: ERFC_F32,
    tiny: 2 ** -126, tinyScaleLog2: 24,
  },
  f64: {
    t: 'f64', bits: 'b64', int: 's64', mant: 52, bias: 1023,
    imm: (v) => `0d${f64Hex(v)}`,
    ln2: LN2_D, log2e: LOG2E_D, pio2: PIO2_D,
    expClamp: [-746, 710], exp2Clamp: [-1080, 1025],
    expm1Deg: 13, sinDeg: 17, cosDeg: 18, atanhTerms: 11, tanhMaxY: 44,
    erfTaylorTerms: 24, erfc: ERFC_F64,
    tiny: 2 ** -1022, tinyScaleLog2: 54,
  },
};

/** Small typed helpers over the emitter: each returns the fresh register holding the result. */
class Seq {
  readonly s: FloatSpec;
  constructor(readonly e: PtxEmitter, t: FloatDType) {
    this.s = SPECS[t];
  }
  private op(kind: RegKind, text: (d: string) => string): string {
    const d = this.e.reg(kind);
    this.e.emit(text(d));
    return d;
  }
  get t(): FloatDType {
    return this.s.t;
  }
  c(v: number): string {
    return this.s.imm(v);
  }
  f(opcode: string, ...args: string[]): string {
    return this.op(this.t, (d) => `${opcode}.${this.t} ${d}, ${args.join(', ')};`);
  }
  add = (a: string, b: string) => this.f('add.rn', a, b);
  sub = (a: string, b: string) => this.f('sub.rn', a, b);
  mul = (a: string, b: string) => this.f('mul.rn', a, b);
  fma = (a: string, b: string, c: string) => this.f('fma.rn', a, b, c);
  div = (a: string, b: string) => this.f('div.rn', a, b);
  min = (a: string, b: string) => this.f('min', a, b);
  max = (a: string, b: string) => this.f('max', a, b);
  abs = (a: string) => this.f('abs', a);
  neg = (a: string) => this.f('neg', a);
  rint = (a: string) => this.f(`cvt.rni.${this.t}`, a);
  /** PTX copysign: the sign of `from` on the magnitude of `mag`. */
  copysign = (from: string, mag: string) => this.f('copysign', from, mag);
  setp(cmp: string, a: string, b: string): string {
    return this.op('pred', (d) => `setp.${cmp}.${this.t} ${d}, ${a}, ${b};`);
  }
  selp(a: string, b: string, p: string): string {
    return this.op(this.t, (d) => `selp.${this.t} ${d}, ${a}, ${b}, ${p};`);
  }
  /** Replaces the result by `x` itself where x is NaN (sequences that clamp lose NaNs). */
  keepNaN(x: string, v: string): string {
    return this.selp(x, v, this.setp('nan', x, x));
  }
  clamp(x: string, lo: number, hi: number): string {
    return this.min(this.max(x, this.c(lo)), this.c(hi));
  }
  /** Horner: c[0] + x*(c[1] + x*(...)). */
  horner(x: string, coeffs: readonly number[]): string {
    let acc = this.c(coeffs[coeffs.length - 1]!);
    for (let i = coeffs.length - 2; i >= 0; i--) acc = this.fma(x, acc, this.c(coeffs[i]!));
    return acc;
  }
  /** Clenshaw: sum c[k] T_k(t). */
  clenshaw(t: string, coeffs: readonly number[]): string {
    const t2 = this.add(t, t);
    const n = coeffs.length - 1;
    // b_k = 2t*b_{k+1} - b_{k+2} + c_k, starting from b_n = c_n, b_{n+1} = 0.
    let b2 = this.c(coeffs[n]!);
    let b1 = this.fma(t2, b2, this.c(coeffs[n - 1]!));
    for (let k = n - 2; k >= 1; k--) {
      const b0 = this.fma(t2, b1, this.sub(this.c(coeffs[k]!), b2));
      b2 = b1;
      b1 = b0;
    }
    return this.fma(t, b1, this.sub(this.c(coeffs[0]!), b2));
  }
  /** Integer k (held in a float) to an integer register. */
  toInt(kf: string): string {
    return this.op('s32', (d) => `cvt.rzi.s32.${this.t} ${d}, ${kf};`);
  }
  /** 2^k as a float, for k in the normal exponent range. */
  pow2(k: string): string {
    const s = this.s;
    let wide = k;
    if (s.int === 's64') wide = this.op('s64', (d) => `cvt.s64.s32 ${d}, ${k};`);
    const biased = this.op(s.int, (d) => `add.${s.int} ${d}, ${wide}, ${s.bias};`);
    const bits = this.op(s.bits, (d) => `shl.${s.bits} ${d}, ${biased}, ${s.mant};`);
    return this.op(this.t, (d) => `mov.${s.bits} ${d}, ${bits};`);
  }
  /** v * 2^k with one rounding, k in [-2*bias-mant, 2*bias]: two power-of-two factors. */
  ldexp(v: string, k: string): string {
    const k1 = this.op('s32', (d) => `shr.s32 ${d}, ${k}, 1;`);
    const k2 = this.op('s32', (d) => `sub.s32 ${d}, ${k}, ${k1};`);
    return this.mul(this.mul(v, this.pow2(k1)), this.pow2(k2));
  }
}

// ---- shared cores -------------------------------------------------------------------------

/** Reduces x (finite, clamped) to x = k*ln2 + r, |r| <= ln2/2, and returns expm1(r) and k. */
function expm1Reduced(q: Seq, x: string): { pm1: string; k: string } {
  const s = q.s;
  const kf = q.rint(q.mul(x, q.c(s.log2e[0])));
  let r = q.fma(kf, q.c(-s.ln2[0]), x); // exact: the product is exact inside the fma and r is small
  r = q.fma(kf, q.c(-s.ln2[1]), r);
  return { pm1: expm1Poly(q, r), k: q.toInt(kf) };
}

/** expm1(r) = r + r^2 * P(r) for |r| <= ln2/2. */
function expm1Poly(q: Seq, r: string): string {
  const p = q.horner(r, expm1Tail(q.s.expm1Deg));
  return q.fma(q.mul(r, r), p, r);
}

/** e^x for x already clamped to the format's range (no NaN). */
function expCore(q: Seq, x: string): string {
  const { pm1, k } = expm1Reduced(q, x);
  return q.ldexp(q.add(q.c(1), pm1), k);
}

function expPrecise(q: Seq, x: string): string {
  return q.keepNaN(x, expCore(q, q.clamp(x, ...q.s.expClamp)));
}

function exp2Precise(q: Seq, x: string): string {
  const s = q.s;
  const xc = q.clamp(x, ...s.exp2Clamp);
  const kf = q.rint(xc);
  const f = q.sub(xc, kf); // exact
  const r = q.fma(f, q.c(s.ln2[0]), q.mul(f, q.c(s.ln2[1])));
  const v = q.ldexp(q.add(q.c(1), expm1Poly(q, r)), q.toInt(kf));
  return q.keepNaN(x, v);
}

/** log1p(f) for f = m - 1, m in [sqrt(1/2), sqrt(2)), and the exponent e (as a float). */
function logReduced(q: Seq, x: string): { l1p: string; ef: string } {
  const s = q.s;
  // Subnormals: scale into the normal range first.
  const small = q.setp('lt', x, q.c(s.tiny));
  const xs = q.selp(q.mul(x, q.c(2 ** s.tinyScaleLog2)), x, small);
  const adj = q.selp(q.c(-s.tinyScaleLog2), q.c(0), small);
  const e = q.e;
  const ib = e.reg(s.bits);
  e.emit(`mov.${s.bits} ${ib}, ${xs};`);
  // i - bits(sqrt(1/2)): the exponent field of that is e with m in [sqrt(1/2), sqrt(2)).
  const off = s.t === 'f32' ? '0x3F3504F3' : '0x3FE6A09E667F3BCD';
  const shifted = e.reg(s.int);
  e.emit(`sub.${s.int} ${shifted}, ${ib}, ${off};`);
  const ex = e.reg(s.int);
  e.emit(`shr.${s.int} ${ex}, ${shifted}, ${s.mant};`);
  const exShift = e.reg(s.bits);
  e.emit(`shl.${s.bits} ${exShift}, ${ex}, ${s.mant};`);
  const mb = e.reg(s.bits);
  e.emit(`sub.${s.int} ${mb}, ${ib}, ${exShift};`);
  const m = e.reg(s.t);
  e.emit(`mov.${s.bits} ${m}, ${mb};`);
  const exf = e.reg(s.t);
  e.emit(`cvt.rn.${s.t}.${s.int} ${exf}, ${ex};`);
  const ef = q.add(exf, adj);
  // log1p(f) = f - (hfsq - s*(hfsq + R)), s = f/(2+f), R = z*(2/3 + z*(2/5 + ...)), z = s^2.
  const f = q.sub(m, q.c(1));
  const sv = q.div(f, q.add(f, q.c(2)));
  const z = q.mul(sv, sv);
  const R = q.mul(z, q.horner(z, atanhTail(s.atanhTerms)));
  const hfsq = q.mul(q.mul(q.c(0.5), f), f);
  const l1p = q.sub(f, q.sub(hfsq, q.mul(sv, q.add(hfsq, R))));
  return { l1p, ef };
}

/** Special values of log: x<0 -> NaN, 0 -> -inf, +inf -> +inf, NaN -> NaN. */
function logSpecials(q: Seq, x: string, v: string): string {
  let r = q.selp(q.c(-Infinity), v, q.setp('eq', x, q.c(0)));
  r = q.selp(q.c(NaN), r, q.setp('lt', x, q.c(0)));
  r = q.selp(x, r, q.setp('eq', x, q.c(Infinity)));
  return q.keepNaN(x, r);
}

function logPrecise(q: Seq, x: string): string {
  const s = q.s;
  const { l1p, ef } = logReduced(q, x);
  const v = q.fma(ef, q.c(s.ln2[0]), q.fma(ef, q.c(s.ln2[1]), l1p));
  return logSpecials(q, x, v);
}

function log2Precise(q: Seq, x: string): string {
  const s = q.s;
  const { l1p, ef } = logReduced(q, x);
  const l = q.fma(l1p, q.c(s.log2e[0]), q.mul(l1p, q.c(s.log2e[1])));
  return logSpecials(q, x, q.add(ef, l));
}

/** sin or cos: k = rint(x*2/pi), r = x - k*pi/2 (three-part Cody-Waite), quadrant select. */
function sinCosPrecise(q: Seq, x: string, which: 'sin' | 'cos'): string {
  const s = q.s;
  const kf = q.rint(q.mul(x, q.c(2 / Math.PI)));
  let r = q.fma(kf, q.c(-s.pio2[0]), x);
  r = q.fma(kf, q.c(-s.pio2[1]), r);
  r = q.fma(kf, q.c(-s.pio2[2]), r);
  const z = q.mul(r, r);
  const sinv = q.fma(q.mul(z, r), q.horner(z, sinTail(s.sinDeg)), r);
  const cosv = q.fma(q.mul(z, z), q.horner(z, cosTail(s.cosDeg)), q.fma(z, q.c(-0.5), q.c(1)));
  const e = q.e;
  // Quadrant k mod 4 computed in floats (exact below 2^mant), so a k beyond the s32 range still works.
  const k = q.toInt(q.fma(q.f(`cvt.rmi.${q.t}`, q.mul(kf, q.c(0.25))), q.c(-4), kf));
  const odd = e.reg('b32');
  e.emit(`and.b32 ${odd}, ${k}, 1;`);
  const swap = e.reg('pred');
  e.emit(`setp.ne.s32 ${swap}, ${odd}, 0;`);
  // sin: quadrant q -> (sin, cos, -sin, -cos); cos: (cos, -sin, -cos, sin)
  const base = which === 'sin' ? q.selp(cosv, sinv, swap) : q.selp(sinv, cosv, swap);
  const kk = e.reg('b32');
  e.emit(which === 'sin' ? `mov.b32 ${kk}, ${k};` : `add.s32 ${kk}, ${k}, 1;`);
  const half = e.reg('b32');
  e.emit(`and.b32 ${half}, ${kk}, 2;`);
  const negp = e.reg('pred');
  e.emit(`setp.ne.s32 ${negp}, ${half}, 0;`);
  const v = q.selp(q.neg(base), base, negp);
  // sin(+-0) = +-0 exactly (the polynomial loses the sign of zero)
  return which === 'sin' ? q.selp(x, v, q.setp('eq', x, q.c(0))) : v;
}

/** tanh(x) = sign(x) * t/(t+2), t = expm1(2|x|), with expm1 = 2^k*(expm1(r) + 1 - 2^-k). */
function tanhPrecise(q: Seq, x: string): string {
  const y = q.min(q.add(q.abs(x), q.abs(x)), q.c(q.s.tanhMaxY));
  const { pm1, k } = expm1Reduced(q, y);
  const e = q.e;
  const nk = e.reg('s32');
  e.emit(`neg.s32 ${nk}, ${k};`);
  const oneMinus = q.sub(q.c(1), q.pow2(nk)); // exact for the k this range produces
  const t = q.ldexp(q.add(pm1, oneMinus), k);
  const v = q.div(t, q.add(t, q.c(2)));
  return q.keepNaN(x, q.copysign(x, v));
}

/** sigmoid(x) = 1/(1+e) for x >= 0, e/(1+e) for x < 0, e = exp(-|x|) (never overflows). */
function sigmoidPrecise(q: Seq, x: string): string {
  const ex = expCore(q, q.max(q.neg(q.abs(x)), q.c(q.s.expClamp[0])));
  const num = q.selp(ex, q.c(1), q.setp('lt', x, q.c(0)));
  return q.keepNaN(x, q.div(num, q.add(q.c(1), ex)));
}

/**
 * erf: |x| < lo: odd Taylor series x*P(x^2); otherwise 1 - exp(-a^2)*h(a), h = erfc(a)*exp(a^2)
 * from a Chebyshev interpolant on [lo, hi] (a clamped to hi, where erf already rounds to 1).
 */
function erfSeq(q: Seq, x: string): string {
  const s = q.s;
  const { lo, hi, coeffs } = s.erfc;
  // small: x*c0 + x*(x^2*Q(x^2)) with c0 = 2/sqrt(pi) split hi+lo, so its rounding does not show.
  const x2 = q.mul(x, x);
  const [c0, ...rest] = erfTaylor(s.erfTaylorTerms);
  const c0hi = s.t === 'f32' ? Math.fround(c0!) : c0!;
  const c0lo = s.t === 'f32' ? c0! - c0hi : TWO_OVER_SQRT_PI_LO;
  const tail = q.fma(x2, q.horner(x2, rest), q.c(c0lo));
  const small = q.fma(x, q.c(c0hi), q.mul(x, tail));
  const a = q.min(q.max(q.abs(x), q.c(lo)), q.c(hi));
  const t = q.fma(a, q.c(2 / (hi - lo)), q.c(-(hi + lo) / (hi - lo)));
  const h = q.clenshaw(t, coeffs);
  const a2 = q.mul(a, a);
  const a2lo = q.fma(a, a, q.neg(a2)); // a^2 = a2 + a2lo exactly
  const ea = expCore(q, q.neg(a2));
  const ex = q.fma(ea, q.neg(a2lo), ea); // exp(-a2 - a2lo) ~ exp(-a2) * (1 - a2lo)
  const big = q.copysign(x, q.fma(q.neg(ex), h, q.c(1)));
  const v = q.selp(small, big, q.setp('lt', q.abs(x), q.c(lo)));
  // erf(+-0) = +-0 (c0lo may be negative, which would turn -0 into +0)
  return q.keepNaN(x, q.selp(x, v, q.setp('eq', x, q.c(0))));
}

/**
 * erfc: |x| < lo: 1 - erf(x) (erf < 0.79 there, so at most two bits of cancellation); otherwise
 * erfc(a) = exp(-a^2) * h(a), a = |x|, h = erfc*exp(a^2) from erf's Chebyshev interpolant on
 * [lo, hi] and, above hi, from its continued fraction 1/(sqrt(pi) (a + (1/2)/(a + 1/(a + ...))))
 * (depth 10 for f32 from a = 4, 20 for f64 from a = 6: below 1e-10 and 1e-17 relative). The
 * product is formed before exp's final power-of-two scaling, so a subnormal erfc rounds once;
 * negative x: 2 - erfc(|x|). a is capped where exp(-a^2) underflows (erfc is 0 beyond).
 */
function erfcSeq(q: Seq, x: string): string {
  const s = q.s;
  const { lo, hi, coeffs } = s.erfc;
  const a = q.abs(x);
  const small = q.sub(q.c(1), erfSeq(q, x));
  const ae = q.min(a, q.c(Math.sqrt(-s.expClamp[0] - 1)));
  const ac = q.min(q.max(a, q.c(lo)), q.c(hi));
  const hCheb = q.clenshaw(q.fma(ac, q.c(2 / (hi - lo)), q.c(-(hi + lo) / (hi - lo))), coeffs);
  const af = q.max(ae, q.c(hi));
  let k = af;
  for (let n = s.t === 'f32' ? 10 : 20; n >= 1; n--) k = q.add(af, q.div(q.c(n / 2), k));
  const hCf = q.div(q.c(1 / Math.sqrt(Math.PI)), k);
  const h = q.selp(hCf, hCheb, q.setp('gt', a, q.c(hi)));
  const a2 = q.mul(ae, ae);
  const a2lo = q.fma(ae, ae, q.neg(a2)); // a^2 = a2 + a2lo exactly
  const { pm1, k: e } = expm1Reduced(q, q.neg(a2));
  const base = q.add(q.c(1), pm1);
  const pos = q.ldexp(q.mul(q.fma(base, q.neg(a2lo), base), h), e); // exp(-a2)(1 - a2lo) h
  const big = q.selp(q.sub(q.c(2), pos), pos, q.setp('lt', x, q.c(0)));
  return q.keepNaN(x, q.selp(small, big, q.setp('lt', a, q.c(lo))));
}

// ---- fast (Triton default) f32 sequences ----------------------------------------------------

function fastF32(q: Seq, fn: UnaryFn, x: string): string | undefined {
  switch (fn) {
    case 'exp':
      return q.f('ex2.approx', q.mul(x, q.c(Math.LOG2E)));
    case 'exp2':
      return q.f('ex2.approx', x);
    case 'log':
      return q.mul(q.f('lg2.approx', x), q.c(Math.LN2));
    case 'log2':
      return q.f('lg2.approx', x);
    case 'sqrt':
      return q.f('sqrt.approx', x);
    case 'rsqrt':
      return q.f('rsqrt.approx', x);
    case 'sin':
      return q.f('sin.approx', x);
    case 'cos':
      return q.f('cos.approx', x);
    case 'tanh':
      return q.f('tanh.approx', x);
    case 'sigmoid': {
      // e = exp(-|x|) never overflows (exp(-x) did below x = -88.7, giving 0 for a subnormal);
      // x < 0: e/(1+e), which rounds to e itself once x < -32 (and e is taken directly there, so
      // subnormal results do not depend on how div.full treats them)
      const e = q.f('ex2.approx', q.mul(q.abs(x), q.c(-Math.LOG2E)));
      const num = q.selp(e, q.c(1), q.setp('lt', x, q.c(0)));
      const v = q.f('div.full', num, q.add(q.c(1), e));
      return q.selp(e, v, q.setp('lt', x, q.c(-32)));
    }
    default:
      return undefined;
  }
}

/** The correctly-rounded-instruction sequence for `fn`, shared by precise f32 and all of f64. */
function preciseSeq(q: Seq, fn: UnaryFn, x: string): string {
  switch (fn) {
    case 'neg': return q.neg(x);
    case 'abs': return q.abs(x);
    case 'floor': return q.f(`cvt.rmi.${q.t}`, x);
    case 'ceil': return q.f(`cvt.rpi.${q.t}`, x);
    case 'sqrt': return q.f('sqrt.rn', x);
    case 'rsqrt': return q.f('rcp.rn', q.f('sqrt.rn', x));
    case 'exp': return expPrecise(q, x);
    case 'exp2': return exp2Precise(q, x);
    case 'log': return logPrecise(q, x);
    case 'log2': return log2Precise(q, x);
    case 'sin': return sinCosPrecise(q, x, 'sin');
    case 'cos': return sinCosPrecise(q, x, 'cos');
    case 'tanh': return tanhPrecise(q, x);
    case 'sigmoid': return sigmoidPrecise(q, x);
    case 'erf': return erfSeq(q, x);
    case 'erfc': return erfcSeq(q, x);
    case 'not': throw new MathLoweringError(fn, q.t);
  }
}

/** Every unary function this file lowers for floats. */
export const FLOAT_UNARY_FNS: readonly UnaryFn[] = [
  'neg', 'abs', 'floor', 'ceil', 'sqrt', 'rsqrt', 'exp', 'exp2', 'log', 'log2', 'sin', 'cos', 'tanh', 'sigmoid', 'erf', 'erfc',
];

/**
 * Emits `dst = fn(src)` for a float register. f32 without `precise` uses the hardware
 * approximations Triton uses by default; erf, and everything in f64, is always accurate.
 */
export function emitUnaryMath(e: PtxEmitter, fn: UnaryFn, dtype: FloatDType, dst: string, src: string, precise: boolean): void {
  if (dtype !== 'f32' && dtype !== 'f64') throw new MathLoweringError(fn, String(dtype));
  const lines: string[] = [];
  const q = new Seq({ reg: (k) => e.reg(k), emit: (l) => lines.push(l) }, dtype);
  const v = (dtype === 'f32' && !precise ? fastF32(q, fn, src) : undefined) ?? preciseSeq(q, fn, src);
  // the sequence's last instruction writes dst itself when it computes the result (no copy)
  const last = lines.length - 1;
  const writesV = last >= 0 && new RegExp(`^\\S+ ${v.replace(/[%$]/g, '\\$&')},`).test(lines[last]!) && !lines.some((l, i) => i < last && l.includes(v));
  if (writesV) lines[last] = lines[last]!.replace(`${v},`, `${dst},`);
  for (const l of lines) e.emit(l);
  if (!writesV) e.emit(`mov.${dtype} ${dst}, ${v};`);
}

/** No sequence here needs a `.func` helper: every sequence is emitted inline. */
export function mathHelperFuncs(): string[] {
  return [];
}
