// DeviceArray on every device we can run here (interpret, sim): creation, reads, views, copies,
// kernels on device arrays with no copy, aliasing, deferred frees, and errors before anything runs.
// A missing sim library fails these tests (getDevice('sim') throws), never skips them.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, InterpretDevice, array, getDevice, kernel, setDeviceAnnouncer, type Device, type DeviceKind } from '../../src/runtime/index.js';
import { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_CACHE'] = '0';

const add = kernel({ name: 'da_add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.out.add(offs), load(a.x.add(offs), { mask }).add(load(a.y.add(offs), { mask })), { mask });
});

const seq = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));
const codeOf = async (p: PromiseLike<unknown>) => Promise.resolve(p).then(() => 'resolved', (e: { code?: string }) => e.code);

describe.each(['interpret', 'sim'] as DeviceKind[])('DeviceArray on %s', (device) => {
  it('is created empty, zeroed, filled, from a typed array, a list, a HostArray and a DeviceArray', async () => {
    const z = DeviceArray.zeros([2, 3], 'f32', { device });
    expect(z.shape).toEqual([2, 3]);
    expect(z.strides).toEqual([3, 1]);
    expect(Array.from(await z.toArray())).toEqual([0, 0, 0, 0, 0, 0]);
    const f = DeviceArray.full([4], 7, 'i32', { device });
    expect(Array.from(await f.toArray())).toEqual([7, 7, 7, 7]);
    const t = DeviceArray.from(seq(6, (i) => i * 1.5), 'f32', { device, shape: [3, 2] });
    expect(t.shape).toEqual([3, 2]);
    expect(Array.from(t.toArraySync())).toEqual([0, 1.5, 3, 4.5, 6, 7.5]);
    const l = DeviceArray.from([1, 2, 300], 'u8', { device });
    expect(Array.from(await l.toArray())).toEqual([1, 2, 44]);
    const h = DeviceArray.from(array([0.1, 2.5], 'f16'), undefined, { device });
    expect((await h.toHost()).toArray()).toEqual([0.0999755859375, 2.5]);
    const c = DeviceArray.from(t);
    t.free();
    expect(Array.from(await c.toArray())).toEqual([0, 1.5, 3, 4.5, 6, 7.5]);
    const i64 = DeviceArray.from([2n ** 40n, -3n], 'i64', { device });
    expect(Array.from(await i64.toArray())).toEqual([2n ** 40n, -3n]);
    const e = DeviceArray.empty([0], 'f64', { device });
    expect((await e.toArray()).length).toBe(0);
    for (const a of [z, f, l, h, c, i64, e]) a.free();
  });

  it('views and slices share the storage (no copies); strided views read back in order', async () => {
    const a = DeviceArray.from(seq(12, (i) => i), 'f32', { device, shape: [3, 4] });
    const row = a.slice(1);
    expect(row.shape).toEqual([4]);
    expect(Array.from(await row.toArray())).toEqual([4, 5, 6, 7]);
    const block = a.slice([1, 3], [1, 3]);
    expect(block.shape).toEqual([2, 2]);
    expect(block.contiguous).toBe(false);
    expect(Array.from(await block.toArray())).toEqual([5, 6, 9, 10]);
    const tr = a.transpose();
    expect(tr.shape).toEqual([4, 3]);
    expect(Array.from(tr.toArraySync())).toEqual([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    const flat = a.reshape([12]);
    expect(() => tr.reshape([12])).toThrow(/contiguous/);
    // A write through one view is seen by the others: they are one storage.
    await row.copyFrom(Float32Array.of(-1, -2, -3, -4));
    expect(Array.from(await flat.toArray())).toEqual([0, 1, 2, 3, -1, -2, -3, -4, 8, 9, 10, 11]);
    expect(() => a.slice([0, 5])).toThrow(/out of range/);
    a.free();
    expect(flat.freed).toBe(true);
  });

  it('copies device to device in stream order; events give elapsed time', async () => {
    const dev = getDevice(device);
    const s = dev.createStream!();
    const a = DeviceArray.from(seq(64, (i) => i), 'f32', { device, stream: s });
    const b = DeviceArray.empty([64], 'f32', { device });
    const start = dev.createEvent!(), end = dev.createEvent!();
    start.record(s);
    void b.copyFrom(a, { stream: s });
    end.record(s);
    expect(Array.from(await b.toArray({ stream: s }))).toEqual(Array.from(seq(64, (i) => i)));
    await end.synchronize();
    expect(end.elapsedSince(start)).toBeGreaterThanOrEqual(0);
    await s.synchronize();
    s.destroy();
    a.free();
    b.free();
  });

  it('kernel.run takes device arrays with no copy; the same array in two params aliases', async () => {
    const n = 1000;
    const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device });
    const y = DeviceArray.from(seq(n, (i) => 2 * i), 'f32', { device });
    const out = DeviceArray.empty([n], 'f32', { device });
    const f = add.run({ x, y, out, n, BLOCK: 128 }, { grid: Math.ceil(n / 128), device });
    expect(typeof f.then).toBe('function');
    await f;
    expect(Array.from(await out.toArray())).toEqual(Array.from(seq(n, (i) => 3 * i)));
    // out = out + out, in place, twice: queued back to back, awaited once.
    void add.run({ x: out, y: out, out, n, BLOCK: 128 }, { grid: Math.ceil(n / 128), device });
    await add.run({ x: out, y: out, out, n, BLOCK: 128 }, { grid: Math.ceil(n / 128), device });
    expect(Array.from(await out.toArray())).toEqual(Array.from(seq(n, (i) => 12 * i)));
    // A slice at an element offset (not 16-byte aligned) is passed as it is.
    const tail = out.slice([1, n]);
    await add.run({ x: tail, y: tail, out: tail, n: n - 1, BLOCK: 128 }, { grid: Math.ceil(n / 128), device });
    expect(Array.from(await out.toArray())).toEqual(Array.from(seq(n, (i) => (i === 0 ? 0 : 24 * i))));
    for (const a of [x, y, out]) a.free();
  });

  it('host typed arrays still work beside device arrays (copied in and out)', async () => {
    const n = 100;
    const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device });
    const y = seq(n, () => 1);
    const out = new Float32Array(n);
    await add.run({ x, y, out, n, BLOCK: 128 }, { grid: 1, device });
    expect(Array.from(out)).toEqual(Array.from(seq(n, (i) => i + 1)));
    x.free();
  });

  it('free() while a kernel uses the array is deferred until it is done; results are unchanged', async () => {
    const n = 4096;
    const want = seq(n, (i) => 3 * i);
    for (let round = 0; round < 3; round++) {
      const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device });
      const y = DeviceArray.from(seq(n, (i) => 2 * i), 'f32', { device });
      const out = DeviceArray.empty([n], 'f32', { device });
      const done = add.run({ x, y, out, n, BLOCK: 128 }, { grid: n / 128, device });
      x.free();
      y.free(); // the inputs are gone to the user, not to the queued kernel
      expect(x.storage.inflight).toBeGreaterThanOrEqual(0);
      const result = out.toArray(); // queued after the kernel
      out.free(); // the read is queued: it still sees the array
      expect(Array.from(await result)).toEqual(Array.from(want));
      await done;
      expect(x.storage.inflight).toBe(0);
      expect(out.storage.inflight).toBe(0);
    }
  });

  it('errors before anything runs: freed array, wrong dtype, bad shapes, another device', async () => {
    const n = 8;
    const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device });
    const out = DeviceArray.zeros([n], 'f32', { device });
    const freed = DeviceArray.zeros([n], 'f32', { device });
    freed.free();
    await expect(add.run({ x, y: freed, out, n, BLOCK: 8 }, { grid: 1, device })).rejects.toThrow(/parameter 'y'.*freed/);
    await expect(freed.toArray()).rejects.toMatchObject({ code: 'E_FREED' });
    const ints = DeviceArray.zeros([n], 'i32', { device });
    await expect(add.run({ x, y: ints as never, out, n, BLOCK: 8 }, { grid: 1, device })).rejects.toThrow(/parameter 'y' \(ptr<f32>\).*array of f32/);
    const other: DeviceKind = device === 'sim' ? 'interpret' : 'sim';
    const foreign = DeviceArray.zeros([n], 'f32', { device: other });
    await expect(add.run({ x, y: foreign, out, n, BLOCK: 8 }, { grid: 1, device })).rejects.toThrow(new RegExp(`parameter 'y'.*on device '${other}:0'`));
    expect(() => DeviceArray.empty([2, -1], 'f32', { device })).toThrow(/shape/);
    expect(() => DeviceArray.empty([2], 'f17' as never, { device })).toThrow(/unknown dtype/);
    expect(() => DeviceArray.from([1, 2, 3], 'f32', { device, shape: [2, 2] })).toThrow(/does not match 3 elements/);
    await expect(out.copyFrom(new Int32Array(n) as never)).rejects.toThrow(/Float32Array/);
    // Nothing was written by the rejected launches.
    expect(Array.from(await out.toArray())).toEqual(new Array(n).fill(0));
    for (const a of [x, out, ints, foreign]) a.free();
  });

  it('after close(), arrays, allocations and launches of that device fail clearly before anything runs', async () => {
    const dev: Device = device === 'sim' ? NativeRuntimeDevice.open('sim') : new InterpretDevice();
    const a = DeviceArray.full([8], 2, 'f32', { device: dev });
    expect(Array.from(await a.toArray())).toEqual(new Array(8).fill(2));
    dev.close!();
    await expect(a.toArray()).rejects.toMatchObject({ code: 'E_CLOSED' });
    expect(() => a.toArraySync()).toThrow(/device was closed/);
    await expect(add.run({ x: a, y: a, out: a, n: 8, BLOCK: 8 }, { grid: 1, device: dev })).rejects.toThrow(/closed/);
    expect(() => DeviceArray.empty([2], 'f32', { device: dev })).toThrow(/closed/);
    a.free(); // quiet: the memory went with the device
  });
});

