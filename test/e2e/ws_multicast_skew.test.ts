// The warp-specialized multicast ring (pipeline/ws_multicast.ts) on the sim with rank 0 of each
// cluster running ahead (TESSERA_SIM_CLUSTER_SKEW, docs/sim-ptx.md): the correct kernel stays bit
// for bit the kernel without clusters (its producer waits until the consumers of every CTA have
// released a stage), and the kernel whose consumers release only their own CTA's empty barrier
// (multicastSabotage 'local-release': a producer refills a stage its peer's consumers still read)
// gives a wrong result or a named fault, never a pass. A sabotage test (excluded from the
// sanitized suite).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
import { describe, expect, it } from 'vitest';
import { isWrong, launchClustered, multicastKernel } from './multicast_sabotage.js';

describe('warp-specialized TMA multicast with a cluster rank running ahead (sim as sm_90)', () => {
  const plain = (): Float32Array => {
    const c = launchClustered(multicastKernel([1, 1, 1], undefined, true), undefined);
    if (c instanceof Error) throw c;
    return c;
  };
  it.each([[[2, 1, 1]], [[1, 2, 1]], [[2, 2, 1]]] as [[number, number, number]][])('cluster %j: bit-exact', (cluster) => {
    const k = multicastKernel(cluster, undefined, true);
    expect(k.ptx).toContain('setmaxnreg.dec');
    const c = launchClustered(k, cluster);
    if (c instanceof Error) throw c;
    expect(isWrong(c)).toBe(false);
    expect(Array.from(c)).toEqual(Array.from(plain()));
  });

  it.each([[[2, 1, 1]], [[1, 2, 1]]] as [[number, number, number]][])("cluster %j without the release on the peers' empty barriers: a wrong result or a named fault", (cluster) => {
    const k = multicastKernel(cluster, 'local-release', true);
    expect(k.ptx).toContain('setmaxnreg.dec');
    expect(k.ptx).toContain('.multicast::cluster');
    expect(k.ptx).not.toMatch(/mbarrier\.arrive\.release\.cluster\.shared::cluster/);
    const c = launchClustered(k, cluster);
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: /);
    expect(isWrong(c)).toBe(true);
  });
});
