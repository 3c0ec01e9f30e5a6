// Flash attention's TMA form on the sm_100a TMA ring (tcgen05_flash_ring_cases.ts: one program,
// 8 key blocks through 2 stages, so every stage is refilled) without the loop's full-barrier wait:
// the MMAs read a stage before its K and V land (or the refill's expect_tx meets a phase still
// pending). It must not pass on the sim: a wrong result or a named fault (its own file: a fault
// ends the context). The sim names the second: thread 0's next expect_tx arrives on a stage whose
// phase never completed ("an arrive too many"). Sabotage test: excluded from the sanitized suite (test/sanitize/suite.test.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { expectClose } from './helpers.js';
import { dropFullWait, launchRing, sabKernel, sabWant, sabWrong } from './tcgen05_flash_ring_cases.js';

describe('flash attention (TMA form) on the sm_100a TMA ring: sabotage on the sim', () => {
  it('the unsabotaged PTX is right (the control)', () => {
    const o = launchRing(sabKernel().ptx);
    expect(o).toBeInstanceOf(Float32Array);
    expectClose(o as Float32Array, sabWant(), 2e-3, 'sim vs JS');
  });
  it('without the full-barrier wait (the MMAs read a stage before its K and V landed): a wrong result or a named fault', () => {
    const o = launchRing(dropFullWait(sabKernel().ptx));
    if (o instanceof Error) expect(o.message).toMatch(/tessera-sim: .*mbarrier|CUDA_ERROR_LAUNCH_TIMEOUT/);
    expect(sabWrong(o)).toBe(true);
  });
});
