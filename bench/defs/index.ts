// Benchmark definitions for `tessera bench NAME`: x values, lines and what to measure for each of
// the benchmark kernels (bench/kernels.ts, attention.ts). Sizes: 'full' for a GPU, 'small' for the
// sim and the interpreter (CPU simulators: a 4096-row softmax would take minutes there).
import type { KernelDef } from '../../src/lang/index.js';
import { DeviceArray, Kernel, type BenchDefinition, type Device, type BenchCase } from '../../src/runtime/index.js';
import { layerNorm, matmul, rmsNorm, softmax, vectorAdd } from '../kernels.js';
import { attention } from './attention.js';

export type Sizes = 'small' | 'full';

const wrap = (d: unknown): Kernel => new Kernel(d as KernelDef);
const K = { vectorAdd: wrap(vectorAdd), softmax: wrap(softmax), layerNorm: wrap(layerNorm), rmsNorm: wrap(rmsNorm), matmul: wrap(matmul), attention: wrap(attention) };

/** Deterministic inputs (a small LCG) on the device, so every run times the same data and no copies. */
let held: DeviceArray[] = [];
function rand(n: number, seed: number, device: Device): DeviceArray<'f32'> {
  const a = DeviceArray.from(randHost(n, seed), 'f32', { device });
  held.push(a);
  return a;
}
function empty(n: number, device: Device): DeviceArray<'f32'> {
  const a = DeviceArray.empty([n], 'f32', { device });
  held.push(a);
  return a;
}
/** Adds `dispose` (frees the case's arrays) to a case built by `make`. */
function owned(make: () => Omit<BenchCase, 'dispose'>): BenchCase {
  held = [];
  const c = make();
  const mine = held;
  return { ...c, dispose: () => mine.forEach((a) => a.free()) };
}

function randHost(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 2 ** 32 - 0.5;
  }
  return a;
}

const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
const nw = (line: string): number => Number(/nw=(\d+)/.exec(line)?.[1] ?? 4);
const run = (k: Kernel, args: Record<string, unknown>, grid: readonly number[], numWarps: number, device: Device): (() => Promise<void>) =>
  async () => {
    await k.run(args as never, { grid, numWarps, device });
  };

/** Row kernels (softmax, layernorm, rmsnorm): ROWS rows of x columns, one row per program. */
function rowCase(kind: 'softmax' | 'layernorm' | 'rmsnorm', rows: number, cols: number, line: string, device: Device): BenchCase {
  const x = rand(rows * cols, 1, device);
  const out = empty(rows * cols, device);
  const BLOCK = pow2(cols);
  const w = rand(cols, 2, device);
  const b = rand(cols, 3, device);
  const args = kind === 'softmax' ? { x, out, stride: cols, ncols: cols, BLOCK }
    : kind === 'layernorm' ? { x, w, b, out, stride: cols, ncols: cols, eps: 1e-5, BLOCK }
    : { x, w, out, stride: cols, ncols: cols, eps: 1e-6, BLOCK };
  const k = kind === 'softmax' ? K.softmax : kind === 'layernorm' ? K.layerNorm : K.rmsNorm;
  return { run: run(k, args, [rows], nw(line), device), bytes: 2 * rows * cols * 4 };
}

export function benchDefinitions(sizes: Sizes): readonly BenchDefinition[] {
  const small = sizes === 'small';
  const ROWS = small ? 4 : 4096;
  const rowX = small ? [64, 128, 256] : [256, 512, 1024, 2048, 4096];
  const warpLines = ['tessera nw=1', 'tessera nw=4'];
  const rowDef = (name: 'softmax' | 'layernorm' | 'rmsnorm', description: string): BenchDefinition => ({
    name, description: `${description}, ${ROWS} rows`, xName: 'columns', xValues: rowX, lines: warpLines, measure: 'GB/s',
    setup: (line, x, device) => owned(() => rowCase(name, ROWS, x, line, device)),
  });
  return [
    {
      name: 'vector-add', description: 'out = x + y (f32)', xName: 'elements', measure: 'GB/s',
      xValues: small ? [1024, 4096, 16384] : [2 ** 16, 2 ** 20, 2 ** 24, 2 ** 26],
      lines: ['tessera BLOCK=256', 'tessera BLOCK=1024'],
      setup: (line, n, device) => owned(() => {
        const BLOCK = Number(/BLOCK=(\d+)/.exec(line)![1]);
        const x = rand(n, 1, device);
        const y = rand(n, 2, device);
        const out = empty(n, device);
        return { run: run(K.vectorAdd, { x, y, out, n, BLOCK }, [Math.ceil(n / BLOCK)], 4, device), bytes: 3 * n * 4 };
      }),
    },
    rowDef('softmax', 'row softmax (f32)'),
    rowDef('layernorm', 'LayerNorm over rows (f32)'),
    rowDef('rmsnorm', 'RMSNorm over rows (f32)'),
    {
      name: 'matmul', description: 'C = A @ B, square, f32 (dot lowered to FMA)', xName: 'M=N=K', measure: 'TFLOP/s',
      xValues: small ? [16, 32, 64] : [256, 512, 1024, 2048],
      lines: ['tessera 32x32x8', 'tessera 64x64x16'],
      setup: (line, n, device) => owned(() => {
        const [BM, BN, BK] = /(\d+)x(\d+)x(\d+)/.exec(line)!.slice(1).map(Number) as [number, number, number];
        const a = rand(n * n, 1, device);
        const b = rand(n * n, 2, device);
        const c = empty(n * n, device);
        return { run: run(K.matmul, { a, b, c, M: n, N: n, K: n, BM, BN, BK }, [Math.ceil(n / BM), Math.ceil(n / BN)], 4, device), flops: 2 * n ** 3 };
      }),
    },
    {
      name: 'attention', description: 'one-head attention forward, head dim 32, f32 inputs (dots in tf32, the default)', xName: 'sequence length', measure: 'TFLOP/s',
      xValues: small ? [16, 32, 64] : [512, 1024, 2048, 4096],
      lines: ['tessera BM=16 BN=16', 'tessera BM=32 BN=32'],
      setup: (line, L, device) => owned(() => {
        const [BM, BN] = /BM=(\d+) BN=(\d+)/.exec(line)!.slice(1).map(Number) as [number, number];
        const D = 32;
        const q = rand(L * D, 1, device);
        const k = rand(L * D, 2, device);
        const v = rand(L * D, 3, device);
        const o = empty(L * D, device);
        return { run: run(K.attention, { q, k, v, o, L, scale: 1 / Math.sqrt(D), D, BM, BN }, [Math.ceil(L / BM)], 4, device), flops: 4 * L * L * D };
      }),
    },
  ];
}
