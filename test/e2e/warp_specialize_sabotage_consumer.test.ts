// The warp-specialized matmul's PTX without the consumers' full-barrier wait (ws_sabotage.ts) must not pass
// on the sim: a wrong result or a named fault (its own file: a fault ends the context).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { dropWait, isWrong, launchWs, wsPtx } from './ws_sabotage.js';

describe('warp specialization sabotage on the sim as sm_90', () => {
  it("without the consumers' full-barrier wait: a wrong result or a named fault", () => {
    const c = launchWs(dropWait(wsPtx(), 'consumer'));
    if (c instanceof Error) expect(c.message).toMatch(/tessera-sim: .*mbarrier/);
    expect(isWrong(c)).toBe(true);
  });
});
