// TMA multicast across a persistent tile loop (sm_90a; codegen/pipeline/ws_multicast.ts and
// ws_tiles.ts) on the sim as an sm_90: bench/ws_cluster_kernels.ts's matmul, whose tile loop walks
// cluster tiles (programId(2) stepping by numPrograms(2)) on a grid [CX, CY, programs] launched in
// clusters [CX, CY, 1]. The producer multicasts B along x and A along y on every tile, the
// consumers release every stage use of every tile on the empty barriers of every CTA of the
// cluster, the ring's stage and phase run on across tiles. Small-integer inputs (exact sums, exact
// f16): bit for bit a JS reference, the interpreter and the same kernel launched without clusters,
// at 1, 2 and 3+ cluster tiles per cluster, a program count that does not divide the tiles (some
// clusters run one tile fewer), and ragged M/N/K, including a cluster tile whose CTA at x = 1 lies
// past M (it runs the tile with its peers; TMA zero-fills its loads and clips its store).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { ints, parts, persistentWsMatmul, reference } from './persistent_ws_cases.js';
import { build, clusterPersistentWsMatmul, run, type Dims, type Tile } from './ws_multicast_persistent_cases.js';
import { clusterTileGrid } from '../../bench/ws_cluster_kernels.js';
import { getDevice } from '../../src/runtime/index.js';

const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const T256: Tile = { BM: 128, BN: 256, BK: 64, numWarps: 8 };

const allTiles = (M: number, N: number, t: Tile): [number, number][] =>
  Array.from({ length: Math.ceil(M / t.BM) * Math.ceil(N / t.BN) }, (_, i) => [Math.floor(i / Math.ceil(N / t.BN)), i % Math.ceil(N / t.BN)]);

// name, tile, cluster, M, N, K, program counts (grid z): cluster tiles per cluster 1, 2, 3+ and uneven
const CASES: [string, Tile, Dims, number, number, number, number[]][] = [
  ['128x128x64, 4 warps, 2x1 (B shared): 4x3 tiles = 6 cluster tiles, K 320 (5 steps > 3 stages)', T128, [2, 1, 1], 512, 384, 320, [6, 3, 2, 4]],
  ['128x128x64, 4 warps, 1x2 (A shared): 3x4 tiles = 6 cluster tiles, K 192', T128, [1, 2, 1], 384, 512, 192, [6, 3, 2, 4]],
  ['128x128x64, 4 warps, 2x2 (A and B shared): 4x4 tiles = 4 cluster tiles, K 192', T128, [2, 2, 1], 512, 512, 192, [4, 2, 1, 3]],
  ['ragged, 2x1: M 328 (a CTA past M), N 200, K 200 (the last step partial)', T128, [2, 1, 1], 328, 200, 200, [2, 1]],
  ['ragged, 1x2: M 200, N 328 (a CTA past N), K 72 (2 steps)', T128, [1, 2, 1], 200, 328, 72, [2, 1]],
  ['ragged, 2x2: M 200, N 328, K 136', T128, [2, 2, 1], 200, 328, 136, [1, 2]],
  ['128x256x64, 8 warps, 2x1: 4x2 tiles, K 256', T256, [2, 1, 1], 512, 512, 256, [2, 1]],
  ['128x256x64, 8 warps, 1x2: 2x4 tiles, K 128', T256, [1, 2, 1], 256, 1024, 128, [2, 1]],
];

