// Serving on several devices (issue 19), on two simulated devices of 64 MiB each: devices by
// ordinal, cross-device errors and copies, the stream-ordered pool (stats, no device-wide
// synchronization in a request loop, the OOM path), and CUDA graphs (capture, replay, refusals).
import { beforeAll, describe, expect, it } from 'vitest';
import { arange, cdiv, constexpr, exp, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, devices, getDevice, kernel, loadModule, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import { SAXPY_PTX } from '../../examples/foreign_ptx.js';
import { simLibrary } from './sim-helpers.js';

// Read by the sim at its first cuInit in this process (vitest runs each file in its own process).
process.env['TESSERA_SIM_DEVICES'] = '2';
process.env['TESSERA_SIM_MEMORY_MB'] = '64';
setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();

const MiB = 1 << 20;

const softmax = kernel({ name: 'row_softmax', params: { x: ptr('f32'), out: ptr('f32'), C: 'i32', BC: constexpr() } }, (a) => {
  const row = programId(0);
  const cols = arange(0, a.BC);
  const mask = cols.lt(a.C);
  const v = load(a.x.add(row.mul(a.C).add(cols)), { mask, other: -Infinity });
  const e = exp(v.sub(v.max(0)));
  store(a.out.add(row.mul(a.C).add(cols)), e.div(e.sum(0)), { mask });
});

const inc = kernel({ name: 'inc', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.x.add(offs), load(a.x.add(offs), { mask }).add(1), { mask });
});

function refSoftmax(x: Float32Array, R: number, C: number): Float32Array {
  const out = new Float32Array(R * C);
  for (let r = 0; r < R; r++) {
    let m = -Infinity;
    for (let c = 0; c < C; c++) m = Math.max(m, x[r * C + c]!);
    let s = 0;
    for (let c = 0; c < C; c++) s += Math.exp(x[r * C + c]! - m);
    for (let c = 0; c < C; c++) out[r * C + c] = Math.exp(x[r * C + c]! - m) / s;
  }
  return out;
}

const seq = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));

let s0: NativeRuntimeDevice;
let s1: NativeRuntimeDevice;
beforeAll(() => {
  s0 = getDevice('sim:0') as NativeRuntimeDevice;
  s1 = getDevice('sim:1') as NativeRuntimeDevice;
});

