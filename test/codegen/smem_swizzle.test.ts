import { describe, expect, it } from 'vitest';
import { swizzleFor, swizzledOffset, type SwizzleBytes } from '../../src/codegen/smem/smem_swizzle.js';

// The hardware's swizzle as the PTX ISA tabulates it: within a repeat of 8 rows, 16-byte chunk j
// of row r of a 128B-swizzled box lands at chunk j ^ (r % 8); 64B: j ^ ((r / 2) % 4) over
// 4-chunk rows; 32B: j ^ ((r / 4) % 2) over 2-chunk rows.
function reference(r: number, cByte: number, rows: number, s: Exclude<SwizzleBytes, 0>): number {
  const chunks = s / 16;
  const perRepeat = 128 / s; // rows sharing one 128-byte line of the pattern
  const j = Math.floor((cByte % s) / 16);
  const phys = j ^ (Math.floor(r / perRepeat) % chunks);
  return Math.floor(cByte / s) * rows * s + r * s + phys * 16 + (cByte % 16);
}

describe('swizzled shared-memory tile', () => {
  it('picks the widest swizzle dividing a row', () => {
    expect([16, 32, 64, 96, 128, 256, 48].map(swizzleFor)).toEqual([0, 32, 64, 32, 128, 128, 0]);
  });
  for (const s of [32, 64, 128] as const) {
    it(`matches the ISA pattern and is a permutation (${s}B)`, () => {
      const rows = 16, rowBytes = 2 * s;
      const seen = new Set<number>();
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < rowBytes; c++) {
          const o = swizzledOffset(r, c, rows, rowBytes, s);
          expect(o).toBe(reference(r, c, rows, s));
          seen.add(o);
        }
      }
      expect(seen.size).toBe(rows * rowBytes);
      expect(Math.max(...seen)).toBe(rows * rowBytes - 1);
    });
  }
  it('keeps 16-byte chunks whole (ldmatrix rows and cp.async 16B copies stay contiguous)', () => {
    for (let c = 0; c < 128; c += 16) {
      const o = swizzledOffset(5, c, 8, 128, 128);
      for (let k = 1; k < 16; k++) expect(swizzledOffset(5, c + k, 8, 128, 128)).toBe(o + k);
    }
  });
});
