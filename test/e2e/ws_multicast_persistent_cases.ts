// The clustered persistent warp-specialized matmul (bench/ws_cluster_kernels.ts) for
// ws_multicast_persistent*.test.ts: compile it for a cluster shape (optionally sabotaged), run it
// through the runtime (sim or interpreter) or launch compiled PTX on the sim directly.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { MulticastSabotage } from '../../src/codegen/async/tma_multicast.js';
import { simDevice } from './helpers.js';
import { clusterPersistentWsMatmul } from '../../bench/ws_cluster_kernels.js';

export { clusterPersistentWsMatmul };
export type Dims = [number, number, number];
export interface Tile { BM: number; BN: number; BK: number; numWarps: number }

const constexprs = (t: Tile, cluster: Dims, ws = true) => ({ BM: t.BM, BN: t.BN, BK: t.BK, GROUP_M: 2, CX: cluster[0], CY: cluster[1], WS: ws });

/** The kernel compiled for clusters `cluster` (CX, CY taken from it), as the runtime would with `clusterDims`. */
export const build = (t: Tile, cluster: Dims, opts: { ptxas?: boolean; sabotage?: MulticastSabotage; numStages?: number } = {}): CompileResult =>
  compile(clusterPersistentWsMatmul, {
    target: 'sm_90a', numWarps: t.numWarps, numStages: opts.numStages ?? 3, ptxas: opts.ptxas ?? false, clusterDims: cluster,
    ...(opts.sabotage ? { multicastSabotage: opts.sabotage } : {}), constexprs: constexprs(t, cluster),
  });

/**
 * c (f16 bits) from a run through the runtime on a grid [CX, CY, programs]: launched in clusters
 * `cluster` when `clustered`, else as single CTAs (the same tiles, no multicast).
 */
export async function run(device: 'sim' | 'interpret', t: Tile, cluster: Dims, clustered: boolean, a: Uint16Array, b: Uint16Array, M: number, N: number, K: number, programs: number): Promise<Uint16Array> {
  const c = new Uint16Array(M * N).fill(0x7e00); // NaN: a tile never stored shows
  await clusterPersistentWsMatmul.run({ a, b, c, M, N, K, ...constexprs(t, cluster) } as never, {
    grid: [cluster[0], cluster[1], programs], device, numWarps: t.numWarps, numStages: 3, ...(clustered ? { clusterDims: cluster } : {}),
  });
  return c;
}

/** Launches compiled PTX on the sim on a grid [CX, CY, programs] in clusters `cluster`: c's bits, or the kernel's fault. */
export function launchPtx(r: CompileResult, cluster: Dims, a: Uint16Array, b: Uint16Array, M: number, N: number, K: number, programs: number): Uint16Array | Error {
  const dev = simDevice().native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 2)];
  try {
    dev.upload(ba, a);
    dev.upload(bb, b);
    dev.upload(bc, new Uint16Array(M * N).fill(0x7e00));
    try {
      dev.launch(r, [ba, bb, bc, M, N, K], [cluster[0], cluster[1], programs], { cluster });
      dev.synchronize();
    } catch (e) {
      return e as Error;
    }
    return dev.download(bc, new Uint16Array(M * N));
  } finally {
    for (const p of [ba, bb, bc]) dev.free(p);
  }
}
