// Runtime-level conformance: Pallas calls with 2-D ragged blocks and a blocked matmul, a 3-D grid,
// every scalar parameter type, and the bench kernels at other warp counts (other layouts).
// Pallas calls run per device through `device:` (describe.each); everything else via runBoth.
import { roundTF32 } from '../../src/ir/numeric.js';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, numPrograms, programId, ptr, store } from '../../src/lang/index.js';
import { ds, dot, zeros, type Ref } from '../../src/lang/index.js';
import { BlockSpec } from '../../src/lang/pallas.js';
import { array } from '../../src/runtime/array.js';
import { Kernel, kernel } from '../../src/runtime/kernel.js';
import { pallasCall } from '../../src/runtime/pallas_call.js';
import { layerNorm, matmul, softmax } from '../../bench/kernels.js';
import { DEVICES, expectBitwise, expectClose, randF32, runBoth, simDevice } from './helpers.js';

const cdiv = (a: number, b: number) => Math.ceil(a / b);
const pallasOut = new Map<string, Float32Array>();

describe.each(DEVICES)('pallasCall on %s', (device) => {
  it('2-D elementwise with ragged [16, 32] blocks over [33, 70]', async () => {
    if (device === 'sim') simDevice();
    const R = 33, C = 70;
    const spec = new BlockSpec([16, 32], (i, j) => [i, j]);
    const f = pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().mul(y.load()).sub(x.load())), {
      outShape: { shape: [R, C], dtype: 'f32' }, grid: [cdiv(R, 16), cdiv(C, 32)], inSpecs: [spec, spec], outSpecs: spec, device,
      name: 'pallas_fms',
    });
    const x = randF32(R * C, 31), y = randF32(R * C, 32);
    const out = ((await f(array(x, 'f32', [R, C]), array(y, 'f32', [R, C]))) as { data: Float32Array }).data;
    expectBitwise(out, x.map((v, i) => Math.fround(v * y[i]!) - v), 'vs JS');
    pallasOut.set(`fms/${device}`, out);
  });

  it('blocked matmul [48, 32] x [32, 64] with (16, 32) output blocks', async () => {
    if (device === 'sim') simDevice();
    const M = 48, K = 32, N = 64, bm = 16, bn = 32, bk = 8;
    const body = (a: Ref, b: Ref, o: Ref) => {
      let acc = zeros([bm, bn], 'f32');
      for (let k = 0; k < K / bk; k++) acc = acc.add(dot(a.load([null, ds(k * bk, bk)]), b.load([ds(k * bk, bk), null])));
      o.store(acc);
    };
    const mm = pallasCall(body, {
      outShape: { shape: [M, N], dtype: 'f32' },
      inSpecs: [new BlockSpec([bm, K], (i) => [i, 0]), new BlockSpec([K, bn], (_i, j) => [0, j])],
      outSpecs: new BlockSpec([bm, bn], (i, j) => [i, j]), grid: [M / bm, N / bn], device, name: 'pallas_mm',
    });
    const a = randF32(M * K, 33), b = randF32(K * N, 34);
    const out = ((await mm(array(a, 'f32', [M, K]), array(b, 'f32', [K, N]))) as { data: Float32Array }).data;
    const want = new Float64Array(M * N);
    // f32 dot: inputs rounded to tf32 (the default inputPrecision), then exact products summed in f32
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) want[i * N + j]! += roundTF32(a[i * K + k]!) * roundTF32(b[k * N + j]!);
    expectClose(out, want, 1e-4, 'vs JS');
    pallasOut.set(`mm/${device}`, out);
  });
});

describe('pallasCall: sim agrees with the interpreter', () => {
  it.each([['fms', 0], ['mm', 1e-5]] as const)('%s', (name, tol) => {
    const s = pallasOut.get(`${name}/sim`), i = pallasOut.get(`${name}/interpret`);
    expect(s, 'the sim run stored its output').toBeInstanceOf(Float32Array);
    expect(i, 'the interpreter run stored its output').toBeInstanceOf(Float32Array);
    expectClose(s!, i!, tol, `${name}: sim vs interpreter`);
  });
});

