// max/min with returnIndices (and later sort/topk) on the interpreter: result shapes, options,
// whole-tile reductions, and the errors for bad options.
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, defineKernel, gather, histogram, load, ptr, sort, store, topk, type Tile } from '../../src/lang/index.js';
import { runKernel } from './run.js';

describe('max/min with returnIndices', () => {
  it('over all elements: the row-major index of the first extreme; keepDims keeps rank', () => {
    const k = defineKernel({ name: 'all', params: { x: ptr('f32'), v: ptr('f32'), i: ptr('i32') } }, ({ x, v, i }) => {
      const r = arange(0, 4), c = arange(0, 8);
      const t = load(x.add(r.expandDims(1).mul(8).add(c.expandDims(0))));
      const [mv, mi] = L.max(t, undefined, { returnIndices: true });
      expect(mv.shape).toEqual([]);
      store(v, mv);
      store(i, mi);
      const [nv, ni] = t.min(undefined, { returnIndices: true, keepDims: true });
      expect(nv.shape).toEqual([1, 1]);
      store(v.add(1), nv.reshape([]));
      store(i.add(1), ni.reshape([]));
      const [, ri] = t.max(0, { returnIndices: true, keepDims: true });
      expect(ri.shape).toEqual([1, 8]);
      expect(ri.dtype).toBe('i32');
    });
    const xs = Float32Array.from({ length: 32 }, (_, j) => (j * 7) % 13);
    xs[30] = 12; // ties with the first 12 (at j = 11)... later index
    xs[20] = -5; xs[25] = -5;
    const [, v, i] = runKernel(k, {}, [xs, new Float32Array(2), new Int32Array(2)], [1]);
    expect(Array.from(v as Float32Array)).toEqual([12, -5]);
    expect(Array.from(i as Int32Array)).toEqual([11, 20]);
  });

  it('rejects unknown and mistyped options by name', () => {
    const mk = (opts: unknown) => defineKernel({ name: 'bad', params: { x: ptr('f32'), o: ptr('f32') } }, ({ x, o }) => {
      store(o, L.max(load(x.add(arange(0, 8))), 0, opts as never) as never);
    });
    expect(() => mk({ returnIndices: true, tieBreakRight: true }).trace({})).toThrow(/op 'max': unknown option 'tieBreakRight' \(allowed: keepDims, returnIndices, tieBreakLeft\)/);
    expect(() => mk({ tieBreakLeft: true }).trace({})).toThrow(/op 'max': option 'tieBreakLeft' needs returnIndices: true/);
    expect(() => mk({ returnIndices: 1 }).trace({})).toThrow(/op 'max': option 'returnIndices' must be a boolean/);
    const mn = defineKernel({ name: 'bad', params: { x: ptr('f32'), o: ptr('f32') } }, ({ x, o }) => {
      store(o, L.min(load(x.add(arange(0, 8))), 0, { returnIdx: true } as never) as never);
    });
    expect(() => mn.trace({})).toThrow(/op 'min': unknown option 'returnIdx'/);
  });
});

