// Shared by the 2-CTA tcgen05 tests (tcgen05_2cta.test.ts and its sabotage): the descriptor matmul
// of tcgen05_ring.test.ts (one BM x BN tile per program, programId(0) along M), integer inputs, the
// compile for sm_100a with or without `twoCta`, and a launch of given PTX on the sim in [2, 1, 1]
// clusters.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { Func } from '../../src/ir/ops.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { lcg, simDevice } from './helpers.js';

export type Half = 'f16' | 'bf16';
export const CLUSTER = [2, 1, 1] as const;

/**
 * C = A B (f32) through descriptors: one BM x BN tile per program, the K loop on the ring (`ws`:
 * warp-specialized, a load warp, an MMA warp and epilogue warps: pipeline/ws_tcgen05.ts).
 */
export const mmDesc = (t: Half, ws = false): Kernel => kernel(
  { name: `tc2_${t}${ws ? '_ws' : ''}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], ws ? { warpSpecialize: true } : {});
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], acc!);
  },
);

/** Integers in [-4, 4]: exact in f16 and bf16, every product and sum here exact in f32. */
function ints(n: number, seed: number): Float32Array {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => Math.floor(r() * 9) - 4);
}
export function matmulRef(a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float32Array {
  const out = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * N + j]!;
    out[i * N + j] = s;
  }
  return out;
}

export interface Problem { M: number; N: number; K: number; BN: number; BK: number; numWarps: number }
/** The arguments (BM 128), the JS reference and the grid: M tiles rounded up to whole pairs. */
export function problem(t: Half, p: Problem, seed: number) {
  const af = ints(p.M * p.K, seed), bf = ints(p.K * p.N, seed + 1);
  const enc = t === 'f16' ? f16Array : bf16Array;
  const args = { a: enc(af), b: enc(bf), c: new Float32Array(p.M * p.N), M: p.M, N: p.N, K: p.K, BM: 128, BN: p.BN, BK: p.BK };
  const grid = [2 * Math.ceil(p.M / 256), Math.ceil(p.N / p.BN), 1] as const;
  return { args, want: matmulRef(af, bf, p.M, p.N, p.K), grid };
}

export function traced(k: Kernel, args: Record<string, unknown>): { f: Func; positional: LaunchArg[] } {
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  return { f: k.trace(cx), positional: k.def.runtimeParams.map((p) => args[p.name] as LaunchArg) };
}

/** The sm_100a kernel as the sim device specializes it: 2-CTA (clusterDims [2, 1, 1]) or not. */
export function build(k: Kernel, args: Record<string, unknown>, numWarps: number, twoCta: boolean, opts: { numStages?: number; ptxas?: boolean; twoCtaSabotage?: 'no-peer-wait' } = {}): CompileResult {
  const { f, positional } = traced(k, args);
  return compile(f, {
    target: 'sm_100a', numWarps, numStages: opts.numStages ?? 3, ptxas: opts.ptxas ?? false, specialization: launchSpecialization(f, positional),
    ...(twoCta ? { twoCta: true, clusterDims: CLUSTER } : {}), ...(opts.twoCtaSabotage ? { twoCtaSabotage: opts.twoCtaSabotage } : {}),
  });
}

/** Runs `ptx` (the compiled kernel's text, or a sabotaged copy) on the sim, in [2, 1, 1] clusters; returns c. */
export function runPtx(k: Kernel, args: Record<string, unknown>, grid: readonly number[], r: CompileResult, ptx = r.ptx): Float32Array {
  const { positional } = traced(k, args);
  const dev = simDevice().native;
  const bufs = positional.map((a) => {
    if (!ArrayBuffer.isView(a)) return undefined;
    const b = dev.alloc(Math.max(1, a.byteLength));
    dev.upload(b, a);
    return b;
  });
  try {
    const { cubin: _drop, ...rest } = r;
    dev.launch({ ...rest, ptx }, positional.map((a, i) => bufs[i] ?? a), grid as [number, number, number], { cluster: CLUSTER });
    dev.synchronize();
    return dev.download(bufs[2]!, new Float32Array((args.c as Float32Array).length)) as Float32Array;
  } finally {
    // after a fault the context is gone: the launch's error is the one to report
    try {
      for (const b of bufs) if (b) dev.free(b);
    } catch { /* the launch's error propagates */ }
  }
}
