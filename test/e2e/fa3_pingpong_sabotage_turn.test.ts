// FA3 ping-pong sabotage (fa3_pingpong_sabotage.ts): a warpgroup that skips its order-barrier
// arrive after its first wgmma issue never gives the other warpgroup its turn, and then waits for a
// turn of its own the other never gives back: every consumer waits at a named barrier, which the
// sim names as a deadlock (never a silent pass). Synccheck is on (read at cuInit): the control is
// clean under it. Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_SYNCCHECK'] = '1';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27); // should a sabotage spin instead, it is named in seconds
import { describe, expect, it } from 'vitest';
import { expectClose } from './helpers.js';
import { ppLaunch, ppPtx, ppSurgery, ppWant } from './fa3_pingpong_sabotage.js';

describe('FA3 ping-pong sabotage on the sim as sm_90: a lost turn', () => {
  it('the unsabotaged PTX is right and synccheck-clean (the control)', () => {
    const o = ppLaunch(ppPtx());
    expect(o).toBeInstanceOf(Float32Array);
    expectClose(o as Float32Array, ppWant(), 2e-3, 'sim vs JS');
  });

  it("without a warpgroup's order-barrier arrive after its first wgmma issue: a named deadlock", () => {
    const o = ppLaunch(ppSurgery(() => ''));
    expect(o).toBeInstanceOf(Error);
    expect((o as Error).message).toMatch(/deadlock: threads wait at a barrier that cannot complete/);
  });
});
