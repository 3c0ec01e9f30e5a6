// Golden PTX for gather (codegen/lower_gather.ts): within a warp, shfl.sync.idx and no shared
// memory (one shuffle per element when each lane holds one element of the row; one per register
// of the row and a select otherwise); otherwise through shared memory. Assembled by ptxas.
import { describe, expect, it } from 'vitest';
import { arange, defineKernel, gather, load, ptr, store } from '../../src/lang/index.js';
import { count, gate } from './gate.js';

const gatherRows = (rows: number, cols: number, icols: number) => defineKernel(
  { name: `gather_${rows}x${cols}_${icols}`, params: { x: ptr('f32'), ix: ptr('i32'), o: ptr('f32') } },
  ({ x, ix, o }) => {
    const so = arange(0, rows).expandDims(1).mul(cols).add(arange(0, cols).expandDims(0));
    const io = arange(0, rows).expandDims(1).mul(icols).add(arange(0, icols).expandDims(0));
    store(o.add(io), gather(load(x.add(so)), load(ix.add(io)), 1));
  },
);

describe('gather lowering', () => {
  it('4x32 by a 4x32 index: one shfl.sync.idx per element, no shared memory', () => {
    const { sm80, sm90 } = gate(gatherRows(4, 32, 32).trace({}));
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /shfl\.sync\.idx\.b32/)).toBe(1);
      expect(r.ptx).not.toMatch(/\.shared|bar\.sync/);
    }
  });
  it('2x128 in one warp, in the load\'s layout (the warp tile repeats 4 times along the row): 4 shuffles and 3 selects per element', () => {
    const { sm80 } = gate(gatherRows(2, 128, 128).trace({}), { numWarps: 1 });
    // 2 rows x 4 elements per lane, each from 4 registers
    expect(count(sm80.ptx, /shfl\.sync\.idx\.b32/)).toBe(2 * 4 * 4);
    expect(sm80.ptx).not.toMatch(/\.shared|bar\.sync/);
  });
  it('an index of another shape goes through shared memory', () => {
    const { sm80 } = gate(gatherRows(4, 64, 16).trace({}));
    expect(count(sm80.ptx, /shfl\.sync\.idx/)).toBe(0);
    expect(count(sm80.ptx, /ld\.shared/)).toBeGreaterThan(0);
  });
});
