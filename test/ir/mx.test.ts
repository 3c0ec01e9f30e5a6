// The OCP MX format helpers (src/ir/mx.ts): every code's value, conversions to the formats
// (nearest even, satfinite, NaN -> +max, as PTX cvt.rn.satfinite.{e2m1,e2m3,e3m2}x2), e8m0 scales
// (rz by default, rp), e2m1 packing (element 0 in the low nibble).
import { describe, expect, it } from 'vitest';
import { e8m0Bits, e8m0Value, mxBits, mxMax, mxValue, packE2M1, ue4m3Value, unpackE2M1 } from '../../src/ir/mx.js';

describe('MX element formats', () => {
  it('decodes every code as the OCP MX v1.0 tables give it', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((c) => mxValue('e2m1', c))).toEqual([0, 0.5, 1, 1.5, 2, 3, 4, 6]);
    expect(mxValue('e2m1', 0xf)).toBe(-6);
    expect(Object.is(mxValue('e2m1', 0x8), -0)).toBe(true);
    expect(mxValue('e2m3', 1)).toBe(0.125); // subnormal 1/8
    expect(mxValue('e2m3', 0x08)).toBe(1); // e = 1, m = 0
    expect(mxMax('e2m3')).toBe(7.5);
    expect(mxValue('e3m2', 1)).toBe(0.0625);
    expect(mxValue('e3m2', 0x04)).toBe(0.25); // smallest normal 2^(1-3)
    expect(mxMax('e3m2')).toBe(28);
    expect(mxValue('e2m3', 0xc0 | 0x21)).toBe(mxValue('e2m3', 0x21)); // bits above the format ignored
  });

  it('rounds to nearest even and saturates; NaN gives +max; the sign of zero is kept', () => {
    expect(mxBits('e2m1', 0.25)).toBe(0); // tie between 0 and 0.5: even (0)
    expect(mxBits('e2m1', 0.75)).toBe(2); // tie between 0.5 (1) and 1 (2): even
    expect(mxBits('e2m1', 2.5)).toBe(4); // tie between 2 and 3: even code 4 (= 2)
    expect(mxBits('e2m1', 5)).toBe(6); // tie between 4 (6) and 6 (7): even
    expect(mxBits('e2m1', 5.01)).toBe(7);
    expect(mxBits('e2m1', 1e9)).toBe(7);
    expect(mxBits('e2m1', -Infinity)).toBe(0xf);
    expect(mxBits('e2m1', NaN)).toBe(7);
    expect(mxBits('e2m1', -0)).toBe(8);
    expect(mxBits('e2m1', -1e-9)).toBe(8);
    expect(mxBits('e3m2', 30)).toBe(0x1f);
    for (const f of ['e2m1', 'e2m3', 'e3m2'] as const) {
      const n = f === 'e2m1' ? 16 : 64;
      for (let c = 0; c < n; c++) if (c !== n / 2) expect(mxBits(f, mxValue(f, c)), `${f} ${c}`).toBe(c);
    }
  });

  it('packs e2m1 two per byte, element 0 in the low nibble (Triton)', () => {
    expect(Array.from(packE2M1([1, 2, 3]))).toEqual([0x21, 0x03]);
    expect(Array.from(unpackE2M1([0x21, 0x03]))).toEqual([1, 2, 3, 0]);
  });
});

describe('scales', () => {
  it('e8m0: 2^(e-127), 0 is 2^-127, 0xFF NaN', () => {
    expect(e8m0Value(127)).toBe(1);
    expect(e8m0Value(0)).toBe(2 ** -127);
    expect(e8m0Value(254)).toBe(2 ** 127);
    expect(e8m0Value(0xff)).toBeNaN();
  });

  it('e8m0 from floats: rz (default, Triton\'s floor(log2 x)) or rp, clamped; NaN/zero/negative give 0xFF, +inf 2^127', () => {
    expect(e8m0Bits(1)).toBe(127);
    expect(e8m0Bits(1.9)).toBe(127);
    expect(e8m0Bits(1.9, 'rp')).toBe(128);
    expect(e8m0Bits(2, 'rp')).toBe(128);
    expect(e8m0Bits(2 ** -130)).toBe(0);
    expect(e8m0Bits(2 ** -130, 'rp')).toBe(0);
    expect(e8m0Bits(2 ** 200)).toBe(254);
    expect(e8m0Bits(Infinity)).toBe(254);
    for (const x of [NaN, 0, -1, -Infinity]) expect(e8m0Bits(x)).toBe(0xff);
  });

  it('ue4m3 (nvfp4): e4m3 with the sign bit ignored', () => {
    expect(ue4m3Value(0x38)).toBe(1);
    expect(ue4m3Value(0xb8)).toBe(1);
    expect(ue4m3Value(0x7f)).toBeNaN();
  });
});
