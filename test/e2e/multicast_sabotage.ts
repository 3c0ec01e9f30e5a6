// The multicast TMA ring (codegen/async/tma_multicast.ts) compiled with a sabotage and launched on
// the sim in clusters, for the sabotage tests. The files that use it set TESSERA_SIM_CLUSTER_SKEW
// before the sim opens: rank 0 of each cluster then runs ahead of its peers as far as the
// cluster's synchronization allows (lockstep turns would hide a missing cross-CTA release).
// 128x128x64 on 4 warps, 4 stages (tiles issued 2 ahead), K = 640: 10 k-steps, so every stage is
// refilled and rank 0 can be two iterations ahead of its peer.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { MulticastSabotage } from '../../src/codegen/async/tma_multicast.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { matmulF64, randF32 } from './helpers.js';
import { launchInPlace } from './ptx_in_place.js';
import { wsMatmul } from './ws_cases.js';

type Dims = [number, number, number];
const [M, N, K] = [256, 256, 640];
const a = f16Array(randF32(M * K, 61)), b = f16Array(randF32(K * N, 62));

/** The plain multicast ring, or (ws) the warp-specialized one (pipeline/ws_multicast.ts). */
export const multicastKernel = (cluster: Dims, sabotage?: MulticastSabotage, ws = false): CompileResult =>
  compile(wsMatmul, {
    target: 'sm_90a', numWarps: 4, numStages: 4, ptxas: false, clusterDims: cluster,
    ...(sabotage ? { multicastSabotage: sabotage } : {}), constexprs: { BM: 128, BN: 128, BK: 64, WS: ws },
  });

let want: Float64Array | undefined;
/** C = A B in f64. */
const reference = (): Float64Array => (want ??= matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K));
export const isWrong = (c: Float32Array | Error): boolean => {
  const w = reference();
  return c instanceof Error || c.some((x, i) => !(Math.abs(x - w[i]!) <= 1e-3 * (1 + Math.abs(w[i]!))));
};

/** Launches `k` on a 2x2 grid in clusters `cluster`: the result, or the launch's fault. */
export const launchClustered = (k: CompileResult, cluster: Dims | undefined): Float32Array | Error =>
  launchInPlace(k, k.ptx, [a, b, new Float32Array(M * N), M, N, K], [2, 2, 1], 2, cluster);
