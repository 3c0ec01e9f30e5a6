// The runtime attacked as a careless caller would (issue 26), on two simulated devices of 64 MiB
// each. The defects found (each test here failed before its fix): an OOM retry that could not see
// frees deferred behind queued work; a capture that let another device's work run at once, or a
// nested capture, without failing; a graph launched on another device's stream reported as E_ARG.
// Beside them the attack classes that already held: freed, foreign and zero-size arrays, bad
// grids, a memory fault with many futures pending, graph misuse.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import { simLibrary } from './sim-helpers.js';

// Read by the sim at its first cuInit in this process (vitest runs each file in its own process).
process.env['TESSERA_SIM_DEVICES'] = '2';
process.env['TESSERA_SIM_MEMORY_MB'] = '64';
setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();

const MiB = 1 << 20;

const inc = kernel({ name: 'attack_inc', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.x.add(offs), load(a.x.add(offs), { mask }).add(1), { mask });
});

/** Stores past the end of x (no mask): a memcheck fault on the sim. */
const oob = kernel({ name: 'attack_oob', params: { x: ptr('f32'), BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK)).add(1 << 20);
  store(a.x.add(offs), load(a.x.add(arange(0, a.BLOCK))));
});

const seq = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));

let s0: NativeRuntimeDevice;
let s1: NativeRuntimeDevice;
beforeAll(async () => {
  s0 = getDevice('sim:0') as NativeRuntimeDevice;
  s1 = getDevice('sim:1') as NativeRuntimeDevice;
  for (const device of [s0, s1]) {
    // compiled and planned on both devices before any capture (a first launch loads a module)
    const x = DeviceArray.zeros([64], 'f32', { device });
    await inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device });
    x.free();
  }
});

// Unhandled rejections are what crashes a server: every test here checks none happened.
const unhandled: unknown[] = [];
process.on('unhandledRejection', (e) => unhandled.push(e));
afterEach(async () => {
  await new Promise((r) => setTimeout(r, 20));
  expect(unhandled.splice(0)).toEqual([]);
});

describe('defect: the OOM retry and deferred frees', () => {
  it('free() of an array whose kernel is queued, then an allocation of the same size, succeeds (the retry waits for the deferred free)', async () => {
    for (const dev of [s0, s1]) {
      dev.trimMemory();
      const n = (38 * MiB) / 4; // 60 % of the device: two of them do not fit
      const a = DeviceArray.zeros([n], 'f32', { device: dev });
      const queued = inc.run({ x: a, n: 256, BLOCK: 256 }, { grid: 1, device: dev });
      a.free(); // deferred: the queued kernel holds it
      expect(a.storage.released).toBe(false);
      const b = DeviceArray.empty([n], 'f32', { device: dev }); // was E_OOM
      expect(a.storage.released).toBe(true);
      await queued; // the work the deferred free waited for settled with its own result
      await b.copyFrom(new Float32Array(n)); // written before the kernel reads it (initcheck)
      await inc.run({ x: b, n: 4, BLOCK: 4 }, { grid: 1, device: dev });
      b.free();
      // a real shortage is still E_OOM, with nothing allocated
      const c = DeviceArray.empty([n], 'f32', { device: dev });
      expect(() => DeviceArray.empty([n], 'f32', { device: dev })).toThrow(expect.objectContaining({ code: 'E_OOM' }));
      c.free();
      await dev.synchronize();
      dev.trimMemory();
      expect(dev.memoryStats().inUseBytes).toBe(0);
    }
  });

  it('a deferred free held by work on a stream of its own is waited for too', async () => {
    const dev = s0;
    dev.trimMemory();
    const n = (38 * MiB) / 4;
    const a = DeviceArray.zeros([n], 'f32', { device: dev });
    await dev.synchronize();
    const stream = dev.createStream();
    const queued = inc.run({ x: a, n: 256, BLOCK: 256 }, { grid: 1, device: dev, stream });
    a.free();
    const b = DeviceArray.empty([n], 'f32', { device: dev });
    await queued;
    b.free();
    await dev.synchronize();
    dev.trimMemory();
  });
});

