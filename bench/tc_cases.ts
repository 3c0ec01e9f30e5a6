// Problems for the tensor-core comparison (bench/tc_vs_triton.ts): per kernel of TC_KERNELS, the
// sim inputs (deterministic half values), the grid, the output to compare and an f64 JS reference.
// `size(s)` scales the main loop: s = 2 runs twice the k-steps (key blocks) of s = 1, so the
// difference of two one-program runs isolates what one loop iteration costs.
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../src/ir/half.js';
import { f8e4m3Value } from '../src/ir/fp8.js';
import { TC_FP8_KERNELS, TC_KERNELS, type BenchKernel, type Half } from './kernels.js';

/** Runtime arguments: half bit patterns, fp8 codes, f32 arrays, scalars. */
export type TcArg = Uint16Array | Uint8Array | Float32Array | number;

export interface TcProblem {
  /** Runtime arguments by parameter name: half inputs as bit patterns, f32 outputs, scalars. */
  readonly args: Readonly<Record<string, TcArg>>;
  readonly grid: readonly [number, number, number];
  /** Main-loop iterations each program runs. */
  readonly iterations: number;
  readonly out: string;
  /** The output in f64 from the same (rounded) inputs. */
  reference(): Float64Array;
  /** Largest |difference| allowed, relative to the reference's largest magnitude. */
  readonly tol: number;
}

export interface TcCase {
  /** Unique row name (kernel name, with the stage count when a kernel has several rows). */
  readonly label: string;
  readonly kernel: BenchKernel;
  readonly dtype: Half | 'f8e4m3';
  readonly numWarps: number;
  readonly numStages: number;
  size(s: number): TcProblem;
}

function halves(t: Half, n: number, seed: number): Uint16Array {
  let x = seed >>> 0;
  const f = Float32Array.from({ length: n }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 4 - 2);
  return t === 'f16' ? f16Array(f) : bf16Array(f);
}
const decode = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));

function matmulRef(a: Float32Array, b: Float32Array, M: number, N: number, K: number, batch: number): Float64Array {
  const c = new Float64Array(batch * M * N);
  for (let z = 0; z < batch; z++) for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) {
    const av = a[z * M * K + i * K + k]!;
    const row = z * M * N + i * N, brow = z * K * N + k * N;
    for (let j = 0; j < N; j++) c[row + j]! += av * b[brow + j]!;
  }
  return c;
}

function attentionRef(q: Float32Array, k: Float32Array, v: Float32Array, L: number, D: number, scale: number): Float64Array {
  const o = new Float64Array(L * D);
  const s = new Float64Array(L);
  for (let i = 0; i < L; i++) {
    let mx = -Infinity;
    for (let j = 0; j < L; j++) {
      let d = 0;
      for (let x = 0; x < D; x++) d += q[i * D + x]! * k[j * D + x]!;
      s[j] = d * scale;
      mx = Math.max(mx, s[j]!);
    }
    let sum = 0;
    for (let j = 0; j < L; j++) sum += (s[j] = Math.exp(s[j]! - mx));
    for (let j = 0; j < L; j++) for (let x = 0; x < D; x++) o[i * D + x]! += (s[j]! * v[j * D + x]!) / sum;
  }
  return o;
}

function matmulProblem(t: Half, M: number, N: number, K: number, batch: number, BM: number, BN: number, BK: number): TcProblem {
  const a = halves(t, batch * M * K, 11 + K), b = halves(t, batch * K * N, 12 + K);
  return {
    args: { a, b, c: new Float32Array(batch * M * N), M, N, K },
    grid: [Math.ceil(M / BM), Math.ceil(N / BN), batch],
    iterations: Math.ceil(K / BK),
    out: 'c',
    reference: () => matmulRef(decode(t, a), decode(t, b), M, N, K, batch),
    tol: 1e-5, // products of halves are exact in f32; sums differ in order only
  };
}

