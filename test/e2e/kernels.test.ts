// Whole kernels written in the kernel language (src/lang) through the user-facing runtime:
// `kernel(spec, fn).run(args, { grid, device })` on 'interpret' and on 'sim', plus the benchmark
// kernels of bench/kernels.ts. Sizes are small with ragged edges (masks matter).
// Tolerances: f32 results that sum in a different order (reductions, dot) get 1e-5 relative
// between devices and 1e-4 against the f64 JS reference; exp/rsqrt are approximate in PTX.
import { describe, expect, it } from 'vitest';
import {
  arange, atomicAdd, constexpr, cumsum, dot, load, max, programId, ptr, range, store, sum, where, zeros, type KernelDef,
} from '../../src/lang/index.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { BENCH_KERNELS, TC_KERNELS, cumsumBlock, layerNorm, matmul, rmsNorm, softmax, vectorAdd } from '../../bench/kernels.js';
import { Kernel, kernel } from '../../src/runtime/kernel.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32, toBF16, toF16 } from '../../src/ir/half.js';
import { expectBitwise, expectClose, randF32, runBoth } from './helpers.js';

const cdiv = (a: number, b: number) => Math.ceil(a / b);

/** Row softmax reference (f64). */
function softmaxRef(x: Float32Array, rows: number, cols: number, stride = cols): Float64Array {
  const out = new Float64Array(rows * stride);
  for (let r = 0; r < rows; r++) {
    const row = Array.from(x.subarray(r * stride, r * stride + cols));
    const m = Math.max(...row);
    const e = row.map((v) => Math.exp(v - m));
    const s = e.reduce((a, b) => a + b, 0);
    e.forEach((v, c) => (out[r * stride + c] = v / s));
  }
  return out;
}

/** Per-row (mean, 1/sqrt(var + eps)) and 1/sqrt(mean(x^2) + eps) references. */
function rowStats(x: ArrayLike<number>, r: number, cols: number, stride: number, eps: number) {
  let s = 0, s2 = 0;
  for (let c = 0; c < cols; c++) { const v = x[r * stride + c]!; s += v; s2 += v * v; }
  const mean = s / cols;
  let v2 = 0;
  for (let c = 0; c < cols; c++) v2 += (x[r * stride + c]! - mean) ** 2;
  return { mean, rstd: 1 / Math.sqrt(v2 / cols + eps), rms: 1 / Math.sqrt(s2 / cols + eps) };
}

function matmulRef(a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float64Array {
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * N + j]!;
    c[i * N + j] = s;
  }
  return c;
}

