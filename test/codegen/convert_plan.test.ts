// The conversion planner on random pairs of blocked layouts: whatever padding or swizzle it picks
// must give every element its own aligned address inside the scratch (a collision would be a
// silent wrong result), and it must never do worse than the plain row-major scalar scheme.
// The sim checks the emitted PTX and the wavefront model in convert.test.ts.
import { describe, expect, it } from 'vitest';
import { regSlots, threadShifts, type BlockedLayout } from '../../src/compiler/layout.js';
import { coordsOf, planConversion, vecGroups, wavefronts } from '../../src/codegen/convert/convert_plan.js';
import { swizzled } from '../../src/codegen/convert/convert_swizzle.js';
import { lcg } from '../e2e/helpers.js';

const pow2Below = (r: () => number, max: number): number => 2 ** Math.floor(r() * (Math.log2(max) + 1));

/** A random blocked layout for `shape` over `numWarps` warps. */
function randomLayout(r: () => number, shape: readonly number[], numWarps: number): BlockedLayout {
  const spt = shape.map((n) => pow2Below(r, Math.min(n, 8)));
  const split = (total: number): number[] => {
    const a = pow2Below(r, total);
    return [a, total / a];
  };
  const order = r() < 0.75 ? [1, 0] : [0, 1];
  return { kind: 'blocked', sizePerThread: spt, threadsPerWarp: split(32), warpsPerCTA: split(numWarps), order };
}

/** Byte address of element (coords) under `plan`. */
function addressOf(plan: ReturnType<typeof planConversion>, c: readonly number[], size: number): number {
  if (plan.swizzle) {
    const o = 1 - plan.inner;
    return swizzled(plan.swizzle, plan.strides[o]!, c[o]!, c[plan.inner]!) * size;
  }
  return c.reduce((a, x, d) => a + x * plan.strides[d]!, 0) * size;
}

/** Wavefronts of the row-major scalar scheme (no padding, one element per access), all warps. */
function naiveWavefronts(l: BlockedLayout, shape: readonly number[], size: number, numWarps: number): number {
  const sh = threadShifts(l);
  let n = 0;
  for (let w = 0; w < numWarps; w++) {
    for (const s of regSlots(l, shape)) {
      n += wavefronts(Array.from({ length: 32 }, (_, lane) => {
        const c = coordsOf(l, shape, sh, w, lane, s.off);
        return (c[0]! * shape[1]! + c[1]!) * size;
      }), size);
    }
  }
  return n;
}

describe('planConversion on random blocked layouts', () => {
  it('every element gets its own aligned address inside the scratch; never worse than row-major scalars', () => {
    const r = lcg(2024);
    let swizzles = 0;
    for (let t = 0; t < 120; t++) {
      const shape = [pow2Below(r, 64) * 2, pow2Below(r, 64) * 2];
      const numWarps = pow2Below(r, 8);
      const size = [2, 4, 8][Math.floor(r() * 3)]!;
      const from = randomLayout(r, shape, numWarps), to = randomLayout(r, shape, numWarps);
      const p = planConversion(from, to, shape, size, numWarps, `rand-${t}`);
      if (p.swizzle) swizzles++;
      const seen = new Set<number>();
      for (let i = 0; i < shape[0]!; i++) {
        for (let j = 0; j < shape[1]!; j++) {
          const a = addressOf(p, [i, j], size);
          expect(a).toBeGreaterThanOrEqual(0);
          expect(a + size).toBeLessThanOrEqual(p.bytes);
          expect(seen.has(a), `case ${t}: two elements at byte ${a}`).toBe(false);
          seen.add(a);
        }
      }
      // each vector access starts on a multiple of its width and covers consecutive addresses
      for (const [l, vec] of [[from, p.writeVec], [to, p.readVec]] as const) {
        const slots = regSlots(l, shape);
        const sh = threadShifts(l);
        for (const g of vecGroups(l, shape, p.inner, vec)!) {
          for (const lane of [0, 5, 31]) {
            const addrs = g.map((k) => addressOf(p, coordsOf(l, shape, sh, numWarps - 1, lane, slots[k]!.off), size));
            expect(addrs[0]! % (vec * size)).toBe(0);
            addrs.forEach((a, k) => expect(a).toBe(addrs[0]! + k * size));
          }
        }
      }
      expect(p.wavefronts).toBeLessThanOrEqual(naiveWavefronts(from, shape, size, numWarps) + naiveWavefronts(to, shape, size, numWarps));
    }
    expect(swizzles).toBeGreaterThan(0);
  });
});
