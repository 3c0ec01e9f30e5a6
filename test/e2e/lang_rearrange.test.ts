// flip, cat, interleave and swizzle2d (Triton's names) on the interpreter and on the sim compiled
// for sm_80 and sm_90a, against plain-JS references written from Triton's definitions.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, cat, constexpr, expandDims, flip, interleave, load, ptr, store, swizzle2d, type Tile } from '../../src/lang/index.js';
import { kernel, type RunArgs } from '../../src/runtime/kernel.js';
import type { DType } from '../../src/ir/types.js';
import { CTOR, expectBitwise, fill, simDevice, type Buf } from './helpers.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';

const WHERE = ['interpret', ...SIM_TARGETS] as const;
const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Row-major offsets of a tile of `shape` (rank 1 to 3). */
function offsets(shape: readonly number[]): Tile {
  const strides = shape.map((_, i) => numel(shape.slice(i + 1)));
  let off: Tile | undefined;
  shape.forEach((n, d) => {
    let r = arange(0, n).mul(strides[d]!);
    const others = shape.map((_, k) => k).filter((k) => k !== d);
    if (others.length) r = expandDims(r, others);
    off = off ? off.add(r) : r;
  });
  return off!;
}

/** out = f(x, y) where x, y have `shape` and out has `outShape`. */
const binK = (name: string, t: DType, shape: number[], outShape: number[], f: (x: Tile, y: Tile) => Tile) => kernel(
  { name, params: { x: ptr(t), y: ptr(t), o: ptr(t) } },
  ({ x, y, o }) => {
    const off = offsets(shape);
    store(o.add(offsets(outShape)), f(load(x.add(off)), load(y.add(off))));
  },
);

/** Row-major index helpers for the references. */
const unravel = (k: number, shape: readonly number[]): number[] => shape.map((_, d) => Math.floor(k / numel(shape.slice(d + 1))) % shape[d]!);
const ravel = (ix: readonly number[], shape: readonly number[]): number => ix.reduce((acc, v, d) => acc * shape[d]! + v, 0);

async function check(name: string, t: DType, shape: number[], outShape: number[], f: (x: Tile, y: Tile) => Tile, ref: (outIx: number[]) => ['x' | 'y', number[]]) {
  const x = fill(t, numel(shape), 11), y = fill(t, numel(shape), 12);
  const out = await runEverywhere(binK(name, t, shape, outShape, f), { x, y, o: new CTOR[t](numel(outShape)) } as unknown as RunArgs, 1);
  const want = new CTOR[t](numel(outShape)) as unknown as unknown[];
  for (let k = 0; k < want.length; k++) {
    const [src, ix] = ref(unravel(k, outShape));
    want[k] = ((src === 'x' ? x : y) as unknown as unknown[])[ravel(ix, shape)];
  }
  for (const where of WHERE) expectBitwise(out[where].o as Buf, want as unknown as Buf, `${name} on ${where}`);
}

it('the sim pretends to be an sm_90 (both sm_80 and sm_90a code run on it)', () => {
  expect(simDevice().target).toBe('sm_90a');
});

describe('flip', () => {
  const cases: [DType, number[], number | undefined][] = [
    ['f32', [64], undefined], ['i32', [8, 16], 0], ['f16', [16, 32], undefined], ['i64', [4, 8, 2], 1], ['u8', [32, 4], -2], ['f32', [2, 64], 1], ['bool', [8, 32], 1], ['f8e4m3', [64], undefined],
  ];
  it.each(cases)('%s %j dim %s', async (t, shape, dim) => {
    const d = dim === undefined ? shape.length - 1 : dim < 0 ? dim + shape.length : dim;
    await check(`flip_${t}_${shape.join('x')}`, t, shape, shape, (x) => flip(x, dim), (ix) => ['x', ix.map((v, k) => (k === d ? shape[d]! - 1 - v : v))]);
  });
});

describe('cat: a then b along dim (in order, also with canReorder)', () => {
  const cases: [DType, number[], number | undefined][] = [['f32', [32], undefined], ['i32', [8, 16], 0], ['i32', [8, 16], 1], ['f16', [4, 8, 2], -1], ['f32', [4, 8, 2], 1]];
  it.each(cases)('%s %j dim %s', async (t, shape, dim) => {
    const d = dim === undefined ? 0 : dim < 0 ? dim + shape.length : dim;
    const outShape = shape.map((n, k) => (k === d ? 2 * n : n));
    await check(`cat_${t}_${shape.join('x')}_${d}`, t, shape, outShape, (x, y) => cat(x, y, { dim, canReorder: d === 0 }),
      (ix) => (ix[d]! < shape[d]! ? ['x', ix] : ['y', ix.map((v, k) => (k === d ? v - shape[d]! : v))]));
  });
});

