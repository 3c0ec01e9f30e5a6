// Runs one global-memory order case (global_order_kernels.ts) on the interpreter and the sim and
// returns the PTX the sim ran.
import { expect } from 'vitest';
import type { LaunchArg } from '../../src/runtime/device.js';
import { runBoth, simDevice } from './helpers.js';
import type { OrderCase } from './global_order_kernels.js';

export async function checkOrderCase(c: OrderCase, sanitize?: readonly ('racecheck' | 'synccheck' | 'initcheck')[]): Promise<string> {
  const args = c.args();
  const want = Array.from(c.want(args));
  const r = await runBoth(c.kernel, args as never, 1, { numWarps: 4 });
  expect(Array.from((r.interpret as Record<string, ArrayLike<number>>)[c.out]!), 'interpreter vs program order').toEqual(want);
  expect(Array.from((r.sim as Record<string, ArrayLike<number>>)[c.out]!), 'sim vs program order').toEqual(want);
  const cx: Record<string, number> = {};
  for (const n of c.kernel.def.constexprNames) cx[n] = args[n] as number;
  const positional = c.kernel.def.runtimeParams.map((p) => args[p.name] as LaunchArg);
  const ptx = simDevice().compile(c.kernel.trace(cx), 4, positional).ptx;
  const bars = (ptx.match(/global memory order/g) ?? []).length;
  if (c.barrier) expect(bars, 'a barrier orders the two accesses').toBeGreaterThan(0);
  else expect(ptx, 'no barrier where each thread reads back its own writes').not.toMatch(/bar\.sync/);
  if (sanitize) await c.kernel.run(c.args() as never, { grid: 1, device: 'sim', numWarps: 4, sanitize });
  return ptx;
}
