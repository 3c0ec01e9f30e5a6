import { describe, expect, it } from 'vitest';
import { roundTF32 } from '../../src/ir/numeric.js';
import { array, BlockSpec, ds, dot, exp, arange, pallasCall, vmap, zeros, type Tile } from '../../src/index.js';
import type { Ref } from '../../src/lang/pallas.js';

const dev = { device: 'interpret' as const };
const rand = (n: number, seed = 1): number[] => {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.fround((s / 2 ** 31) * 2 - 1);
  });
};

describe('pallasCall', () => {
  it('runs the design doc add example with (2,) blocks on a grid of 4', async () => {
    const add = pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().add(y.load())), {
      outShape: { shape: [8], dtype: 'i32' },
      inSpecs: [new BlockSpec([2], (i) => [i]), new BlockSpec([2], (i) => [i])],
      outSpecs: new BlockSpec([2], (i) => [i]),
      grid: [4],
      ...dev,
    });
    const x = array([0, 1, 2, 3, 4, 5, 6, 7], 'i32');
    const y = array([8, 9, 10, 11, 12, 13, 14, 15], 'i32');
    const out = await add(x, y);
    expect(Array.from((out as { data: Int32Array }).data)).toEqual([8, 10, 12, 14, 16, 18, 20, 22]);
  });

  it('uses identity specs when none are given and templates through closures', async () => {
    const makeKernel = (f: (t: Tile) => Tile) => (x: Ref, y: Ref, o: Ref) => o.store(f(x.load().add(y.load())));
    const x = array(rand(16, 3), 'f32');
    const y = array(rand(16, 4), 'f32');
    const k1 = pallasCall(makeKernel((t) => t.mul(2)), { outShape: { shape: [16], dtype: 'f32' }, ...dev });
    const k2 = pallasCall(makeKernel(exp), { outShape: { shape: [16], dtype: 'f32' }, ...dev });
    const o1 = (await k1(x, y)) as { data: Float32Array };
    const o2 = (await k2(x, y)) as { data: Float32Array };
    for (let i = 0; i < 16; i++) {
      const s = Math.fround(x.data[i] as number + (y.data[i] as number));
      expect(o1.data[i]).toBe(Math.fround(s * 2));
      expect(o2.data[i]).toBeCloseTo(Math.exp(s), 5);
    }
  });

  it('masks ragged edges: an array of 10 in blocks of 4', async () => {
    const neg = pallasCall((x: Ref, o: Ref) => o.store(x.load().neg()), {
      outShape: { shape: [10], dtype: 'f32' },
      inSpecs: [new BlockSpec([4], (i) => [i])],
      outSpecs: new BlockSpec([4], (i) => [i]),
      grid: 3,
      ...dev,
    });
    const x = array(rand(10), 'f32');
    const o = (await neg(x)) as { data: Float32Array };
    expect(Array.from(o.data)).toEqual(Array.from(x.data as Float32Array, (v) => -v));
  });

  it('runs the templated matmul from the design doc (2-D grid, unrolled K loop, fused activation)', async () => {
    const [M, N, K] = [32, 64, 16];
    const [bm, bn, bk] = [16, 32, 8];
    const relu = (t: Tile) => t.maximum(0);
    const body = (x: Ref, y: Ref, o: Ref) => {
      let acc = zeros([x.shape[0]!, y.shape[1]!], 'f32');
      for (let k = 0; k < x.shape[1]! / bk; k++) {
        const a = x.load([null, ds(k * bk, bk)]);
        const b = y.load([ds(k * bk, bk), null]);
        acc = acc.add(dot(a, b));
      }
      o.store(relu(acc));
    };
    const mm = pallasCall(body, {
      outShape: { shape: [M, N], dtype: 'f32' },
      inSpecs: [new BlockSpec([bm, K], (i) => [i, 0]), new BlockSpec([K, bn], (_i, j) => [0, j])],
      outSpecs: new BlockSpec([bm, bn], (i, j) => [i, j]),
      grid: [M / bm, N / bn],
      ...dev,
    });
    const a = array(rand(M * K, 5), 'f32', [M, K]);
    const b = array(rand(K * N, 6), 'f32', [K, N]);
    const o = (await mm(a, b)) as { data: Float32Array };
    // f32 dot: inputs rounded to tf32 (the default inputPrecision), products and sums in f32
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += roundTF32(a.data[i * K + k] as number) * roundTF32(b.data[k * N + j] as number);
        expect(o.data[i * N + j]).toBeCloseTo(Math.max(s, 0), 4);
      }
    }
  });

  it('supports integer-array indexing, scalar indices and null (squeezed) block dims', async () => {
    // Rows of a [4, 8] array, one row per program (squeezed dim); the kernel reverses each row.
    const rev = pallasCall((x: Ref, o: Ref) => o.store(x.load([arange(0, 8).neg().add(7)])), {
      outShape: { shape: [4, 8], dtype: 'i32' },
      inSpecs: [new BlockSpec([null, 8], (i) => [i, 0])],
      outSpecs: new BlockSpec([null, 8], (i) => [i, 0]),
      grid: [4],
      ...dev,
    });
    const x = array(Array.from({ length: 32 }, (_, i) => i), 'i32', [4, 8]);
    const o = (await rev(x)) as { data: Int32Array };
    for (let r = 0; r < 4; r++) for (let c = 0; c < 8; c++) expect(o.data[r * 8 + c]).toBe(r * 8 + 7 - c);

    // 2-D advanced indexing: x[arange(2)[:, None], arange(4)[None, :]] reads a [2, 4] corner.
    const corner = pallasCall((x: Ref, o: Ref) => o.store(x.load([arange(0, 2).expandDims(1), arange(0, 4).expandDims(0)])), {
      outShape: { shape: [2, 4], dtype: 'i32' },
      ...dev,
    });
    const c = (await corner(x)) as { data: Int32Array };
    expect(Array.from(c.data)).toEqual([0, 1, 2, 3, 8, 9, 10, 11]);

    // A scalar index drops the dim: x[2, :] -> [8].
    const row2 = pallasCall((x: Ref, o: Ref) => o.store(x.load([2])), { outShape: { shape: [8], dtype: 'i32' }, ...dev });
    expect(Array.from(((await row2(x)) as { data: Int32Array }).data)).toEqual([16, 17, 18, 19, 20, 21, 22, 23]);
  });

  it('loads and stores with a user mask and other', async () => {
    const k = pallasCall((x: Ref, o: Ref) => {
      const m = arange(0, 8).lt(5);
      o.store(x.load(undefined, { mask: m, other: -1 }));
    }, { outShape: { shape: [8], dtype: 'f32' }, ...dev });
    const x = array(rand(8), 'f32');
    const o = (await k(x)) as { data: Float32Array };
    expect(Array.from(o.data)).toEqual([...Array.from(x.data as Float32Array).slice(0, 5), -1, -1, -1]);
  });

  it('starts an aliased output from its input', async () => {
    const inc = pallasCall((x: Ref, _accIn: Ref, o: Ref) => o.store(o.load().add(x.load([ds(0, 4)]))), {
      outShape: { shape: [4], dtype: 'i32' },
      inputOutputAliases: { 1: 0 },
      ...dev,
    });
    const x = array([1, 2, 3, 4], 'i32');
    const acc = array([10, 20, 30, 40], 'i32');
    const o = (await inc(x, acc)) as { data: Int32Array };
    expect(Array.from(o.data)).toEqual([11, 22, 33, 44]);
    expect(Array.from(acc.data)).toEqual([10, 20, 30, 40]); // the caller's array is untouched
  });
});

