// Exactly rounded float helpers the interpreter needs and JS lacks: fused multiply-add with a
// single rounding (to f64, or to a narrower format through round-to-odd), erf, and i64 -> float.

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer); // little-endian: u32[0] is the low word

/** The double one ulp from `s` toward `dir` (s finite, dir != 0). */
function nudge(s: number, dir: number): number {
  f64[0] = s;
  // Moving away from zero increments the magnitude bits; toward zero decrements them.
  const up = (s > 0 || (s === 0 && dir > 0)) === dir > 0;
  if (s === 0) return dir > 0 ? Number.MIN_VALUE : -Number.MIN_VALUE;
  let lo = u32[0]!;
  let hi = u32[1]!;
  if (up) {
    lo = (lo + 1) >>> 0;
    if (lo === 0) hi = (hi + 1) >>> 0;
  } else {
    if (lo === 0) hi = (hi - 1) >>> 0;
    lo = (lo - 1) >>> 0;
  }
  u32[0] = lo;
  u32[1] = hi;
  return f64[0]!;
}

/**
 * p + c rounded to odd in double precision, where p and c are doubles. Rounding the result once
 * more to a format with at most 51 significand bits (f32, f16, bf16) gives the correctly rounded
 * p + c: round-to-odd followed by round-to-nearest is exact when the first precision exceeds the
 * second by two bits or more.
 */
export function addRoundToOdd(p: number, c: number): number {
  const s = p + c;
  if (!Number.isFinite(s)) return s;
  // TwoSum: the exact rounding error of s.
  const bb = s - p;
  const err = (p - (s - bb)) + (c - bb);
  if (err === 0) return s;
  f64[0] = s;
  if ((u32[0]! & 1) === 1) return s; // already odd
  return nudge(s, err);
}

/** a*b + c rounded once to f32 (a, b, c are f32, f16 or bf16 values: a*b is exact in double). */
export const fmaF32 = (a: number, b: number, c: number): number => Math.fround(addRoundToOdd(a * b, c));

/** a*b + c rounded once to f64, computed exactly with BigInt. */
export function fmaF64(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c)) return a * b + c;
  if (a === 0 || b === 0) return a * b + c; // exact product (signed zero handled by IEEE rules)
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  let m = ma * mb;
  let e = ea + eb;
  if (c !== 0) {
    const [mc, ec] = decompose(c);
    if (ec >= e) m += mc << BigInt(ec - e);
    else {
      m = (m << BigInt(e - ec)) + mc;
      e = ec;
    }
  }
  if (m === 0n) return a * b + c; // exact cancellation: sign follows IEEE (a*b + c with both exact)
  return bigToDouble(m, e);
}

/** x = m * 2^e exactly, m an integer BigInt. */
function decompose(x: number): [bigint, number] {
  f64[0] = x;
  const hi = u32[1]!;
  const lo = u32[0]!;
  const expField = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (expField === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expField - 1075;
  }
  return [x < 0 ? -mant : mant, e];
}

/** m * 2^e rounded to the nearest double (ties to even). */
export function bigToDouble(m: bigint, e: number): number {
  const neg = m < 0n;
  let a = neg ? -m : m;
  const len = a.toString(2).length;
  let shift = 0;
  if (len > 55) {
    // Round to odd at 55 bits; Number() then rounds correctly to 53.
    shift = len - 55;
    const mask = (1n << BigInt(shift)) - 1n;
    const sticky = (a & mask) !== 0n;
    a >>= BigInt(shift);
    if (sticky) a |= 1n;
  }
  // Scaling by a power of two is exact except at underflow; split it to avoid 2**e under/overflow.
  const total = e + shift;
  const half = Math.trunc(total / 2);
  const r = Number(a) * 2 ** half * 2 ** (total - half);
  return neg ? -r : r;
}

/** An i64 (or any BigInt) as a double rounded to odd, so a further rounding to f32/f16 is exact. */
export function bigToDoubleOdd(v: bigint): number {
  const neg = v < 0n;
  let a = neg ? -v : v;
  if (a < 1n << 53n) return Number(v);
  const shift = a.toString(2).length - 53;
  const sticky = (a & ((1n << BigInt(shift)) - 1n)) !== 0n;
  a >>= BigInt(shift);
  if (sticky) a |= 1n;
  const r = Number(a) * 2 ** shift;
  return neg ? -r : r;
}

/**
 * erfc(x) = 1 - erf(x) to double accuracy where it is small: 1 - erf below 0.875 (erfc >= 0.21
 * there); beyond, exp(-a^2)/sqrt(pi)/K(a) with K erf's continued fraction and a^2 split exactly
 * into hi + lo (exp(-hi)(1 - lo)), so large a loses nothing to the rounding of a^2.
 */
export function erfc(x: number): number {
  if (x !== x) return NaN;
  const a = Math.abs(x);
  if (a < 0.875) return 1 - erf(x);
  let f = a;
  for (let k = a < 2 ? 400 : 60; k >= 1; k--) f = a + k / 2 / f;
  const hi = a * a, lo = fmaF64(a, a, -hi);
  const e = Math.exp(-hi);
  const r = a > 27.3 ? 0 : (e - e * lo) / Math.sqrt(Math.PI) / f;
  return x < 0 ? 2 - r : r;
}

/**
 * erf(x) to double accuracy (within 1 ulp of a correctly rounded erf, measured against libm over
 * [0, 6]): the alternating Taylor series, summed smallest term first, for |x| < 0.875; beyond,
 * 1 - erfc with erfc from its continued fraction (400 levels below 2, where it converges slowly;
 * 60 above). (The earlier positive series times exp(-x^2) was up to 14 ulp off from 1 on.)
 */
export function erf(x: number): number {
  if (x !== x) return NaN;
  const a = Math.abs(x);
  if (a === 0) return x; // erf(±0) = ±0
  if (a < 0.875) {
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    const x2 = a * a;
    const terms: number[] = [];
    let p = a;
    for (let n = 0; n < 40 && p !== 0; n++) {
      terms.push(p / (2 * n + 1));
      p *= -x2 / (n + 1);
      if (Math.abs(p) < 1e-40) break;
    }
    let sum = 0;
    for (let i = terms.length - 1; i >= 0; i--) sum += terms[i]!;
    const r = (2 / Math.sqrt(Math.PI)) * sum;
    return x < 0 ? -r : r;
  }
  if (a > 6) return x < 0 ? -1 : 1;
  // erfc(a) = exp(-a^2)/sqrt(pi) * 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + 2/(a + ...))))), evaluated backward.
  let f = a;
  for (let k = a < 2 ? 400 : 60; k >= 1; k--) f = a + k / 2 / f;
  const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
  const r = 1 - erfc;
  return x < 0 ? -r : r;
}