function flashProblem(t: Half, L: number, D: number, BM: number, BN: number): TcProblem {
  const q = halves(t, L * D, 21 + L), k = halves(t, L * D, 22 + L), v = halves(t, L * D, 23 + L);
  const scale = 1 / Math.sqrt(D);
  return {
    args: { q, k, v, o: new Float32Array(L * D), L, scale },
    grid: [L / BM, 1, 1],
    iterations: L / BN,
    out: 'o',
    reference: () => attentionRef(decode(t, q), decode(t, k), decode(t, v), L, D, scale),
    // P is rounded to the half type before the second dot (as in Triton): ~2^-8 (bf16), 2^-11 (f16)
    tol: t === 'bf16' ? 2e-2 : 4e-3,
  };
}

/** e4m3 codes of values in [-2, 2) (exponent field <= 7), the same LCG as `halves`. */
function fp8Codes(n: number, seed: number): Uint8Array {
  let x = seed >>> 0;
  return Uint8Array.from({ length: n }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 24) & 0xbf; // clear exponent bit 3: |v| < 2, never the NaN code
  });
}

function fp8MatmulProblem(M: number, N: number, K: number, BM: number, BN: number, BK: number): TcProblem {
  const a = fp8Codes(M * K, 31 + K), b = fp8Codes(K * N, 32 + K);
  const dec = (x: Uint8Array): Float32Array => Float32Array.from(x, f8e4m3Value);
  return {
    args: { a, b, c: new Float32Array(M * N), M, N, K },
    grid: [Math.ceil(M / BM), Math.ceil(N / BN), 1],
    iterations: Math.ceil(K / BK),
    out: 'c',
    reference: () => matmulRef(dec(a), dec(b), M, N, K, 1),
    tol: 1e-5, // products of fp8 values are exact in f32; sums differ in order only
  };
}

const byName = (name: string): BenchKernel => {
  const k = [...TC_KERNELS, ...TC_FP8_KERNELS].find((x) => x.def.name === name);
  if (!k) throw new Error(`no tensor-core bench kernel '${name}'`);
  return k;
};

/**
 * The rows of the comparison: every TC kernel at its numStages, plus the aligned matmul at 1 (no
 * pipelining); for sm_90a and sm_100a also the fp8 matmul (Triton has e4m3 dots from cc 89 on).
 */
export function tcCases(target: 'sm_80' | 'sm_90a' | 'sm_100a' = 'sm_80'): TcCase[] {
  const out: TcCase[] = [];
  for (const t of ['f16', 'bf16'] as const) {
    const row = (name: string, size: (s: number) => TcProblem, stages?: number, label = name): void => {
      const kernel = byName(name);
      out.push({ label, kernel, dtype: t, numWarps: kernel.options?.numWarps ?? 4, numStages: stages ?? kernel.options?.numStages ?? 3, size });
    };
    const { BM, BN, BK } = byName(`mm_aligned_${t}`).constexprs as { BM: number; BN: number; BK: number };
    // ragged in all three: 120 x 104 output over 64 x 64 tiles, K = 64s + 24 over k-steps of 32
    row(`mm_masked_${t}`, (s) => matmulProblem(t, 120, 104, 64 * s + 24, 1, BM, BN, BK));
    if (t === 'f16') row(`mm_aligned_${t}`, (s) => matmulProblem(t, 128, 128, 128 * s, 1, BM, BN, BK), 1, `mm_aligned_${t} ns1`);
    row(`mm_aligned_${t}`, (s) => matmulProblem(t, 128, 128, 128 * s, 1, BM, BN, BK));
    row(`mm_batched_${t}`, (s) => matmulProblem(t, 128, 128, 128 * s, 2, BM, BN, BK));
    const fa = byName(`flash_fwd_${t}`).constexprs as { BM: number; BN: number; D: number };
    row(`flash_fwd_${t}`, (s) => flashProblem(t, 256 * s, fa.D, fa.BM, fa.BN));
  }
  if (target !== 'sm_80') {
    const kernel = byName('mm_aligned_f8e4m3');
    const { BM, BN, BK } = kernel.constexprs as { BM: number; BN: number; BK: number };
    out.push({ label: 'mm_aligned_f8e4m3', kernel, dtype: 'f8e4m3', numWarps: 4, numStages: kernel.options?.numStages ?? 3, size: (s) => fp8MatmulProblem(128, 128, 128 * s, BM, BN, BK) });
  }
  return out;
}
