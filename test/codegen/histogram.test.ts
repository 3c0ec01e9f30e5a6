// Golden PTX for histogram (codegen/lower_histogram.ts): bins zeroed in shared memory, one
// red.shared.add.u32 per element a thread holds (predicated: mask, range, first copy), barriers
// around. Assembled by ptxas.
import { describe, expect, it } from 'vitest';
import { arange, defineKernel, histogram, load, ptr, store } from '../../src/lang/index.js';
import { count, gate } from './gate.js';

describe('histogram lowering', () => {
  it('1024 i32 values, 64 bins, 4 warps: 8 predicated shared reductions a thread, bins zeroed once', () => {
    const k = defineKernel({ name: 'hist', params: { x: ptr('i32'), o: ptr('i32') } }, ({ x, o }) => {
      const offs = arange(0, 1024);
      store(o.add(arange(0, 64)), histogram(load(x.add(offs)), 64, { mask: offs.lt(1000) }));
    });
    const { sm80, sm90 } = gate(k.trace({}));
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /@%p\d+ red\.shared\.add\.u32/)).toBe(8);
      expect(count(r.ptx, /@%p\d+ st\.shared\.u32 \[%r\d+\], 0;/)).toBe(1);
      expect(count(r.ptx, /bar\.sync/)).toBeGreaterThanOrEqual(2);
    }
  });
});
