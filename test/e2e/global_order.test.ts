// Global memory in program order between the threads of one program (docs/semantics.md, "Memory";
// codegen/global_order.ts): each case runs on the sim (as an sm_80 here; global_order_sm90.test.ts
// runs the sim as an sm_90) and on the interpreter, both compared with a plain-JS program-order
// reference; the PTX holds a bar.sync exactly where a thread may read (or overwrite) what another
// thread of the program wrote (or read).
import { describe, expect, it } from 'vitest';
import { checkOrderCase } from './global_order_check.js';
import { ORDER_CASES } from './global_order_kernels.js';

describe('global memory order within a program (sim as sm_80)', () => {
  it.each(ORDER_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const ptx = await checkOrderCase(c);
    expect(ptx).toContain('.target sm_80');
  });
});
