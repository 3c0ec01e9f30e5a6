// The multicast TMA ring without the cluster barrier that opens it (a bar.sync in its place) on
// the sim with rank 0 running ahead (TESSERA_SIM_CLUSTER_SKEW): rank 0's first multicast reaches
// its peer before the peer has initialised its mbarriers, a fault naming that (its own file: a
// fault ends the context).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
import { describe, expect, it } from 'vitest';
import { launchClustered, multicastKernel } from './multicast_sabotage.js';

describe('TMA multicast sabotage on the sim as sm_90', () => {
  it('without the opening cluster barrier: a named fault', () => {
    const k = multicastKernel([2, 1, 1], 'no-cluster-barrier');
    expect(k.ptx).not.toMatch(/barrier\.cluster/);
    const c = launchClustered(k, [2, 1, 1]);
    expect(c).toBeInstanceOf(Error);
    expect((c as Error).message).toMatch(/mbarrier at shared offset \d+ of cluster rank 1 is not initialised/);
  });
});
