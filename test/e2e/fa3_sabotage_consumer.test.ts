// The FA3-style attention's warp-specialized PTX without the consumers' full-barrier wait (they read a stage before its K and V landed) must not pass on the sim: a wrong
// result or a named fault (its own file: a fault ends the context). fa3_cases.ts: one program,
// 8 KV steps through 2 stages, so every stage is reused. Without the wait the consumers run
// ahead and complete the empty barriers' phases faster than the producer waits for them, so its
// parity wait misses its phase and spins; the sim's instruction budget (lowered for this file, so
// the hang is named in seconds) ends it with CUDA_ERROR_LAUNCH_TIMEOUT. Sabotage test: excluded
// from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { dropFa3Wait, expectFa3Control, launchFa3, sabPtx, sabWrong } from './fa3_cases.js';

describe('FA3-style attention sabotage on the sim as sm_90', () => {
  it('the unsabotaged PTX is right (the control)', () => {
    expectFa3Control();
  });
  it("without the consumers' full-barrier wait (they read a stage before its K and V landed): a wrong result or a named fault", () => {
    const o = launchFa3(dropFa3Wait(sabPtx(), 'consumer'));
    if (o instanceof Error) expect(o.message).toMatch(/tessera-sim: .*mbarrier|CUDA_ERROR_LAUNCH_TIMEOUT/);
    expect(sabWrong(o)).toBe(true);
  });
});
