// Golden PTX for sort (codegen/lower_sort.ts): when the sorted dim fits in a warp the bitonic
// network is register compare-exchanges and shfl.sync.bfly only — no shared memory, no barrier —
// as Triton's; top-k reads its first k through shared memory. Assembled by ptxas (the gate).
import { describe, expect, it } from 'vitest';
import { arange, defineKernel, load, ptr, sort, store, topk } from '../../src/lang/index.js';
import { count, gate } from './gate.js';

const sortRows = (rows: number, cols: number, indices: boolean, k?: number) => defineKernel(
  { name: `sort_${rows}x${cols}${indices ? '_idx' : ''}${k ? `_top${k}` : ''}`, params: { x: ptr('f32'), o: ptr('f32'), i: ptr('i32') } },
  ({ x, o, i }) => {
    const K = k ?? cols;
    const offs = arange(0, rows).expandDims(1).mul(cols).add(arange(0, cols).expandDims(0));
    const t = load(x.add(offs));
    const r = k ? topk(t, k, { returnIndices: indices }) : sort(t, { returnIndices: indices });
    const outs = arange(0, rows).expandDims(1).mul(K).add(arange(0, K).expandDims(0));
    const [v, ix] = Array.isArray(r) ? r : [r, undefined];
    store(o.add(outs), v);
    if (ix) store(i.add(outs), ix);
  },
);
const noShared = (ptx: string): void => {
  expect(count(ptx, /\b(ld|st)\.shared|bar\.sync/)).toBe(0);
  expect(ptx).not.toMatch(/\.shared/);
};

describe('sort lowering', () => {
  it('4x32 f32 (one element per lane): 15 butterfly steps (1+2+3+4+5), all shuffles, no shared memory', () => {
    const { sm80, sm90 } = gate(sortRows(4, 32, false).trace({}));
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /shfl\.sync\.bfly\.b32/)).toBe(15);
      noShared(r.ptx);
      // lane masks 1, 2, 4, 8, 16 in bitonic order
      const masks = r.ptx.split('\n').filter((l) => /shfl\.sync\.bfly/.test(l)).map((l) => Number(l.split(',')[2]));
      expect(masks).toEqual([1, 2, 1, 4, 2, 1, 8, 4, 2, 1, 16, 8, 4, 2, 1]);
    }
  });
  it('with indices: key and position packed in one u64 (two 32-bit shuffles a step), still no shared memory', () => {
    const { sm90 } = gate(sortRows(4, 32, true).trace({}));
    expect(count(sm90.ptx, /shfl\.sync\.bfly\.b32/)).toBe(30);
    expect(count(sm90.ptx, /setp\.lt\.u64/)).toBe(15);
    noShared(sm90.ptx);
  });
  it('2x128 f32 in one warp, the load\'s layout (1 per lane, the warp tile repeated 4 times): high bits in registers, the rest shuffles', () => {
    const { sm80 } = gate(sortRows(2, 128, false).trace({}), { numWarps: 1 });
    // 7 merges; distances 32 and 64 are in registers, 1..16 across lanes: 2 rows x 4 registers each
    const laneSteps = [1, 2, 3, 4, 5, 6, 7].reduce((a, s) => a + Math.min(s, 5), 0);
    expect(count(sm80.ptx, /shfl\.sync\.bfly\.b32/)).toBe(8 * laneSteps);
    noShared(sm80.ptx);
  });
  it('a dim the load spreads over warps (1x128, 4 warps) is converted once, through shared memory, before the network', () => {
    const { sm80 } = gate(sortRows(1, 128, false).trace({}));
    expect(count(sm80.ptx, /shfl\.sync\.bfly\.b32/)).toBe(4 * [1, 2, 3, 4, 5, 6, 7].reduce((a, s) => a + Math.max(0, s - 2), 0));
    expect(count(sm80.ptx, /bar\.sync/)).toBeGreaterThan(0);
  });
  it('topk (k < n) sorts in registers, then reads its first k through shared memory', () => {
    const { sm80 } = gate(sortRows(4, 64, true, 8).trace({}));
    expect(count(sm80.ptx, /st\.shared/)).toBeGreaterThan(0);
    expect(count(sm80.ptx, /shfl\.sync\.bfly\.b32/)).toBeGreaterThan(0);
  });
});
