import { describe, expect, it } from 'vitest';
import { bf16Bits, bf16Value, f16Bits, f16Value, toF16 } from '../../src/ir/half.js';

/** Reference: the nearest pattern by brute force over all finite values, ties to even mantissa. */
/** `overflow`: the largest finite value plus half an ulp (at or above it, the result is infinite). */
function nearest(x: number, value: (b: number) => number, overflow: number, infBits: number): number {
  if (Math.abs(x) >= overflow) return x < 0 ? 0x8000 | infBits : infBits;
  let best = -1;
  let bestErr = Infinity;
  for (let b = 0; b < 65536; b++) {
    const v = value(b);
    if (!Number.isFinite(v)) continue;
    if ((x < 0 || Object.is(x, -0)) !== ((b & 0x8000) !== 0)) continue;
    const err = Math.abs(v - x);
    if (err < bestErr || (err === bestErr && (b & 1) === 0)) {
      best = b;
      bestErr = err;
    }
  }
  return best;
}

describe('f16 / bf16 conversions', () => {
  it('known f16 patterns', () => {
    expect(f16Bits(1)).toBe(0x3c00);
    expect(f16Bits(-2)).toBe(0xc000);
    expect(f16Bits(65504)).toBe(0x7bff);
    expect(f16Bits(65519)).toBe(0x7bff);
    expect(f16Bits(65520)).toBe(0x7c00); // ties to even: overflow
    expect(f16Bits(2 ** -24)).toBe(0x0001);
    expect(f16Bits(2 ** -25)).toBe(0x0000); // tie between 0 and the smallest subnormal: even
    expect(f16Bits(1.5 * 2 ** -25)).toBe(0x0001);
    expect(f16Bits(NaN)).toBe(0x7e00);
    expect(f16Bits(-0)).toBe(0x8000);
    expect(f16Value(0x3555)).toBeCloseTo(1 / 3, 3);
    expect(toF16(1 + 2 ** -11)).toBe(1); // tie: even
    expect(toF16(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
  });
  it('known bf16 patterns', () => {
    expect(bf16Bits(1)).toBe(0x3f80);
    expect(bf16Bits(NaN)).toBe(0x7fc0);
    expect(bf16Value(0x4049)).toBe(3.140625);
    expect(bf16Bits(3.4e38)).toBe(0x7f80); // above the largest finite bf16 + half ulp
  });
  it('random doubles round to the nearest pattern (brute-force reference)', () => {
    let s = 99;
    const r = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 80; i++) {
      const x = (r() - 0.5) * 2 ** Math.floor(r() * 50 - 30);
      expect(f16Bits(x)).toBe(nearest(x, f16Value, 65504 + 16, 0x7c00));
      expect(bf16Bits(x)).toBe(nearest(x, bf16Value, (2 - 2 ** -7) * 2 ** 127 + 2 ** 119, 0x7f80));
    }
  });
});
