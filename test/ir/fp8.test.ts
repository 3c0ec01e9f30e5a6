// fp8 conversions (src/ir/fp8.ts) against a reference built from the format definitions
// (test/ir/fp8_ref.ts) and against hand-written bit patterns.
import { describe, expect, it } from 'vitest';
import {
  f8e4m3Array, f8e4m3Bits, f8e4m3ToFloat32, f8e4m3Value, f8e5m2Array, f8e5m2Bits, f8e5m2ToFloat32, f8e5m2Value,
  toF8E4M3, toF8E5M2, bitWidth, byteSize, BYTES, arrayCtorFor, DTYPES, isFloat, isFp8,
} from '../../src/ir/index.js';
import { f32Sweep, refDecode, refEncode, type Fp8 } from './fp8_ref.js';

const BITS: Record<Fp8, (x: number) => number> = { f8e4m3: f8e4m3Bits, f8e5m2: f8e5m2Bits };
const VALUE: Record<Fp8, (b: number) => number> = { f8e4m3: f8e4m3Value, f8e5m2: f8e5m2Value };
const same = (a: number, b: number): boolean => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

describe('fp8 dtypes', () => {
  it('are 8-bit floats stored in Uint8Array', () => {
    for (const d of ['f8e4m3', 'f8e5m2'] as const) {
      expect(DTYPES).toContain(d);
      expect([bitWidth(d), byteSize(d), BYTES[d], isFloat(d), isFp8(d)]).toEqual([8, 1, 1, true, true]);
      expect(arrayCtorFor(d)).toBe(Uint8Array);
    }
    expect(isFp8('f16')).toBe(false);
  });
});

describe.each(['f8e4m3', 'f8e5m2'] as const)('%s', (d) => {
  it('decodes all 256 codes exactly as the format defines them', () => {
    for (let b = 0; b < 256; b++) {
      const want = refDecode(d, b);
      if (!same(VALUE[d](b), want)) expect.fail(`code 0x${b.toString(16)}: got ${VALUE[d](b)}, want ${want}`);
    }
  });

  it('encodes every non-NaN value back to its own code', () => {
    for (let b = 0; b < 256; b++) {
      const v = VALUE[d](b);
      if (Number.isNaN(v)) continue;
      const want = d === 'f8e5m2' && !Number.isFinite(v) ? (b & 0x80) | 0x7b : b; // ±inf saturates
      expect(BITS[d](v), `code 0x${b.toString(16)} (${v})`).toBe(want);
    }
  });

  it('rounds a sweep of f32 values like the brute-force nearest-even reference', () => {
    const xs = f32Sweep(d);
    expect(xs.length).toBeGreaterThan(3000);
    let bad = 0;
    for (const x of xs) {
      const got = BITS[d](x), want = refEncode(d, x);
      if (got !== want && bad++ < 5) expect.soft(got, `${d}(${x})`).toBe(want);
    }
    expect(bad).toBe(0);
  });

  it('host helpers round-trip through Uint8Array', () => {
    const vals = [0, -0, 1, -1.5, 0.25, 3, -7];
    const arr = d === 'f8e4m3' ? f8e4m3Array(vals) : f8e5m2Array(vals);
    expect(arr).toBeInstanceOf(Uint8Array);
    const back = d === 'f8e4m3' ? f8e4m3ToFloat32(arr) : f8e5m2ToFloat32(arr);
    expect(Array.from(back)).toEqual(vals);
    expect(Object.is(back[1], -0)).toBe(true);
    expect((d === 'f8e4m3' ? toF8E4M3 : toF8E5M2)(1.1)).toBe(d === 'f8e4m3' ? 1.125 : 1);
  });
});

// Hand-written expectations, [input, code], from the definitions: E4M3 bias 7, 3 fraction bits,
// max 448 = 0x7e, NaN 0x7f; E5M2 bias 15, 2 fraction bits, max 57344 = 0x7b, inf 0x7c.
const E4M3_CASES: [number, number][] = [
  [0, 0x00], [-0, 0x80], [1, 0x38], [-2, 0xc0], [2 ** -6, 0x08], [2 ** -9, 0x01], [7 * 2 ** -9, 0x07],
  [448, 0x7e], [-448, 0xfe], [256, 0x78], [240, 0x77],
  [1 + 1 / 16, 0x38], // tie between 1 (0x38) and 1.125 (0x39): even
  [1 + 3 / 16, 0x3a], // tie between 1.125 (0x39) and 1.25 (0x3a): even
  [232, 0x76], // tie between 224 (0x76) and 240 (0x77)
  [2 ** -10, 0x00], [-(2 ** -10), 0x80], // half the smallest subnormal: to even (zero), sign kept
  [2 ** -10 * 1.0001, 0x01], [3 * 2 ** -10, 0x02], [5 * 2 ** -10, 0x02], // subnormal ties to even
  [7.5 * 2 ** -9, 0x08], // tie between the largest subnormal (0x07) and the smallest normal (0x08)
  [464, 0x7e], [479, 0x7e], [480, 0x7e], [1e6, 0x7e], [Infinity, 0x7e], [-Infinity, 0xfe], [-1e30, 0xfe], // satfinite
  [1e-30, 0x00], [-1e-45, 0x80],
  [NaN, 0x7f],
];
const E5M2_CASES: [number, number][] = [
  [0, 0x00], [-0, 0x80], [1, 0x3c], [-1, 0xbc], [2 ** -14, 0x04], [2 ** -16, 0x01], [3 * 2 ** -16, 0x03],
  [57344, 0x7b], [-57344, 0xfb], [49152, 0x7a],
  [1.125, 0x3c], [1.375, 0x3e], // ties to even
  [2 ** -17, 0x00], [-(2 ** -17), 0x80], [3 * 2 ** -17, 0x02], [3.5 * 2 ** -16, 0x04],
  [61440, 0x7b], [65536, 0x7b], [Infinity, 0x7b], [-Infinity, 0xfb], [3.4e38, 0x7b], // satfinite
  [NaN, 0x7e],
];

describe('fp8 encoding edge cases (bit patterns)', () => {
  it.each([['f8e4m3', E4M3_CASES], ['f8e5m2', E5M2_CASES]] as const)('%s', (d, cases) => {
    for (const [x, code] of cases) expect(BITS[d](x), `${d}(${x})`).toBe(code);
  });
  it('decodes the specials', () => {
    expect(Number.isNaN(f8e4m3Value(0x7f)) && Number.isNaN(f8e4m3Value(0xff))).toBe(true);
    expect(f8e4m3Value(0x7e)).toBe(448);
    expect(f8e5m2Value(0x7c)).toBe(Infinity);
    expect(f8e5m2Value(0xfc)).toBe(-Infinity);
    for (const b of [0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff]) expect(Number.isNaN(f8e5m2Value(b))).toBe(true);
    expect(f8e4m3Value(0x01)).toBe(2 ** -9);
    expect(f8e5m2Value(0x01)).toBe(2 ** -16);
  });
});
