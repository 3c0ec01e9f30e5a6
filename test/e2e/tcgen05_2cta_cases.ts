// Shared by the 2-CTA tcgen05 tests (tcgen05_2cta, tcgen05_2cta_ws and their sabotage): the descriptor matmul
// of desc_matmul_cases.ts (one BM x BN tile per program, programId(0) along M) on its integer
// problems with BM 128 and the M tiles rounded up to whole pairs, the compile for sm_100a with or
// without `twoCta`, a launch of given PTX on the sim in [2, 1, 1] clusters, and the bit-exact
// case loop both pair tests run.
import { expect } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import * as desc from './desc_matmul_cases.js';
import { expectBitwise, runOn } from './helpers.js';

export { traced, type Half } from './desc_matmul_cases.js';
export const CLUSTER = [2, 1, 1] as const;

/**
 * C = A B (f32) through descriptors: one BM x BN tile per program, the K loop on the ring (`ws`:
 * warp-specialized, a load warp, an MMA warp and epilogue warps: pipeline/ws_tcgen05.ts).
 */
export const mmDesc = (t: desc.Half, ws = false): Kernel => desc.mmDesc(t, `tc2_${t}${ws ? '_ws' : ''}`, { ws });

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

/** The compile's pipeline note (what the pipeliner did, and why not where it did not). */
export const pipelineNote = (r: { stages: readonly { name: string; text: string }[] }): string => r.stages.find((s) => s.name === 'pipeline')!.text;

/** The problems of the bit-exact pair cases: K loops of 1 and 7, 4 and 8 warps, ragged along N and along M. */
export const PAIR_CASES: readonly (readonly [string, Problem])[] = [
  ['256x128x64 (N per CTA 64), 4 warps, K loop of 1', { M: 256, N: 128, K: 64, BN: 128, BK: 64, numWarps: 4 }],
  ['256x256x64 (N per CTA 128), 8 warps, K loop of 1', { M: 256, N: 256, K: 64, BN: 256, BK: 64, numWarps: 8 }],
  ['256x128x448: K loop of 7 (> 3 stages)', { M: 256, N: 128, K: 448, BN: 128, BK: 64, numWarps: 4 }],
  ['ragged 200x136x200 (two pairs along N, K not a multiple of BK)', { M: 200, N: 136, K: 200, BN: 128, BK: 64, numWarps: 4 }],
  ['ragged 300x256x136, 8 warps: two pairs along M, the last CTA all out of range', { M: 300, N: 256, K: 136, BN: 256, BK: 64, numWarps: 8 }],
];

/** What a pair test checks beyond the shared steps: the pair kernel's compile, the cta_group::1 kernel's, and the messages of the two comparisons. */
export interface PairChecks {
  pair(r: CompileResult): void;
  one?(r: CompileResult): void;
  /** The pair's result against JS, and against the same kernel on cta_group::1. */
  vsJs: string;
  vsOne: string;
}

/**
 * One bit-exact pair case: the pair kernel (through ptxas, no spills) checked by `c.pair`, its
 * result on the sim against JS, against the same kernel on cta_group::1 in the same clusters (no
 * cta_group::2 in its PTX, then `c.one`), and against the interpreter.
 */
export async function checkPairCase(k: Kernel, t: desc.Half, p: Problem, seed: number, c: PairChecks): Promise<void> {
  const { args, want, grid } = problem(t, p, seed);
  const pair = build(k, args, p.numWarps, true, { ptxas: true });
  expect(pair.metadata.spills, pair.metadata.ptxasLog).toBe(0);
  c.pair(pair);
  const got = runPtx(k, args, grid, pair);
  expectBitwise(got, want, c.vsJs);
  const one = build(k, args, p.numWarps, false);
  expect(one.ptx).not.toMatch(/cta_group::2/);
  c.one?.(one);
  expectBitwise(got, runPtx(k, args, grid, one), c.vsOne);
  const mine = { ...args, c: new Float32Array(p.M * p.N) };
  await runOn('interpret', k, mine, grid, { numWarps: p.numWarps });
  expectBitwise(got, mine.c, 'pair vs the interpreter');
}

/** The skew sabotage tests' problem (tcgen05_2cta_sabotage, tcgen05_2cta_ws_sabotage): one pair along M, a K loop of 1. */
export const SKEW_PROBLEM: Problem = { M: 256, N: 128, K: 64, BN: 128, BK: 64, numWarps: 4 };

/** A sabotaged pair kernel under skew: a named fault of the sim, or a result that is not `want`. */
export function expectWrongOrFault(k: Kernel, args: Record<string, unknown>, grid: readonly number[], r: CompileResult, want: Float32Array): void {
  let got: Float32Array | undefined;
  try {
    got = runPtx(k, args, grid, r);
  } catch (e) {
    expect((e as Error).message).toMatch(/tessera-sim: /);
    return;
  }
  expect(got.some((x, i) => x !== want[i]), 'the sabotaged pair kernel gave the right result').toBe(true);
}
