// A sticky fault on the sim (an out-of-bounds store) with device arrays and work queued behind
// it: every pending future rejects, every array of the dead context says so when used (never a
// wrong result), and the device opens a fresh context where new arrays and launches work.
// In its own file (own process): the fault resets the sim's context.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_CACHE'] = '0';

const scale = kernel({ name: 'rec_scale', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, ({ x, out, n, BLOCK }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
  const mask = offs.lt(n);
  store(out.add(offs), load(x.add(offs), { mask }).mul(2), { mask });
});

// Forgot the mask, and writes far past the end of `out`.
const unmasked = kernel({ name: 'rec_unmasked', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, ({ x, out, n, BLOCK }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
  store(out.add(offs.add(n.mul(4096))), load(x.add(offs), { mask: offs.lt(n), other: 0 }));
});

const codeOf = (p: PromiseLike<unknown>) => Promise.resolve(p).then(() => 'resolved', (e: { code?: string }) => e.code);

describe('after a sticky fault on the sim', () => {
  it('pending futures reject, old arrays report the lost context, new work runs', async () => {
    const device = 'sim';
    const n = 256;
    const x = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => i), 'f32', { device });
    const out = DeviceArray.zeros([n], 'f32', { device });
    await scale.run({ x, out, n, BLOCK: 128 }, { grid: 2, device });
    expect(Array.from(await out.toArray())).toEqual(Array.from({ length: n }, (_, i) => 2 * i));

    const bad = unmasked.run({ x, out, n, BLOCK: 128 }, { grid: 2, device });
    const after = scale.run({ x, out, n, BLOCK: 128 }, { grid: 2, device }); // queued behind the fault
    const read = out.toArray();
    const [badCode, afterCode, readCode] = await Promise.all([codeOf(bad), codeOf(after), codeOf(read)]);
    expect(badCode).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    // Work queued behind the fault fails with the driver's error; if the sim had already faulted
    // when it was queued (its launch call returns the sticky error, the context is then known to
    // be lost), later calls are refused with E_CONTEXT_LOST. Never a result.
    expect(afterCode).toMatch(/^(CUDA_ERROR_ILLEGAL_ADDRESS|E_CONTEXT_LOST)$/);
    expect(readCode).toMatch(/^(CUDA_ERROR_ILLEGAL_ADDRESS|E_CONTEXT_LOST)$/);

    // The old arrays: a clear error on every use, before anything runs.
    await expect(out.toArray()).rejects.toMatchObject({ code: 'E_CONTEXT_LOST' });
    expect(() => x.toArraySync()).toThrow(/context was destroyed by CUDA_ERROR_ILLEGAL_ADDRESS/);
    await expect(scale.run({ x, out: DeviceArray.empty([n], 'f32', { device }), n, BLOCK: 128 }, { grid: 2, device }))
      .rejects.toThrow(/parameter 'x'.*context was destroyed by CUDA_ERROR_ILLEGAL_ADDRESS/);
    expect(() => x.slice([0, 4]).clone()).toThrow(/E_CONTEXT_LOST|context was destroyed/);
    x.free(); // quiet: the context took the memory with it
    out.free();

    // A fresh context: new arrays and launches work, host arrays too.
    const x2 = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => i + 1), 'f32', { device });
    const out2 = DeviceArray.empty([n], 'f32', { device });
    await scale.run({ x: x2, out: out2, n, BLOCK: 128 }, { grid: 2, device });
    expect(Array.from(await out2.toArray())).toEqual(Array.from({ length: n }, (_, i) => 2 * (i + 1)));
    const hostOut = new Float32Array(n);
    await scale.run({ x: x2, out: hostOut, n, BLOCK: 128 }, { grid: 2, device });
    expect(Array.from(hostOut)).toEqual(Array.from({ length: n }, (_, i) => 2 * (i + 1)));
    expect(getDevice(device).kind).toBe('sim');

    // A second fault recovers the same way.
    expect(await codeOf(unmasked.run({ x: x2, out: out2, n, BLOCK: 128 }, { grid: 2, device }))).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    await expect(x2.toArray()).rejects.toMatchObject({ code: 'E_CONTEXT_LOST' });
    const x3 = DeviceArray.full([n], 3, 'f32', { device });
    const out3 = DeviceArray.empty([n], 'f32', { device });
    await scale.run({ x: x3, out: out3, n, BLOCK: 128 }, { grid: 2, device });
    expect(Array.from(await out3.toArray())).toEqual(new Array(n).fill(6));
  });
});
