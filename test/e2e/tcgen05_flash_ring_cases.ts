// Flash attention's TMA form (bench/fa3_kernels.ts without `WS`) on sm_100a, for the e2e tests of
// its key loop on the TMA ring (pipeline/lower_tma_ring.ts: K and V tiles of iteration i+S-1
// issued while iteration i's tcgen05 MMAs run): the shapes, a compile for sm_100a and the
// launch of a (possibly sabotaged) PTX on the sim in place of the compiled one.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { fa3Attention, fa3Inputs, fa3Want } from './fa3_cases.js';
import { cutTheWait, launchInPlace } from './ptx_in_place.js';

export { fa3Attention, fa3Inputs, fa3Want };

export interface RingShape {
  readonly L: number;
  readonly D: 64 | 128;
  readonly BN: 64 | 128;
  /** BM = 16 * warps: 64 query rows on 4 warps, 128 on 8 (tcgen05 M 64 / 128). */
  readonly warps: 4 | 8;
  readonly stages: number;
  readonly causal: boolean;
}

export const ringBm = (s: Pick<RingShape, 'warps'>): number => 16 * s.warps;

/** The kernel for sm_100a at `s`, with `stages` stages (1: the unpipelined loop). */
export const compileRing = (s: Omit<RingShape, 'L'>, stages = s.stages, ptxas = false): CompileResult =>
  compile(fa3Attention, { target: 'sm_100a', numWarps: s.warps, numStages: stages, ptxas, constexprs: { BM: ringBm(s), BN: s.BN, D: s.D, CAUSAL: s.causal, WS: false } });

// ---- sabotage: string surgery on the ring's PTX, launched on the sim -----------------------------

/** The sabotage problem: one program of 64 rows, 512 keys in BN = 64 blocks through 2 stages (each stage refilled 3 times). */
export const SAB: RingShape = { L: 512, D: 64, BN: 64, warps: 4, stages: 2, causal: false };
const sabIn = fa3Inputs(SAB.L, SAB.D, 83);
let built: CompileResult | undefined;
export const sabKernel = (): CompileResult => (built ??= compileRing(SAB));
/** The first program's rows of the reference. */
export const sabWant = (): Float64Array => fa3Want(sabIn, SAB.L, SAB.D, false).slice(0, ringBm(SAB) * SAB.D);
export const sabWrong = (o: Float32Array | Error): boolean => {
  const want = sabWant();
  return o instanceof Error || o.some((x, i) => !(Math.abs(x - want[i]!) <= 2e-3 * (1 + Math.abs(want[i]!))));
};

/** Launches `ptx` in place of the compiled kernel's, one program (its rows of O), or the launch's fault. */
export function launchRing(ptx: string): Float32Array | Error {
  const { L, D } = SAB;
  const o = launchInPlace<Float32Array>(sabKernel(), ptx, [sabIn.q, sabIn.k, sabIn.v, new Float32Array(L * D), L, sabIn.scale], [1, 1, 1], 3);
  return o instanceof Error ? o : o.slice(0, ringBm(SAB) * D);
}

/** The ring loop's PTX without its one full-barrier wait (the MMAs read a stage before its K and V landed). */
export function dropFullWait(ptx: string): string {
  const top = ptx.search(/\n\$L_tfor_\d+:/);
  const end = ptx.search(/\n\$L_endtfor_\d+:/);
  if (top < 0 || end < top) throw new Error('no TMA ring loop in the PTX');
  return ptx.slice(0, top) + cutTheWait(ptx.slice(top, end)) + ptx.slice(end);
}
