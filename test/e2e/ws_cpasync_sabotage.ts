// The cp.async-fed warp-specialized matmul (ws_cpasync.ts) for the sabotage tests: its PTX, cut by
// ws_sabotage.ts's surgery, launched on the sim in place of the compiled kernel (ptx_in_place.ts).
// 128x128x64 on 4 warps, K = 512: 8 k-steps through 3 stages, so every stage is reused and both
// mbarriers of each stage cycle. Small-integer inputs: the right result is exact.
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { matmulSabotage } from './ptx_in_place.js';
import { wsPtrMatmul } from './ws_cpasync_cases.js';

const [M, N, K] = [128, 128, 512];
const ints = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 7) - 3);
const SPEC = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } };
const cp = matmulSabotage(f16Array(ints(M * K, 1)), f16Array(ints(K * N, 4)), [M, N, K], () =>
  compile(wsPtrMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } }), 'bitwise');

export const cpPtx = cp.ptx;
/** Whether `c` is not C = A B (exact), or a fault. */
export const isWrongCp = cp.isWrong;
/** Launches `ptx` in place of the compiled kernel's on one CTA: the result, or the launch's fault. */
export const launchCp = cp.launch;
