// The warp-specialized tcgen05 matmul's PTX with the epilogue's tcgen05.ld moved above its
// ACC_FULL wait (ws_tcgen05_sabotage.ts) must not pass on the sim: a wrong result or a named
// fault (its own file: a fault ends the context). Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { expectWrongTc, expectWsTcControl, launchWsTc, ldBeforeAccFull, wsTcPtx } from './ws_tcgen05_sabotage.js';

describe('warp-specialized tcgen05 sabotage on the sim as sm_100: the epilogue', () => {
  it('the control, with the surgery moving nothing but the wait', () => {
    expectWsTcControl();
  });
  it('an epilogue tcgen05.ld before the ACC_FULL wait: a wrong result or a named fault', () => {
    const ptx = ldBeforeAccFull(wsTcPtx());
    expect(ptx.indexOf('tcgen05.ld.sync')).toBeLessThan(ptx.indexOf('// warp specialization (tcgen05): wait for'));
    const c = launchWsTc(ptx);
    expectWrongTc(c);
  });
});