describe('bench/kernels.ts', () => {
  it('every bench kernel has a case below (the tensor-core ones, TC_KERNELS, in matmul_tc.test.ts)', () => {
    const covered = [vectorAdd, softmax, layerNorm, rmsNorm, cumsumBlock, matmul] as unknown as KernelDef[];
    const names = [...covered.map((d) => d.name), ...TC_KERNELS.map((k) => k.def.name)];
    expect(BENCH_KERNELS.map((b) => b.def.name).sort()).toEqual(names.sort());
  });

  it('vector_add (n = 3000: a ragged last block)', async () => {
    const n = 3000, x = randF32(n, 1), y = randF32(n, 2);
    const r = await runBoth(new Kernel(vectorAdd), { x, y, out: new Float32Array(n), n, BLOCK: 1024 }, cdiv(n, 1024));
    expectBitwise(r.sim.out, r.interpret.out, 'sim vs interpreter');
    expectBitwise(r.sim.out, x.map((v, i) => v + y[i]!), 'sim vs JS');
  });

  it('softmax (5 rows of 1000 in a stride of 1024)', async () => {
    const rows = 5, ncols = 1000, stride = 1024;
    const x = randF32(rows * stride, 3, -4, 4);
    const r = await runBoth(new Kernel(softmax), { x, out: new Float32Array(rows * stride), stride, ncols, BLOCK: 1024 }, rows);
    expectClose(r.sim.out, r.interpret.out, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.out, softmaxRef(x, rows, ncols, stride), 1e-4, 'sim vs JS');
  });

  it('layer_norm (3 rows of 777)', async () => {
    const rows = 3, ncols = 777, stride = 800, eps = 1e-5;
    const x = randF32(rows * stride, 4), w = randF32(ncols, 5), b = randF32(ncols, 6);
    const r = await runBoth(new Kernel(layerNorm), { x, w, b, out: new Float32Array(rows * stride), stride, ncols, eps, BLOCK: 1024 }, rows);
    expectClose(r.sim.out, r.interpret.out, 1e-5, 'sim vs interpreter');
    const want = new Float64Array(rows * stride);
    for (let i = 0; i < rows; i++) {
      const { mean, rstd } = rowStats(x, i, ncols, stride, eps);
      for (let c = 0; c < ncols; c++) want[i * stride + c] = (x[i * stride + c]! - mean) * rstd * w[c]! + b[c]!;
    }
    expectClose(r.sim.out, want, 1e-4, 'sim vs JS');
  });

  it('rms_norm (3 rows of 777)', async () => {
    const rows = 3, ncols = 777, stride = 777, eps = 1e-6;
    const x = randF32(rows * stride, 7), w = randF32(ncols, 8);
    const r = await runBoth(new Kernel(rmsNorm), { x, w, out: new Float32Array(rows * stride), stride, ncols, eps, BLOCK: 1024 }, rows);
    expectClose(r.sim.out, r.interpret.out, 1e-5, 'sim vs interpreter');
    const want = new Float64Array(rows * stride);
    for (let i = 0; i < rows; i++) {
      const { rms } = rowStats(x, i, ncols, stride, eps);
      for (let c = 0; c < ncols; c++) want[i * stride + c] = x[i * stride + c]! * rms * w[c]!;
    }
    expectClose(r.sim.out, want, 1e-4, 'sim vs JS');
  });

  it('cumsum (n = 1500, BLOCK 512: three programs, the last ragged)', async () => {
    const n = 1500;
    // small integers: every partial sum is exact in f32, so all three must agree exactly
    const x = Float32Array.from({ length: n }, (_, i) => ((i * 7) % 13) - 6);
    const r = await runBoth(new Kernel(cumsumBlock), { x, out: new Float32Array(n), n, BLOCK: 512 }, cdiv(n, 512));
    expectBitwise(r.sim.out, r.interpret.out, 'sim vs interpreter');
    const want = new Float32Array(n);
    for (let i = 0, s = 0; i < n; i++) want[i] = s = i % 512 === 0 ? x[i]! : s + x[i]!;
    expectBitwise(r.sim.out, want, 'sim vs JS');
  });

  it('matmul (FMA dot; M, N, K = 40, 50, 36 with BM = BN = 32, BK = 8: ragged in every dimension)', async () => {
    const M = 40, N = 50, K = 36;
    const a = randF32(M * K, 9), b = randF32(K * N, 10);
    const r = await runBoth(new Kernel(matmul), { a, b, c: new Float32Array(M * N), M, N, K, BM: 32, BN: 32, BK: 8 }, [cdiv(M, 32), cdiv(N, 32)]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(a, b, M, N, K), 1e-4, 'sim vs JS');
  });
});

