// The cp.async-fed warp-specialized matmul's PTX with its full mbarriers init'ed for 1 arrival
// instead of 128 (ws_cpasync_sabotage.ts): `cp.async.mbarrier.arrive.noinc` counts against the
// init count, so the first producer thread whose copies land completes the phase and the
// consumers read a stage the other 127 threads are still filling (their later arrivals then complete
// phases nobody waits for: on the sim a wait misses its phase and spins). Must not pass on the sim: a
// wrong result or a named fault (its own file: a fault ends the context; the instruction budget
// lowered so that a hang is named in seconds). Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 22);
import { describe, expect, it } from 'vitest';
import { cpPtx, isWrongCp, launchCp } from './ws_cpasync_sabotage.js';

describe('cp.async producer sabotage on the sim as sm_90', () => {
  it('full barriers expecting 1 arrival instead of the 128 producer threads: a wrong result or a named fault', () => {
    const ptx = cpPtx();
    expect(isWrongCp(launchCp(ptx))).toBe(false); // the control, under the same budget
    // the first S = 3 inits are the full barriers (4 consumer warps: the empty ones expect 128 too)
    let n = 0;
    const cut = ptx.replace(/(mbarrier\.init\.shared::cta\.b64 \[%r\d+(?:\+\d+)?\]), 128;/g, (m, head: string) => (n++ < 3 ? `${head}, 1;` : m));
    expect(n).toBe(6);
    const c = launchCp(cut);
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: .*mbarrier|CUDA_ERROR_LAUNCH_TIMEOUT/);
    expect(isWrongCp(c)).toBe(true);
  });
});
