// The check each case of the multicast tests runs (tma_multicast.test.ts: the plain TMA ring, WS
// false; ws_multicast.test.ts: the warp-specialized ring, WS true): wsMatmul launched on the sim
// with clusterDims, against an f64 JS reference, bit for bit against the same kernel launched
// without clusters (the same wgmma in the same order), and with fewer TMA load requests where B's
// boxes are split between the CTAs along x (A's row pieces along y are as many requests).
import { expect } from 'vitest';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, matmulF64, randF32, simDevice } from './helpers.js';
import { wsMatmul } from './ws_cases.js';

export type Dims = [number, number, number];

/** The case [BM, BN, BK] on `numWarps` warps in `cluster`, C [M, N] = A [M, K] B [K, N] of random f16 inputs (seeds `seed`, `seed` + 1). */
export async function expectMulticastMatmul(ws: boolean, seed: number, [BM, BN, BK]: Dims, numWarps: number, cluster: Dims, M: number, N: number, K: number): Promise<void> {
  const a = f16Array(randF32(M * K, seed)), b = f16Array(randF32(K * N, seed + 1));
  const grid = [Math.ceil(M / BM), Math.ceil(N / BN)] as const;
  const run = async (clusterDims?: Dims): Promise<Float32Array> => {
    const c = new Float32Array(M * N);
    await wsMatmul.run({ a, b, c, M, N, K, BM, BN, BK, WS: ws ? 1 : 0 }, { grid: [...grid], device: 'sim', numWarps, numStages: 3, ...(clusterDims ? { clusterDims } : {}) });
    return c;
  };
  const loads = (): number => simDevice().native.simCounters()!.globalLoadRequests;
  const multi = await run(cluster);
  const multiLoads = loads();
  expectClose(multi, matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'multicast vs JS');
  expect(Array.from(multi)).toEqual(Array.from(await run()));
  if (cluster[0] > 1) expect(multiLoads).toBeLessThan(loads());
  else expect(multiLoads).toBe(loads());
}

/** 256 x 256 x 320 in 128 x 128 x 64 tiles, one 2x2 cluster, under racecheck, synccheck and initcheck: no hazard, the product. */
export async function expectSanitizedMulticast(ws: boolean, seed: number): Promise<void> {
  const [M, N, K] = [256, 256, 320];
  const a = f16Array(randF32(M * K, seed)), b = f16Array(randF32(K * N, seed + 1)), c = new Float32Array(M * N);
  await wsMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, WS: ws ? 1 : 0 },
    { grid: [2, 2], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 2, 1], sanitize: ['racecheck', 'synccheck', 'initcheck'] });
  expectClose(c, matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'sanitized multicast vs JS');
}