describe('defect: capture records or refuses every launch made during the callback', () => {
  it("another device's launch inside d0.capture is E_CAPTURE naming that device; it did not run and the capture fails", async () => {
    const x0 = DeviceArray.zeros([64], 'f32', { device: s0 });
    const x1 = DeviceArray.zeros([64], 'f32', { device: s1 });
    let inner: PromiseLike<void> | undefined;
    await expect(s0.capture(() => {
      void inc.run({ x: x0, n: 64, BLOCK: 64 }, { grid: 1, device: s0 });
      inner = inc.run({ x: x1, n: 64, BLOCK: 64 }, { grid: 1, device: s1 });
    })).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/device 'sim:1'.*capture.*'sim:0'/) });
    await expect(inner).rejects.toMatchObject({ code: 'E_CAPTURE' });
    expect(await x1.toArray()).toEqual(new Float32Array(64)); // nothing ran on sim:1
    expect(await x0.toArray()).toEqual(new Float32Array(64)); // nothing recorded ran on sim:0
    // a copy, a fill or a read on the other device, even caught by the callback, fails the capture too
    const cases: [string, () => void][] = [
      ['copy', () => { void x1.copyFrom(x1); }],
      ['fill (caught)', () => { try { void DeviceArray.zeros([4], 'f32', { device: s1 }); } catch { /* swallowed */ } }],
      ['read', () => { x1.toArray().catch(() => {}); }],
      ['synchronize', () => { s1.synchronize().then(undefined, () => {}); }],
    ];
    for (const [what, fn] of cases) {
      await expect(s0.capture(fn), what).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/sim:1/) });
    }
    // both devices work afterwards
    await inc.run({ x: x0, n: 64, BLOCK: 64 }, { grid: 1, device: s0 });
    await inc.run({ x: x1, n: 64, BLOCK: 64 }, { grid: 1, device: s1 });
    expect(await x0.toArray()).toEqual(new Float32Array(64).fill(1));
    expect(await x1.toArray()).toEqual(new Float32Array(64).fill(1));
    x0.free();
    x1.free();
  });

  it('the interpreter launched inside a capture is refused as well', async () => {
    const xi = DeviceArray.zeros([8], 'f32', { device: 'interpret' });
    await expect(s0.capture(() => {
      inc.run({ x: xi, n: 8, BLOCK: 8 }, { grid: 1, device: 'interpret' }).then(undefined, () => {});
    })).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/interpret/) });
    expect(await xi.toArray()).toEqual(new Float32Array(8));
    xi.free();
  });

  it('a capture started inside another capture fails the outer one (and its rejection is not left unhandled)', async () => {
    const x = DeviceArray.zeros([64], 'f32', { device: s0 });
    for (const dev of [s0, s1]) {
      let nested: Promise<unknown> | undefined;
      await expect(s0.capture(() => {
        void inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: s0 });
        nested = dev.capture(() => {}); // not awaited, not caught: must not crash the process
      })).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/already in progress/) });
      await expect(nested).rejects.toMatchObject({ code: 'E_CAPTURE' });
    }
    expect(await x.toArray()).toEqual(new Float32Array(64)); // nothing recorded ran
    const g = await s0.capture(() => { void inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: s0 }); });
    expect(g.nodes).toBe(1);
    await g.launch();
    expect(await x.toArray()).toEqual(new Float32Array(64).fill(1));
    g.destroy();
    x.free();
  });
});

describe('defect: a graph launched on a stream of another device', () => {
  it('is E_DEVICE naming both devices, as an array of another device is', async () => {
    const x = DeviceArray.zeros([64], 'f32', { device: s0 });
    const g = await s0.capture(() => { void inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: s0 }); });
    await expect(g.launch({ stream: s1.createStream() })).rejects.toMatchObject({ code: 'E_DEVICE', message: expect.stringMatching(/'sim:1'.*'sim:0'/) });
    await expect(inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: s0, stream: s1.createStream() })).rejects.toMatchObject({ code: 'E_DEVICE' });
    await expect(g.launch({ stream: {} as never })).rejects.toMatchObject({ code: 'E_ARG' });
    expect(await x.toArray()).toEqual(new Float32Array(64));
    g.destroy();
    x.free();
  });
});

