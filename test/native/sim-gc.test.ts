// The finalizers are a safety net: allocations the program forgot to free are returned when their
// handles are collected, and a collected Driver leaves its resources usable.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { openSimDriver } from './sim-helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
// N-API finalizers run after the collection, from the event loop.
const collect = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
};

describe('finalizers (sim)', () => {
  it('frees forgotten allocations when their handles are collected', async () => {
    const drv = openSimDriver();
    const before = drv.memGetInfo().free;
    (() => {
      for (let i = 0; i < 16; i++) drv.memAlloc(1 << 20);
    })();
    expect(drv.memGetInfo().free).toBeLessThanOrEqual(before - 16 * (1 << 20));
    await collect();
    expect(drv.memGetInfo().free).toBe(before);
    drv.close();
  });

  it('keeps a collected Driver\'s state alive while its resources live, then frees them', async () => {
    const survivor = openSimDriver(); // observes the shared device memory
    const before = survivor.memGetInfo().free;
    let drv: ReturnType<typeof openSimDriver> | undefined = openSimDriver();
    let keep: { bytes: number } | undefined = drv.memAlloc(1 << 20);
    const m = drv.moduleLoadData('.version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n');
    let fn: { name: string } | undefined = drv.getFunction(m, 'k');
    drv = undefined;
    await collect();
    // the Driver object is gone; its allocation is still owned by `keep`
    expect(keep.bytes).toBe(1 << 20);
    expect(fn.name).toBe('k');
    expect(survivor.memGetInfo().free).toBeLessThanOrEqual(before - (1 << 20));
    keep = undefined;
    fn = undefined;
    await collect();
    expect(survivor.memGetInfo().free).toBe(before);
    survivor.close();
  });
});
