// The check each case of the multicast tests runs (tma_multicast.test.ts: the plain TMA ring, WS
// false; ws_multicast.test.ts: the warp-specialized ring, WS true): wsMatmul launched on the sim
// with clusterDims, against an f64 JS reference, bit for bit against the same kernel launched
// without clusters (the same wgmma in the same order), and with fewer TMA load requests where B's
// boxes are split between the CTAs along x (A's row pieces along y are as many requests). And the
// cases both tests run, and their compile.
import { expect } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, matmulF64, randF32, simDevice } from './helpers.js';
import { wsMatmul } from './ws_cases.js';

export type Dims = [number, number, number];

/** A case: name, [BM, BN, BK], numWarps, cluster, M, N, K. */
export type MulticastCase = [string, Dims, number, Dims, number, number, number];
/** The cases of both multicast tests: B shared (2x1), A shared (1x2), both (2x2); 4 and 8 warps; ragged M/N and K not a multiple of BK (TMA's zero fill). */
export const MULTICAST_CASES: readonly MulticastCase[] = [
  ['128x128x64, 4 warps, cluster 2x1 (B shared)', [128, 128, 64], 4, [2, 1, 1], 256, 256, 320],
  ['128x128x64, 4 warps, cluster 1x2 (A shared)', [128, 128, 64], 4, [1, 2, 1], 256, 256, 320],
  ['128x128x64, 4 warps, cluster 2x2 (A and B shared)', [128, 128, 64], 4, [2, 2, 1], 256, 256, 320],
  ['128x256x64, 8 warps, cluster 2x1', [128, 256, 64], 8, [2, 1, 1], 256, 256, 256],
  ['128x256x64, 8 warps, cluster 1x2', [128, 256, 64], 8, [1, 2, 1], 256, 512, 256],
  ['ragged: M 200, N 136, K 200, 4 warps, cluster 2x1', [128, 128, 64], 4, [2, 1, 1], 200, 136, 200],
  ['ragged: M 250, N 136, K 72, 4 warps, cluster 1x2', [128, 128, 64], 4, [1, 2, 1], 250, 136, 72],
];

/**
 * wsMatmul (WS `ws`) for sm_90a in `cluster`, 3 stages, through ptxas without spills; with the
 * cluster's size and the multicast copies one issue makes (B along x: its BN * 2 / 128 boxes split
 * between the CTAs; A along y: its one box in row pieces).
 */
export function compileMulticast(ws: boolean, [BM, BN, BK]: Dims, numWarps: number, cluster: Dims): { r: CompileResult; size: number; perIssue: number } {
  const r = compile(wsMatmul, { target: 'sm_90a', numWarps, numStages: 3, ptxas: true, clusterDims: cluster, constexprs: { BM, BN, BK, WS: ws } });
  expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
  return { r, size: cluster[0] * cluster[1], perIssue: (cluster[0] > 1 ? (BN * 2) / 128 : 0) + (cluster[1] > 1 ? 2 : 0) };
}

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
