// The FA3-style attention's warp-specialized PTX without the producer's empty-barrier wait (it refills a stage the consumers still read) must not pass on the sim: a wrong
// result or a named fault (its own file: a fault ends the context). fa3_cases.ts: one program,
// 8 KV steps through 2 stages, so every stage is reused.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { dropFa3Wait, expectFa3Control, launchFa3, sabPtx, sabWrong } from './fa3_cases.js';

describe('FA3-style attention sabotage on the sim as sm_90', () => {
  it('the unsabotaged PTX is right (the control)', () => {
    expectFa3Control();
  });
  it("without the producer's empty-barrier wait (it refills a stage the consumers still read): a wrong result or a named fault", () => {
    const o = launchFa3(dropFa3Wait(sabPtx(), 'producer'));
    if (o instanceof Error) expect(o.message).toMatch(/tessera-sim: .*mbarrier/);
    expect(sabWrong(o)).toBe(true);
  });
});
