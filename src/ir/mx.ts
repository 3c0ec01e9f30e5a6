// OCP Microscaling (MX v1.0) element and scale formats, as bit patterns on the host: the elements of
// `dotScaled` (src/lang/dot_scaled.ts) live in u8 tiles (fp8 tiles for e4m3/e5m2), as in Triton.
//
//   e2m1 (fp4): sign, 2 exponent bits (bias 1), 1 fraction bit: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
//               Packed two per byte: element 2i in the LOW nibble, 2i+1 in the high nibble
//               (Triton's uint8 packing, "first element in lower bits").
//   e2m3 (fp6): sign, 2 exponent bits (bias 1), 3 fraction bits; largest 7.5, smallest 0.125.
//   e3m2 (fp6): sign, 3 exponent bits (bias 3), 2 fraction bits; largest 28, smallest 0.0625.
//               fp6 values are stored one per byte in the low 6 bits (the high 2 bits are ignored).
//   e8m0 (scale): 8 exponent bits, no sign, no fraction: 2^(e-127) for e in 0..254 (e = 0 is
//               2^-127, an f32 subnormal), 0xFF NaN. No zero, no sign.
//   ue4m3 (nvfp4 scale): an e4m3 code whose sign bit is ignored (0x7f NaN).
// None of the element formats has inf or NaN. Conversions to them round to nearest, ties to even,
// and saturate (PTX cvt.rn.satfinite.e2m1x2/e2m3x2/e3m2x2.f32): a magnitude past the largest finite
// value (±inf too) gives ±max; NaN gives +max (all ones below the sign), as the PTX ISA says.
import { f8e4m3Value } from './fp8.js';

export type MxElemFormat = 'e2m1' | 'e2m3' | 'e3m2';

interface MiniFloat {
  readonly ebits: number;
  readonly mbits: number;
  readonly bias: number;
}

export const MX_FORMATS: Readonly<Record<MxElemFormat, MiniFloat>> = {
  e2m1: { ebits: 2, mbits: 1, bias: 1 },
  e2m3: { ebits: 2, mbits: 3, bias: 1 },
  e3m2: { ebits: 3, mbits: 2, bias: 3 },
};

/** The value of a code of `fmt` (bits above the format's width are ignored). */
export function mxValue(fmt: MxElemFormat, code: number): number {
  const f = MX_FORMATS[fmt];
  const w = f.ebits + f.mbits;
  const c = code & ((1 << (w + 1)) - 1);
  const s = c >> w ? -1 : 1;
  const e = (c >> f.mbits) & ((1 << f.ebits) - 1);
  const m = c & ((1 << f.mbits) - 1);
  if (e === 0) return s * m * 2 ** (1 - f.bias - f.mbits);
  return s * (2 ** f.mbits + m) * 2 ** (e - f.bias - f.mbits);
}

/** Largest finite magnitude of `fmt`. */
export const mxMax = (fmt: MxElemFormat): number => mxValue(fmt, (1 << (MX_FORMATS[fmt].ebits + MX_FORMATS[fmt].mbits)) - 1);

/** The code of `x` in `fmt`: nearest, ties to even, saturating; NaN gives +max. */
export function mxBits(fmt: MxElemFormat, x: number): number {
  const f = MX_FORMATS[fmt];
  const w = f.ebits + f.mbits;
  const maxCode = (1 << w) - 1;
  if (x !== x) return maxCode;
  const sign = x < 0 || Object.is(x, -0) ? 1 << w : 0;
  const a = Math.abs(x);
  if (a >= mxValue(fmt, maxCode)) return sign | maxCode; // satfinite (±inf too)
  // every code's value is increasing in the code: find the nearest, ties to the even code
  let best = 0;
  for (let c = 1; c <= maxCode; c++) {
    const dc = Math.abs(mxValue(fmt, c) - a), db = Math.abs(mxValue(fmt, best) - a);
    if (dc < db || (dc === db && c % 2 === 0)) best = c;
  }
  return sign | best;
}

/** Packs e2m1 codes two per byte: element 2i in the low nibble, 2i+1 in the high one (odd length: high nibble 0). */
export function packE2M1(codes: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(Math.ceil(codes.length / 2));
  for (let i = 0; i < codes.length; i++) out[i >> 1]! |= (codes[i]! & 0xf) << (4 * (i & 1));
  return out;
}

/** Unpacks `n` e2m1 codes from bytes packed by `packE2M1`. */
export function unpackE2M1(bytes: ArrayLike<number>, n = bytes.length * 2): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (bytes[i >> 1]! >> (4 * (i & 1))) & 0xf;
  return out;
}

/** The value of an e8m0 scale code: 2^(e-127), 0xFF NaN. */
export const e8m0Value = (code: number): number => ((code & 0xff) === 0xff ? NaN : 2 ** ((code & 0xff) - 127));

/**
 * The e8m0 code of a float (PTX cvt.{rz,rp}.satfinite.ue8m0x2.f32). 'rz' (the default, Triton's
 * triton.tools.mxfp: floor(log2 x)) rounds a positive x down to a power of two, 'rp' up; the
 * result is clamped to 2^-127..2^127 (+inf gives 2^127, satfinite). NaN, zero and negative inputs
 * (which the ISA leaves undefined) give 0xFF (NaN), as Triton's tools do.
 */
export function e8m0Bits(x: number, rounding: 'rz' | 'rp' = 'rz'): number {
  if (!(x > 0)) return 0xff;
  if (x === Infinity) return 0xfe;
  let e = Math.floor(Math.log2(x));
  if (2 ** e > x) e--;
  else if (2 ** (e + 1) <= x) e++;
  if (rounding === 'rp' && 2 ** e !== x) e++;
  return Math.min(254, Math.max(0, e + 127));
}

/** The value of a ue4m3 scale code (nvfp4): e4m3 with the sign bit ignored. */
export const ue4m3Value = (code: number): number => f8e4m3Value(code & 0x7f);

// The MX storage dtypes (src/ir/types.ts isMxDType): lanes are their codes, one per byte.
//   f8e8m0: a cast rounds as e8m0Bits(x, 'rz') (the OCP MX scale rule floor(log2 x), PTX
//           cvt.rz.satfinite.ue8m0x2.f32): NaN, zero and negatives give 0xFF, +inf 0xFE.
//   f4e2m1: nearest even, saturating to ±6; NaN gives +6 (0x7), the sign of zero kept (mxBits).

/** The f8e8m0 code of `x` (rounded toward zero in the exponent: 2^floor(log2 x)). */
export const f8e8m0Bits = (x: number): number => e8m0Bits(x, 'rz');
/** The value of an f8e8m0 code: 2^(code-127), 0xFF NaN. */
export const f8e8m0Value = (code: number): number => e8m0Value(code);
/** The f4e2m1 code of `x` (low nibble of the byte). */
export const f4e2m1Bits = (x: number): number => mxBits('e2m1', x);
/** The value of an f4e2m1 code (the high nibble of the byte is ignored). */
export const f4e2m1Value = (code: number): number => mxValue('e2m1', code & 0xf);

/** Converts numbers into f8e8m0 codes. */
export function f8e8m0Array(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f8e8m0Bits(values[i]!);
  return out;
}
/** Converts numbers into f4e2m1 codes, one per byte. */
export function f4e2m1Array(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f4e2m1Bits(values[i]!);
  return out;
}