describe('vmap of pallasCall', () => {
  const addBlocks = pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().add(y.load())), {
    outShape: { shape: [8], dtype: 'f32' },
    inSpecs: [new BlockSpec([4], (i) => [i]), new BlockSpec([4], (i) => [i])],
    outSpecs: new BlockSpec([4], (i) => [i]),
    grid: [2],
    ...dev,
  });

  it('adds a batch grid dim and rewrites the BlockSpecs', async () => {
    const B = 3;
    const x = array(rand(B * 8, 7), 'f32', [B, 8]);
    const y = array(rand(B * 8, 8), 'f32', [B, 8]);
    const batched = vmap(addBlocks);
    const f = batched.trace({ shape: [B, 8], dtype: 'f32' }, { shape: [B, 8], dtype: 'f32' });
    expect(f.body.ops.filter((o) => o.kind === 'program_id').map((o) => (o.attrs as { axis: number }).axis)).toEqual([0, 1]);
    const o = (await batched(x, y)) as { shape: number[]; data: Float32Array };
    expect(o.shape).toEqual([B, 8]);
    for (let i = 0; i < B * 8; i++) expect(o.data[i]).toBe(Math.fround((x.data[i] as number) + (y.data[i] as number)));
  });

  it('honours inAxes (a batch on axis 1, an unbatched input) and nests', async () => {
    const B = 2;
    // x batched along axis 1: shape [8, B]; y shared by every batch element.
    const xs = rand(8 * B, 9);
    const x = array(xs, 'f32', [8, B]);
    const y = array(rand(8, 10), 'f32');
    const o = (await vmap(addBlocks, { inAxes: [1, null] })(x, y)) as { shape: number[]; data: Float32Array };
    expect(o.shape).toEqual([B, 8]);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < 8; i++) expect(o.data[b * 8 + i]).toBe(Math.fround(xs[i * B + b]! + (y.data[i] as number)));
    }
    const x2 = array(rand(2 * 3 * 8, 11), 'f32', [2, 3, 8]);
    const y2 = array(rand(2 * 3 * 8, 12), 'f32', [2, 3, 8]);
    const o2 = (await vmap(vmap(addBlocks))(x2, y2)) as { shape: number[]; data: Float32Array };
    expect(o2.shape).toEqual([2, 3, 8]);
    for (let i = 0; i < 48; i++) expect(o2.data[i]).toBe(Math.fround((x2.data[i] as number) + (y2.data[i] as number)));
  });
});

