import { describe, expect, it } from 'vitest';
import { blockedFor, checkLayout, ctaTile, regSlots, threadShifts } from '../../src/compiler/layout.js';

describe('blocked layouts', () => {
  it('1-D with vector width 4 over 4 warps', () => {
    const l = blockedFor([1024], 4, [0], 4);
    expect(l).toMatchObject({ sizePerThread: [4], threadsPerWarp: [32], warpsPerCTA: [4] });
    expect(ctaTile(l)).toEqual([512]);
    expect(regSlots(l, [1024]).map((s) => s.off[0])).toEqual([0, 1, 2, 3, 512, 513, 514, 515]);
  });
  it('2-D row-major fills lanes along the fastest dim first', () => {
    const l = blockedFor([64, 64], 4, [1, 0], 4);
    expect(l).toMatchObject({ sizePerThread: [1, 4], threadsPerWarp: [2, 16], warpsPerCTA: [4, 1] });
    expect(threadShifts(l)).toEqual({ lane: [4, 0], warp: [0, 0] });
    expect(checkLayout(l, [64, 64], 4)).toBeUndefined();
    expect(checkLayout(l, [64, 64], 8)).toMatch(/warpsPerCTA/);
  });
  it('small tiles replicate (leftover lanes and warps wrap along order[0])', () => {
    const l = blockedFor([16], 4, [0], 1);
    expect(l).toMatchObject({ sizePerThread: [1], threadsPerWarp: [32], warpsPerCTA: [4] });
    expect(regSlots(l, [16])).toHaveLength(1);
  });
  it('slices hold the parent registers with the sliced dim removed', () => {
    const parent = blockedFor([32, 64], 4, [1, 0], 4);
    const s = regSlots({ kind: 'slice', parent, dim: 1 }, [32]);
    expect(s.every((x) => x.off[1] === 0)).toBe(true);
    expect(s.map((x) => x.off[0])).toEqual([0, 8, 16, 24]);
  });
  it('non power-of-two shapes are rejected', () => {
    expect(checkLayout(blockedFor([8], 1, [0]), [12], 1)).toMatch(/powers of two/);
  });
});
