// fp8 conversions (OCP FP8, as PTX's .e4m3 and .e5m2). fp8 values live in memory and in the
// interpreter as their 8-bit patterns (Uint8Array); there is no fp8 arithmetic, only conversions.
//
//   f8e4m3: 1 sign, 4 exponent (bias 7), 3 fraction bits. No infinities; S.1111.111 is NaN, so the
//           largest finite value is S.1111.110 = 1.75 * 2^8 = 448. Smallest subnormal 2^-9.
//   f8e5m2: 1 sign, 5 exponent (bias 15), 2 fraction bits, IEEE-like: S.11111.00 is ±inf,
//           S.11111.{01,10,11} NaN; largest finite 1.75 * 2^15 = 57344. Smallest subnormal 2^-16.
//
// Conversions *to* fp8 follow PTX `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`: one rounding of the exact
// value to nearest, ties to even; a result beyond the largest finite value (±inf included)
// saturates to ±max; NaN gives NaN (here always the positive pattern 0x7f for e4m3 and 0x7e for
// e5m2, what CUDA's reference conversion gives for the canonical NaN); the sign of zero is kept.
// Conversions *from* fp8 are exact (every fp8 value is an f16, bf16 and f32 value).

export type Fp8DType = 'f8e4m3' | 'f8e5m2';

interface Fp8Format {
  /** fraction bits */
  readonly mant: number;
  /** exponent bias */
  readonly bias: number;
  /** exponent of the smallest normal value */
  readonly emin: number;
  /** largest finite value and its (positive) code */
  readonly max: number;
  readonly maxCode: number;
  /** the NaN a conversion produces */
  readonly nanCode: number;
}

export const FP8_FORMATS: Readonly<Record<Fp8DType, Fp8Format>> = {
  f8e4m3: { mant: 3, bias: 7, emin: -6, max: 448, maxCode: 0x7e, nanCode: 0x7f },
  f8e5m2: { mant: 2, bias: 15, emin: -14, max: 57344, maxCode: 0x7b, nanCode: 0x7e },
};

/** Rounds a non-negative double to an integer, ties to even. */
function roundHalfEven(q: number): number {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Exponent e with 2^e <= a < 2^(e+1), for finite a > 0. */
function exponentOf(a: number): number {
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return e;
}

function encode(x: number, f: Fp8Format): number {
  if (x !== x) return f.nanCode;
  const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
  const a = Math.abs(x);
  if (a >= f.max) return sign | f.maxCode; // satfinite: ±inf and every overflow give ±max
  if (a < 2 ** f.emin) {
    // Subnormal range, in units of 2^(emin - mant); rounding up to 2^mant gives the smallest
    // normal, whose code is exactly that integer.
    return sign | roundHalfEven(a * 2 ** (f.mant - f.emin));
  }
  let e = exponentOf(a);
  let r = roundHalfEven(a * 2 ** (f.mant - e));
  if (r === 2 ** (f.mant + 1)) {
    r = 2 ** f.mant;
    e++;
  }
  // a < max, so the rounded value is at most max: never the NaN/inf codes.
  return sign | ((e + f.bias) << f.mant) | (r - 2 ** f.mant);
}

function decodeTable(d: Fp8DType): Float32Array {
  const f = FP8_FORMATS[d];
  const t = new Float32Array(256);
  const expMask = (1 << (7 - f.mant)) - 1;
  const mMask = (1 << f.mant) - 1;
  for (let b = 0; b < 256; b++) {
    const s = b & 0x80 ? -1 : 1;
    const e = (b >> f.mant) & expMask;
    const m = b & mMask;
    if (d === 'f8e4m3' && (b & 0x7f) === 0x7f) t[b] = NaN;
    else if (d === 'f8e5m2' && e === expMask) t[b] = m ? NaN : s * Infinity;
    else if (e === 0) t[b] = s * m * 2 ** (f.emin - f.mant);
    else t[b] = s * (2 ** f.mant + m) * 2 ** (e - f.bias - f.mant);
  }
  return t;
}
const E4M3_TABLE = decodeTable('f8e4m3');
const E5M2_TABLE = decodeTable('f8e5m2');

/** f8e4m3 bit pattern of `x`: nearest even, saturating to ±448; NaN gives 0x7f. */
export const f8e4m3Bits = (x: number): number => encode(x, FP8_FORMATS.f8e4m3);
/** f8e5m2 bit pattern of `x`: nearest even, saturating to ±57344 (±inf too); NaN gives 0x7e. */
export const f8e5m2Bits = (x: number): number => encode(x, FP8_FORMATS.f8e5m2);

/** The value of an f8e4m3 bit pattern (exact; 0x7f/0xff are NaN). */
export const f8e4m3Value = (bits: number): number => E4M3_TABLE[bits & 0xff]!;
/** The value of an f8e5m2 bit pattern (exact; 0x7c/0xfc are ±inf). */
export const f8e5m2Value = (bits: number): number => E5M2_TABLE[bits & 0xff]!;

/** Rounds `x` to the nearest f8e4m3 value (saturating), as a number. */
export const toF8E4M3 = (x: number): number => f8e4m3Value(f8e4m3Bits(x));
/** Rounds `x` to the nearest f8e5m2 value (saturating), as a number. */
export const toF8E5M2 = (x: number): number => f8e5m2Value(f8e5m2Bits(x));

/** Bit pattern of `x` in the fp8 dtype `d`. */
export const fp8Bits = (d: Fp8DType, x: number): number => (d === 'f8e4m3' ? f8e4m3Bits(x) : f8e5m2Bits(x));
/** The value of a bit pattern of the fp8 dtype `d`. */
export const fp8Value = (d: Fp8DType, bits: number): number => (d === 'f8e4m3' ? f8e4m3Value(bits) : f8e5m2Value(bits));

/** Converts an array of numbers into f8e4m3 bit patterns. */
export function f8e4m3Array(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f8e4m3Bits(values[i]!);
  return out;
}

/** Converts an array of numbers into f8e5m2 bit patterns. */
export function f8e5m2Array(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f8e5m2Bits(values[i]!);
  return out;
}

/** Decodes f8e4m3 bit patterns into a Float32Array (exact). */
export function f8e4m3ToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f8e4m3Value(bits[i]!);
  return out;
}

/** Decodes f8e5m2 bit patterns into a Float32Array (exact). */
export function f8e5m2ToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f8e5m2Value(bits[i]!);
  return out;
}