describe('sort / topk', () => {
  const on = (fn: (t: Tile) => unknown, dtype: 'f32' | 'bool' = 'f32') => defineKernel({ name: 'k', params: { x: ptr(dtype), o: ptr('f32') } }, ({ x, o }) => {
    const r = fn(load(x.add(arange(0, 4).expandDims(1).mul(16).add(arange(0, 16).expandDims(0)))));
    store(o, 0);
    void r;
  }).trace({});
  it('result shapes and dtypes: sort keeps the shape, topk cuts the dim to k, indices are i32', () => {
    on((t) => {
      expect(sort(t).shape).toEqual([4, 16]);
      const [v, i] = topk(t, 4, { returnIndices: true });
      expect(v.shape).toEqual([4, 4]);
      expect(i.dtype).toBe('i32');
      expect(sort(t, { dim: 0 }).shape).toEqual([4, 16]);
      expect(topk(t, 2, { dim: -2 }).shape).toEqual([2, 16]);
      expect(t.sort({ descending: true }).shape).toEqual([4, 16]);
      const [tv, ti] = t.topk(8, { returnIndices: true });
      expect([tv.shape, ti.shape]).toEqual([[4, 8], [4, 8]]);
      expect(t.gather(ti, 1).shape).toEqual([4, 8]);
      expect(ti.reshape([32]).histogram(16).shape).toEqual([16]);
    });
  });
  it('sorts the last dim by default; topk is largest-first by default (Triton), ascending with descending: false', () => {
    const k = defineKernel({ name: 's', params: { x: ptr('f32'), a: ptr('f32'), t: ptr('f32'), b: ptr('f32') } }, ({ x, a, t, b }) => {
      const v = load(x.add(arange(0, 8)));
      store(a.add(arange(0, 8)), sort(v));
      store(t.add(arange(0, 2)), topk(v, 2));
      store(b.add(arange(0, 2)), topk(v, 2, { descending: false }));
    });
    const xs = Float32Array.of(3, -1, NaN, 7, -Infinity, 0, -0, 7);
    const [, a, t, b] = runKernel(k, {}, [xs, new Float32Array(8), new Float32Array(2), new Float32Array(2)], [1]);
    expect(Array.from(a as Float32Array)).toEqual([-Infinity, -1, -0, 0, 3, 7, 7, NaN]);
    expect(Object.is((a as Float32Array)[2], -0)).toBe(true);
    expect(Array.from(t as Float32Array)).toEqual([NaN, 7]);
    expect(Array.from(b as Float32Array)).toEqual([-Infinity, -1]);
  });
  it('rejects unknown options, bad k, bad dim and unsortable dtypes by name', () => {
    expect(() => on((t) => sort(t, { descending: true, stable: true } as never))).toThrow(/op 'sort': unknown option 'stable' for sort \(allowed: dim, descending, returnIndices\)/);
    expect(() => on((t) => topk(t, 4, { k: 2 } as never))).toThrow(/op 'topk': unknown option 'k' for topk/);
    expect(() => on((t) => topk(t, 3))).toThrow(/op 'topk': k must be a power of two no larger than the dim's length 16, got 3/);
    expect(() => on((t) => topk(t, 32))).toThrow(/k must be a power of two no larger than the dim's length 16, got 32/);
    expect(() => on((t) => sort(t, { dim: 2 }))).toThrow(/op 'sort': dim 2 is out of range/);
    expect(() => on((t) => sort(t, { descending: 'yes' } as never))).toThrow(/option 'descending' must be a boolean/);
    expect(() => on((t) => sort(t), 'bool')).toThrow(/op 'sort': sort sorts integers, f16, bf16, f32 and f64, got bool/);
  });
});

describe('gather', () => {
  const on = (fn: (t: Tile, i: Tile) => unknown) => defineKernel({ name: 'g', params: { x: ptr('f32'), i: ptr('i32'), o: ptr('f32') } }, ({ x, i, o }) => {
    const offs = arange(0, 4).expandDims(1).mul(16).add(arange(0, 16).expandDims(0));
    fn(load(x.add(offs)), load(i.add(offs)));
    store(o, 0);
  }).trace({});
  it('result has the index\'s shape and the src\'s dtype', () => {
    on((t, i) => {
      const g = gather(t, i.reshape([4, 16]), 1);
      expect(g.shape).toEqual([4, 16]);
      expect(g.dtype).toBe('f32');
      expect(gather(t, i.reshape([8, 8]).sum(1, { keepDims: true }).broadcastTo([8, 16]), 0).shape).toEqual([8, 16]);
    });
  });
  it('rejects bad ranks, shapes, index dtypes and axes by name', () => {
    expect(() => on((t, i) => gather(t, i.reshape([64]), 1))).toThrow(/op 'gather': src and index must have the same rank/);
    expect(() => on((t, i) => gather(t, i.reshape([8, 8]), 1))).toThrow(/op 'gather': index dim 0 must match src's \(4\)/);
    expect(() => on((t) => gather(t, t, 1))).toThrow(/op 'gather': index must be an integer tile, got f32/);
    expect(() => on((t, i) => gather(t, i, 2))).toThrow(/op 'gather': axis 2 is out of range/);
  });
  it('an index outside the dim is an E_INDEX error on the interpreter, naming the lane', () => {
    const k = defineKernel({ name: 'g', params: { x: ptr('f32'), i: ptr('i32'), o: ptr('f32') } }, ({ x, i, o }) => {
      const r = arange(0, 8);
      store(o.add(r), gather(load(x.add(r)), load(i.add(r)), 0));
    });
    expect(() => runKernel(k, {}, [new Float32Array(8), Int32Array.of(0, 1, 2, 8, 0, 0, 0, 0), new Float32Array(8)], [1])).toThrow(/op 'gather': index 8 at lane 3 \[3\] is outside dim 0 of length 8/);
    const [, , o] = runKernel(k, {}, [Float32Array.of(10, 11, 12, 13, 14, 15, 16, 17), Int32Array.of(7, 6, 0, 0, 3, 3, 1, 2), new Float32Array(8)], [1]);
    expect(Array.from(o as Float32Array)).toEqual([17, 16, 10, 10, 13, 13, 11, 12]);
  });
});

describe('histogram', () => {
  const on = (fn: (x: Tile) => unknown, dtype: 'i32' | 'f32' = 'i32') => defineKernel({ name: 'h', params: { x: ptr(dtype), o: ptr('i32') } }, ({ x, o }) => {
    fn(load(x.add(arange(0, 16))));
    store(o, 0);
  }).trace({});
  it('counts values in [0, numBins), skipping masked-off and out-of-range ones', () => {
    const k = defineKernel({ name: 'h', params: { x: ptr('i32'), o: ptr('i32') } }, ({ x, o }) => {
      const offs = arange(0, 16);
      store(o.add(arange(0, 4)), histogram(load(x.add(offs)), 4, { mask: offs.lt(12) }));
    });
    const xs = Int32Array.of(0, 1, 1, 3, 3, 3, -1, 4, 7, 2, 2, 0, 1, 1, 1, 1);
    const [, o] = runKernel(k, {}, [xs, new Int32Array(4)], [1]);
    expect(Array.from(o as Int32Array)).toEqual([2, 2, 2, 3]);
  });
  it('rejects unknown options, bad bins, non-integer or non-1-D input by name', () => {
    expect(() => on((x) => histogram(x, 8, { mask: true, bins: 2 } as never))).toThrow(/op 'histogram': unknown option 'bins' for histogram \(allowed: mask\)/);
    expect(() => on((x) => histogram(x, 6))).toThrow(/op 'histogram': numBins must be a power of two, got 6/);
    expect(() => on((x) => histogram(x, 8), 'f32')).toThrow(/op 'histogram': histogram needs a 1-D integer tile, got f32/);
    expect(() => on((x) => histogram(x.reshape([4, 4]), 8))).toThrow(/histogram needs a 1-D integer tile, got i32 \[4, 4\]/);
    expect(() => on((x) => histogram(x, 8, { mask: x }))).toThrow(/op 'histogram': mask must be a bool tile, got i32/);
  });
});
