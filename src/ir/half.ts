// f16 and bf16 conversions. Half-precision values live in memory and in the interpreter as their
// 16-bit patterns (Uint16Array); arithmetic happens on JS numbers. Conversions *to* half round to
// nearest, ties to even, directly from the double (one rounding, as PTX cvt.rn.f16.f64 does).

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

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

/** Encodes a double into a binary format with `mant` fraction bits and exponent range [emin, emax]. */
function encode(x: number, mant: number, emin: number, emax: number, qnan: number): number {
  const expBits = emax * 2 + 1; // all-ones exponent field
  if (x !== x) return qnan;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0; // both formats are 16 bits wide
  const a = Math.abs(x);
  const inf = sign | (expBits << mant);
  if (a === Infinity) return inf;
  if (a === 0) return sign;
  if (a < 2 ** emin) {
    // Subnormal range: units of 2^(emin - mant). Rounding up to 2^mant gives the smallest normal,
    // whose encoding is exactly that integer.
    return sign | roundHalfEven(a * 2 ** (mant - emin));
  }
  let e = exponentOf(a);
  let r = roundHalfEven(a * 2 ** (mant - e));
  if (r === 2 ** (mant + 1)) {
    r = 2 ** mant;
    e++;
  }
  if (e > emax) return inf;
  return sign | ((e + emax) << mant) | (r - 2 ** mant);
}

/** f16 bit pattern of `x`, rounded to nearest even. NaN becomes 0x7e00. */
export const f16Bits = (x: number): number => encode(x, 10, -14, 15, 0x7e00);

/** bf16 bit pattern of `x`, rounded to nearest even. NaN becomes 0x7fc0. */
export const bf16Bits = (x: number): number => encode(x, 7, -126, 127, 0x7fc0);

const F16_TABLE = (() => {
  const t = new Float32Array(65536);
  for (let b = 0; b < 65536; b++) {
    const s = b & 0x8000 ? -1 : 1;
    const e = (b >> 10) & 0x1f;
    const m = b & 0x3ff;
    if (e === 0) t[b] = s * m * 2 ** -24;
    else if (e === 31) t[b] = m ? NaN : s * Infinity;
    else t[b] = s * (1024 + m) * 2 ** (e - 25);
  }
  return t;
})();

/** The value of an f16 bit pattern. */
export const f16Value = (bits: number): number => F16_TABLE[bits & 0xffff]!;

/** The value of a bf16 bit pattern (the top half of an f32). */
export function bf16Value(bits: number): number {
  scratchU32[0] = (bits & 0xffff) << 16;
  return scratchF32[0]!;
}

/** Rounds `x` to the nearest f16 value (as a number). */
export const toF16 = (x: number): number => f16Value(f16Bits(x));
/** Rounds `x` to the nearest bf16 value (as a number). */
export const toBF16 = (x: number): number => bf16Value(bf16Bits(x));

/** Converts an array of numbers into f16 bit patterns. */
export function f16Array(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f16Bits(values[i]!);
  return out;
}

/** Converts an array of numbers into bf16 bit patterns. */
export function bf16Array(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = bf16Bits(values[i]!);
  return out;
}

/** Decodes f16 bit patterns into a Float32Array (exact). */
export function f16ToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f16Value(bits[i]!);
  return out;
}

/** Decodes bf16 bit patterns into a Float32Array (exact). */
export function bf16ToFloat32(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = bf16Value(bits[i]!);
  return out;
}