describe('devices by ordinal', () => {
  it('devices() lists every device of every kind with ordinal, compute capability and memory', () => {
    const list = devices();
    const sims = list.filter((d) => d.kind === 'sim');
    expect(sims.map((d) => d.name)).toEqual(['sim:0', 'sim:1']);
    for (const d of sims) {
      expect(d).toMatchObject({ available: true, computeCapability: '8.0', memoryBytes: 64 * MiB });
      expect(d.deviceName).toMatch(/Tessera PTX Simulator/);
    }
    expect(list.at(-1)).toMatchObject({ name: 'interpret:0', available: true });
    const cuda = list.filter((d) => d.kind === 'cuda');
    expect(cuda.length).toBeGreaterThan(0);
    for (const d of cuda) if (!d.available) expect(d.reason).toBeTruthy();
  });

  it("'sim' is 'sim:0'; each ordinal is its own device; bad names are E_DEVICE", () => {
    expect(getDevice('sim')).toBe(s0);
    expect(s0.name).toBe('sim:0');
    expect(s1.name).toBe('sim:1');
    expect(s1).not.toBe(s0);
    expect(s1.ordinal).toBe(1);
    expect(() => getDevice('sim:2' as never)).toThrow(expect.objectContaining({ code: 'E_DEVICE', message: expect.stringMatching(/sim:2.*not available.*2 device\(s\)/) }));
    expect(() => getDevice('sim:x' as never)).toThrow(expect.objectContaining({ code: 'E_DEVICE', message: expect.stringMatching(/unknown device "sim:x"/) }));
    expect(() => getDevice('interpret:1' as never)).toThrow(expect.objectContaining({ code: 'E_DEVICE' }));
    const saved = process.env['TESSERA_DEVICE'];
    try {
      process.env['TESSERA_DEVICE'] = 'sim:1';
      expect(getDevice()).toBe(s1);
    } finally {
      if (saved === undefined) delete process.env['TESSERA_DEVICE'];
      else process.env['TESSERA_DEVICE'] = saved;
    }
  });

  it('the same kernel runs on both devices, each with its own memory, and matches the reference', async () => {
    const R = 3, C = 37;
    const host = seq(R * C, (i) => Math.sin(i) * 4);
    const want = refSoftmax(host, R, C);
    for (const device of [s0, s1]) {
      const x = DeviceArray.from(host, 'f32', { device });
      const out = DeviceArray.empty([R * C], 'f32', { device });
      await softmax.run({ x, out, C, BC: 64 }, { grid: R, device });
      const got = await out.toArray();
      for (let i = 0; i < R * C; i++) expect(got[i]).toBeCloseTo(want[i]!, 5);
      x.free();
      out.free();
    }
    const a0 = DeviceArray.zeros([4], 'f32', { device: s0 });
    const a1 = DeviceArray.zeros([4], 'f32', { device: s1 });
    expect(a0.address).not.toBe(a1.address);
    a0.free();
    a1.free();
  });

  it("an array of another device is E_DEVICE naming the parameter and both devices, before anything runs", async () => {
    const x = DeviceArray.from(seq(8, (i) => i), 'f32', { device: s0 });
    const out1 = DeviceArray.zeros([8], 'f32', { device: s1 });
    await expect(softmax.run({ x, out: out1, C: 8, BC: 8 }, { grid: 1, device: s1 }))
      .rejects.toThrow(expect.objectContaining({ code: 'E_DEVICE', message: expect.stringMatching(/parameter 'x'.*on device 'sim:0', the launch on 'sim:1'/) }));
    const saxpy = loadModule(SAXPY_PTX, { device: s1 }).getFunction('saxpy');
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, out1, 1, 8] }))
      .rejects.toThrow(expect.objectContaining({ code: 'E_DEVICE', message: expect.stringMatching(/parameter 'x'.*'sim:0'.*'sim:1'/) }));
    expect(await out1.toArray()).toEqual(new Float32Array(8));
    x.free();
    out1.free();
  });

  it('a.to(device) copies between devices (peer), to and from the interpreter (staged), and views', async () => {
    const host = seq(1000, (i) => i * 0.5 - 7);
    const a = DeviceArray.from(host, 'f32', { device: s0, shape: [10, 100] });
    const b = await a.to('sim:1');
    expect(b.device).toBe(s1);
    expect(b.shape).toEqual([10, 100]);
    expect(await b.toArray()).toEqual(host);
    const stream = s0.createStream();
    const back = await b.to(s0, { stream });
    expect(back.device).toBe(s0);
    expect(await back.toArray()).toEqual(host);
    const i = await b.to('interpret');
    expect(i.device.kind).toBe('interpret');
    expect(await i.toArray()).toEqual(host);
    const again = await i.to('sim:1');
    expect(await again.toArray()).toEqual(host);
    const t = await a.transpose().to('sim:1'); // a strided view: staged, gathered
    const tv = await t.toArray();
    expect(tv[1]).toBe(host[100]);
    expect(t.shape).toEqual([100, 10]);
    const same = await a.to('sim:0');
    expect(same).not.toBe(a);
    expect(await same.toArray()).toEqual(host);
    expect(s0.canAccessPeer(s1)).toBe(false); // no peer mapping: cuMemcpyPeer stages
    for (const x of [a, b, back, i, again, t, same]) x.free();
    // freed here, not left to the GC: a finalizer freeing it later on sim:0 would change the counts
    // memoryStats is checked against below (it did, now and then, on a loaded machine)
    const z = DeviceArray.zeros([2], 'f32', { device: s0 });
    await expect(z.to('sim:7' as never)).rejects.toMatchObject({ code: 'E_DEVICE' });
    z.free();
  });

  it("a raw address of device 0 used on device 1 faults there (no peer access); device 0 is unharmed", async () => {
    const x0 = DeviceArray.from(seq(32, (i) => i), 'f32', { device: s0 });
    const y1 = DeviceArray.zeros([32], 'f32', { device: s1 });
    const saxpy = loadModule(SAXPY_PTX, { device: s1 }).getFunction('saxpy');
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x0.address as bigint, y1, 2, 32] })).rejects.toMatchObject({ code: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
    await expect(y1.toArray()).rejects.toMatchObject({ code: 'E_CONTEXT_LOST' });
    expect(await x0.toArray()).toEqual(seq(32, (i) => i)); // sim:0 keeps its context
    const fresh = DeviceArray.from(seq(4, (i) => i), 'f32', { device: s1 }); // sim:1 opened a fresh one
    expect(await fresh.toArray()).toEqual(seq(4, (i) => i));
    x0.free();
    fresh.free();
    y1.free(); // its context is gone (nothing to give back), but not left to the finalizer
  });
});