describe('pallasCall errors', () => {
  it('rejects non-power-of-two blocks, rank mismatches and bad grids with clear messages', () => {
    const body = (x: Ref, o: Ref) => o.store(x.load());
    const mk = (opts: object) => pallasCall(body, { outShape: { shape: [12], dtype: 'f32' }, ...opts });
    expect(() => mk({ inSpecs: [new BlockSpec([3], (i) => [i])] }).trace({ shape: [12], dtype: 'f32' })).toThrow(/block dim 0 is 3; block dims must be powers of two/);
    expect(() => mk({ inSpecs: [new BlockSpec([4, 4], (i) => [i, 0])] }).trace({ shape: [12], dtype: 'f32' })).toThrow(/has 2 dims but the array has 1/);
    expect(() => mk({ grid: [0] })).toThrow(/grid must have 1 to 3 positive integer dims/);
    expect(() => mk({}).trace({ shape: [12], dtype: 'f32' })).toThrow(/powers of two/); // identity spec of a 12-element array
    const bad = pallasCall((x: Ref, o: Ref) => o.store(x.load([null, null])), { outShape: { shape: [8], dtype: 'f32' } });
    expect(() => bad.trace({ shape: [8], dtype: 'f32' })).toThrow(/has 1 dims \[8\] but was indexed with 2 entries/);
  });

  it('ref.load and ref.store refuse option names they do not know, naming both', () => {
    const ld = pallasCall((x: Ref, o: Ref) => o.store(x.load(undefined, { msk: undefined } as never)), { outShape: { shape: [8], dtype: 'f32' } });
    expect(() => ld.trace({ shape: [8], dtype: 'f32' })).toThrow(/ref\.load: unknown option 'msk' \(ref\.load takes: mask, other\)/);
    const st = pallasCall((x: Ref, o: Ref) => o.store(x.load(), undefined, { other: 0 } as never), { outShape: { shape: [8], dtype: 'f32' } });
    expect(() => st.trace({ shape: [8], dtype: 'f32' })).toThrow(/ref\.store: unknown option 'other' \(ref\.store takes: mask\)/);
  });

  it('rejects a store of the wrong dtype, naming the op', () => {
    const k = pallasCall((x: Ref, o: Ref) => o.store(x.load()), { outShape: { shape: [8], dtype: 'f16' }, name: 'copy' });
    expect(() => k.trace({ shape: [8], dtype: 'f32' })).toThrow(/kernel 'copy'.*store/);
  });

  it('rejects vmap with mismatched batch sizes', async () => {
    const k = pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().add(y.load())), { outShape: { shape: [8], dtype: 'f32' }, ...dev });
    await expect(vmap(k)(array(rand(16), 'f32', [2, 8]), array(rand(24), 'f32', [3, 8]))).rejects.toThrow(/batch sizes differ/);
  });
});