describe('more kernels', () => {
  const rmsnorm2d = kernel(
    { name: 'rmsnorm2d', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', ROWS: constexpr(), BLOCK: constexpr() } },
    ({ x, out, n, ROWS, BLOCK }) => {
      const r = programId(0).mul(ROWS).add(arange(0, ROWS)).expandDims(1);
      const c = arange(0, BLOCK).expandDims(0);
      const mask = c.lt(n).broadcastTo([ROWS as number, BLOCK as number]);
      const offs = r.mul(n).add(c);
      const v = load(x.add(offs), { mask, other: 0 });
      const ms = v.mul(v).sum(1).div(n.to('f32'));
      store(out.add(offs), v.div(ms.add(1e-6).sqrt().expandDims(1)), { mask });
    },
  );
  it('rmsnorm over a [ROWS, BLOCK] tile per program (2-D reduce along axis 1)', async () => {
    const R = 8, n = 200, ROWS = 4;
    const x = randF32(R * n, 11);
    const r = await runBoth(rmsnorm2d, { x, out: new Float32Array(R * n), n, ROWS, BLOCK: 256 }, R / ROWS);
    expectClose(r.sim.out, r.interpret.out, 1e-5, 'sim vs interpreter');
    const want = new Float64Array(R * n);
    for (let i = 0; i < R; i++) {
      const { rms } = rowStats(x, i, n, n, 1e-6);
      for (let c = 0; c < n; c++) want[i * n + c] = x[i * n + c]! * rms;
    }
    expectClose(r.sim.out, want, 1e-4, 'sim vs JS');
  });

  const layerNormF16 = kernel(
    { name: 'layer_norm_f16', params: { x: ptr('f16'), w: ptr('f16'), out: ptr('f16'), ncols: 'i32', BLOCK: constexpr() } },
    ({ x, w, out, ncols, BLOCK }) => {
      const row = programId(0);
      const cols = arange(0, BLOCK);
      const mask = cols.lt(ncols);
      const n = ncols.to('f32');
      const v = load(x.add(row.mul(ncols).add(cols)), { mask, other: 0 }).to('f32');
      const mean = sum(v, 0).div(n);
      const xm = where(mask, v.sub(mean), 0);
      const rstd = sum(xm.mul(xm), 0).div(n).add(1e-5).rsqrt();
      const y = xm.mul(rstd).mul(load(w.add(cols), { mask }).to('f32'));
      store(out.add(row.mul(ncols).add(cols)), y.to('f16'), { mask });
    },
  );
  it('layer norm in f16 (f32 math, 4 rows of 300)', async () => {
    const rows = 4, ncols = 300;
    const x = f16Array(randF32(rows * ncols, 12)), w = f16Array(randF32(ncols, 13, 0.5, 1.5));
    const r = await runBoth(layerNormF16, { x, w, out: new Uint16Array(rows * ncols), ncols, BLOCK: 512 }, rows);
    // f16 outputs may differ by one ulp where the f32 values straddle a rounding boundary
    expectClose(f16ToFloat32(r.sim.out), f16ToFloat32(r.interpret.out), 1e-3, 'sim vs interpreter');
    const xf = f16ToFloat32(x), wf = f16ToFloat32(w);
    const want = new Float64Array(rows * ncols);
    for (let i = 0; i < rows; i++) {
      const { mean, rstd } = rowStats(xf, i, ncols, ncols, 1e-5);
      for (let c = 0; c < ncols; c++) want[i * ncols + c] = toF16((xf[i * ncols + c]! - mean) * rstd * wf[c]!);
    }
    expectClose(f16ToFloat32(r.sim.out), want, 2e-3, 'sim vs JS');
  });

  const rmsNormBF16 = kernel(
    { name: 'rms_norm_bf16', params: { x: ptr('bf16'), out: ptr('bf16'), ncols: 'i32', BLOCK: constexpr() } },
    ({ x, out, ncols, BLOCK }) => {
      const row = programId(0);
      const cols = arange(0, BLOCK);
      const mask = cols.lt(ncols);
      const v = load(x.add(row.mul(ncols).add(cols)), { mask, other: 0 }).to('f32');
      const rstd = sum(v.mul(v), 0).div(ncols.to('f32')).add(1e-6).rsqrt();
      store(out.add(row.mul(ncols).add(cols)), v.mul(rstd).to('bf16'), { mask });
    },
  );
  it('rms norm in bf16 (f32 math, 3 rows of 130)', async () => {
    const rows = 3, ncols = 130;
    const x = bf16Array(randF32(rows * ncols, 14));
    const r = await runBoth(rmsNormBF16, { x, out: new Uint16Array(rows * ncols), ncols, BLOCK: 256 }, rows);
    expectClose(bf16ToFloat32(r.sim.out), bf16ToFloat32(r.interpret.out), 8e-3, 'sim vs interpreter (one bf16 ulp)');
    const xf = bf16ToFloat32(x);
    const want = new Float64Array(rows * ncols);
    for (let i = 0; i < rows; i++) {
      const { rms } = rowStats(xf, i, ncols, ncols, 1e-6);
      for (let c = 0; c < ncols; c++) want[i * ncols + c] = toBF16(xf[i * ncols + c]! * rms);
    }
    expectClose(bf16ToFloat32(r.sim.out), want, 8e-3, 'sim vs JS');
  });

  const intCumsum = kernel(
    { name: 'cumsum_i32', params: { x: ptr('i32'), out: ptr('i32'), BLOCK: constexpr() } },
    ({ x, out, BLOCK }) => {
      const i = arange(0, BLOCK);
      store(out.add(i), cumsum(load(x.add(i)), 0));
    },
  );
  it('i32 cumsum over 512 elements with wraparound', async () => {
    const x = Int32Array.from({ length: 512 }, (_, i) => (i % 3 === 0 ? 2 ** 30 : ((i * 7) % 13) - 6));
    const r = await runBoth(intCumsum, { x, out: new Int32Array(512), BLOCK: 512 }, 1);
    expectBitwise(r.sim.out, r.interpret.out, 'sim vs interpreter');
    let s = 0;
    expectBitwise(r.sim.out, Int32Array.from(x, (v) => (s = (s + v) | 0)), 'sim vs JS');
  });

  const matmulRange = kernel(
    { name: 'matmul_range', params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
    ({ a, b, c, N, K, BM, BN, BK }) => {
      const rm = programId(0).mul(BM).add(arange(0, BM)).expandDims(1);
      const rn = programId(1).mul(BN).add(arange(0, BN)).expandDims(0);
      const rk = arange(0, BK);
      const [acc] = range(0, K.floordiv(BK), [zeros([BM as number, BN as number])], (kk, acc) => {
        const k0 = kk.mul(BK).add(rk);
        const av = load(a.add(rm.mul(K).add(k0.expandDims(0))));
        const bv = load(b.add(k0.expandDims(1).mul(N).add(rn)));
        return [dot(av, bv, { acc })];
      });
      store(c.add(rm.mul(N).add(rn)), acc!);
    },
  );
  it('matmul with range() and a 2-D grid (64 x 64 x 64, 8 warps; default tf32 inputs on tensor cores)', async () => {
    const M = 64, N = 64, K = 64;
    const a = randF32(M * K, 15), b = randF32(K * N, 16);
    const r = await runBoth(matmulRange, { a, b, c: new Float32Array(M * N), N, K, BM: 32, BN: 32, BK: 16 }, [2, 2], { numWarps: 8 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    // the reference sums the same tf32-rounded inputs (products exact): only the f32 sums differ
    expectClose(r.sim.c, matmulRef(a.map(roundTF32), b.map(roundTF32), M, N, K), 1e-4, 'sim vs JS');
  });

  const histogram = kernel(
    { name: 'histogram', params: { x: ptr('i32'), bins: ptr('i32'), n: 'i32', BLOCK: constexpr() } },
    ({ x, bins, n, BLOCK }) => {
      const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
      const mask = offs.lt(n);
      atomicAdd(bins.add(load(x.add(offs), { mask, other: 0 })), 1, { mask });
    },
  );
  it('histogram with atomicAdd from 4 programs (n = 1000)', async () => {
    const n = 1000;
    const x = Int32Array.from({ length: n }, (_, i) => (i * 31) % 10);
    const r = await runBoth(histogram, { x, bins: new Int32Array(10), n, BLOCK: 256 }, cdiv(n, 256));
    expectBitwise(r.sim.bins, r.interpret.bins, 'sim vs interpreter');
    const want = new Int32Array(10);
    x.forEach((v) => want[v]!++);
    expectBitwise(r.sim.bins, want, 'sim vs JS');
  });

  const rowMax = kernel(
    { name: 'row_max', params: { x: ptr('f32'), out: ptr('f32'), cols: 'i32', BLOCK: constexpr() } },
    ({ x, out, cols, BLOCK }) => {
      const offs = arange(0, BLOCK);
      const v = load(x.add(programId(0).mul(cols).add(offs)), { mask: offs.lt(cols), other: -Infinity });
      store(out.add(programId(0)), max(v, 0));
    },
  );
  it.each([1, 2, 4])('row max with masked -inf padding, %i warps', async (numWarps) => {
    const rows = 6, cols = 37;
    const x = randF32(rows * cols, 17, -100, -1);
    const r = await runBoth(rowMax, { x, out: new Float32Array(rows), cols, BLOCK: 64 }, rows, { numWarps });
    expectBitwise(r.sim.out, r.interpret.out, 'sim vs interpreter');
    expectBitwise(r.sim.out, Float32Array.from({ length: rows }, (_, i) => Math.max(...x.subarray(i * cols, i * cols + cols))), 'sim vs JS');
  });
});