describe('interleave: a0 b0 a1 b1 ... along the last dim', () => {
  it.each([['f32', [32]], ['i32', [8, 16]], ['f16', [2, 4, 8]]] as [DType, number[]][])('%s %j', async (t, shape) => {
    const r = shape.length - 1;
    const outShape = shape.map((n, k) => (k === r ? 2 * n : n));
    await check(`interleave_${t}_${shape.join('x')}`, t, shape, outShape, (x, y) => interleave(x, y),
      (ix) => [ix[r]! % 2 === 0 ? 'x' : 'y', ix.map((v, k) => (k === r ? v >> 1 : v))]);
  });
});

/**
 * Triton's swizzle2d, written from its definition (C division: Math.trunc, %). Rows past sizeI
 * divide by a group of 0 rows: our integer x / 0 = -1 and x % 0 = x (docs/semantics.md).
 */
function refSwizzle(i: number, j: number, si: number, sj: number, sg: number): [number, number] {
  const div = (a: number, b: number) => (b === 0 ? -1 : Math.trunc(a / b));
  const rem = (a: number, b: number) => (b === 0 ? a : a % b);
  const ij = i * sj + j, gj = sg * sj;
  const offI = div(ij, gj) * sg;
  const g = Math.min(si - offI, sg);
  const r = rem(ij, gj);
  return [offI + rem(r, g), div(r, g)];
}

describe('swizzle2d', () => {
  it('JS numbers: the example of Triton\'s docstring (4 x 4, groups of 2 rows)', () => {
    // the docstring shows, at each new position, the row-major index that moves there
    const m = [...Array(4)].map(() => Array<number>(4).fill(-1));
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) { const [a, b] = swizzle2d(i, j, 4, 4, 2); m[a]![b] = i * 4 + j; }
    expect(m).toEqual([[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]]);
    for (const [i, j, si, sj, sg] of [[9, 3, 7, 8, 3], [8, 1, 8, 8, 2], [-3, 2, 5, 4, 2]]) expect(swizzle2d(i!, j!, si!, sj!, sg!)).toEqual(refSwizzle(i!, j!, si!, sj!, sg!));
  });

  const k = kernel(
    { name: 'swz', params: { oi: ptr('i32'), oj: ptr('i32'), SI: 'i32', SJ: constexpr(), SG: 'i32', R: constexpr(), C: constexpr() } },
    ({ oi, oj, SI, SJ, SG, R, C }) => {
      const i = expandDims(arange(0, R as number), 1), j = expandDims(arange(0, C as number), 0);
      const [ni, nj] = swizzle2d(i, j, SI, SJ, SG);
      const off = i.mul(C).add(j);
      store(oi.add(off), ni);
      store(oj.add(off), nj);
    },
  );
  it.each([[7, 8, 3], [8, 8, 2], [5, 16, 4], [16, 4, 16]])('tiles: sizeI %i, sizeJ %i, sizeG %i (rows past sizeI too); runtime sizes', async (si, sj, sg) => {
    const R = 16, C = sj;
    const out = await runEverywhere(k, { oi: new Int32Array(R * C), oj: new Int32Array(R * C), SI: si, SJ: sj, SG: sg, R, C }, 1);
    const wi = new Int32Array(R * C), wj = new Int32Array(R * C);
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) [wi[i * C + j], wj[i * C + j]] = refSwizzle(i, j, si, sj, sg);
    for (const where of WHERE) {
      expectBitwise(out[where].oi as Int32Array, wi, `newI on ${where}`);
      expectBitwise(out[where].oj as Int32Array, wj, `newJ on ${where}`);
    }
    // within the grid (i < sizeI) it is a permutation of the grid
    const seen = new Set<number>();
    for (let i = 0; i < Math.min(si, R); i++) for (let j = 0; j < C; j++) seen.add(wi[i * C + j]! * C + wj[i * C + j]!);
    expect(seen.size).toBe(Math.min(si, R) * C);
  });
});

describe('errors', () => {
  const bad = (f: (x: Tile) => unknown) => () => kernel({ name: 'bad', params: { x: ptr('f32') } }, ({ x }) => { f(load(x.add(arange(0, 8)))); }).trace();
  it('names the op and what was wrong', () => {
    expect(bad((x) => flip(x, 1))).toThrow(/dim 1 is out of range for a tile of rank 1/);
    expect(bad((x) => flip(x.sum(0)))).toThrow(/flip needs a tile of rank >= 1/);
    expect(bad((x) => cat(x, expandDims(x, 0)))).toThrow(/cat needs two tiles of one shape/);
    expect(bad((x) => cat(x, x, { axis: 0 } as never))).toThrow(/unknown option 'axis' \(allowed: dim, canReorder\)/);
    expect(bad((x) => interleave(x, arange(0, 4)))).toThrow(/cannot broadcast/);
  });
});
