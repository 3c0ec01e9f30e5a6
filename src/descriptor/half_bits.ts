// IEEE half (f16) and bfloat16 bit patterns of a number, rounded to nearest even, for 16-bit
// float scalars in kernel-call descriptors (kept here: the descriptor layer sits below runtime).
import { roundBF16, roundF16 } from '../ir/numeric.js';

function encode(r: number, mant: number, minExp: number, expMax: number, nan: number): number {
  if (Number.isNaN(r)) return nan;
  const sign = r < 0 || Object.is(r, -0) ? 1 << 15 : 0;
  const a = Math.abs(r);
  if (a === Infinity) return sign | (expMax << mant);
  if (a === 0) return sign;
  if (a < 2 ** minExp) return sign | Math.round(a / 2 ** (minExp - mant)); // subnormal: exact
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  const m = Math.round((a / 2 ** e - 1) * 2 ** mant);
  return sign | ((e - minExp + 1) << mant) | m;
}

export const f16BitsOf = (x: number): number => encode(roundF16(x), 10, -14, 31, 0x7e00);
export const bf16BitsOf = (x: number): number => encode(roundBF16(x), 7, -126, 255, 0x7fc0);