describe('grids and scalar parameters', () => {
  const ids = kernel(
    { name: 'grid3d', params: { out: ptr('i32'), BLOCK: constexpr() } },
    ({ out, BLOCK }) => {
      const pid = programId(0).add(programId(1).mul(numPrograms(0))).add(programId(2).mul(numPrograms(0)).mul(numPrograms(1)));
      const lane = arange(0, BLOCK);
      const v = programId(0).mul(10000).add(programId(1).mul(100)).add(programId(2)).add(lane.mul(0));
      store(out.add(pid.mul(BLOCK).add(lane)), v);
    },
  );
  it('a 3-D grid (3 x 4 x 2): program ids and counts', async () => {
    const [gx, gy, gz] = [3, 4, 2];
    const r = await runBoth(ids, { out: new Int32Array(gx * gy * gz * 32), BLOCK: 32 }, [gx, gy, gz]);
    expectBitwise(r.sim.out, r.interpret.out, 'sim vs interpreter');
    const want = new Int32Array(gx * gy * gz * 32);
    for (let z = 0; z < gz; z++) for (let y = 0; y < gy; y++) for (let x = 0; x < gx; x++) {
      want.fill(x * 10000 + y * 100 + z, ((z * gy + y) * gx + x) * 32, ((z * gy + y) * gx + x + 1) * 32);
    }
    expectBitwise(r.sim.out, want, 'sim vs JS');
  });

  const scalars = kernel(
    {
      name: 'scalars',
      params: { o32: ptr('i32'), o64: ptr('i64'), ou: ptr('u32'), of: ptr('f32'), od: ptr('f64'), a: 'i32', b: 'i64', c: 'u32', d: 'f32', e: 'f64', flag: 'bool', i8v: 'i8' },
    },
    ({ o32, o64, ou, of, od, a, b, c, d, e, flag, i8v }) => {
      store(o32, a.add(i8v.to('i32')));
      store(o64, b.add(1));
      store(ou, c.add(1));
      store(of, flag.to('f32').add(d));
      store(od, e.mul(2));
    },
  );
  it('every scalar parameter type reaches the kernel intact', async () => {
    const args = {
      o32: new Int32Array(1), o64: new BigInt64Array(1), ou: new Uint32Array(1), of: new Float32Array(1), od: new Float64Array(1),
      a: -123456, b: -(2n ** 40n) - 5n, c: 2 ** 32 - 2, d: 0.1, e: Math.PI, flag: true, i8v: -7,
    };
    const r = await runBoth(scalars, args, 1);
    for (const k of ['o32', 'o64', 'ou', 'of', 'od'] as const) expectBitwise(r.sim[k], r.interpret[k], `${k}: sim vs interpreter`);
    expect(r.sim.o32[0]).toBe(-123463);
    expect(r.sim.o64[0]).toBe(-(2n ** 40n) - 4n);
    expect(r.sim.ou[0]).toBe(2 ** 32 - 1);
    expect(r.sim.of[0]).toBe(Math.fround(1 + Math.fround(0.1)));
    expect(r.sim.od[0]).toBe(2 * Math.PI);
  });
});

describe.each([1, 8])('bench kernels at %i warps', (numWarps) => {
  it('softmax and layer_norm (2 rows of 300) and matmul (ragged 20 x 33 x 17)', async () => {
    const rows = 2, ncols = 300;
    const x = randF32(rows * ncols, 35), w = randF32(ncols, 36), b = randF32(ncols, 37);
    const s = await runBoth(new Kernel(softmax), { x, out: new Float32Array(rows * ncols), stride: ncols, ncols, BLOCK: 512 }, rows, { numWarps });
    expectClose(s.sim.out, s.interpret.out, 1e-5, 'softmax: sim vs interpreter');
    for (let i = 0; i < rows; i++) {
      const t = s.sim.out.subarray(i * ncols, i * ncols + ncols).reduce((p, q) => p + q, 0);
      expect(Math.abs(t - 1), 'softmax row sums to 1').toBeLessThan(1e-5);
    }
    const l = await runBoth(new Kernel(layerNorm), { x, w, b, out: new Float32Array(rows * ncols), stride: ncols, ncols, eps: 1e-5, BLOCK: 512 }, rows, { numWarps });
    expectClose(l.sim.out, l.interpret.out, 1e-5, 'layer_norm: sim vs interpreter');
    const M = 20, N = 33, K = 17;
    const ma = randF32(M * K, 38), mb = randF32(K * N, 39);
    const m = await runBoth(new Kernel(matmul), { a: ma, b: mb, c: new Float32Array(M * N), M, N, K, BM: 16, BN: 16, BK: 8 }, [cdiv(M, 16), cdiv(N, 16)], { numWarps });
    expectClose(m.sim.c, m.interpret.c, 1e-5, 'matmul: sim vs interpreter');
    const want = new Float64Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) want[i * N + j]! += ma[i * K + k]! * mb[k * N + j]!;
    expectClose(m.sim.c, want, 1e-4, 'matmul: sim vs JS');
  });
});

it('load() of a scalar pointer and store() of a scalar work on both devices', async () => {
  const k = kernel({ name: 'scalar_io', params: { x: ptr('f32'), o: ptr('f32') } }, ({ x, o }) => store(o, load(x).mul(3)));
  const r = await runBoth(k, { x: Float32Array.of(1.25), o: new Float32Array(1) }, 1);
  expectBitwise(r.sim.o, r.interpret.o, 'sim vs interpreter');
  expect(r.sim.o[0]).toBe(3.75);
});
