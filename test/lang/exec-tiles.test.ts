// Shapes, reductions, scans, dot, atomics, control flow and debug ops on the interpreter,
// against plain-JS references on random inputs with ragged edges.
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, constexpr, defineKernel, load, programId, ptr, store, type Tile } from '../../src/lang/index.js';
import { closeTo, randF32, randI32, rng, runKernel } from './run.js';
import { roundTF32 } from '../../src/ir/numeric.js';

const R = 37, C = 100, BR = 16, BC = 128;
const f32 = Math.fround;

/** A kernel over an R x C row-major matrix, BR rows per program; fn gets the masked 2-D tile. */
function rowKernel(name: string, outDtype: 'f32' | 'i32', body: (x: Tile, ctx: { rows: Tile; cols: Tile; rmask: Tile; mask: Tile; out: Tile; C: Tile }) => void, inDtype: 'f32' | 'i32' = 'f32', other: number = 0) {
  return defineKernel({ name, params: { x: ptr(inDtype), out: ptr(outDtype), R: 'i32', C: 'i32', BR: constexpr(), BC: constexpr() } }, (a) => {
    const rows = programId(0).mul(a.BR).add(arange(0, a.BR));
    const cols = arange(0, a.BC);
    const rmask = rows.lt(a.R);
    const mask = rmask.expandDims(1).and(cols.expandDims(0).lt(a.C));
    const x = load(a.x.add(rows.expandDims(1).mul(a.C).add(cols.expandDims(0))), { mask, other });
    body(x, { rows, cols, rmask, mask, out: a.out, C: a.C });
  });
}
const grid = [Math.ceil(R / BR)];

