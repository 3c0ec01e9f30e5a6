// max/min with returnIndices (and later sort/topk) on the interpreter: result shapes, options,
// whole-tile reductions, and the errors for bad options.
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, defineKernel, load, ptr, store } from '../../src/lang/index.js';
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
