// free() right after a read frees at once (src/runtime/native/completion.ts settleThrough): a
// read that came back proves the work queued before it on its stream is done, so the arrays that
// work held are released then, not when the stream's completion wait returns (which on a loaded
// machine came later, and a free landed in the next test's memoryStats count: serve.test.ts).
// The completion waits are held back here until the test lets them go, as a slow machine would.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import type { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import { simLibrary } from './sim-helpers.js';

let held: (() => void)[] = [];
let holding = false;
/** Lets every held completion wait return. */
const letGo = () => {
  holding = false;
  for (const go of held.splice(0)) go();
};
vi.mock('../../src/runtime/native/driver_seam.js', async (orig) => {
  const m = await orig<typeof import('../../src/runtime/native/driver_seam.js')>();
  const streamDone: typeof m.streamDone = (driver, stream) => m.streamDone(driver, stream).then(
    () => (holding ? new Promise<void>((r) => held.push(r)) : undefined),
  );
  return { ...m, streamDone };
});

process.env['TESSERA_SIM_MEMORY_MB'] = '64';
setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();

const inc = kernel({ name: 'inc', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.x.add(offs), load(a.x.add(offs), { mask }).add(1), { mask });
});

const seq = (n: number) => Float32Array.from({ length: n }, (_, i) => i);

let dev: NativeRuntimeDevice;
beforeAll(async () => {
  dev = getDevice('sim') as NativeRuntimeDevice;
  const w = DeviceArray.from(seq(8), 'f32', { device: dev }); // compiled, loaded and planned before counting
  await inc.run({ x: w, n: 8, BLOCK: 8 }, { grid: 1, device: dev });
  w.free();
  await dev.synchronize();
});
afterEach(letGo);

describe('free() after a read', () => {
  it('frees at once, while the completion wait of the array\'s upload has not returned', async () => {
    await dev.synchronize();
    const before = dev.memoryStats();
    holding = true;
    const a = DeviceArray.from(seq(1000), 'f32', { device: dev });
    expect((await a.toArray())[999]).toBe(999);
    expect(held.length).toBeGreaterThan(0); // the upload's wait really is held back
    a.free();
    expect(a.storage.released).toBe(true);
    const st = dev.memoryStats();
    expect(st.frees).toBe(before.frees + 1);
    expect(st.inUseBytes).toBe(before.inUseBytes);
  });

  it('a launch queued before the read is settled when the read is back; the array is freed at once', async () => {
    await dev.synchronize();
    const before = dev.memoryStats();
    holding = true;
    const x = DeviceArray.from(seq(100), 'f32', { device: dev });
    const run = inc.run({ x, n: 100, BLOCK: 128 }, { grid: 1, device: dev });
    let ran = false;
    void run.then(() => { ran = true; });
    expect((await x.toArray())[99]).toBe(100);
    await Promise.resolve();
    expect(ran).toBe(true);
    x.free();
    expect(dev.memoryStats().inUseBytes).toBe(before.inUseBytes);
  });

  it('without a pool (cuMemFree) too', async () => {
    const ctx = dev.context();
    ctx.pool = false;
    try {
      await dev.synchronize();
      const before = dev.memoryStats();
      holding = true;
      const a = DeviceArray.from(seq(1000), 'f32', { device: dev });
      expect(dev.memoryStats().inUseBytes).toBe(before.inUseBytes + 4000);
      expect((await a.toArray())[999]).toBe(999);
      a.free();
      expect(dev.memoryStats().inUseBytes).toBe(before.inUseBytes);
    } finally {
      letGo();
      await dev.synchronize();
      ctx.pool = true;
    }
  });

  it('a read on another stream settles nothing of the default stream (no order between them)', async () => {
    await dev.synchronize();
    const x = DeviceArray.from(seq(64), 'f32', { device: dev });
    const y = DeviceArray.from(seq(64), 'f32', { device: dev });
    await dev.synchronize();
    holding = true;
    const run = inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: dev });
    const s = dev.createStream();
    await y.toArray({ stream: s });
    await new Promise((r) => setImmediate(r));
    expect(run.done).toBe(false); // its own wait, held back, still says when it is done
    x.free();
    expect(x.storage.released).toBe(false);
    letGo();
    await run;
    expect(x.storage.released).toBe(true);
    y.free();
  });
});
