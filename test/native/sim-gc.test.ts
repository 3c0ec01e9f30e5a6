// The finalizers are a safety net: allocations the program forgot to free are returned when their
// handles are collected, and a collected Driver leaves its resources usable.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { addonPath } from '../../src/runtime/native/addon.js';
import { openSimDriver, simLibrary } from './sim-helpers.js';

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

  it('a worker thread that ends with live allocations returns them (per-environment teardown)', async () => {
    const observer = openSimDriver();
    const before = observer.memGetInfo().free;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const d = require(workerData.addon).open(workerData.lib);
      const p = d.memAlloc(1 << 20);
      d.memcpyHtoD(p, new Uint8Array(16).fill(3));
      const b = new Uint8Array(16);
      d.memcpyDtoH(b, p);
      parentPort.postMessage({ bytes: [...b], free: d.memGetInfo().free });`;
    for (let i = 0; i < 2; i++) {
      const w = new Worker(code, { eval: true, workerData: { addon: addonPath(), lib: simLibrary() } });
      const msg = await new Promise<{ bytes: number[]; free: number }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
      await new Promise((r) => w.once('exit', r));
      expect(msg.bytes).toEqual(new Array(16).fill(3));
      expect(msg.free).toBeLessThanOrEqual(before - (1 << 20));
      expect(observer.memGetInfo().free).toBe(before);
    }
    observer.close();
  });
});
