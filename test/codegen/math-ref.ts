// High-precision references for the math accuracy tests: erf from a BigInt fixed-point series
// (JS has no Math.erf), exact ulp distances between a result and a reference, and the
// Chebyshev fitter that produced the erfc coefficient tables in src/codegen/math/math-coeffs.ts.
export type Fmt = 'f32' | 'f64';

/** A reference value N * 2^exp, exact. */
export interface Exact {
  n: bigint;
  exp: number;
}

const FRAC = 192; // fixed-point fraction bits of the series
const ONE = 1n << BigInt(FRAC);

/** Exact mantissa/exponent of a finite double: x = m * 2^e with m an integer. */
export function decompose(x: number): Exact {
  if (x === 0) return { n: 0n, exp: 0 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const be = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  if (be === 0) return { n: sign * frac, exp: -1074 };
  return { n: sign * (frac | (1n << 52n)), exp: be - 1075 };
}

function toFixed(x: number): bigint {
  const { n, exp } = decompose(x);
  const s = exp + FRAC;
  return s >= 0 ? n << BigInt(s) : n >> BigInt(-s);
}

function isqrt(v: bigint): bigint {
  if (v < 2n) return v;
  let x = 1n << BigInt(Math.ceil(v.toString(2).length / 2));
  for (;;) {
    const y = (x + v / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

// pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239), in fixed point.
function atanInv(k: bigint): bigint {
  let sum = 0n;
  let pow = ONE / k;
  for (let n = 0n; pow !== 0n; n++) {
    const t = pow / (2n * n + 1n);
    sum += n % 2n === 0n ? t : -t;
    pow /= k * k;
  }
  return sum;
}
const PI = 16n * atanInv(5n) - 4n * atanInv(239n);
const SQRT_PI = isqrt(PI << BigInt(FRAC));

/** e^{x^2} and sum_n (2x^2)^n/(2n+1)!!, both in fixed point. */
function series(x2: bigint): { e: bigint; s: bigint } {
  let e = ONE;
  let t = ONE;
  for (let n = 1n; t !== 0n; n++) {
    t = (t * x2) / ONE / n;
    e += t;
  }
  let s = ONE;
  t = ONE;
  for (let n = 0n; t !== 0n; n++) {
    t = (2n * t * x2) / ONE / (2n * n + 3n);
    s += t;
  }
  return { e, s };
}

/** erf(x), exact to about 2^-180 relative. */
export function erfExact(x: number): Exact {
  const { n, exp } = decompose(x);
  const { e, s } = series(toFixed(x * x === 0 ? 0 : 1) === 0n ? 0n : sqFixed(x));
  // erf = x * 2/sqrt(pi) * s / e
  const ratio = (2n * s * ONE * ONE) / (SQRT_PI * e); // fixed point
  return { n: n * ratio, exp: exp - FRAC };
}

function sqFixed(x: number): bigint {
  const { n, exp } = decompose(x);
  const s = 2 * exp + FRAC;
  const sq = n * n;
  return s >= 0 ? sq << BigInt(s) : sq >> BigInt(-s);
}

/** erfc(a) * e^{a^2} for a >= 0, as a double (used for fitting). */
export function erfcScaled(a: number): number {
  const x2 = sqFixed(a);
  const { e, s } = series(x2);
  const two = (2n * toFixed(a) * s) / SQRT_PI; // 2/sqrt(pi) * a * s, fixed
  return fixedToNumber(e - two);
}

function fixedToNumber(v: bigint): number {
  // Keep 64 significant bits, then scale: accurate to well under a double ulp.
  const bitsLen = v < 0n ? (-v).toString(2).length : v.toString(2).length;
  const drop = Math.max(0, bitsLen - 64);
  return Number(v >> BigInt(drop)) * 2 ** (drop - FRAC);
}

export const erfNumber = (x: number): number => {
  const r = erfExact(x);
  return exactToNumber(r);
};

export function exactToNumber(r: Exact): number {
  const bitsLen = r.n < 0n ? (-r.n).toString(2).length : r.n.toString(2).length;
  const drop = Math.max(0, bitsLen - 64);
  return Number(r.n >> BigInt(drop)) * 2 ** (drop + r.exp);
}

/** Size of one ulp of `fmt` at magnitude |v| (subnormal spacing at the bottom). */
export function ulpOf(v: number, fmt: Fmt): number {
  const p = fmt === 'f32' ? 24 : 53;
  const emin = fmt === 'f32' ? -126 : -1022;
  const a = Math.abs(v);
  if (a === 0 || !Number.isFinite(a)) return 2 ** (emin - p + 1);
  const e = Math.max(Math.floor(Math.log2(a)), emin);
  // log2 may be off by one near powers of two: fix it.
  let ee = e;
  if (2 ** ee > a) ee--;
  if (2 ** (ee + 1) <= a) ee++;
  return 2 ** (Math.max(ee, emin) - p + 1);
}

/** |res - ref| in ulps of `fmt` at ref, computed exactly. */
export function ulpDistance(res: number, ref: Exact, fmt: Fmt): number {
  if (Number.isNaN(res)) return Infinity;
  const r = decompose(res);
  const e = Math.min(r.exp, ref.exp);
  const a = r.n << BigInt(r.exp - e);
  const b = ref.n << BigInt(ref.exp - e);
  let d = a - b;
  if (d < 0n) d = -d;
  const u = decompose(ulpOf(exactToNumber(ref), fmt)); // a power of two: n = 2^j
  const k = u.exp + u.n.toString(2).length - 1;
  return exactToNumber({ n: d, exp: e - k });
}

/** ulp distance when the reference is a double (for f32 results the double is effectively exact). */
export const ulpVs = (res: number, ref: number, fmt: Fmt): number => {
  // A reference beyond the format's range rounds to infinity: the result must be that infinity.
  const refR = fmt === 'f32' ? Math.fround(ref) : ref;
  if (Number.isNaN(refR) || !Number.isFinite(refR)) return Object.is(res, refR) || res === refR ? 0 : Infinity;
  if (!Number.isFinite(res)) return Infinity;
  return ulpDistance(res, decompose(ref), fmt);
};

/** erfc(a) * e^{a^2} for a fixed-point a >= 0 (FRAC fraction bits), in fixed point. */
function erfcScaledFixedIn(aFix: bigint): bigint {
  const x2 = (aFix * aFix) >> BigInt(FRAC);
  const { e, s } = series(x2);
  return e - (2n * aFix * s) / SQRT_PI;
}

/** cos(pi * m / (2n)) in fixed point (Taylor series after folding the angle into [0, pi]). */
function cosPiFrac(m: number, n: number): bigint {
  let mm = m % (4 * n);
  if (mm > 2 * n) mm = 4 * n - mm;
  const theta = (PI * BigInt(mm)) / BigInt(2 * n);
  const t2 = (theta * theta) >> BigInt(FRAC);
  let term = ONE;
  let sum = ONE;
  for (let k = 1n; term !== 0n; k++) {
    term = -((term * t2) >> BigInt(FRAC)) / ((2n * k - 1n) * (2n * k));
    sum += term;
  }
  return sum;
}

/**
 * Chebyshev interpolant of erfc(a)*e^{a^2} on [lo, hi] (lo, hi multiples of 1/8), computed entirely
 * in 192-bit fixed point and rounded to doubles once: the source of ERFC_F32/ERFC_F64.
 */
export function erfcScaledChebyshev(lo: number, hi: number, deg: number): number[] {
  const n = deg + 1;
  const mid = (toFixed(lo) + toFixed(hi)) / 2n;
  const half = (toFixed(hi) - toFixed(lo)) / 2n;
  const vals: bigint[] = [];
  for (let j = 0; j < n; j++) vals.push(erfcScaledFixedIn(mid + ((half * cosPiFrac(2 * j + 1, n)) >> BigInt(FRAC))));
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    let acc = 0n;
    for (let j = 0; j < n; j++) acc += (vals[j]! * cosPiFrac(k * (2 * j + 1), n)) >> BigInt(FRAC);
    out.push(fixedToNumber(((k === 0 ? 1n : 2n) * acc) / BigInt(n)));
  }
  return out;
}

/** Chebyshev coefficients c_0..c_{deg} of f on [lo, hi] (interpolation at deg+1 Chebyshev nodes). */
export function chebyshevFit(f: (x: number) => number, lo: number, hi: number, deg: number): number[] {
  const n = deg + 1;
  const vals: number[] = [];
  for (let j = 0; j < n; j++) vals.push(f((lo + hi) / 2 + ((hi - lo) / 2) * Math.cos((Math.PI * (j + 0.5)) / n)));
  const c: number[] = [];
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += vals[j]! * Math.cos((Math.PI * k * (j + 0.5)) / n);
    c.push(((k === 0 ? 1 : 2) / n) * s);
  }
  return c;
}

/** Clenshaw evaluation in double (for checking a fit). */
export function clenshaw(c: readonly number[], t: number): number {
  let b1 = 0;
  let b2 = 0;
  for (let k = c.length - 1; k >= 1; k--) {
    const b0 = 2 * t * b1 - b2 + c[k]!;
    b2 = b1;
    b1 = b0;
  }
  return t * b1 - b2 + c[0]!;
}

/**
 * erfc(x) as a double. a = |x| < 2: from the same series, erfc(a) = (e^{a^2} - 2a/sqrt(pi) s) / e^{a^2}
 * (the difference loses at most e^4 of the fixed point's 2^-192); a >= 2: 1/(sqrt(pi) K(a) e^{a^2})
 * with K(a) = a + (1/2)/(a + 1/(a + (3/2)/(a + ...))), the continued fraction 3000 levels deep in
 * fixed point (all terms positive: no cancellation, relative accuracy far below 2^-100 however
 * small erfc is). erfc(-a) = 2 - erfc(a).
 */
export function erfcNumber(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 0;
  if (x === -Infinity) return 2;
  const a = Math.abs(x);
  if (a > 27.5) return x > 0 ? 0 : 2; // below the smallest double
  const { e } = series(sqFixed(a));
  let r: number;
  if (a < 2) {
    const d = erfcScaledFixedIn(toFixed(a)); // erfc(a) e^{a^2}, fixed point
    const K = 80 + e.toString(2).length;
    r = exactToNumber({ n: (d << BigInt(K)) / e, exp: -K });
  } else {
    const af = toFixed(a);
    let k = af;
    for (let n = 3000n; n >= 1n; n--) k = af + (n * ONE * ONE) / 2n / k;
    const den = SQRT_PI * k * e; // value * ONE^3
    const S = Math.max(0, 80 + den.toString(2).length - 3 * FRAC);
    r = exactToNumber({ n: ((ONE * ONE * ONE) << BigInt(S)) / den, exp: 600 - S }) * 2 ** -600; // scaled: subnormal results too
  }
  return x < 0 ? 2 - r : r;
}