describe('closing a sim device with driver waits in flight', () => {
  it('close() right after queued work is E_CLOSED for later use, and the context goes once the wait returns', async () => {
    const dev = NativeRuntimeDevice.open('sim');
    const a = DeviceArray.full([1 << 16], 1, 'f32', { device: dev }); // its completion wait is in flight now
    expect(() => dev.close!()).not.toThrow(); // the driver refuses to close under a wait: deferred, not an error
    await expect(a.toArray()).rejects.toMatchObject({ code: 'E_CLOSED' });
    const again = NativeRuntimeDevice.open('sim'); // a new device opens and works meanwhile
    const b = DeviceArray.full([4], 3, 'f32', { device: again });
    expect(Array.from(await b.toArray())).toEqual([3, 3, 3, 3]);
    again.close!();
  });
});

describe('DeviceArray memory on the sim counts for V8', () => {
  it('reports device allocations as external memory (GC pressure) and takes them back on free', async () => {
    const { loadAddon } = await import('../../src/runtime/native/addon.js');
    const addon = loadAddon();
    const sim = getDevice('sim');
    const bytes = 48 * 2 ** 20;
    const e0 = addon.externalMemory();
    const a = DeviceArray.empty([bytes / 4], 'f32', { device: sim });
    expect(addon.externalMemory() - e0).toBeGreaterThanOrEqual(bytes);
    a.free();
    await sim.synchronize!();
    expect(addon.externalMemory() - e0).toBeLessThan(bytes);
  });
});
