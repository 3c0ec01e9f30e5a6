// String surgery on a warp-specialized tcgen05 matmul's PTX (pipeline/ws_tcgen05.ts) and its
// launch on the sim in place of the compiled kernel, for the sabotage tests: each cut must give a
// wrong result or a named fault, never a pass. 128x128x64 on 4 warps, K = 512: 8 k-steps through
// 3 stages, so every stage is reused and its full and empty mbarriers cycle. Inputs are small
// integers (every order of summation exact), so "wrong" is any bit off the reference.
import { expect } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { ACC_FULL_WAIT, WS_MMA } from '../../src/codegen/pipeline/ws_tcgen05.js';
import { ints } from './desc_matmul_cases.js';
import { expectBitwise } from './helpers.js';
import { cutTheWait, matmulSabotage } from './ptx_in_place.js';
import { wsMatmul } from './ws_cases.js';

const [M, N, K] = [128, 128, 512];
const tc = matmulSabotage(f16Array(ints(M * K, 61)), f16Array(ints(K * N, 62)), [M, N, K], () =>
  compile(wsMatmul, { target: 'sm_100a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } }), 'bitwise');
export const wsTcPtx = tc.ptx;
/** C = A B (exact in f32). */
export const wsTcWant = tc.wantF32;
export const isWrongTc = tc.isWrong;
/** Launches `ptx` in place of the compiled kernel's on one CTA: the result, or the launch's fault (ptx_in_place.ts). */
export const launchWsTc = tc.launch;

/** The control both sabotage files run: the unsabotaged PTX, launched the same way, is right. */
export function expectWsTcControl(): void {
  const c = launchWsTc(wsTcPtx());
  expect(c).toBeInstanceOf(Float32Array);
  expectBitwise(c as Float32Array, wsTcWant(), 'sim vs JS');
}

/** A sabotaged launch's outcome: a named fault of the sim (its message logged), or a wrong result. */
export function expectWrongTc(c: Float32Array | Error): void {
  if (c instanceof Error) console.log(c.message);
  if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: /);
  expect(isWrongTc(c)).toBe(true);
}

/** The MMA warp issues each stage's MMAs without waiting for its full barrier (the TMA copies). */
export function mmaSkipsFullWait(ptx: string): string {
  const at = ptx.indexOf(`${WS_MMA}:`);
  expect(at).toBeGreaterThan(0);
  return ptx.slice(0, at) + cutTheWait(ptx.slice(at));
}
/** The epilogue's tcgen05.ld (and its wait::ld) moved above the ACC_FULL wait. */
export function ldBeforeAccFull(ptx: string): string {
  const from = ptx.indexOf(ACC_FULL_WAIT);
  const fence = ptx.indexOf('tcgen05.fence::after_thread_sync;', from);
  expect(from).toBeGreaterThan(0);
  const waitBlock = ptx.slice(from, fence + 'tcgen05.fence::after_thread_sync;'.length);
  const rest = ptx.slice(from + waitBlock.length);
  const ld = /\n\s*tcgen05\.ld\.sync[^\n]*\n(\s*tcgen05\.ld\.sync[^\n]*\n)*\s*tcgen05\.wait::ld\.sync\.aligned;/.exec(rest);
  expect(ld, 'the epilogue reads the accumulator after the wait').not.toBeNull();
  const moved = rest.slice(0, ld!.index) + rest.slice(ld!.index + ld![0].length);
  // the reads first (where the wait was), then the wait, then the rest of the epilogue
  const head = rest.slice(0, ld!.index);
  return ptx.slice(0, from) + `${head}${ld![0]}\n\t${waitBlock}` + moved.slice(head.length);
}
