// doNotSpecialize (Triton's do_not_specialize): a size that changes every call compiles once, not
// once per specialization class (equals 1 / divisible by 16 / neither); results stay right.
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { arange, load, programId, ptr, scalar, store, type KernelParamSpec, type PtrSpec, type ScalarSpec } from '../../src/lang/index.js';
import type { DType } from '../../src/ir/types.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { DeviceArray, kernel, type Kernel } from '../../src/runtime/index.js';
import { compileCacheKey, defaultCompileCache } from '../../src/runtime/cache/index.js';
import { KernelError } from '../../src/lang/errors.js';

const BLOCK = 32;
type Runtime = PtrSpec | ScalarSpec | DType;
type Params = { x: Runtime; out: Runtime; n: Runtime };
const scale = (name: string, params: Params, doNotSpecialize?: ('x' | 'out' | 'n')[]) =>
  kernel({ name, params, ...(doNotSpecialize ? { doNotSpecialize } : {}) }, ({ x, out, n }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK)), mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).mul(3), { mask });
  }) as unknown as Kernel<Record<string, KernelParamSpec>>;

/** Compiles that reached the compile cache as misses while `body` ran. */
async function compilesDuring(body: () => Promise<void>): Promise<number> {
  const before = defaultCompileCache().stats().misses;
  await body();
  return defaultCompileCache().stats().misses - before;
}

async function runSizes(k: Kernel<Record<string, KernelParamSpec>>): Promise<void> {
  const device = simDevice();
  for (const n of [1, 16, 17]) {
    const x = Float32Array.from({ length: n }, (_, i) => i + 1), out = new Float32Array(n);
    await k.run({ x, out, n } as never, { grid: Math.ceil(n / BLOCK), device });
    expect(Array.from(out)).toEqual(Array.from(x, (v) => v * 3));
  }
}

describe('doNotSpecialize on the sim', () => {
  const f32 = ptr('f32');
  it('without it, sizes 1, 16 and 17 compile three variants (equals 1, divisible by 16, neither)', async () => {
    expect(await compilesDuring(() => runSizes(scale('dns_off', { x: f32, out: f32, n: 'i32' })))).toBe(3);
  });
  it('with the kernel option, sizes 1, 16 and 17 compile once', async () => {
    expect(await compilesDuring(() => runSizes(scale('dns_opt', { x: f32, out: f32, n: 'i32' }, ['n'])))).toBe(1);
  });
  it('with the per-parameter flag, the same', async () => {
    expect(await compilesDuring(() => runSizes(scale('dns_flag', { x: f32, out: f32, n: scalar('i32', { doNotSpecialize: true }) })))).toBe(1);
  });
  it('a pointer flagged doNotSpecialize is not specialized on its alignment', async () => {
    const device = simDevice();
    const run = async (k: Kernel<Record<string, KernelParamSpec>>) => {
      const base = DeviceArray.from(Float32Array.from({ length: 65 }, (_, i) => i), 'f32', { device });
      for (const start of [0, 1]) { // offset 0 (aligned) and 4 bytes (not a multiple of 16)
        const x = base.slice([start, start + 64]), out = DeviceArray.empty([64], 'f32', { device });
        await k.run({ x, out, n: 64 } as never, { grid: 2, device });
        expect(Array.from(await out.toArray())).toEqual(Array.from({ length: 64 }, (_, i) => (i + start) * 3));
      }
    };
    expect(await compilesDuring(() => run(scale('dns_ptr_off', { x: f32, out: f32, n: 'i32' })))).toBe(2);
    expect(await compilesDuring(() => run(scale('dns_ptr_on', { x: ptr('f32', { doNotSpecialize: true }), out: f32, n: 'i32' })))).toBe(1);
  });
  it('the launch specialization and the cache key hold nothing for such a parameter', () => {
    const k = scale('dns_key', { x: f32, out: f32, n: 'i32' }, ['n']);
    const f = k.trace({});
    const device = simDevice();
    const args = (n: number) => [new Float32Array(16), new Float32Array(16), n];
    expect(launchSpecialization(f, args(16), k.doNotSpecialize)).toEqual([{ divisibleBy16: true }, { divisibleBy16: true }, undefined]);
    expect(launchSpecialization(f, args(16))).toEqual([{ divisibleBy16: true }, { divisibleBy16: true }, { divisibleBy16: true }]);
    const key = (n: number, mask?: readonly boolean[]) =>
      compileCacheKey(f, { target: device.target, numWarps: 4, ptxas: false, specialization: launchSpecialization(f, args(n), mask) });
    expect(key(16, k.doNotSpecialize).parts.options.specialization.map(([n]) => n)).toEqual(['out', 'x']);
    expect(key(16, k.doNotSpecialize).key).toBe(key(1, k.doNotSpecialize).key);
    expect(key(16).key).not.toBe(key(1).key);
    // The device's compile takes the same mask: one result for both sizes.
    expect(device.compile(f, 4, args(16), undefined, k.doNotSpecialize)).toBe(device.compile(f, 4, args(17), undefined, k.doNotSpecialize));
    expect(device.compile(f, 4, args(16))).not.toBe(device.compile(f, 4, args(17)));
  });
});

describe('doNotSpecialize: bad input is named', () => {
  const f32 = ptr('f32');
  const def = (params: Record<string, KernelParamSpec>, doNotSpecialize: string[]) => () =>
    kernel({ name: 'bad', params, doNotSpecialize } as never, () => {});
  it('an unknown name', () => {
    expect(def({ x: f32 }, ['y'])).toThrow(/doNotSpecialize names 'y', which is not a parameter/);
  });
  it('a float scalar (never specialized anyway)', () => {
    expect(def({ x: f32, a: 'f32' }, ['a'])).toThrow(/parameter 'a' is f32; only integer and pointer parameters are specialized/);
  });
  it('a constexpr', () => {
    expect(def({ x: f32, B: { kind: 'constexpr' } }, ['B'])).toThrow(/'B', a constexpr/);
  });
  it('a bad flag', () => {
    expect(() => ptr('f32', { doNotSpecalize: true } as never)).toThrow(KernelError);
    expect(() => scalar('i32', { doNotSpecialize: 1 } as never)).toThrow(/must be a boolean/);
  });
  it('a trace that asks to specialize such a parameter', () => {
    const k = kernel({ name: 'tr', params: { n: scalar('i32', { doNotSpecialize: true }) } }, () => {});
    expect(() => k.def.trace({}, { specialization: { n: { equalsOne: true } } })).toThrow(/'n', which is doNotSpecialize/);
  });
});
