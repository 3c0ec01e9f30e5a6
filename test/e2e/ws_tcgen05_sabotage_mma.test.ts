// The warp-specialized tcgen05 matmul's PTX with the MMA warp's full-barrier wait cut out
// (ws_tcgen05_sabotage.ts) must not pass on the sim: a wrong result or a named fault (its own
// file: a fault ends the context). Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, it } from 'vitest';
import { expectWrongTc, expectWsTcControl, launchWsTc, mmaSkipsFullWait, wsTcPtx } from './ws_tcgen05_sabotage.js';

describe('warp-specialized tcgen05 sabotage on the sim as sm_100: the MMA warp', () => {
  it('the unsabotaged PTX is right (the control)', () => {
    expectWsTcControl();
  });
  it('an MMA warp that skips its full-barrier wait: a wrong result or a named fault', () => {
    const c = launchWsTc(mmaSkipsFullWait(wsTcPtx()));
    expectWrongTc(c);
  });
});
