import { afterEach, describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store, cdiv, exp, maximum } from '../../src/lang/index.js';
import { HostArray, array, kernel, getDevice, setDeviceAnnouncer, registerDeviceProvider, type Device } from '../../src/runtime/index.js';
import { InterpretError } from '../../src/interpret/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';

setDeviceAnnouncer(() => {}); // keep test output quiet

const add = kernel({ name: 'vadd', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.out.add(offs), load(a.x.add(offs), { mask }).add(load(a.y.add(offs), { mask })), { mask });
});

function rand(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 16807) % 2147483647) / 2147483647 - 0.5) * 10);
}

describe('kernel(...).run on the interpreter', () => {
  it('vector add with a ragged end, grid as a function of the args', async () => {
    const n = 1000;
    const x = rand(n, 1), y = rand(n, 2), out = new Float32Array(n);
    await add.run({ x, y, out, n, BLOCK: 128 }, { grid: (a) => cdiv(a.n, a.BLOCK), device: 'interpret' });
    expect(Array.from(out)).toEqual(Array.from(x, (v, i) => Math.fround(v + y[i]!)));
  });
  it('grid as a number and as an array; HostArray args', async () => {
    const x = array([1, 2, 3], 'f32'), y = array([10, 20, 30], 'f32'), out = array([0, 0, 0], 'f32');
    await add.run({ x, y, out, n: 3, BLOCK: 2 }, { grid: 2 });
    expect(out.toArray()).toEqual([11, 22, 33]);
    await add.run({ x: out, y, out, n: 3, BLOCK: 4 }, { grid: [1, 1] });
    expect(out.toArray()).toEqual([21, 42, 63]);
  });
  it('row softmax (reductions, exp, broadcasting) matches a JS reference', async () => {
    const R = 5, C = 50;
    const softmax = kernel({ name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), C: 'i32', BC: constexpr() } }, (a) => {
      const row = programId(0);
      const cols = arange(0, a.BC);
      const mask = cols.lt(a.C);
      const v = load(a.x.add(row.mul(a.C).add(cols)), { mask, other: -Infinity });
      const e = exp(v.sub(v.max(0)));
      store(a.out.add(row.mul(a.C).add(cols)), e.div(e.sum(0)), { mask });
    });
    const x = rand(R * C, 7), out = new Float32Array(R * C);
    await softmax.run({ x, out, C, BC: 64 }, { grid: R });
    for (let r = 0; r < R; r++) {
      const row = Array.from(x.subarray(r * C, r * C + C));
      const m = Math.max(...row);
      const es = row.map((v) => Math.exp(v - m));
      const s = es.reduce((p, q) => p + q, 0);
      es.forEach((e, c) => expect(Math.abs(out[r * C + c]! - e / s)).toBeLessThan(1e-6));
    }
  });
  it('f16 arrays are Uint16Array bit patterns', async () => {
    const relu = kernel({ name: 'relu16', params: { x: ptr('f16'), out: ptr('f16'), BLOCK: constexpr() } }, (a) => {
      const o = arange(0, a.BLOCK);
      store(a.out.add(o), maximum(load(a.x.add(o)), 0));
    });
    const x = f16Array([-1.5, 2.25, -0.1, 3]);
    const out = new Uint16Array(4);
    await relu.run({ x, out, BLOCK: 4 }, { grid: 1 });
    expect(Array.from(f16ToFloat32(out))).toEqual([0, 2.25, 0, 3]);
  });
  it('traces once per constexpr set', async () => {
    const f1 = add.trace({ BLOCK: 64 });
    expect(add.trace({ BLOCK: 64 })).toBe(f1);
    expect(add.trace({ BLOCK: 32 })).not.toBe(f1);
  });
});

describe('argument checking happens before anything runs', () => {
  const x = new Float32Array(4), y = new Float32Array(4);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['missing', { x, y, n: 4, BLOCK: 4 }, /missing argument for parameter 'out'/],
    ['extra', { x, y, out: x, n: 4, BLOCK: 4, z: 1 }, /unknown argument 'z'/],
    ['wrong array', { x: new Float64Array(4), y, out: x, n: 4, BLOCK: 4 }, /parameter 'x' \(ptr<f32>\) needs a Float32Array/],
    ['wrong HostArray dtype', { x: array([1], 'i32'), y, out: x, n: 4, BLOCK: 4 }, /parameter 'x'.*array of f32/],
    ['non-integer i32', { x, y, out: x, n: 4.5, BLOCK: 4 }, /parameter 'n' \(i32\) needs an integer/],
    ['i32 out of range', { x, y, out: x, n: 2 ** 31, BLOCK: 4 }, /parameter 'n'.*\[-2147483648, 2147483647\]/],
    ['bad constexpr', { x, y, out: x, n: 4, BLOCK: [4] }, /'BLOCK' is a constexpr/],
  ];
  for (const [name, args, re] of cases) {
    it(name, async () => {
      const err = await add.run(args as never, { grid: 1 }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('E_ARG');
      expect((err as Error).message).toMatch(/kernel 'vadd'/);
      expect((err as Error).message).toMatch(re);
    });
  }
  it('bad grids, numWarps and numStages', async () => {
    const args = { x, y, out: new Float32Array(4), n: 4, BLOCK: 4 };
    for (const grid of [0, [1, 2, 3, 4], () => -1, [1.5]]) {
      await expect(add.run(args, { grid: grid as never })).rejects.toThrow(/grid must be/);
    }
    await expect(add.run(args, { grid: 1, numWarps: 3 })).rejects.toThrow(/numWarps/);
    for (const numStages of [0, 2.5, 9]) {
      await expect(add.run(args, { grid: 1, numStages })).rejects.toThrow(expect.objectContaining({ code: 'E_ARG', message: expect.stringMatching(/numStages must be an integer from 1 to 8, got/) }));
    }
    await add.run(args, { grid: 1, numStages: 1, device: 'interpret' }); // the interpreter ignores a valid one
  });
});

