// String surgery on a warp-specialized matmul's PTX (lower_warp_specialize.ts) and its launch on
// the sim in place of the compiled kernel, for the sabotage tests: each cut must give a wrong
// result or a named fault, never a pass. 128x128x64 on 4 warps, K = 512: 8 k-steps through 3
// stages, so every stage is reused and both mbarriers of each stage cycle.
import { expect } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { randF32, simDevice } from './helpers.js';
import { wsMatmul } from './ws_cases.js';

const [M, N, K] = [128, 128, 512];
const a = f16Array(randF32(M * K, 41)), b = f16Array(randF32(K * N, 42));
let built: CompileResult | undefined;
const kernelOf = (): CompileResult =>
  (built ??= compile(wsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } }));
export const wsPtx = (): string => kernelOf().ptx;

/** C = A B in f64. */
export function wsWant(): Float64Array {
  const [fa, fb] = [f16ToFloat32(a), f16ToFloat32(b)];
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += fa[i * K + k]! * fb[k * N + j]!;
    c[i * N + j] = s;
  }
  return c;
}
export const isWrong = (c: Float32Array | Error): boolean => {
  const want = wsWant();
  return c instanceof Error || c.some((x, i) => !(Math.abs(x - want[i]!) <= 1e-3 * (1 + Math.abs(want[i]!))));
};

/** Launches `ptx` in place of the compiled kernel's on one CTA: the result, or the launch's fault. */
export function launchWs(ptx: string): Float32Array | Error {
  const dev = simDevice().native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  dev.upload(ba, a);
  dev.upload(bb, b);
  dev.upload(bc, new Float32Array(M * N));
  const c = new Float32Array(M * N);
  try {
    dev.launch({ ...kernelOf(), ptx }, [ba, bb, bc, M, N, K], [1, 1, 1]);
    dev.synchronize();
  } catch (e) {
    return e as Error; // only the kernel's own fault (allocations above are outside: a lost context fails the test)
  }
  dev.download(bc, c);
  return c;
}

const split = (ptx: string): [string, string] => {
  const at = ptx.indexOf('ws_producer:');
  expect(at).toBeGreaterThan(0);
  return [ptx.slice(0, at), ptx.slice(at)];
};
const WAIT = /\n\s*\$L_tma_wait_\d+:\n\s*mbarrier\.try_wait[^\n]*\n\s*@!%p\d+ bra\.uni \$L_tma_wait_\d+;/;
/** Drops the mbarrier wait loop of the consumers (their full-barrier wait) or of the producer (its empty-barrier wait). */
export function dropWait(ptx: string, part: 'consumer' | 'producer'): string {
  const [consumer, producer] = split(ptx);
  const src = part === 'consumer' ? consumer : producer;
  expect(src.match(new RegExp(WAIT.source, 'g'))?.length).toBe(1);
  const cut = src.replace(WAIT, '');
  return part === 'consumer' ? cut + producer : consumer + cut;
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
