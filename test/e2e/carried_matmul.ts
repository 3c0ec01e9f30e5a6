// Tutorial-style matmuls (Triton's tutorial 03): the pointer tiles are loop-carried and advanced
// each iteration, for test/e2e/pipeline_carried*.test.ts (sm_80 and sm_90a on the sim).
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { HostArray } from '../../src/runtime/array.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { matmulF64, simDevice } from './helpers.js';

/**
 * c = a @ b, pointers walked by the loop: `pa += BK`, `pb += BK * N`. `masked`: ragged M, N and K
 * (the K mask compares against K - k, as the tutorial does); else every tile is whole.
 */
export const walkedMatmul = (t: 'f16' | 'bf16', masked: boolean): Kernel => kernel(
  { name: `mm_walked_${t}${masked ? '_masked' : ''}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
    const pb0 = b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32'), pa0, pb0], (k, acc, pa, pb) => {
      const ta = masked ? load(pa!, { mask: rm.expandDims(1).lt(M).logicalAnd(rk.expandDims(0).lt(K.sub(k))), other: 0 }) : load(pa!);
      const tb = masked ? load(pb!, { mask: rk.expandDims(1).lt(K.sub(k)).logicalAnd(rn.expandDims(0).lt(N)), other: 0 }) : load(pb!);
      return [dot(ta, tb, { acc: acc! }), pa!.add(BK), pb!.add(N.mul(BK))];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, masked ? { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) } : {});
  },
);

/** C = A B in f64 (helpers.ts). */
export const matmulRef = matmulF64;

/** The PTX the sim device compiles for these arguments (its launch specialization). */
export function simPtx(k: Kernel, args: RunArgs, numWarps: number, numStages: number): { ptx: string; pipeline: string } {
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  const positional = k.def.runtimeParams.map((p) => {
    const v = args[p.name];
    return (v instanceof HostArray ? v.data : v) as LaunchArg;
  });
  const r = simDevice().compile(k.trace(cx), numWarps, positional, numStages);
  return { ptx: r.ptx, pipeline: r.stages.find((s) => s.name === 'pipeline')!.text };
}

export const cpAsyncCount = (ptx: string): number => (ptx.match(/^\s*cp\.async\.c[ag]\.shared\.global/gm) ?? []).length;
