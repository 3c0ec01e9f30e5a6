// Shared by the tcgen05 epilogue tests (tcgen05_epilogue.test.ts and its sabotage): kernels with
// pointer and descriptor (desc_matmul_cases.ts) stores of a tcgen05 accumulator, integer inputs and their JS reference,
// the sm_100a compile as the sim device specializes it, and a launch of given PTX on the sim.
import type { CompileResult } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { constexpr, ptr } from '../../src/lang/index.js';
import type { Kernel } from '../../src/runtime/kernel.js';
import * as desc from './desc_matmul_cases.js';
import { ints, traced } from './desc_matmul_cases.js';
export { ints, sm100 } from './desc_matmul_cases.js';
import { launchInPlace } from './ptx_in_place.js';

export type Out = 'f32' | 'f16';
export const mmParams = (out: Out) => ({ a: ptr('f16'), b: ptr('f16'), c: ptr(out), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() }) as const;

/** C = A B through descriptors (the TMA ring), C in f32 or f16. */
const mmDesc = (out: Out): Kernel => desc.mmDesc('f16', `epi_desc_${out}`, { out });
export const DESC = { f32: mmDesc('f32'), f16: mmDesc('f16') };

/** C (+ c0) = A B in f32, then in the output's type. */
export function reference(a: Float32Array, b: Float32Array, M: number, N: number, K: number, out: Out, c0?: Float32Array): Float32Array | Uint16Array {
  const c = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = c0 ? c0[i * N + j]! : 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * N + j]!;
    c[i * N + j] = s;
  }
  return out === 'f16' ? f16Array(c) : c;
}

export interface Problem { M: number; N: number; K: number; BM: number; BN: number; BK: number; numWarps: number }
export function problem(p: Problem, out: Out, seed: number, c0?: Float32Array) {
  const af = ints(p.M * p.K, seed), bf = ints(p.K * p.N, seed + 1);
  const c = c0 ? c0.slice() : out === 'f16' ? new Uint16Array(p.M * p.N) : new Float32Array(p.M * p.N);
  const args = { a: f16Array(af), b: f16Array(bf), c, M: p.M, N: p.N, K: p.K, BM: p.BM, BN: p.BN, BK: p.BK };
  return { args, want: reference(af, bf, p.M, p.N, p.K, out, c0), grid: [Math.ceil(p.M / p.BM), Math.ceil(p.N / p.BN), 1] as const };
}

/** Runs `ptx` (the compiled kernel's text, or a sabotaged copy) on the sim; returns c's bytes, or throws the launch's fault. */
export function runPtx(k: Kernel, args: Record<string, unknown>, grid: readonly number[], r: CompileResult, ptx: string): ArrayBufferView {
  const c = launchInPlace(r, ptx, traced(k, args).positional, grid as [number, number, number], 2);
  if (c instanceof Error) throw c;
  return c;
}
