// The cp.async-fed warp-specialized matmul's PTX without the producer's empty-barrier wait
// (ws_cpasync_sabotage.ts) must not pass on the sim: a wrong result or a named fault (its own
// file: a fault ends the context). The unsabotaged PTX gives the exact result (the control). Without the wait the producer refills stages the consumers still read, and its 128-arrival
// full phases complete faster than the consumers wait for them: the consumers' full-barrier wait misses its phase and spins (a
// deadlock on hardware too); the sim's instruction budget, lowered for this file, ends it with
// CUDA_ERROR_LAUNCH_TIMEOUT naming the spinning wait. Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 22);
import { describe, expect, it } from 'vitest';
import { dropWait } from './ws_sabotage.js';
import { cpPtx, isWrongCp, launchCp } from './ws_cpasync_sabotage.js';

describe('cp.async producer sabotage on the sim as sm_90', () => {
  it("without the producer's empty-barrier wait: a wrong result or a named fault", () => {
    expect(isWrongCp(launchCp(cpPtx()))).toBe(false);
    const c = launchCp(dropWait(cpPtx(), 'producer'));
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: .*mbarrier|CUDA_ERROR_LAUNCH_TIMEOUT/);
    expect(isWrongCp(c)).toBe(true);
  });
});
