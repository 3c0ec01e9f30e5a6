// The global-memory order cases of global_order.test.ts with the sim as an sm_90 (set before the
// sim loads): the kernels compile for sm_90a, the same barriers order the same accesses.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { checkOrderCase } from './global_order_check.js';
import { ORDER_CASES } from './global_order_kernels.js';

describe('global memory order within a program (sim as sm_90)', () => {
  it.each(ORDER_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const ptx = await checkOrderCase(c);
    expect(ptx).toContain('.target sm_90a');
  });
});
