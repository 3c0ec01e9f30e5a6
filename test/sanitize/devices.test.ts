// The sim's sanitizers on several devices with the stream-ordered pool (issue 20 on top of issue
// 19): per-launch sanitizer flags of one device do not leak into another's launches (the library's
// setting is process-wide; the runtime sets it before each launch), and initcheck's shadow of
// written bytes follows pool blocks (a block handed out again is unwritten again). In this
// directory because it causes hazards on purpose (suite.test.ts runs test/native under the
// sanitizers).
import { beforeAll, describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import { simLibrary } from '../native/sim-helpers.js';

// Read by the sim at its first cuInit in this process (vitest runs each file in its own process).
process.env['TESSERA_SIM_DEVICES'] = '2';
setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();

const inc = kernel({ name: 'inc', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.x.add(offs), load(a.x.add(offs), { mask }).add(1), { mask });
});

const seq = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));

let s0: NativeRuntimeDevice;
let s1: NativeRuntimeDevice;
beforeAll(() => {
  s0 = getDevice('sim:0') as NativeRuntimeDevice;
  s1 = getDevice('sim:1') as NativeRuntimeDevice;
});

describe('sanitizers with several devices and the pool', () => {
  it("initcheck on sim:1: a pool block handed out again is unwritten again; sim:0's launches keep their own setting", async () => {
    const n = 256;
    s1.setSanitize(['initcheck']); // from here on, allocations (and reused pool blocks) get initcheck's shadow
    try {
      const x = DeviceArray.from(seq(n, (i) => i), 'f32', { device: s1 });
      await inc.run({ x, n, BLOCK: 256 }, { grid: 1, device: s1 }); // written by the upload: clean
      expect(await x.toArray()).toEqual(seq(n, (i) => i + 1));
      const addr = x.address;
      x.free();
      await s1.synchronize();
      const y = DeviceArray.empty([n], 'f32', { device: s1 });
      expect(y.address).toBe(addr); // the same block, from the pool's cache
      // sim:0 has no sanitizer: the same read of never-written memory goes unnoticed there
      const z = DeviceArray.empty([n], 'f32', { device: s0 });
      await inc.run({ x: z, n, BLOCK: 256 }, { grid: 1, device: s0 });
      z.free();
      const e = await inc.run({ x: y, n, BLOCK: 256 }, { grid: 1, device: s1 }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
      expect(e?.code).toBe('E_HAZARD');
      expect(e!.message).toMatch(/tessera-sim: initcheck hazard in kernel 'inc': read of uninitialised global memory at 0x[0-9a-f]+/);
      expect(e!.message).toContain(`at 0x${BigInt(y.address).toString(16)}:`); // sim:1's block
      // after a fill the (new) block is written: clean
      const w = DeviceArray.zeros([n], 'f32', { device: s1 });
      await inc.run({ x: w, n, BLOCK: 256 }, { grid: 1, device: s1 });
      expect(await w.toArray()).toEqual(seq(n, () => 1));
      w.free();
    } finally {
      s1.setSanitize([]);
    }
  });
});
