// The multicast TMA ring on the sim with rank 0 of each cluster running ahead
// (TESSERA_SIM_CLUSTER_SKEW, docs/sim-ptx.md): the correct kernel stays bit-exact (its empty
// barriers hold rank 0 back until its peers are done with a stage), and the kernel whose empty
// barriers count only their own CTA's release (each producer waits for its own consumers alone)
// overwrites stages its peer still reads: a wrong result or a named fault, never a pass.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
import { describe, expect, it } from 'vitest';
import { isWrong, launchClustered, multicastKernel } from './multicast_sabotage.js';

describe('TMA multicast with a cluster rank running ahead (sim as sm_90)', () => {
  const plain = (): Float32Array => {
    const c = launchClustered(multicastKernel([1, 1, 1]), undefined);
    if (c instanceof Error) throw c;
    return c;
  };
  it.each([[[2, 1, 1]], [[1, 2, 1]], [[2, 2, 1]]] as [[number, number, number]][])('cluster %j: bit-exact', (cluster) => {
    const c = launchClustered(multicastKernel(cluster), cluster);
    if (c instanceof Error) throw c;
    expect(isWrong(c)).toBe(false);
    expect(Array.from(c)).toEqual(Array.from(plain()));
  });

  it("without the release on the peers' empty barriers: a wrong result or a named fault", () => {
    const k = multicastKernel([2, 1, 1], 'local-release');
    expect(k.ptx).not.toMatch(/mbarrier\.arrive\.release\.cluster\.shared::cluster/);
    const c = launchClustered(k, [2, 1, 1]);
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: /);
    expect(isWrong(c)).toBe(true);
  });
});
