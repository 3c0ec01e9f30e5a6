// The benchmark kernels (bench/kernels.ts) stay real: each compiles and assembles for sm_80 and
// sm_90, and runs on the interpreter against a plain-JS reference (ragged sizes included).
import { describe, expect, it } from 'vitest';
import { BENCH_KERNELS, cumsumBlock, layerNorm, matmul, rmsNorm, softmax, vectorAdd } from '../../bench/kernels.js';
import { compile } from '../../src/compile/compile.js';
import { Kernel } from '../../src/runtime/kernel.js';

const rand = (n: number, seed: number): Float32Array => {
  let s = seed;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 30 - 1;
  });
};
const close = (got: Float32Array, want: number[], tol: number): void => {
  expect(got.length).toBe(want.length);
  let worst = 0;
  want.forEach((w, i) => (worst = Math.max(worst, Math.abs(got[i]! - w) / Math.max(1, Math.abs(w)))));
  expect(worst).toBeLessThan(tol);
};

describe('bench kernels compile', () => {
  for (const k of BENCH_KERNELS) {
    for (const target of ['sm_80', 'sm_90'] as const) {
      it(`${k.def.name} for ${target} (ptxas)`, () => {
        const r = compile(k.def.trace(k.constexprs), { target, ptxas: true });
        expect(r.cubin!.length).toBeGreaterThan(0);
        expect(r.metadata.spills ?? 0).toBe(0);
      });
    }
  }
});

describe('bench kernels run on the interpreter', () => {
  const rows = 3;
  const ncols = 100; // ragged: BLOCK 128
  const x = rand(rows * ncols, 1);
  const w = rand(ncols, 2);
  const b = rand(ncols, 3);
  const row = (r: number): number[] => Array.from(x.subarray(r * ncols, (r + 1) * ncols));

  it('vector_add', async () => {
    const n = 1000;
    const [p, q, out] = [rand(n, 4), rand(n, 5), new Float32Array(n)];
    await new Kernel(vectorAdd).run({ x: p, y: q, out, n, BLOCK: 256 }, { grid: Math.ceil(n / 256), device: 'interpret' });
    close(out, Array.from(p, (v, i) => v + q[i]!), 1e-6);
  });
  it('softmax', async () => {
    const out = new Float32Array(rows * ncols);
    await new Kernel(softmax).run({ x, out, stride: ncols, ncols, BLOCK: 128 }, { grid: rows, device: 'interpret' });
    const want = [0, 1, 2].flatMap((r) => {
      const v = row(r);
      const m = Math.max(...v);
      const e = v.map((t) => Math.exp(t - m));
      const s = e.reduce((a, c) => a + c, 0);
      return e.map((t) => t / s);
    });
    close(out, want, 1e-5);
  });
  it('layer_norm and rms_norm', async () => {
    const out = new Float32Array(rows * ncols);
    await new Kernel(layerNorm).run({ x, w, b, out, stride: ncols, ncols, eps: 1e-5, BLOCK: 128 }, { grid: rows, device: 'interpret' });
    const ln = [0, 1, 2].flatMap((r) => {
      const v = row(r);
      const mean = v.reduce((a, c) => a + c, 0) / ncols;
      const vr = v.reduce((a, c) => a + (c - mean) ** 2, 0) / ncols;
      return v.map((t, i) => ((t - mean) / Math.sqrt(vr + 1e-5)) * w[i]! + b[i]!);
    });
    close(out, ln, 1e-4);
    const out2 = new Float32Array(rows * ncols);
    await new Kernel(rmsNorm).run({ x, w, out: out2, stride: ncols, ncols, eps: 1e-5, BLOCK: 128 }, { grid: rows, device: 'interpret' });
    const rms = [0, 1, 2].flatMap((r) => {
      const v = row(r);
      const ms = v.reduce((a, c) => a + c * c, 0) / ncols;
      return v.map((t, i) => (t / Math.sqrt(ms + 1e-5)) * w[i]!);
    });
    close(out2, rms, 1e-4);
  });
  it('cumsum', async () => {
    const n = 300;
    const v = rand(n, 6);
    const out = new Float32Array(n);
    await new Kernel(cumsumBlock).run({ x: v, out, n, BLOCK: 128 }, { grid: 3, device: 'interpret' });
    const want: number[] = [];
    for (let i = 0; i < n; i++) want.push((i % 128 === 0 ? 0 : want[i - 1]!) + v[i]!);
    close(out, want, 1e-5);
  });
  it('matmul (ragged M, N, K)', async () => {
    const [M, N, K] = [37, 45, 21];
    const a = rand(M * K, 7);
    const bb = rand(K * N, 8);
    const c = new Float32Array(M * N);
    await new Kernel(matmul).run({ a, b: bb, c, M, N, K, BM: 32, BN: 32, BK: 8 }, { grid: [2, 2], device: 'interpret' });
    const want: number[] = [];
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a[i * K + k]! * bb[k * N + j]!;
      want.push(s);
    }
    close(c, want, 1e-5);
  });
});
