// The rest of tl.math / libdevice that Triton users call, as compositions of existing ops (so the
// interpreter and the compiled code run the same formulas). Every transcendental building block is
// the accurate (`precise`) variant and divisions and square roots are correctly rounded, so the
// accuracy is that of the formula; docs/language.md ("More math") states it per function, as
// measured by test/e2e/lang_math.test.ts against f64 references. f16/bf16 compute in f32 and round
// once at the end (like the other math ops); f32 and f64 compute in their own type.
import type { BinaryFn, CmpPred, UnaryFn } from '../ir/ops.js';
import type { DType } from '../ir/types.js';
import { isFloat, isInt, isMiniFloat } from '../ir/types.js';
import { bitcastIn, broadcastShapes, broadcastToIn, castIn, cmpIn, constantIn, promoteOperands, toTileIn, whereIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

/** Emits one formula over tiles of one float type (f32 or f64) and shape. */
class F {
  constructor(readonly t: Trace, readonly d: 'f32' | 'f64', readonly shape: number[]) {}
  c(v: number): Tile {
    return constantIn(this.t, v, { elem: this.d, shape: this.shape });
  }
  private v(x: Tile | number): Tile {
    return typeof x === 'number' ? this.c(x) : x;
  }
  bin(fn: BinaryFn, a: Tile | number, b: Tile | number, precise = false): Tile {
    return this.t.emit('binary', [this.v(a), this.v(b)], { elem: this.d, shape: this.shape }, { fn, precise });
  }
  un(fn: UnaryFn, a: Tile, precise = true): Tile {
    return this.t.emit('unary', [a], { elem: this.d, shape: this.shape }, { fn, precise });
  }
  add = (a: Tile | number, b: Tile | number) => this.bin('add', a, b);
  sub = (a: Tile | number, b: Tile | number) => this.bin('sub', a, b);
  mul = (a: Tile | number, b: Tile | number) => this.bin('mul', a, b);
  div = (a: Tile | number, b: Tile | number) => this.bin('div', a, b, true); // div.rn
  max = (a: Tile, b: Tile) => this.bin('max', a, b);
  min = (a: Tile, b: Tile) => this.bin('min', a, b);
  fma(a: Tile, b: Tile, c: Tile | number): Tile {
    return this.t.emit('fma', [a, b, this.v(c)], { elem: this.d, shape: this.shape }, {});
  }
  abs = (a: Tile) => this.un('abs', a, false);
  neg = (a: Tile) => this.un('neg', a, false);
  sqrt = (a: Tile) => this.un('sqrt', a); // sqrt.rn
  log = (a: Tile) => this.un('log', a);
  exp = (a: Tile) => this.un('exp', a);
  cmp(p: CmpPred, a: Tile, b: Tile | number): Tile {
    return cmpIn(this.t, p, a, this.v(b));
  }
  sel(c: Tile, a: Tile | number, b: Tile | number): Tile {
    return whereIn(this.t, c, this.v(a), this.v(b));
  }
  or(a: Tile, b: Tile): Tile {
    return this.t.emit('binary', [a, b], { elem: 'bool', shape: this.shape }, { fn: 'or', precise: false });
  }
  /** Sign bit set (also for -0 and negative NaNs): the bits read as a signed integer are negative. */
  signbit(a: Tile): Tile {
    return cmpIn(this.t, 'lt', bitcastIn(this.t, a, this.d === 'f32' ? 'i32' : 'i64'), 0);
  }
  /** |a| with the sign of b. */
  copysign(a: Tile, b: Tile): Tile {
    const m = this.abs(a);
    return this.sel(this.signbit(b), this.neg(m), m);
  }
  trunc(a: Tile): Tile {
    return this.sel(this.cmp('lt', a, 0), this.un('ceil', a, false), this.un('floor', a, false));
  }
  log1p(x: Tile): Tile {
    // Goldberg: x * log(u) / (u - 1) with u = 1 + x cancels the rounding of u
    const u = this.add(1, x);
    const r = this.mul(this.log(u), this.div(x, this.sub(u, 1)));
    return this.sel(this.cmp('eq', u, 1), x, this.sel(this.cmp('eq', u, Infinity), u, r));
  }
  expm1(x: Tile): Tile {
    // Kahan: (u - 1) * x / log(u) with u = e^x cancels the rounding of u
    const u = this.exp(x);
    const um1 = this.sub(u, 1);
    const r = this.mul(um1, this.div(x, this.log(u)));
    return this.sel(this.cmp('eq', u, 1), x, this.sel(this.cmp('eq', um1, -1), -1, this.sel(this.cmp('eq', u, Infinity), u, r)));
  }
  /** atan on [0, inf] (NaN passes): reduce to |z| <= tan(pi/12), then the odd Taylor series. */
  atanPos(a: Tile): Tile {
    const inv = this.cmp('gt', a, 1);
    const z = this.sel(inv, this.div(1, a), a);
    const red = this.cmp('gt', z, 0.2679491924311227); // tan(pi/12)
    const s3 = Math.sqrt(3);
    const zr = this.sel(red, this.div(this.fma(z, this.c(s3), -1), this.add(z, s3)), z); // tan(atan z - pi/6)
    const z2 = this.mul(zr, zr);
    const terms = this.d === 'f32' ? 7 : 15; // |z|^2 <= 0.0718: the next term is below the ulp
    let p = this.c(((terms - 1) % 2 === 0 ? 1 : -1) / (2 * terms - 1));
    for (let k = terms - 2; k >= 0; k--) p = this.fma(p, z2, (k % 2 === 0 ? 1 : -1) / (2 * k + 1));
    let r = this.mul(p, zr);
    r = this.sel(red, this.add(r, Math.PI / 6), r);
    return this.sel(inv, this.sub(Math.PI / 2, r), r);
  }
  atan2(y: Tile, x: Tile): Tile {
    const ax = this.abs(x), ay = this.abs(y);
    const hi = this.max(ax, ay), lo = this.min(ax, ay);
    // 0/0 (both zero) gives 0, inf/inf (both infinite) gives 1
    const ratio = this.sel(this.cmp('eq', hi, 0), 0, this.sel(this.cmp('eq', lo, Infinity), 1, this.div(lo, hi)));
    let r = this.atanPos(ratio);
    r = this.sel(this.cmp('gt', ay, ax), this.sub(Math.PI / 2, r), r);
    r = this.sel(this.signbit(x), this.sub(Math.PI, r), r);
    return this.copysign(r, y);
  }
  and(a: Tile, b: Tile): Tile {
    return this.t.emit('binary', [a, b], { elem: 'bool', shape: this.shape }, { fn: 'and', precise: false });
  }
  /** The float whose bits are those of `a` plus `k` (as a signed integer of the same width). */
  bitsPlus(a: Tile, k: number): Tile {
    const it = this.d === 'f32' ? 'i32' : 'i64';
    const ty = { elem: it, shape: this.shape } as const;
    const sum = this.t.emit('binary', [bitcastIn(this.t, a, it), constantIn(this.t, k, ty)], ty, { fn: 'add', precise: false });
    return bitcastIn(this.t, sum, this.d);
  }
  /** IEEE remainder: x − n·y, n = x/y rounded to nearest even; exact (from the exact fmod by 2|y|). */
  remainder(a: Tile, b: Tile): Tile {
    const p = this.abs(b);
    let r = this.abs(this.bin('rem', a, this.add(p, p))); // in [0, 2p); fmod(x, inf) = x if 2p overflows
    // r > p/2: subtract p (Sterbenz: exact); a tie at p/2 keeps the even quotient. r + r avoids p/2
    // losing a subnormal's last bit, and where it overflows r > p/2 holds anyway.
    const c1 = this.cmp('gt', this.add(r, r), p);
    r = this.sel(c1, this.sub(r, p), r);
    const c2 = this.and(c1, this.cmp('ge', this.add(r, r), p));
    r = this.sel(c2, this.sub(r, p), r);
    return this.sel(this.signbit(a), this.neg(r), r); // a zero result has x's sign
  }
  /** (1 - x)(1 + x): 1 - x^2 without cancellation near |x| = 1. */
  oneMinusSq(x: Tile): Tile {
    return this.mul(this.sub(1, x), this.add(1, x));
  }
}

type Body = (f: F, xs: Tile[]) => Tile;

/** Runs `body` on float operands promoted together (f16/bf16 in f32), then rounds back. */
function floatFn(name: string, xs: TileLike[], body: Body, result: 'same' | 'bool' = 'same'): Tile {
  return api(name, (t) => {
    const { tiles, dtype, shape } = xs.length === 1 ? (() => { const x = toTileIn(t, xs[0], 'input'); return { tiles: [x], dtype: x.dtype as DType, shape: [...x.shape] }; })() : promoteOperands(t, xs, name);
    if (!isFloat(dtype) || isMiniFloat(dtype)) return t.fail('E_TYPE', `${name} needs floating-point operands, got ${dtype} (cast with .to('f32') first)`);
    const d = dtype === 'f64' ? 'f64' : 'f32';
    const f = new F(t, d, shape);
    const r = body(f, tiles.map((x) => castIn(t, x, d)));
    return result === 'bool' || dtype === d ? r : castIn(t, r, dtype);
  });
}

// ---- exact ones ----
/** Rounds toward zero. */
export const trunc = (x: TileLike): Tile => floatFn('trunc', [x], (f, [a]) => f.trunc(a!));
/** Rounds to the nearest integer, halves away from zero (C round). */
export const round = (x: TileLike): Tile =>
  floatFn('round', [x], (f, [a]) => {
    const t = f.trunc(a!);
    return f.sel(f.cmp('ge', f.abs(f.sub(a!, t)), 0.5), f.add(t, f.copysign(f.c(1), a!)), t);
  });
/** Rounds to the nearest integer, halves to even (C rint / nearbyint). */
export const rint = (x: TileLike): Tile =>
  floatFn('rint', [x], (f, [a]) => {
    const big = f.d === 'f32' ? 2 ** 23 : 2 ** 52; // from here on every value is an integer
    const m = f.abs(a!);
    return f.sel(f.cmp('lt', m, big), f.copysign(f.sub(f.add(m, big), big), a!), a!);
  });
export const isnan = (x: TileLike): Tile => floatFn('isnan', [x], (f, [a]) => f.cmp('ne', a!, a!), 'bool');
export const isinf = (x: TileLike): Tile => floatFn('isinf', [x], (f, [a]) => f.cmp('eq', f.abs(a!), Infinity), 'bool');
export const isfinite = (x: TileLike): Tile => floatFn('isfinite', [x], (f, [a]) => f.cmp('lt', f.abs(a!), Infinity), 'bool');
/** The sign bit (true for -0 and -inf; for NaN, the NaN's sign bit, which arithmetic leaves unspecified). */
export const signbit = (x: TileLike): Tile => floatFn('signbit', [x], (f, [a]) => f.signbit(a!), 'bool');
/** IEEE remainder (C remainder): x − n·y with n the nearest integer to x/y, ties to even; exact. */
export const remainder = (x: TileLike, y: TileLike): Tile => floatFn('remainder', [x, y], (f, [a, b]) => f.remainder(a!, b!));
/** |x| with the sign of y. */
export const copysign = (x: TileLike, y: TileLike): Tile => floatFn('copysign', [x, y], (f, [a, b]) => f.copysign(a!, b!));

// ---- approximate ones ----
export const log1p = (x: TileLike): Tile => floatFn('log1p', [x], (f, [a]) => f.log1p(a!));
export const expm1 = (x: TileLike): Tile => floatFn('expm1', [x], (f, [a]) => f.expm1(a!));
export const tan = (x: TileLike): Tile => floatFn('tan', [x], (f, [a]) => f.div(f.un('sin', a!), f.un('cos', a!)));
export const atan = (x: TileLike): Tile => floatFn('atan', [x], (f, [a]) => f.copysign(f.atanPos(f.abs(a!)), a!));
export const atan2 = (y: TileLike, x: TileLike): Tile => floatFn('atan2', [y, x], (f, [b, a]) => f.atan2(b!, a!));
export const asin = (x: TileLike): Tile => floatFn('asin', [x], (f, [a]) => f.atan2(a!, f.sqrt(f.oneMinusSq(a!))));
export const acos = (x: TileLike): Tile => floatFn('acos', [x], (f, [a]) => f.atan2(f.sqrt(f.oneMinusSq(a!)), a!));
export const sinh = (x: TileLike): Tile =>
  floatFn('sinh', [x], (f, [a]) => {
    const m = f.abs(a!);
    const e = f.expm1(m);
    const small = f.mul(f.add(e, f.div(e, f.add(e, 1))), 0.5); // (e^m - e^-m) / 2 without cancellation
    const h = f.exp(f.mul(m, 0.5));
    const big = f.mul(f.mul(h, 0.5), h); // e^m / 2 without overflowing before sinh does
    return f.copysign(f.sel(f.cmp('gt', m, f.d === 'f32' ? 20 : 40), big, small), a!);
  });
export const cosh = (x: TileLike): Tile =>
  floatFn('cosh', [x], (f, [a]) => {
    const m = f.abs(a!);
    const e = f.exp(m);
    const small = f.add(f.mul(e, 0.5), f.div(0.5, e));
    const h = f.exp(f.mul(m, 0.5));
    return f.sel(f.cmp('gt', m, f.d === 'f32' ? 20 : 40), f.mul(f.mul(h, 0.5), h), small);
  });
const LARGE = (f: F) => (f.d === 'f32' ? 2 ** 12 : 2 ** 28); // beyond: sqrt(x^2 +- 1) rounds to x
export const asinh = (x: TileLike): Tile =>
  floatFn('asinh', [x], (f, [a]) => {
    const m = f.abs(a!);
    const m2 = f.mul(m, m);
    const small = f.log1p(f.add(m, f.div(m2, f.add(1, f.sqrt(f.add(1, m2))))));
    const big = f.add(f.log(m), Math.LN2);
    return f.copysign(f.sel(f.cmp('gt', m, LARGE(f)), big, small), a!);
  });
export const acosh = (x: TileLike): Tile =>
  floatFn('acosh', [x], (f, [a]) => {
    const t = f.sub(a!, 1);
    const small = f.log1p(f.add(t, f.sqrt(f.fma(t, t, f.add(t, t)))));
    const r = f.sel(f.cmp('gt', a!, LARGE(f)), f.add(f.log(a!), Math.LN2), small);
    return f.sel(f.cmp('lt', a!, 1), NaN, r); // the formula is not NaN for every x < 1
  });
export const atanh = (x: TileLike): Tile =>
  floatFn('atanh', [x], (f, [a]) => {
    const m = f.abs(a!);
    return f.copysign(f.mul(f.log1p(f.div(f.add(m, m), f.sub(1, m))), 0.5), a!);
  });
export const cbrt = (x: TileLike): Tile =>
  floatFn('cbrt', [x], (f, [a]) => {
    const m = f.abs(a!);
    let r = f.un('exp2', f.div(f.un('log2', m), 3));
    for (let k = 0; k < 2; k++) r = f.sub(r, f.div(f.sub(r, f.div(m, f.mul(r, r))), 3)); // Newton on r^3 = m
    const special = f.or(f.cmp('eq', m, 0), f.cmp('eq', m, Infinity));
    return f.copysign(f.sel(special, m, r), a!);
  });
/** sqrt(x^2 + y^2) without overflow or underflow in between; inf if either is infinite (even with a NaN). */
export const hypot = (x: TileLike, y: TileLike): Tile =>
  floatFn('hypot', [x, y], (f, [a, b]) => {
    const ax = f.abs(a!), ay = f.abs(b!);
    const hi = f.max(ax, ay), lo = f.min(ax, ay);
    const r = f.div(lo, hi);
    const h = f.mul(hi, f.sqrt(f.fma(r, r, 1)));
    const inf = f.or(f.cmp('eq', ax, Infinity), f.cmp('eq', ay, Infinity));
    return f.sel(inf, Infinity, f.sel(f.cmp('eq', hi, 0), 0, h));
  });

// ---- f32 / f64 only: the answer depends on the format's own bits ----
/** Runs `body` on operands promoted together, which must be f32 or f64 (no rounding back). */
function f32or64Fn(name: string, xs: TileLike[], body: Body): Tile {
  return api(name, (t) => {
    const { tiles, dtype, shape } = promoteOperands(t, xs, name);
    if (dtype !== 'f32' && dtype !== 'f64') return t.fail('E_TYPE', `${name} needs f32 or f64 operands, got ${dtype} (its result is a neighbour in the operand's own format; cast with .to('f32') first)`);
    return body(new F(t, dtype, shape), tiles);
  });
}
/** The next representable value after x in the direction of y (C nextafter): y when x == y, NaN if either is. */
export const nextafter = (x: TileLike, y: TileLike): Tile =>
  f32or64Fn('nextafter', [x, y], (f, [a, b]) => {
    // the integer view of a float grows with its magnitude, whatever the sign: +1 moves away from zero
    const away = f.or(f.and(f.cmp('gt', a!, 0), f.cmp('gt', b!, a!)), f.and(f.cmp('lt', a!, 0), f.cmp('lt', b!, a!)));
    let r = f.sel(away, f.bitsPlus(a!, 1), f.bitsPlus(a!, -1));
    r = f.sel(f.cmp('eq', a!, 0), f.copysign(f.c(f.d === 'f32' ? 2 ** -149 : 2 ** -1074), b!), r); // the smallest subnormal
    r = f.sel(f.cmp('eq', a!, b!), b!, r); // also -0 and +0: y, as C
    return f.sel(f.or(f.cmp('ne', a!, a!), f.cmp('ne', b!, b!)), f.add(a!, b!), r);
  });

/**
 * x · 2ⁿ for an integer tile n, rounded once (C ldexp). 2ⁿ is built from its bits, so n is first
 * brought into the normal exponent range by at most two pre-scalings (as libm's scalbn does: the
 * ones going down keep 53 (f32: 24) spare bits, so only the last multiplication can round).
 */
export const ldexp = (x: TileLike, n: TileLike): Tile =>
  api('ldexp', (t) => {
    const xt = toTileIn(t, x, 'x of ldexp'), nt = toTileIn(t, n, 'n of ldexp');
    const dtype = xt.dtype as DType;
    if (!isFloat(dtype) || isMiniFloat(dtype)) return t.fail('E_TYPE', `ldexp needs a floating-point x, got ${dtype} (cast with .to('f32') first)`);
    if (!isInt(nt.dtype)) return t.fail('E_TYPE', `ldexp needs an integer exponent n, got ${nt.dtype}`);
    const shape = broadcastShapes(t, xt.shape, nt.shape, 'ldexp');
    const d = dtype === 'f64' ? 'f64' : 'f32'; // f16/bf16: x · 2ⁿ is exact in f32 until it rounds to the format
    const f = new F(t, d, shape);
    const it = { elem: 'i32', shape } as const;
    const ic = (v: number) => constantIn(t, v, it);
    const iadd = (a: Tile, k: number) => t.emit('binary', [a, ic(k)], it, { fn: 'add', precise: false });
    // |n| beyond 4096 gives 0 or inf as 4096 does (for x ≠ 0): clamp in i64, then i32 is exact
    const n64 = castIn(t, broadcastToIn(t, nt, shape), 'i64');
    const cl = (c: 'lt' | 'gt', lim: number, v: Tile) => whereIn(t, cmpIn(t, c, v, lim), constantIn(t, lim, { elem: 'i64', shape }), v);
    let e = castIn(t, cl('gt', 4096, cl('lt', -4096, n64)), 'i32');
    let y = castIn(t, broadcastToIn(t, xt, shape), d);
    const [minE, maxE, down, dk, mant] = d === 'f64' ? [-1022, 1023, -969, 969, 52] : [-126, 127, -102, 102, 23];
    for (let k = 0; k < 2; k++) {
      const lo = cmpIn(t, 'lt', e, minE);
      y = f.sel(lo, f.mul(y, 2 ** down), y);
      e = whereIn(t, lo, iadd(e, dk), e);
      const hi = cmpIn(t, 'gt', e, maxE);
      y = f.sel(hi, f.mul(y, 2 ** maxE), y);
      e = whereIn(t, hi, iadd(e, -maxE), e);
    }
    e = whereIn(t, cmpIn(t, 'lt', e, minE), ic(minE), whereIn(t, cmpIn(t, 'gt', e, maxE), ic(maxE), e));
    const bt = { elem: d === 'f64' ? 'i64' : 'i32', shape } as const;
    const biased = castIn(t, iadd(e, maxE), bt.elem);
    const bits = t.emit('binary', [biased, constantIn(t, mant, bt)], bt, { fn: 'shl', precise: false });
    const r = f.mul(y, bitcastIn(t, bits, d));
    return dtype === d ? r : castIn(t, r, dtype);
  });

// ---- inverse error function, log-gamma ----
const SQRT_PI_2 = Math.sqrt(Math.PI) / 2;
/**
 * erfinv(y): a first guess (|y| <= 0.5: the series sqrt(pi)/2 (y + pi/12 y^3 + 7pi^2/480 y^5);
 * beyond: Winitzki's closed form, within 2e-3) polished by Newton steps on erf(x) = |y| (3 in f32,
 * 4 in f64: quadratic convergence from 2e-3), with the residual taken as (1 - |y|) - erfc(x) above
 * 0.5 (1 - |y| is exact there, and erfc keeps its relative accuracy where erf rounds to 1).
 */
export const erfinv = (x: TileLike): Tile =>
  floatFn('erfinv', [x], (f, [y]) => {
    const a = f.abs(y!);
    const a2 = f.mul(a, a);
    const small = f.mul(SQRT_PI_2, f.mul(a, f.fma(a2, f.fma(a2, f.c((7 * Math.PI ** 2) / 480), Math.PI / 12), 1)));
    const l = f.log(f.oneMinusSq(a)); // ln(1 - a^2) < 0
    const A = f.add(2 / (Math.PI * 0.147), f.mul(l, 0.5));
    const tail = f.sqrt(f.sub(f.sqrt(f.sub(f.mul(A, A), f.div(l, 0.147))), A));
    const lo = f.cmp('le', a, 0.5);
    let r = f.sel(lo, small, tail);
    const oneMinus = f.sub(1, a);
    for (let i = 0; i < (f.d === 'f32' ? 3 : 4); i++) {
      const res = f.sel(lo, f.sub(f.un('erf', r), a), f.sub(oneMinus, f.un('erfc', r)));
      const slope = f.mul(1 / SQRT_PI_2, f.exp(f.neg(f.mul(r, r))));
      r = f.sub(r, f.div(res, slope));
    }
    r = f.sel(f.cmp('eq', a, 1), Infinity, f.sel(f.cmp('gt', a, 1), NaN, f.sel(f.cmp('eq', a, 0), a, r)));
    return f.copysign(r, y!); // NaN stays NaN (every comparison above is false)
  });

/** Riemann zeta(s) - 1, s >= 2: the sum to N - 1 (smallest first) and Euler-Maclaurin's tail from N. */
function zetaMinus1(s: number): number {
  const N = 1000;
  let sum = N ** (1 - s) / (s - 1) + N ** -s / 2 + (s * N ** (-s - 1)) / 12 - (s * (s + 1) * (s + 2) * N ** (-s - 3)) / 720
    + (s * (s + 1) * (s + 2) * (s + 3) * (s + 4) * N ** (-s - 5)) / 30240;
  for (let n = N - 1; n >= 2; n--) sum += n ** -s;
  return sum;
}
const EULER_GAMMA = 0.5772156649015329;
let lgammaSeries: { one: number[]; two: number[] } | undefined;
/** Taylor coefficients (k = 1..) of lgamma(1 + t) and lgamma(2 + t): -gamma, then (-1)^k zeta(k)/k; 1 - gamma, then (-1)^k (zeta(k) - 1)/k. */
function lgammaCoeffs(): { one: number[]; two: number[] } {
  if (lgammaSeries) return lgammaSeries;
  const one = [-EULER_GAMMA], two = [1 - EULER_GAMMA];
  for (let k = 2; k <= 60; k++) {
    const z1 = zetaMinus1(k), sg = k % 2 === 0 ? 1 : -1;
    one.push((sg * (1 + z1)) / k);
    two.push((sg * z1) / k);
  }
  return (lgammaSeries = { one, two });
}

/**
 * lgamma(x) = log|Gamma(x)| (libdevice's lgamma). z > 0: below 0.5, lgamma(1 + z) - log z; on
 * [0.5, 1.5), the Taylor series of lgamma(1 + t) (zero at 1 kept exactly: relative accuracy there);
 * on [1.5, 12), z = y + k with y in [1.5, 2.5): the series of lgamma(2 + t) at y plus
 * log((z-1)...(z-k)) (each factor exact); from 12, Stirling's series to 1/z^15. x < 0: the
 * reflection log(pi / |sin(pi f)|) - lgamma(1 - x), f = x - rint(x) exact; non-positive integers
 * and ±inf give +inf.
 */
export const lgamma = (x: TileLike): Tile =>
  floatFn('lgamma', [x], (f, [v]) => {
    const x0 = v!;
    const { one, two } = lgammaCoeffs();
    const n1 = f.d === 'f32' ? 24 : 54, n2 = f.d === 'f32' ? 13 : 30; // |t| <= 0.5: the next term is below the ulp
    const series = (t: Tile, c: number[], n: number): Tile => {
      let p = f.c(c[n - 1]!);
      for (let k = n - 2; k >= 0; k--) p = f.fma(p, t, c[k]!);
      return f.mul(p, t);
    };
    const neg = f.cmp('lt', x0, 0);
    const z = f.sel(neg, f.sub(1, x0), x0);
    // z < 1.5: lgamma(1 + t), t = z (minus log z) below 0.5, z - 1 above
    const tiny = f.cmp('lt', z, 0.5);
    const s1 = series(f.sel(tiny, z, f.sub(z, 1)), one, n1);
    const low = f.sel(tiny, f.sub(s1, f.log(z)), s1);
    // [1.5, 12): k = floor(z - 1.5), y = z - k in [1.5, 2.5), lgamma(z) = lgamma(y) + log(prod (z - m), m = 1..k)
    const k = f.max(f.un('floor', f.sub(z, 1.5), false), f.c(0));
    const y = f.sub(z, k);
    let prod = f.c(1);
    for (let m = 1; m <= 10; m++) prod = f.mul(prod, f.sel(f.cmp('le', f.c(m), k), f.sub(z, m), 1));
    const mid = f.add(series(f.sub(y, 2), two, n2), f.log(prod));
    // z >= 12: Stirling, z (log z - 1) - log(z)/2 + log(2 pi)/2 + sum B_2j / (2j (2j-1) z^(2j-1))
    const lz = f.log(z);
    const w = f.div(1, z), w2 = f.mul(w, w);
    const B = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400];
    let sb = f.c(B[B.length - 1]!);
    for (let j = B.length - 2; j >= 0; j--) sb = f.fma(sb, w2, B[j]!);
    const big = f.add(f.fma(z, f.sub(lz, 1), f.fma(lz, f.c(-0.5), 0.5 * Math.log(2 * Math.PI))), f.mul(sb, w));
    const pos = f.sel(f.cmp('lt', z, 1.5), low, f.sel(f.cmp('lt', z, 12), mid, big));
    // reflection for x < 0
    const big2 = f.d === 'f32' ? 2 ** 23 : 2 ** 52; // from here on every value is an integer
    const ax = f.abs(x0);
    const near = f.sel(f.cmp('lt', ax, big2), f.copysign(f.sub(f.add(ax, big2), big2), x0), x0); // a nearest integer
    const fr = f.sub(x0, near); // exact, |fr| <= 1/2
    const sn = f.abs(f.un('sin', f.mul(fr, Math.PI)));
    const refl = f.sub(f.log(f.div(Math.PI, sn)), pos);
    const inf = f.or(f.cmp('eq', f.abs(x0), Infinity), f.and(neg, f.cmp('eq', sn, 0)));
    return f.sel(inf, Infinity, f.sel(neg, refl, pos));
  });