describe('the stream-ordered memory pool', () => {
  it('memoryStats counts allocations and frees; freed blocks stay reserved for reuse until trimMemory', async () => {
    const dev = s0;
    // Earlier tests free arrays whose queued work (a fill, an upload) nobody awaited: such a free
    // waits until that work is known done, and synchronize() is where it is known. Nothing here is
    // left to the GC (every sim:0 array is freed by its test).
    await dev.synchronize();
    dev.trimMemory();
    const before = dev.memoryStats();
    const a = DeviceArray.zeros([MiB / 4], 'f32', { device: dev });
    const st1 = dev.memoryStats();
    expect(st1.allocations).toBe(before.allocations + 1);
    expect(st1.inUseBytes).toBe(before.inUseBytes + MiB);
    expect(st1.peakInUseBytes).toBeGreaterThanOrEqual(st1.inUseBytes);
    await dev.synchronize();
    a.free();
    await dev.synchronize();
    const st2 = dev.memoryStats();
    expect(st2.frees).toBe(before.frees + 1);
    expect(st2.inUseBytes).toBe(before.inUseBytes);
    expect(st2.reservedBytes).toBeGreaterThanOrEqual(MiB); // cached, not given back
    dev.trimMemory();
    expect(dev.memoryStats().reservedBytes).toBe(dev.memoryStats().inUseBytes);
  });

  it('a request loop of alloc / launch / read / free does no device-wide synchronization and reuses its blocks', async () => {
    const dev = s0;
    const R = 4, C = 50;
    const host = seq(R * C, (i) => (i % 13) - 6);
    const want = refSoftmax(host, R, C);
    // warm up: compile, load the module, create the plan (a module load is not a request)
    {
      const x = DeviceArray.from(host, 'f32', { device: dev });
      const out = DeviceArray.empty([R * C], 'f32', { device: dev });
      await softmax.run({ x, out, C, BC: 64 }, { grid: R, device: dev });
      x.free();
      out.free();
    }
    dev.trimMemory();
    const syncs = dev.simDeviceSyncs()!;
    expect(syncs).toBeGreaterThanOrEqual(0);
    const start = dev.memoryStats();
    for (let i = 0; i < 40; i++) {
      const x = DeviceArray.from(host, 'f32', { device: dev });
      const out = DeviceArray.empty([R * C], 'f32', { device: dev });
      await softmax.run({ x, out, C, BC: 64 }, { grid: R, device: dev });
      const got = await out.toArray();
      expect(got[7]).toBeCloseTo(want[7]!, 5);
      x.free();
      out.free();
    }
    // each free came after a read that settled the request's work: every block is back at once
    expect(dev.simDeviceSyncs()).toBe(syncs);
    const end = dev.memoryStats();
    expect(end.allocations - start.allocations).toBe(80);
    expect(end.frees - start.frees).toBe(80);
    expect(end.inUseBytes).toBe(start.inUseBytes);
    expect(end.reservedBytes).toBeLessThanOrEqual(start.reservedBytes + 4 * 1024); // two blocks of 800 B, reused
  });

  it('out of memory: the pool is trimmed and the allocation retried once, then E_OOM with requested and free bytes', async () => {
    const dev = s1;
    dev.trimMemory();
    const a = DeviceArray.empty([40 * MiB / 4], 'f32', { device: dev });
    a.free(); // back to the pool: 40 MiB reserved, unused
    await dev.synchronize();
    expect(dev.memoryStats().reservedBytes).toBeGreaterThanOrEqual(40 * MiB);
    // 50 MiB does not fit next to the cached 40 MiB of a 64 MiB device: trimmed, retried, served
    const b = DeviceArray.empty([50 * MiB / 4], 'f32', { device: dev });
    expect(dev.memoryStats().reservedBytes).toBeLessThan(60 * MiB);
    let err: unknown;
    try {
      DeviceArray.empty([30 * MiB / 4], 'f32', { device: dev });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_OOM' });
    expect((err as Error).message).toMatch(new RegExp(`device 'sim:1': requested ${30 * MiB} bytes, \\d+ of ${64 * MiB} bytes free after trimming`));
    b.free();
    const c = DeviceArray.zeros([30 * MiB / 4], 'f32', { device: dev }); // fits again
    expect((await c.toArray())[123]).toBe(0);
    c.free();
    dev.trimMemory();
  });
});

describe('a driver without stream-ordered pools', () => {
  it('falls back to cuMemAlloc/cuMemFree, and memoryStats counts those bytes', async () => {
    const dev = s0;
    const ctx = dev.context();
    ctx.pool = false; // what the runtime sets when cuMemPoolCreate is missing or not supported
    try {
      const before = dev.memoryStats();
      const a = DeviceArray.from(seq(1000, (i) => i), 'f32', { device: dev });
      const st = dev.memoryStats();
      expect(st.inUseBytes).toBe(before.inUseBytes + 4000);
      expect(st.reservedBytes).toBe(st.inUseBytes);
      expect(st.peakInUseBytes).toBeGreaterThanOrEqual(4000);
      expect((await a.toArray())[999]).toBe(999);
      const syncs = dev.simDeviceSyncs()!;
      a.free();
      // cuMemFree waits for the device: why the pool exists. The read settled the upload, so the
      // free happens at once (test/native/free-after-read.test.ts holds the completion waits back)
      expect(dev.memoryStats().inUseBytes).toBe(before.inUseBytes);
      expect(dev.simDeviceSyncs()).toBe(syncs + 1);
      expect(() => DeviceArray.empty([65 * MiB / 4], 'f32', { device: dev })).toThrow(expect.objectContaining({ code: 'E_OOM', message: expect.stringMatching(/no memory pool to trim/) }));
    } finally {
      ctx.pool = true;
    }
  });
});

describe('CUDA graphs (device.capture)', () => {
  it('captures a chain of launches and copies, replays it with one call, holds its arrays until destroy', async () => {
    const dev = s0;
    const n = 300;
    const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device: dev });
    const y = DeviceArray.zeros([n], 'f32', { device: dev });
    const saxpy = loadModule(SAXPY_PTX, { device: dev }).getFunction('saxpy');
    await inc.run({ x, n, BLOCK: 128 }, { grid: cdiv(n, 128), device: dev }); // compiled and planned before capture
    const captured: PromiseLike<void>[] = [];
    const g = await dev.capture(() => {
      captured.push(inc.run({ x, n, BLOCK: 128 }, { grid: cdiv(n, 128), device: dev }));
      captured.push(inc.run({ x, n, BLOCK: 128 }, { grid: cdiv(n, 128), device: dev }));
      captured.push(saxpy.launch({ grid: cdiv(n, 128), block: 128, args: [x, y, 2, n] })); // y += 2x
      captured.push(y.copyFrom(y)); // a device copy is a node too
    });
    expect(g.nodes).toBe(4);
    // recorded, not run
    expect(await x.toArray()).toEqual(seq(n, (i) => i + 1));
    expect(await y.toArray()).toEqual(new Float32Array(n));
    await g.launch();
    expect(await x.toArray()).toEqual(seq(n, (i) => i + 3));
    expect(await y.toArray()).toEqual(seq(n, (i) => 2 * (i + 3)));
    const s = dev.createStream();
    await g.launch({ stream: s });
    expect(await x.toArray()).toEqual(seq(n, (i) => i + 5));
    // held: a free() is deferred until the graph is destroyed
    // (the device-wide `frees` count can also move for arrays of earlier tests that the GC
    // finalizes meanwhile, so the array's own storage says whether it was given back)
    const frees = dev.memoryStats().frees;
    x.free();
    expect(x.storage.released).toBe(false);
    await g.launch();
    expect(await y.toArray()).toEqual(seq(n, (i) => 2 * (i + 3) + 2 * (i + 5) + 2 * (i + 7)));
    let settled = false;
    void Promise.all(captured).then(() => { settled = true; });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false); // futures of captured work settle at destroy
    g.destroy();
    await Promise.all(captured);
    expect(x.storage.released).toBe(true);
    expect(dev.memoryStats().frees).toBeGreaterThanOrEqual(frees + 1);
    await expect(g.launch()).rejects.toMatchObject({ code: 'E_FREED' });
    g.destroy(); // once is enough; a second is quiet
    y.free();
  });

  it('a host read, a synchronization, host arrays, another stream or an async callback is E_CAPTURE; the stream stays usable', async () => {
    const dev = s0;
    const n = 64;
    const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device: dev });
    await inc.run({ x, n, BLOCK: 64 }, { grid: 1, device: dev });
    const cases: [string, () => void, RegExp][] = [
      ['toArraySync', () => { inc.run({ x, n, BLOCK: 64 }, { grid: 1, device: dev }); x.toArraySync(); }, /host read \(toArraySync\)/],
      ['toArray', () => { x.toArray().catch(() => {}); }, /a host read/],
      ['synchronize (caught by the callback)', () => { try { void dev.synchronize(); } catch { /* swallowed */ } }, /device\.synchronize\(\)/],
      ['host array', () => { void inc.run({ x: new Float32Array(n), n, BLOCK: 64 }, { grid: 1, device: dev }); }, /host arrays/],
      ['another stream', () => { void inc.run({ x, n, BLOCK: 64 }, { grid: 1, device: dev, stream: dev.createStream() }); }, /another stream/],
      ['allocation', () => { DeviceArray.zeros([4], 'f32', { device: dev }); }, /an allocation/],
    ];
    for (const [what, fn, msg] of cases) {
      await expect(dev.capture(fn), what).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(msg) });
      // nothing captured ran, and the stream works
      await inc.run({ x, n, BLOCK: 64 }, { grid: 1, device: dev });
    }
    await expect(dev.capture((async () => { /* nothing */ }) as never)).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringMatching(/returned a promise/) });
    await expect(dev.capture('nope' as never)).rejects.toMatchObject({ code: 'E_ARG' });
    const boom = new Error('user error');
    await expect(dev.capture(() => { throw boom; })).rejects.toBe(boom);
    await inc.run({ x, n, BLOCK: 64 }, { grid: 1, device: dev });
    // 1 before + one per case (7 with the last) + 0 from refused captures
    expect(await x.toArray()).toEqual(seq(n, (i) => i + 1 + cases.length + 1));
    x.free();
  });
});
