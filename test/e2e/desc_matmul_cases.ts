// The descriptor matmul the TMA tests share (the TMA-ring tests: tcgen05_ring.test.ts, the 2-CTA
// tests through tcgen05_2cta_cases.ts, tcgen05_cpasync_inflight.test.ts, ws_tcgen05.test.ts; and
// codegen/tma, codegen/wgmma, e2e/tma, tma_sabotage, tiles_cases, stmatrix_epilogue and
// tcgen05_epilogue_cases, each under its own kernel name): one BM x BN tile per program, the K
// loop over tensor-descriptor loads; its small-integer problems (exact in f16 and bf16, every
// product and sum exact in f32, so every summation order gives the same bits), the trace with the
// launch's positional arguments, the sm_100a compile through ptxas, the launch of given PTX on the
// sim, and the sabotage both tcgen05 rings share (the EMPTY wait cut out).
import { expect } from 'vitest';
import type { CompileResult } from '../../src/compile/compile.js';
import { EMPTY_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import type { Func } from '../../src/ir/ops.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { lcg, matmulF64 } from './helpers.js';
import { launchInPlace } from './ptx_in_place.js';
import { gateTargets } from '../codegen/gate.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';

export type Half = 'f16' | 'bf16';

export interface MmDescOptions {
  /** The K loop warp-specialized. */
  readonly ws?: boolean;
  /** C's type (default f32); a 16-bit C gets the accumulator cast to it. */
  readonly out?: 'f32' | Half;
  /** C's descriptor made before the K loop, not at the store (the trace order some tests were written in). */
  readonly cFirst?: boolean;
}

/** C = A B through descriptors, named `name`: one BM x BN tile per program, the K loop on the ring. */
export const mmDesc = (t: Half | 'f8e4m3', name: string, o: MmDescOptions = {}): Kernel => kernel(
  { name, params: { a: ptr(t), b: ptr(t), c: ptr(o.out ?? 'f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const cDesc = () => makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const dc = o.cFirst ? cDesc() : undefined;
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], o.ws ? { warpSpecialize: true } : {});
    (dc ?? cDesc()).store([om, on], o.out === undefined || o.out === 'f32' ? acc! : acc!.to(o.out));
  },
);

/** Integers in [-4, 4]: exact in f16 and bf16, every product and sum here exact in f32. */
export function ints(n: number, seed: number): Float32Array {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => Math.floor(r() * 9) - 4);
}
/** C = A B rounded to f32 (exact for ints()). */
export const matmulRef = (a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float32Array => Float32Array.from(matmulF64(a, b, M, N, K));

export interface Problem { M: number; N: number; K: number; BM: number; BN: number; BK: number }
/** The arguments (a, b, c, M, N, K, BM, BN, BK), the JS reference and one program per tile. */
export function problem(t: Half, p: Problem, seed: number) {
  const af = ints(p.M * p.K, seed), bf = ints(p.K * p.N, seed + 1);
  const enc = t === 'f16' ? f16Array : bf16Array;
  const args = { a: enc(af), b: enc(bf), c: new Float32Array(p.M * p.N), M: p.M, N: p.N, K: p.K, BM: p.BM, BN: p.BN, BK: p.BK };
  return { args, want: matmulRef(af, bf, p.M, p.N, p.K), grid: [Math.ceil(p.M / p.BM), Math.ceil(p.N / p.BN), 1] as const };
}

/** `k` traced at the arguments' constexprs, and its runtime arguments in order. */
export function traced(k: Kernel, args: Record<string, unknown>): { f: Func; positional: LaunchArg[] } {
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  return { f: k.trace(cx), positional: k.def.runtimeParams.map((p) => args[p.name] as LaunchArg) };
}

/** The sm_100a compile as the sim device specializes it, through the ptxas gate (no spills). */
export function sm100(k: Kernel, args: Record<string, unknown>, numWarps: number, numStages: number): CompileResult {
  const { f, positional } = traced(k, args);
  return gateTargets(f, ['sm_100a'], { numWarps, numStages, specialization: launchSpecialization(f, positional) })['sm_100a']!;
}

/** Runs `ptx` (the compiled kernel's text, or a sabotaged copy) on the sim, in clusters of `cluster` if given; returns c, or throws the launch's fault. */
export function runPtx(k: Kernel, args: Record<string, unknown>, grid: readonly number[], r: CompileResult, ptx = r.ptx, cluster?: readonly [number, number, number]): Float32Array {
  const c = launchInPlace<Float32Array>(r, ptx, traced(k, args).positional, grid as [number, number, number], 2, cluster);
  if (c instanceof Error) throw c;
  return c;
}

/** The sabotage both tcgen05 rings share: a stage refilled without waiting for the MMAs that read it (the wait loop between EMPTY_WAIT and the label that skips it cut out). */
export function cutEmptyWait(ptx: string): string {
  const lines = ptx.split('\n');
  const at = lines.findIndex((l) => l.includes(EMPTY_WAIT));
  const skip = lines.findIndex((l, i) => i > at && /^\$L_mma_none_\d+:/.test(l));
  expect(at).toBeGreaterThan(0);
  expect(skip).toBeGreaterThan(at);
  const removed = lines.splice(at + 1, skip - at - 1);
  expect(removed.join('\n')).toMatch(/mbarrier\.try_wait\.parity/);
  return lines.join('\n');
}