describe('attacks that already held', () => {
  it('freed, foreign and zero-size arrays, bad grids: each its error before anything runs', async () => {
    const x = DeviceArray.from(seq(64, (i) => i), 'f32', { device: s0 });
    const freed = DeviceArray.zeros([64], 'f32', { device: s0 });
    freed.free();
    const foreign = DeviceArray.zeros([64], 'f32', { device: s1 });
    await expect(inc.run({ x: freed, n: 64, BLOCK: 64 }, { grid: 1, device: s0 })).rejects.toMatchObject({ code: 'E_FREED' });
    await expect(freed.toArray()).rejects.toMatchObject({ code: 'E_FREED' });
    freed.free(); // twice: quiet
    await expect(inc.run({ x: foreign, n: 64, BLOCK: 64 }, { grid: 1, device: s0 })).rejects.toMatchObject({ code: 'E_DEVICE' });
    for (const grid of [0, -1, 1.5, NaN, [1, 2, 3, 4], [], 2 ** 31]) {
      await expect(inc.run({ x, n: 64, BLOCK: 64 }, { grid: grid as never, device: s0 }), JSON.stringify(grid)).rejects.toThrow(/grid/);
    }
    const empty = DeviceArray.zeros([0], 'f32', { device: s0 });
    expect(await empty.toArray()).toEqual(new Float32Array(0));
    await inc.run({ x: empty, n: 0, BLOCK: 16 }, { grid: 1, device: s0 });
    empty.free();
    expect(await x.toArray()).toEqual(seq(64, (i) => i)); // untouched by every refused launch
    x.free();
    foreign.free();
  });

  it('a memory fault with 40 futures pending: every one settles, the faulting device recovers, the other is unharmed', async () => {
    const dev = s1;
    const x = DeviceArray.zeros([256], 'f32', { device: dev });
    const other = DeviceArray.zeros([64], 'f32', { device: s0 });
    const pending: PromiseLike<void>[] = [];
    for (let i = 0; i < 20; i++) pending.push(inc.run({ x, n: 256, BLOCK: 256 }, { grid: 1, device: dev }));
    pending.push(oob.run({ x, BLOCK: 64 }, { grid: 1, device: dev }));
    for (let i = 0; i < 19; i++) pending.push(inc.run({ x, n: 256, BLOCK: 256 }, { grid: 1, device: dev }));
    const otherRun = inc.run({ x: other, n: 64, BLOCK: 64 }, { grid: 1, device: s0 });
    const settled = await Promise.allSettled(pending);
    expect(settled.length).toBe(40);
    const failed = settled.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: expect.stringMatching(/ILLEGAL_ADDRESS|E_CONTEXT_LOST/) });
    await otherRun;
    expect(await other.toArray()).toEqual(new Float32Array(64).fill(1));
    await expect(x.toArray()).rejects.toMatchObject({ code: 'E_CONTEXT_LOST' });
    const fresh = DeviceArray.from(seq(8, (i) => i), 'f32', { device: dev });
    await inc.run({ x: fresh, n: 8, BLOCK: 8 }, { grid: 1, device: dev });
    expect(await fresh.toArray()).toEqual(seq(8, (i) => i + 1));
    fresh.free();
    other.free();
  });

  it('graph misuse: launch after destroy, a graph launched inside a capture, destroy twice', async () => {
    const x = DeviceArray.zeros([64], 'f32', { device: s0 });
    const g = await s0.capture(() => { void inc.run({ x, n: 64, BLOCK: 64 }, { grid: 1, device: s0 }); });
    await expect(s0.capture(() => { void g.launch().then(undefined, () => {}); })).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/graph\.launch/) });
    await g.launch();
    g.destroy();
    g.destroy();
    await expect(g.launch()).rejects.toMatchObject({ code: 'E_FREED' });
    expect(await x.toArray()).toEqual(new Float32Array(64).fill(1));
    x.free();
  });
});
