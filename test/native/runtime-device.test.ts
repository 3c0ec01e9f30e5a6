// Kernels written in the language run on the `sim` device through the runtime (kernel(...).run),
// and match both a plain-JS reference and the interpreter.
import { describe, expect, it } from 'vitest';
import { arange, cdiv, constexpr, exp, load, programId, ptr, store } from '../../src/lang/index.js';
import { getDevice, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import { randomFloats } from './fixtures.js';
import { simLibrary } from './sim-helpers.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();

const add = kernel({ name: 'vadd', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.out.add(offs), load(a.x.add(offs), { mask }).add(load(a.y.add(offs), { mask })), { mask });
});

const softmax = kernel({ name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), C: 'i32', BC: constexpr() } }, (a) => {
  const row = programId(0);
  const cols = arange(0, a.BC);
  const mask = cols.lt(a.C);
  const v = load(a.x.add(row.mul(a.C).add(cols)), { mask, other: -Infinity });
  const e = exp(v.sub(v.max(0)));
  store(a.out.add(row.mul(a.C).add(cols)), e.div(e.sum(0)), { mask });
});

describe('runtime on the sim device', () => {
  it('registers sim as a NativeRuntimeDevice', () => {
    const d = getDevice('sim');
    expect(d).toBeInstanceOf(NativeRuntimeDevice);
    expect(d.kind).toBe('sim');
    expect(d.description).toMatch(/^sim:0 \(/);
  });

  it.each([1, 1000, 4096])('vector add of %i elements equals the JS reference and the interpreter', async (n) => {
    const x = randomFloats(n, 21), y = randomFloats(n, 22);
    const outSim = new Float32Array(n), outInterp = new Float32Array(n);
    await add.run({ x, y, out: outSim, n, BLOCK: 256 }, { grid: (a) => cdiv(a.n, a.BLOCK), device: 'sim' });
    await add.run({ x, y, out: outInterp, n, BLOCK: 256 }, { grid: (a) => cdiv(a.n, a.BLOCK), device: 'interpret' });
    expect(outSim).toEqual(x.map((v, i) => Math.fround(v + y[i]!)));
    expect(outSim).toEqual(outInterp);
  });

  it('row softmax is within 1e-6 of the JS reference and the interpreter', async () => {
    const R = 6, C = 50;
    const x = randomFloats(R * C, 23);
    const outSim = new Float32Array(R * C), outInterp = new Float32Array(R * C);
    await softmax.run({ x, out: outSim, C, BC: 64 }, { grid: R, device: 'sim' });
    await softmax.run({ x, out: outInterp, C, BC: 64 }, { grid: R, device: 'interpret' });
    for (let r = 0; r < R; r++) {
      const row = Array.from(x.subarray(r * C, r * C + C));
      const m = Math.max(...row);
      const es = row.map((v) => Math.exp(v - m));
      const s = es.reduce((p, q) => p + q, 0);
      es.forEach((e, c) => {
        expect(Math.abs(outSim[r * C + c]! - e / s)).toBeLessThan(1e-6);
        expect(Math.abs(outSim[r * C + c]! - outInterp[r * C + c]!)).toBeLessThan(1e-6);
      });
    }
  });

  it('aliased arguments share one device buffer (out = x + y written into x)', async () => {
    const n = 300;
    const x = randomFloats(n, 24), y = randomFloats(n, 25);
    const want = x.map((v, i) => Math.fround(v + y[i]!));
    await add.run({ x, y, out: x, n, BLOCK: 128 }, { grid: 3, device: 'sim' });
    expect(x).toEqual(want);
  });

  it('a failing launch leaves the caller arrays untouched and frees its buffers', async () => {
    const dev = getDevice('sim') as NativeRuntimeDevice;
    const func = add.trace({ BLOCK: 128 });
    const x = randomFloats(128, 26), y = randomFloats(128, 27);
    const out = new Float32Array(128).fill(7);
    await dev.synchronize();
    dev.trimMemory();
    const free = dev.native.driver.memGetInfo().free;
    const { inUseBytes } = dev.memoryStats();
    await expect(dev.launch(func, [x, y, out, 2 ** 40], { grid: [1, 1, 1], numWarps: 4 })).rejects.toMatchObject({ code: 'E_PARAM' });
    await expect(dev.launch(func, [x, y, out], { grid: [1, 1, 1], numWarps: 4 })).rejects.toMatchObject({ code: 'E_PARAM' });
    expect(out.every((v) => v === 7)).toBe(true);
    // the temporaries went back to the pool (stream-ordered frees), and from it to the device when trimmed
    expect(dev.memoryStats().inUseBytes).toBe(inUseBytes);
    await dev.synchronize();
    dev.trimMemory();
    expect(dev.native.driver.memGetInfo().free).toBe(free);
  });
});