describe('reductions over rows (ragged rows and columns)', () => {
  const x = randF32(rng(21), R * C);
  const rowsOf = (a: ArrayLike<number>) => Array.from({ length: R }, (_, r) => Array.from(a).slice(r * C, (r + 1) * C));
  const cases: [string, (x: Tile) => Tile, number, (row: number[]) => number][] = [
    ['sum', (t) => t.sum(1), 0, (row) => row.reduce((p, q) => p + q, 0)],
    ['max', (t) => t.max(1), -Infinity, (row) => Math.max(...row)],
    ['min', (t) => L.min(t, 1), Infinity, (row) => Math.min(...row)],
    ['custom reduce (max |x|)', (t) => L.reduce(t, 1, (a, b) => a.abs().maximum(b.abs())), 0, (row) => Math.max(...row.map(Math.abs))],
    ['custom reduce (sum, literal init-free)', (t) => L.reduce(t, 1, (a, b) => L.add(a, b)), 0, (row) => row.reduce((p, q) => p + q, 0)],
  ];
  for (const [name, fn, other, ref] of cases) {
    it(name, () => {
      const k = rowKernel(name.replace(/\W/g, '_'), 'f32', (t, c) => store(c.out.add(c.rows), fn(t), { mask: c.rmask }), 'f32', other);
      const [, out] = runKernel(k, { BR, BC }, [x, new Float32Array(R), R, C], grid);
      closeTo(out as Float32Array, rowsOf(x).map(ref), 1e-5, 1e-5);
    });
  }
  it('argmax / argmin pick the first extreme index', () => {
    const xi = randI32(rng(22), R * C, -20, 20); // many ties
    for (const [kind, other, ref] of [['argmax', -1000, (row: number[]) => row.indexOf(Math.max(...row))], ['argmin', 1000, (row: number[]) => row.indexOf(Math.min(...row))]] as const) {
      const k = rowKernel(kind, 'i32', (t, c) => store(c.out.add(c.rows), kind === 'argmax' ? t.argmax(1) : L.argmin(t, 1), { mask: c.rmask }), 'i32', other);
      const [, out] = runKernel(k, { BR, BC }, [xi, new Int32Array(R), R, C], grid);
      expect(Array.from(out as Int32Array)).toEqual(rowsOf(xi).map(ref));
    }
  });
  it('argmax / argmin with NaN: the first NaN wins (NaN counts as the extreme)', () => {
    const k = defineKernel({ name: 'nan', params: { x: ptr('f32'), out: ptr('i32') } }, ({ x, out }) => {
      const v = load(x.add(arange(0, 8)));
      store(out, v.argmax(0));
      store(out.add(1), v.argmin(0));
    });
    const xs = Float32Array.of(1, 9, NaN, -3, NaN, 2, 9, -3);
    const [, out] = runKernel(k, {}, [xs, new Int32Array(2)], [1]);
    expect(Array.from(out as Int32Array)).toEqual([2, 2]);
    const [, out2] = runKernel(k, {}, [Float32Array.of(1, 9, 0, -3, 4, 2, 9, -3), new Int32Array(2)], [1]);
    expect(Array.from(out2 as Int32Array)).toEqual([1, 3]);
  });
  it('sum over axis 0 with keepDims, and over all elements', () => {
    const k = defineKernel({ name: 'colsum', params: { x: ptr('f32'), out: ptr('f32'), total: ptr('f32') } }, ({ x, out, total }) => {
      const r = arange(0, 8), c = arange(0, 16);
      const t = load(x.add(r.expandDims(1).mul(16).add(c.expandDims(0))));
      const s = t.sum(0, { keepDims: true }); // [1,16]
      store(out.add(c.expandDims(0)), s);
      store(total, L.sum(t));
    });
    const xs = randF32(rng(23), 128);
    const [, out, total] = runKernel(k, {}, [xs, new Float32Array(16), new Float32Array(1)], [1]);
    closeTo(out as Float32Array, Array.from({ length: 16 }, (_, j) => Array.from({ length: 8 }, (_, i) => xs[i * 16 + j]!).reduce((p, q) => p + q)), 1e-5, 1e-5);
    closeTo(total as Float32Array, [Array.from(xs).reduce((p, q) => p + q)], 1e-5, 1e-5);
  });
  it('multi-operand reduce returns several results', () => {
    const k = rowKernel('mm', 'f32', (t, c) => {
      const [mx, mn] = L.reduce([t, t], 1, (a, b, x1, x2) => [a.maximum(x1), b.minimum(x2)]);
      store(c.out.add(c.rows), mx!.sub(mn!), { mask: c.rmask });
    }, 'f32', 0);
    const xs = randF32(rng(24), R * C, 0.5, 3);
    const [, out] = runKernel(k, { BR, BC }, [xs, new Float32Array(R), R, C], grid);
    // masked lanes load 0, so min includes 0 for every row (C < BC)
    closeTo(out as Float32Array, rowsOf(xs).map((row) => f32(Math.max(...row) - 0)), 1e-6, 0);
  });
});

describe('scans', () => {
  const n = 100;
  const scanKernel = (name: string, fn: (x: Tile) => Tile, dt: 'f32' | 'i32') =>
    defineKernel({ name, params: { x: ptr(dt), out: ptr(dt), n: 'i32' } }, ({ x, out, n: nn }) => {
      const o = arange(0, 128);
      const m = o.lt(nn);
      store(out.add(o), fn(load(x.add(o), { mask: m, other: 0 })), { mask: m });
    });
  it('cumsum, reverse cumsum, cumprod, associativeScan', () => {
    const xi = randI32(rng(31), n, -50, 50);
    const run = (fn: (x: Tile) => Tile) => Array.from(runKernel(scanKernel('s', fn, 'i32'), {}, [xi, new Int32Array(n), n], [1])[1] as Int32Array);
    const pre: number[] = [];
    xi.reduce((p, q, i) => (pre[i] = p + q), 0);
    expect(run((x) => x.cumsum(0))).toEqual(pre);
    const rev = Array.from(xi).map((_, i) => Array.from(xi).slice(i).reduce((p, q) => p + q, 0));
    expect(run((x) => L.cumsum(x, 0, { reverse: true }))).toEqual(rev);
    const small = xi.map((v) => (v % 3) + (v % 3 === 0 ? 1 : 0));
    const prod: number[] = [];
    small.reduce((p, q, i) => (prod[i] = Math.imul(p, q)), 1);
    expect(Array.from(runKernel(scanKernel('p', (x) => x.cumprod(0), 'i32'), {}, [small, new Int32Array(n), n], [1])[1] as Int32Array)).toEqual(prod);
    const mx: number[] = [];
    xi.reduce((p, q, i) => (mx[i] = Math.max(p, q)), -Infinity);
    expect(run((x) => L.associativeScan(x, 0, (a, b) => a.maximum(b)))).toEqual(mx);
  });
});

