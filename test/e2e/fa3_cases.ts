// FA3-style attention (bench/fa3_kernels.ts) for the e2e tests: the f64 JS reference, a compile for
// sm_90a, and the launch of a (possibly sabotaged) PTX on the sim in place of the compiled one.
import { expect } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { fa3Attention } from '../../bench/fa3_kernels.js';
import { expectClose, randF32 } from './helpers.js';
import { attentionRef } from './tc_matmul_cases.js';
import { cutTheWait, launchInPlace, MBARRIER_WAIT_LOOP } from './ptx_in_place.js';

export { fa3Attention };

export interface Fa3Shape {
  readonly L: number;
  readonly D: 64 | 128;
  readonly BN: number;
  readonly stages: number;
  readonly causal: boolean;
  /** 8 (default): two consumer warpgroups of 64 rows, BM 128; 4: one consumer warpgroup, BM 64. */
  readonly warps?: 4 | 8;
}

/** Inputs of one problem: q, k, v as f16 codes, the scale. */
export function fa3Inputs(L: number, D: number, seed: number): { q: Uint16Array; k: Uint16Array; v: Uint16Array; scale: number } {
  return { q: f16Array(randF32(L * D, seed)), k: f16Array(randF32(L * D, seed + 1)), v: f16Array(randF32(L * D, seed + 2)), scale: 1 / Math.sqrt(D) };
}

/** O = softmax(scale Q K^T [+ causal mask]) V in f64, from the f16 inputs as floats. */
export const fa3Want = (x: { q: Uint16Array; k: Uint16Array; v: Uint16Array; scale: number }, L: number, D: number, causal: boolean): Float64Array =>
  attentionRef(f16ToFloat32(x.q), f16ToFloat32(x.k), f16ToFloat32(x.v), L, D, x.scale, causal);

/** 128 query rows per program on 8 warps (two consumer warpgroups of 64 rows). */
export const FA3_BM = 128;
export const FA3_WARPS = 8;

/** The consumer warps of a shape and its query rows per program (64 per consumer warpgroup). */
export const fa3Warps = (s: Pick<Fa3Shape, 'warps'>): number => s.warps ?? FA3_WARPS;
export const fa3Bm = (s: Pick<Fa3Shape, 'warps'>): number => 16 * fa3Warps(s);

export const compileFa3 = (s: Omit<Fa3Shape, 'L'>, ws: boolean, ptxas = false): CompileResult =>
  compile(fa3Attention, { target: 'sm_90a', numWarps: fa3Warps(s), numStages: s.stages, ptxas, constexprs: { BM: fa3Bm(s), BN: s.BN, D: s.D, CAUSAL: s.causal, WS: ws } });

// ---- sabotage: string surgery on the warp-specialized PTX, launched on the sim ----------------

/** The sabotage problem: one program, 512 keys in BN = 64 blocks through 2 stages (each stage reused 3 times). */
export const SAB: Fa3Shape = { L: 512, D: 64, BN: 64, stages: 2, causal: false };
const sabIn = fa3Inputs(SAB.L, SAB.D, 71);
let built: CompileResult | undefined;
export const sabPtx = (): string => (built ??= compileFa3(SAB, true)).ptx;
/** The first 128 rows of the reference (the program the sabotage launches). */
export const sabWant = (): Float64Array => fa3Want(sabIn, SAB.L, SAB.D, false).slice(0, FA3_BM * SAB.D);
export const sabWrong = (o: Float32Array | Error): boolean => {
  const want = sabWant();
  return o instanceof Error || o.some((x, i) => !(Math.abs(x - want[i]!) <= 2e-3 * (1 + Math.abs(want[i]!))));
};

/** The control both sabotage files run: the unsabotaged PTX, launched the same way, is right. */
export function expectFa3Control(): void {
  const o = launchFa3(sabPtx());
  expect(o).toBeInstanceOf(Float32Array);
  expectClose(o as Float32Array, sabWant(), 2e-3, 'sim vs JS');
}

/** Launches `ptx` in place of the compiled kernel's, one program (rows 0..127): its rows of O, or the launch's fault. */
export function launchFa3(ptx: string): Float32Array | Error {
  const { L, D } = SAB;
  const o = launchInPlace<Float32Array>((built ??= compileFa3(SAB, true)), ptx, [sabIn.q, sabIn.k, sabIn.v, new Float32Array(L * D), L, sabIn.scale], [1, 1, 1], 3);
  return o instanceof Error ? o : o.slice(0, FA3_BM * D);
}

/**
 * Drops the consumers' wait on the ring's full mbarrier (the first wait after the consumer loop's
 * comment; Q's own TMA wait before the loop stays) or the producer's wait on the empty mbarrier.
 */
export function dropFa3Wait(ptx: string, part: 'consumer' | 'producer'): string {
  const at = ptx.indexOf('ws_producer:');
  expect(at).toBeGreaterThan(0);
  if (part === 'producer') {
    return ptx.slice(0, at) + cutTheWait(ptx.slice(at));
  }
  const loop = ptx.indexOf('// warp-specialized loop (consumers)');
  expect(loop).toBeGreaterThan(0);
  const tail = ptx.slice(loop, at);
  expect(MBARRIER_WAIT_LOOP.test(tail)).toBe(true);
  return ptx.slice(0, loop) + tail.replace(MBARRIER_WAIT_LOOP, '') + ptx.slice(at);
}