describe('device selection', () => {
  const saved = process.env['TESSERA_DEVICE'];
  afterEach(() => {
    if (saved === undefined) delete process.env['TESSERA_DEVICE'];
    else process.env['TESSERA_DEVICE'] = saved;
  });
  it('defaults to sim on a machine without a GPU where the sim is built (npm install builds it)', () => {
    delete process.env['TESSERA_DEVICE'];
    expect(getDevice().kind).toBe('sim');
  });
  it('cuda without a driver is an E_DEVICE error naming the reason; unknown names too', async () => {
    expect(() => getDevice('cuda')).toThrow(/device 'cuda:0' is not available: .*libcuda/);
    const err = await add.run({ x: new Float32Array(1), y: new Float32Array(1), out: new Float32Array(1), n: 1, BLOCK: 1 }, { grid: 1, device: 'cuda' }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('E_DEVICE');
    process.env['TESSERA_DEVICE'] = 'cuda';
    expect(() => getDevice()).toThrow(/device 'cuda:0' is not available/);
    process.env['TESSERA_DEVICE'] = 'gpu0';
    expect(() => getDevice()).toThrow(/unknown device "gpu0"/);
    process.env['TESSERA_DEVICE'] = 'interpret';
    expect(getDevice().kind).toBe('interpret');
  });
  it('a Device object can be passed directly (the interface native devices implement)', async () => {
    const seen: string[] = [];
    const fake: Device = { kind: 'sim', description: 'fake', launch: async (f) => { seen.push(f.name); } };
    await add.run({ x: new Float32Array(1), y: new Float32Array(1), out: new Float32Array(1), n: 1, BLOCK: 1 }, { grid: 1, device: fake });
    expect(seen).toEqual(['vadd']);
  });
  it('registered providers take part in the default order (cuda first) and when named', () => {
    delete process.env['TESSERA_DEVICE'];
    const fake: Device = { kind: 'cuda', description: 'fake cuda', launch: async () => {} };
    const lines: string[] = [];
    setDeviceAnnouncer((l) => lines.push(l));
    try {
      registerDeviceProvider('cuda', () => fake);
      expect(getDevice()).toBe(fake);
      expect(getDevice('cuda')).toBe(fake);
      expect(lines).toEqual(['tessera: using device fake cuda']);
      registerDeviceProvider('cuda', () => ({ unavailable: 'no driver' }));
      registerDeviceProvider('sim', () => ({ unavailable: 'not built' }));
      expect(getDevice().kind).toBe('interpret');
      expect(() => getDevice('cuda')).toThrow(/no driver/);
      expect(lines[1]).toMatch(/using device interpret.*cuda: no driver.*sim: not built/);
    } finally {
      setDeviceAnnouncer(() => {});
      registerNativeDevices();
    }
  });
});

describe('HostArray', () => {
  it('array() converts values and checks shapes', () => {
    expect(array([1.1, 2], 'f16').toArray()).toEqual([f16ToFloat32(f16Array([1.1]))[0], 2]);
    expect(array([1, 2], 'i64').data).toEqual(BigInt64Array.from([1n, 2n]));
    expect(array([300], 'u8').toArray()).toEqual([44]);
    expect(() => new HostArray('f32', [3], new Float32Array(2))).toThrow(/shape/);
    expect(() => new HostArray('f32', [2], new Int32Array(2) as never)).toThrow(/Float32Array/);
  });
});

describe('no half-written output when a launch fails', () => {
  const oob = kernel({ name: 'oob', params: { out: ptr('i32'), n: 'i32' } }, (a) => {
    const pid = programId(0);
    store(a.out.add(pid), pid.add(1)); // unmasked: program n writes past the end
  });
  it('an OOB in a later program leaves the caller arrays untouched (interpret)', async () => {
    const out = new Int32Array(4).fill(-7);
    const err = await oob.run({ out, n: 4 }, { grid: 6, device: 'interpret' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterpretError);
    expect((err as InterpretError).code).toBe('E_OOB');
    expect((err as InterpretError).pid).toEqual([4, 0, 0]);
    expect(Array.from(out)).toEqual([-7, -7, -7, -7]);
  });
  it('an OOB on the sim device is CUDA_ERROR_ILLEGAL_ADDRESS and leaves the caller arrays untouched', async () => {
    const out = new Int32Array(4).fill(-7);
    const err = await oob.run({ out, n: 4 }, { grid: 64, device: 'sim' }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(Array.from(out)).toEqual([-7, -7, -7, -7]);
    // The fault is sticky on its context (as on a GPU); the device opens a fresh one, so the
    // next launch in this process works.
    const ok = new Int32Array(4);
    await oob.run({ out: ok, n: 4 }, { grid: 4, device: 'sim' });
    expect(Array.from(ok)).toEqual([1, 2, 3, 4]);
  });
});