describe('shapes on data', () => {
  it('trans, reshape, join/split, broadcast outer product', () => {
    const k = defineKernel({ name: 'shp', params: { x: ptr('f32'), t: ptr('f32'), o: ptr('f32'), s: ptr('f32') } }, ({ x, t, o, s }) => {
      const r = arange(0, 8), c = arange(0, 16);
      const tile = load(x.add(r.expandDims(1).mul(16).add(c.expandDims(0)))); // [8,16]
      store(t.add(c.expandDims(1).mul(8).add(r.expandDims(0))), tile.trans());  // t = x^T as [16,8]
      const outer = load(x.add(r)).expandDims(1).mul(load(x.add(c)));           // [8,1]*[16] -> [8,16]
      store(o.add(arange(0, 128)), outer.reshape([128]));
      const j = L.join(tile, tile.neg());                                         // [8,16,2]
      const [lo, hi] = j.split();
      store(s.add(arange(0, 128).reshape([8, 16])), lo.sub(hi));
    });
    const xs = randF32(rng(41), 128);
    const [, t, o, s] = runKernel(k, {}, [xs, new Float32Array(128), new Float32Array(128), new Float32Array(128)], [1]);
    const X = (i: number, j: number) => xs[i * 16 + j]!;
    expect(Array.from(t as Float32Array)).toEqual(Array.from({ length: 128 }, (_, q) => X(q % 8, Math.floor(q / 8))));
    expect(Array.from(o as Float32Array)).toEqual(Array.from({ length: 128 }, (_, q) => f32(xs[Math.floor(q / 16)]! * xs[q % 16]!)));
    expect(Array.from(s as Float32Array)).toEqual(Array.from(xs, (v) => f32(2 * v)));
  });
});

describe('dot', () => {
  const M = 16, K = 32, Nn = 16;
  const mk = (dt: 'f32' | 'f16' | 'i8', opts: (acc: Tile) => L.DotOptions = () => ({})) =>
    defineKernel({ name: 'mm', params: { a: ptr(dt), b: ptr(dt), c: ptr(dt === 'i8' ? 'i32' : 'f32') } }, ({ a, b, c }) => {
      const m = arange(0, M), k = arange(0, K), n = arange(0, Nn);
      const at = load(a.add(m.expandDims(1).mul(K).add(k.expandDims(0))));
      const bt = load(b.add(k.expandDims(1).mul(Nn).add(n.expandDims(0))));
      const init = L.full([M, Nn], 1, dt === 'i8' ? 'i32' : 'f32');
      store(c.add(m.expandDims(1).mul(Nn).add(n.expandDims(0))), L.dot(at, bt, opts(init)));
    });
  const ref = (a: ArrayLike<number>, b: ArrayLike<number>, acc: number) =>
    Array.from({ length: M * Nn }, (_, q) => {
      const i = Math.floor(q / Nn), j = q % Nn;
      let s = acc;
      for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * Nn + j]!;
      return s;
    });
  it("f32 with accumulator ('ieee': exact inputs)", () => {
    const a = randF32(rng(51), M * K), b = randF32(rng(52), K * Nn);
    const [, , c] = runKernel(mk('f32', (acc) => ({ acc, inputPrecision: 'ieee' })), {}, [a, b, new Float32Array(M * Nn)], [1]);
    closeTo(c as Float32Array, ref(a, b, 1), 1e-5, 1e-4);
  });
  it('f32 by default rounds the inputs to tf32 (ties away from zero), then sums in f32', () => {
    const a = randF32(rng(51), M * K), b = randF32(rng(52), K * Nn);
    const [, , c] = runKernel(mk('f32', (acc) => ({ acc })), {}, [a, b, new Float32Array(M * Nn)], [1]);
    closeTo(c as Float32Array, ref(a.map(roundTF32), b.map(roundTF32), 1), 1e-5, 1e-4);
    // tf32 keeps 10 fraction bits: 1 + 2^-11 is a tie and rounds away from zero, 1 + 2^-12 down
    expect([1 + 2 ** -11, 1 + 2 ** -12, -(1 + 2 ** -11), 1 + 3 * 2 ** -11].map(roundTF32)).toEqual([1 + 2 ** -10, 1, -(1 + 2 ** -10), 1 + 2 * 2 ** -10]);
  });
  it('i8 inputs accumulate in i32 without an accumulator', () => {
    const a = Int8Array.from(randI32(rng(53), M * K, -128, 127)), b = Int8Array.from(randI32(rng(54), K * Nn, -128, 127));
    const [, , c] = runKernel(mk('i8'), {}, [a, b, new Int32Array(M * Nn)], [1]);
    expect(Array.from(c as Int32Array)).toEqual(ref(a, b, 0));
  });
});

