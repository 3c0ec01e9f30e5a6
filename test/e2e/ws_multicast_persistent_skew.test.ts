// TMA multicast across a persistent tile loop (pipeline/ws_multicast.ts, ws_tiles.ts) on the sim
// with rank 0 of each cluster running ahead (TESSERA_SIM_CLUSTER_SKEW, docs/sim-ptx.md): the correct
// kernel stays bit for bit the JS reference (a producer refills a stage, in every tile, only after
// the consumers of every CTA of the cluster released it), and the kernel whose consumers release
// only their own CTA's empty barrier (multicastSabotage 'local-release': rank 0's producer refills a
// stage, for this tile or the next, that its peer's consumers still read) gives a wrong result or
// a named fault, never a pass. A sabotage test (excluded from the sanitized suite).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
import { describe, expect, it } from 'vitest';
import { expectBitwise } from './helpers.js';
import { ints, reference } from './persistent_ws_cases.js';
import { build, launchPtx, type Dims, type Tile } from './ws_multicast_persistent_cases.js';

const T: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const [M, N, K] = [512, 512, 320]; // 5 k-steps > 3 stages; 4x4 tiles
const a = ints(M * K, 31), b = ints(K * N, 32);
const tiles = Array.from({ length: 16 }, (_, i): [number, number] => [i >> 2, i & 3]);
const want = reference(a, b, M, N, K, 128, 128, tiles);
const wrong = (c: Uint16Array | Error): boolean => c instanceof Error || c.some((x, i) => x !== want[i]);
const CLUSTERS = [[[2, 1, 1]], [[1, 2, 1]], [[2, 2, 1]]] as [Dims][];

describe('persistent warp-specialized TMA multicast with a cluster rank running ahead (sim as sm_90)', () => {
  it.each(CLUSTERS)('cluster %j, 2+ tiles per cluster: bit-exact', (cluster) => {
    const c = launchPtx(build(T, cluster), cluster, a, b, M, N, K, 2);
    if (c instanceof Error) throw c;
    expectBitwise(c, want, 'multicast under skew vs JS');
  });

  it.each(CLUSTERS)("cluster %j without the release on the peers' empty barriers: a wrong result or a named fault", (cluster) => {
    const k = build(T, cluster, { sabotage: 'local-release' });
    expect(k.ptx).toContain('.multicast::cluster');
    expect(k.ptx).toMatch(/\$L_wstile_\d+:/);
    expect(k.ptx).not.toMatch(/mbarrier\.arrive\.release\.cluster\.shared::cluster/);
    const c = launchPtx(k, cluster, a, b, M, N, K, 2);
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: /);
    expect(wrong(c)).toBe(true);
  });
});
