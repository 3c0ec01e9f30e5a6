// FA3 ping-pong sabotage (fa3_pingpong_sabotage.ts): an order barrier arrived on with 128 threads
// where the other warpgroup's bar.sync on it counts 256. Without a sanitizer the sim (like the
// hardware) may complete the barrier early and the turns merely drift (the values are the same:
// the ping-pong only reorders), so this one is synccheck's to name. Synccheck is on (read at
// cuInit). Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_SYNCCHECK'] = '1';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { ppLaunch, ppSurgery } from './fa3_pingpong_sabotage.js';

describe('FA3 ping-pong sabotage on the sim as sm_90: mismatched thread counts', () => {
  it('an order barrier arrived on with 128 threads where its wait counts 256: a synccheck report', () => {
    const o = ppLaunch(ppSurgery((r) => `\tbar.arrive ${r}, 128;\n`));
    expect(o).toBeInstanceOf(Error);
    expect((o as Error).message).toMatch(/synccheck hazard in kernel 'fa3_fwd': barrier [23] reached with different thread counts: (256|128) threads .*, (128|256) threads/);
  });
});