describe('atomics', () => {
  it('atomicAdd / atomicMax / atomicMin / bit ops / xchg / cas across programs', () => {
    const k = defineKernel({ name: 'atom', params: { cnt: ptr('i32'), mx: ptr('i32'), fsum: ptr('f32'), bits: ptr('i32'), old: ptr('i32'), cas: ptr('i32'), vals: ptr('i32'), n: 'i32' } },
      ({ cnt, mx, fsum, bits, old, cas, vals, n }) => {
        const o = programId(0).mul(64).add(arange(0, 64));
        const m = o.lt(n);
        const v = load(vals.add(o), { mask: m, other: 0 });
        L.atomicAdd(cnt, 1, { mask: m });
        L.atomicMax(mx, v, { mask: m });
        L.atomicMin(mx.add(1), v, { mask: m, sem: 'relaxed' });
        L.atomicAdd(fsum.add(o.rem(4)), 0.5, { mask: m });
        L.atomicOr(bits, L.full([], 1, 'i32').shl(programId(0)));
        L.atomicXor(bits.add(1), 3);
        L.atomicAnd(bits.add(2), programId(0).add(1).not());
        store(old.add(programId(0)), L.atomicXchg(cas.add(1), programId(0)));
        L.atomicCas(cas, programId(0), programId(0).add(1)); // only succeeds in grid order
      });
    const n = 300, vals = randI32(rng(61), 320, -10000, 10000);
    const grid = [5];
    const [cnt, mx, fsum, bits, old, cas] = runKernel(k, {}, [new Int32Array(1), Int32Array.of(-1e9, 1e9), new Float32Array(4), Int32Array.of(0, 0, -1), new Int32Array(5), new Int32Array(2), vals, n], grid);
    const live = Array.from(vals).slice(0, n);
    expect(Array.from(cnt as Int32Array)).toEqual([n]);
    expect(Array.from(mx as Int32Array)).toEqual([Math.max(...live), Math.min(...live)]);
    expect(Array.from(fsum as Float32Array)).toEqual([0, 1, 2, 3].map((r) => 0.5 * live.filter((_, i) => i % 4 === r).length));
    expect(Array.from(bits as Int32Array)).toEqual([0b11111, (3 * 5) % 2 === 1 ? 3 : 0, -1 & ~1 & ~2 & ~3 & ~4 & ~5]);
    expect(Array.from(old as Int32Array)).toEqual([0, 0, 1, 2, 3]);
    expect(Array.from(cas as Int32Array)).toEqual([5, 4]);
  });
});