describe('TMA multicast across a persistent tile loop on the sim (sm_90a)', () => {
  it.each(CASES)('%s', async (_, t, cluster, M, N, K, programs) => {
    const r = build(t, cluster);
    expect(r.ptx).not.toContain('no TMA multicast');
    expect(r.ptx).toContain('.multicast::cluster');
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized: .*inside tile loop %\d+, which the producer runs too/);
    const a = ints(M * K, 21), b = ints(K * N, 22);
    const want = reference(a, b, M, N, K, t.BM, t.BN, allTiles(M, N, t));
    for (const p of programs) {
      const per = Math.ceil(Math.ceil(Math.ceil(M / t.BM) / cluster[0]) * Math.ceil(Math.ceil(N / t.BN) / cluster[1]) / p);
      expectBitwise(await run('sim', t, cluster, true, a, b, M, N, K, p), want, `multicast, ${p} clusters (up to ${per} tiles each) vs JS`);
    }
    const p = programs[programs.length - 1]!;
    expectBitwise(await run('sim', t, cluster, false, a, b, M, N, K, p), want, 'the same kernel without clusters vs JS');
    expectBitwise(await run('interpret', t, cluster, true, a, b, M, N, K, p), want, 'interpreter vs JS');
  });

  it.each([
    ['128x128x64, 4 warps, 2x1', T128, [2, 1, 1]], ['128x128x64, 4 warps, 1x2', T128, [1, 2, 1]], ['128x128x64, 4 warps, 2x2', T128, [2, 2, 1]],
    ['128x256x64, 8 warps, 2x1', T256, [2, 1, 1]],
  ] as [string, Tile, Dims][])('%s: the PTX multicasts inside the producer\'s tile loop; ptxas-clean, no spills', (_, t, cluster) => {
    const r = build(t, cluster, { ptxas: true });
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
    const size = cluster[0] * cluster[1];
    const { consumer, producer } = parts(r.ptx);
    // the producer's tile loop around its K loop, whose issue multicasts B along x and A (row pieces) along y
    const [tile, kLoop, mc, endK, endTile] = [/\$L_wstile_\d+:/, /\$L_wsprod_\d+:/, /\.multicast::cluster \[/, /\$L_endwsprod_\d+:/, /\$L_endwstile_\d+:/].map((re) => producer.search(re));
    expect(tile).toBeGreaterThan(0);
    expect([tile, kLoop, mc, endK, endTile]).toEqual([...[tile, kLoop, mc, endK, endTile]].sort((x, y) => x - y));
    expect(count(producer, /\.multicast::cluster \[/)).toBe((cluster[0] > 1 ? (t.BN * 2) / 128 : 0) + (cluster[1] > 1 ? 2 : 0));
    expect(producer).toMatch(/%nctaid\.z/); // the tile loop's step: numPrograms(2)
    // the consumers release on every CTA's empty barrier: in the K loop, and the last stage of a tile after it
    expect(count(consumer, /mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _,/)).toBeGreaterThanOrEqual(2 * size);
    expect(count(r.ptx, /mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];/)).toBe(1); // only the local tile-done arrival
    expect(count(r.ptx, new RegExp(`mbarrier\\.init\\.shared::cta\\.b64 \\[%r\\d+\\+\\d+\\], ${32 * t.numWarps * size};`))).toBe(3);
    expect(count(r.ptx, /barrier\.cluster\.arrive\.release\.aligned;/)).toBe(1); // opening
    expect(count(r.ptx, /barrier\.cluster\.arrive\.release;/)).toBe(2); // the consumers' and the producer's exit
  });

  it('one program per SM in whole clusters (clusterTileGrid: [2, 2, 33] on the sim\'s 132 SMs): most clusters run no tile', async () => {
    const cluster: Dims = [2, 2, 1];
    const sms = getDevice('sim').properties!.multiProcessorCount;
    const grid = clusterTileGrid(sms, cluster);
    expect(grid).toEqual([2, 2, Math.floor(sms / 4)]);
    const [M, N, K] = [256, 512, 128];
    const a = ints(M * K, 25), b = ints(K * N, 26);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await clusterPersistentWsMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 2, CX: 2, CY: 2, WS: true } as never, { grid, device: 'sim', numWarps: 4, numStages: 3, clusterDims: cluster });
    expectBitwise(c, reference(a, b, M, N, K, 128, 128, allTiles(M, N, T128)), 'grid of whole clusters, one program per SM, vs JS');
    expect(clusterTileGrid(1, cluster)).toEqual([2, 2, 1]); // fewer SMs than a cluster: one cluster
  });

  it('the sim sanitizers find no hazard across tiles (2x2 cluster, 2 tiles per cluster)', async () => {
    const [M, N, K] = [512, 512, 192];
    const a = ints(M * K, 27), b = ints(K * N, 28);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await clusterPersistentWsMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 2, CX: 2, CY: 2, WS: true } as never,
      { grid: [2, 2, 2], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 2, 1], sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(c, reference(a, b, M, N, K, 128, 128, allTiles(M, N, T128)), 'sanitized, vs JS');
  });

  it('a tile loop over programId(0) (persistentTiles\' default) is not multicast, said in the PTX; the kernel stays correct', async () => {
    const opts = { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: true } } as const;
    const r = compile(persistentWsMatmul, { ...opts, clusterDims: [2, 1, 1] });
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
    expect(r.ptx).toContain("// no TMA multicast: the persistent tile loop's bounds or step differ between the CTAs of a cluster");
    const [M, N, K] = [256, 384, 128];
    const a = ints(M * K, 23), b = ints(K * N, 24);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await persistentWsMatmul.run({ a, b, c, M, N, K, ...opts.constexprs } as never, { grid: [4], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] });
    expectBitwise(c, reference(a, b, M, N, K, 128, 128, allTiles(M, N, T128)), 'unshared, in clusters, vs JS');
  });
});
