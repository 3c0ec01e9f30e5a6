// streamDone after a sticky fault rejects with the driver's error name (own file: the fault
// poisons the context for the rest of the process, as on hardware).
import { describe, expect, it } from 'vitest';
import { OOB_PTX } from './fixtures.js';
import { asyncCodeOf, openSimDriver } from './sim-helpers.js';

describe('streamDone after a sticky fault', () => {
  it('rejects with CUDA_ERROR_ILLEGAL_ADDRESS, and so does every later wait', async () => {
    const drv = openSimDriver();
    const p = drv.memAlloc(16);
    const fn = drv.getFunction(drv.moduleLoadData(OOB_PTX), 'oob');
    const plan = drv.createLaunchPlan(fn, [0], 8);
    new DataView(plan.params.buffer, plan.params.byteOffset).setBigUint64(0, p.address, true);
    const s = drv.streamCreate();
    plan.launch(1, 1, 1, 32, 1, 1, 0, s);
    let err: unknown;
    try {
      await drv.streamDone(s);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(await asyncCodeOf(() => drv.streamDone(null))).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(drv.lastFault()).toContain('oob');
  });
});
