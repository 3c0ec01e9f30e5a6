// String surgery on a warp-specialized matmul's PTX (lower_warp_specialize.ts) and its launch on
// the sim in place of the compiled kernel, for the sabotage tests: each cut must give a wrong
// result or a named fault, never a pass. 128x128x64 on 4 warps, K = 512: 8 k-steps through 3
// stages, so every stage is reused and both mbarriers of each stage cycle.
import { expect } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { randF32 } from './helpers.js';
import { cutTheWait, matmulSabotage } from './ptx_in_place.js';
import { wsMatmul } from './ws_cases.js';

const [M, N, K] = [128, 128, 512];
const ws = matmulSabotage(f16Array(randF32(M * K, 41)), f16Array(randF32(K * N, 42)), [M, N, K], () =>
  compile(wsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } }), { rel: 1e-3 });
export const wsPtx = ws.ptx;
/** C = A B in f64. */
export const wsWant = ws.want;
export const isWrong = ws.isWrong;
/** Launches `ptx` in place of the compiled kernel's on one CTA: the result, or the launch's fault (ptx_in_place.ts). */
export const launchWs = ws.launch;

const split = (ptx: string): [string, string] => {
  const at = ptx.indexOf('ws_producer:');
  expect(at).toBeGreaterThan(0);
  return [ptx.slice(0, at), ptx.slice(at)];
};
/** Drops the mbarrier wait loop of the consumers (their full-barrier wait) or of the producer (its empty-barrier wait). */
export function dropWait(ptx: string, part: 'consumer' | 'producer'): string {
  const [consumer, producer] = split(ptx);
  return part === 'consumer' ? cutTheWait(consumer) + producer : consumer + cutTheWait(producer);
}
/** Drops every fence.proxy.async (the epilogue's st.shared -> TMA store, the wgmma operand fence). */
export function dropProxyFences(ptx: string): string {
  const cut = ptx.replace(/\n\s*fence\.proxy\.async\.shared::cta;/g, '');
  expect(cut).not.toBe(ptx);
  return cut;
}
/**
 * The consumers release each stage right after its own wgmma is issued (still in flight: wait_group
 * 1 completed only the one before) instead of one iteration later.
 */
export function releaseEarly(ptx: string): string {
  expect(ptx).toContain('wgmma.wait_group.sync.aligned 1;');
  const m = /\n(\s*)@%p\d+ (mbarrier\.arrive\.shared::cta\.b64 _, )\[(%r\d+)\];\n\s*mov\.u32 \3, (%r\d+);/.exec(ptx);
  expect(m, 'the deferred stage release (arrive on the previous stage, then its index moved on) is in the PTX').not.toBeNull();
  return ptx.replace(m![0], `\n${m![1]}${m![2]}[${m![4]}];\n${m![1]}mov.u32 ${m![3]}, ${m![4]};`);
}
