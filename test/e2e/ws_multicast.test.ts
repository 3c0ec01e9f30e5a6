// TMA multicast in the warp-specialized ring (sm_90a; codegen/pipeline/ws_multicast.ts) on the sim
// as an sm_90: wsMatmul with WS true launched with clusterDims. The producer warpgroup issues its
// CTA's 1/n piece of a tile the CTAs of a group share with .multicast::cluster (B along x, A along
// y), every consumer thread releases the stage on the empty barrier of every CTA of the cluster,
// one cluster barrier opens the kernel and one closes it. Each case: an f64 JS reference, and bit
// for bit the same warp-specialized kernel launched without clusters (the same wgmma in the same
// order). Ragged M/N and K not a multiple of BK exercise TMA's zero fill.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { compileMulticast, expectMulticastMatmul, expectSanitizedMulticast, MULTICAST_CASES, type MulticastCase } from './multicast_matmul_check.js';
import { wsMatmul } from './ws_cases.js';

// numWarps: the consumers'; K / BK > numStages, every stage reused; and two more 2x2 clusters on 8 warps
const CASES: readonly MulticastCase[] = [
  ...MULTICAST_CASES,
  ['128x256x64, 8 warps, cluster 2x2', [128, 256, 64], 8, [2, 2, 1], 256, 512, 256],
  ['ragged: M 200, N 200, K 136, 8 warps, cluster 2x2', [128, 128, 64], 8, [2, 2, 1], 200, 200, 136],
];

describe('TMA multicast in the warp-specialized ring on the sim (sm_90a)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, cluster, M, N, K) => {
    const { r, size, perIssue } = compileMulticast(true, tile, numWarps, cluster);
    expect(r.ptx).toContain('setmaxnreg.dec');
    expect(count(r.ptx, /\.multicast::cluster \[/)).toBe(perIssue); // the producer's one issue site
    expect(count(r.ptx, /mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _,/)).toBe(size); // the consumers' release
    expect(count(r.ptx, /mbarrier\.arrive\.shared::cta\.b64 _,/)).toBe(0); // no local-only release is left
    expect(count(r.ptx, /barrier\.cluster\.arrive\.release\.aligned;/)).toBe(1); // the opening barrier
    expect(count(r.ptx, /barrier\.cluster\.arrive\.release;/)).toBe(2); // the consumers' and the producer's exit
    // the 3 empty barriers count every consumer thread of every CTA
    expect(count(r.ptx, new RegExp(`mbarrier\\.init\\.shared::cta\\.b64 \\[%r\\d+\\+\\d+\\], ${32 * numWarps * size};`))).toBe(3);
    await expectMulticastMatmul(true, 71, tile, numWarps, cluster, M, N, K);
  });

  it('the sim sanitizers find no hazard in the warp-specialized multicast ring (2x2 cluster)', async () => {
    await expectSanitizedMulticast(true, 73);
  });

  it('no multicast where the CTAs of a cluster share no tile (said in the PTX), and the kernel is as without clusters', () => {
    const opts = { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } } as const;
    const r = compile(wsMatmul, { ...opts, clusterDims: [1, 1, 2] });
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
    expect(r.ptx).toContain('// no TMA multicast: clusters along z are not multicast');
    expect(compile(wsMatmul, opts).ptx).not.toContain('no TMA multicast');
  });
});
