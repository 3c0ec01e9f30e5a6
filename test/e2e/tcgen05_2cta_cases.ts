// Shared by the 2-CTA tcgen05 tests (tcgen05_2cta.test.ts and its sabotage): the descriptor matmul
// of desc_matmul_cases.ts (one BM x BN tile per program, programId(0) along M) on its integer
// problems with BM 128 and the M tiles rounded up to whole pairs, the compile for sm_100a with or
// without `twoCta`, and a launch of given PTX on the sim in [2, 1, 1] clusters.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import * as desc from './desc_matmul_cases.js';

export { traced, type Half } from './desc_matmul_cases.js';
export const CLUSTER = [2, 1, 1] as const;

/**
 * C = A B (f32) through descriptors: one BM x BN tile per program, the K loop on the ring (`ws`:
 * warp-specialized, a load warp, an MMA warp and epilogue warps: pipeline/ws_tcgen05.ts).
 */
export const mmDesc = (t: desc.Half, ws = false): Kernel => desc.mmDesc(t, `tc2_${t}${ws ? '_ws' : ''}`, ws);

export interface Problem { M: number; N: number; K: number; BN: number; BK: number; numWarps: number }
/** The arguments (BM 128), the JS reference and the grid: M tiles rounded up to whole pairs. */
export function problem(t: desc.Half, p: Problem, seed: number) {
  const { args, want } = desc.problem(t, { ...p, BM: 128 }, seed);
  return { args, want, grid: [2 * Math.ceil(p.M / 256), Math.ceil(p.N / p.BN), 1] as const };
}

/** The sm_100a kernel as the sim device specializes it: 2-CTA (clusterDims [2, 1, 1]) or not. */
export function build(k: Kernel, args: Record<string, unknown>, numWarps: number, twoCta: boolean, opts: { numStages?: number; ptxas?: boolean; twoCtaSabotage?: 'no-peer-wait' } = {}): CompileResult {
  const { f, positional } = desc.traced(k, args);
  return compile(f, {
    target: 'sm_100a', numWarps, numStages: opts.numStages ?? 3, ptxas: opts.ptxas ?? false, specialization: launchSpecialization(f, positional),
    ...(twoCta ? { twoCta: true, clusterDims: CLUSTER } : {}), ...(opts.twoCtaSabotage ? { twoCtaSabotage: opts.twoCtaSabotage } : {}),
  });
}

/** Runs `ptx` (the compiled kernel's text, or a sabotaged copy) on the sim, in [2, 1, 1] clusters; returns c. */
export const runPtx = (k: Kernel, args: Record<string, unknown>, grid: readonly number[], r: CompileResult, ptx = r.ptx): Float32Array =>
  desc.runPtx(k, args, grid, r, ptx, CLUSTER);