describe('control flow', () => {
  it('forLoop with carried tiles over a runtime trip count', () => {
    const k = defineKernel({ name: 'loop', params: { x: ptr('f32'), out: ptr('f32'), cnt: ptr('i32'), K: 'i32', B: constexpr() } }, ({ x, out, cnt, K, B }) => {
      const o = arange(0, B);
      const [acc, c] = L.forLoop(0, K, 1, [L.zeros([B]), 0], (k, acc, c) => [acc!.add(load(x.add(k.mul(B).add(o)))), c!.add(1)]);
      store(out.add(o), acc!);
      store(cnt, c!);
    });
    const K = 7, B = 32, xs = randF32(rng(71), K * B);
    const [, out, cnt] = runKernel(k, { B }, [xs, new Float32Array(B), new Int32Array(1), K], [1]);
    const want = Array.from({ length: B }, (_, j) => { let s = 0; for (let i = 0; i < K; i++) s = f32(s + xs[i * B + j]!); return s; });
    expect(Array.from(out as Float32Array)).toEqual(want);
    expect(Array.from(cnt as Int32Array)).toEqual([K]);
  });
  it('forLoop with a step and range(); ifThenElse on a runtime condition', () => {
    const k = defineKernel({ name: 'cf', params: { out: ptr('i32'), n: 'i32' } }, ({ out, n }) => {
      const [s] = L.forLoop(3, n, 4, [0], (i, s) => s!.add(i));
      const [t] = L.range(0, 5, [L.zeros([4], 'i32')], (i, acc) => acc!.add(i.mul(arange(0, 4))));
      const [r] = L.ifThenElse(programId(0).eq(0), () => [s!.mul(10)], () => [s!.neg()]);
      store(out.add(programId(0)), r!);
      store(out.add(arange(0, 4).add(2)), t!, { mask: programId(0).eq(0) });
    });
    const n = 30;
    const [out] = runKernel(k, {}, [new Int32Array(6), n], [2]);
    let s = 0;
    for (let i = 3; i < n; i += 4) s += i;
    expect(Array.from(out as Int32Array)).toEqual([s * 10, -s, 0, 10, 20, 30]);
  });
  it('programId / numPrograms on a 3-D grid', () => {
    const k = defineKernel({ name: 'grid3', params: { out: ptr('i32') } }, ({ out }) => {
      const [x, y, z] = [programId(0), programId(1), programId(2)];
      const lin = z.mul(L.numPrograms(1)).add(y).mul(L.numPrograms(0)).add(x);
      store(out.add(lin), x.add(y.mul(10)).add(z.mul(100)).add(L.numPrograms(0).mul(1000)).add(L.numPrograms(2).mul(10000)));
    });
    const [out] = runKernel(k, {}, [new Int32Array(3 * 2 * 2)], [3, 2, 2]);
    const want: number[] = [];
    for (let z = 0; z < 2; z++) for (let y = 0; y < 2; y++) for (let x = 0; x < 3; x++) want.push(x + 10 * y + 100 * z + 3000 + 20000);
    expect(Array.from(out as Int32Array)).toEqual(want);
  });
  it('static JS loops unroll at trace time', () => {
    const k = defineKernel({ name: 'unroll', params: { out: ptr('i32'), STEPS: constexpr() } }, ({ out, STEPS }) => {
      let v = arange(0, 8);
      for (let i = 0; i < STEPS; i++) v = v.add(i);
      store(out.add(arange(0, 8)), v);
    });
    expect(k.trace({ STEPS: 4 }).body.ops.filter((o) => o.kind === 'binary')).toHaveLength(4);
    const [out] = runKernel(k, { STEPS: 4 }, [new Int32Array(8)], [1]);
    expect(Array.from(out as Int32Array)).toEqual([6, 7, 8, 9, 10, 11, 12, 13]);
  });
});

describe('debug ops', () => {
  it('devicePrint prints with the program id; deviceAssert fails the launch', () => {
    const k = defineKernel({ name: 'dbg', params: { x: ptr('i32'), lim: 'i32' } }, ({ x, lim }) => {
      const v = load(x.add(programId(0)));
      L.devicePrint('v=', v);
      L.deviceAssert(v.lt(lim), 'v below limit');
    });
    const lines: string[] = [];
    runKernel(k, {}, [Int32Array.of(5, 6), 10], [2], (l) => lines.push(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/v=.*5/);
    expect(lines[1]).toMatch(/v=.*6/);
    expect(() => runKernel(k, {}, [Int32Array.of(5, 60), 10], [2], () => {})).toThrow(/v below limit/);
  });
});
