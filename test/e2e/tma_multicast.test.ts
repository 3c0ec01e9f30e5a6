// TMA multicast in thread block clusters (sm_90a; codegen/async/tma_multicast.ts) on the sim as an
// sm_90: the plain TMA ring of the descriptor matmul (bench/ws_kernels.ts, WS false), launched with
// clusterDims. In a 2x1 cluster (along M: programId(0)) both CTAs need the same B tile: each loads
// half of its boxes and multicasts them to both; in 1x2 the CTAs share A (half of its rows each);
// in 2x2 both. Each case is checked against an f64 JS reference and bit for bit against the same
// kernel launched without clusters (the same wgmma in the same order). Ragged M/N and K not a
// multiple of BK exercise TMA's zero fill.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { normalizeOptions } from '../../src/runtime/cache/key.js';
import { count } from '../codegen/gate.js';
import { compileMulticast, expectMulticastMatmul, expectSanitizedMulticast, MULTICAST_CASES } from './multicast_matmul_check.js';
import { wsMatmul } from './ws_cases.js';

describe('TMA multicast in clusters on the sim (sm_90a)', () => {
  it.each(MULTICAST_CASES)('%s', async (_, tile, numWarps, cluster, M, N, K) => {
    const { r, size, perIssue } = compileMulticast(false, tile, numWarps, cluster);
    // the structure: multicast copies, a remote release per CTA of the cluster, one cluster barrier
    expect(count(r.ptx, /\.multicast::cluster \[/)).toBe(2 * perIssue); // the prologue's issue and the loop's
    expect(count(r.ptx, /mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _,/)).toBe(size);
    expect(count(r.ptx, /barrier\.cluster\.arrive\.release\.aligned;/)).toBe(1);
    expect(count(r.ptx, new RegExp(`mbarrier\\.init\\.shared::cta\\.b64 \\[%r\\d+\\+\\d+\\], ${size};`))).toBe(3); // the empty barriers
    await expectMulticastMatmul(false, 51, tile, numWarps, cluster, M, N, K);
  });

  it('the sim sanitizers find no hazard in the multicast ring (2x2 cluster)', async () => {
    await expectSanitizedMulticast(false, 53);
  });

  it('no multicast where the CTAs of a cluster share no tile, or their loops differ (said in the PTX)', () => {
    // a 1-D grid: both tiles depend on programId(0), the cluster axis
    const r = compile(wsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, clusterDims: [1, 1, 2], constexprs: { BM: 128, BN: 128, BK: 64, WS: false } });
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
    expect(r.ptx).toContain('// no TMA multicast: clusters along z are not multicast');
  });

  it('the cluster shape is part of the compile cache key (a cluster of one is not)', () => {
    const f = wsMatmul.trace({ BM: 128, BN: 128, BK: 64, WS: false });
    const key = (clusterDims?: [number, number, number]): string => JSON.stringify(normalizeOptions(f, { target: 'sm_90a', ...(clusterDims ? { clusterDims } : {}) }));
    expect(key([2, 1, 1])).not.toBe(key());
    expect(key([2, 1, 1])).not.toBe(key([1, 2, 1]));
    expect(key([1, 1, 1])).toBe(key());
  });

  it('a bad clusterDims compile option is refused by name', () => {
    expect(() => compile(wsMatmul, { target: 'sm_90a', clusterDims: [4, 4, 1], constexprs: { BM: 128, BN: 128, BK: 64, WS: false } })).toThrow(/clusterDims.*8/);
    expect(() => compile(wsMatmul, { target: 'sm_90a', clusterDims: [0, 1, 1] as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: false } })).toThrow(/clusterDims/);
  });
});
