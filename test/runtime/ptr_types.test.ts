// Pointer parameters are typed by their dtype: `ptr('f32')` takes a Float32Array, a HostArray<'f32'>
// or a DeviceArray<'f32'>; any other array is a TypeScript error (the `@ts-expect-error` lines
// below are checked by `tsc --noEmit` in `npm test`: a line that stopped being an error fails the
// type check) and, from untyped code, an E_ARG before anything runs (checked here at run time).
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { arange, load, ptr, scalar, store } from '../../src/lang/index.js';
import { array, DeviceArray, HostArray, kernel, setDeviceAnnouncer } from '../../src/runtime/index.js';

setDeviceAnnouncer(() => {});

/** A kernel with one pointer of dtype D that copies x[0..4) onto itself. */
const copy = <D extends DType>(d: D) =>
  kernel({ name: `copy_${d}`, params: { x: ptr(d), n: 'i32' } }, ({ x, n }) => {
    const offs = arange(0, 4), mask = offs.lt(n);
    store(x.add(offs), load(x.add(offs), { mask }), { mask });
  });

const opts = { grid: 1, device: 'interpret' } as const;
const dev = <D extends DType>(d: D) => DeviceArray.zeros([4], d, { device: 'interpret' });
const rejects = async (p: PromiseLike<unknown>) => {
  await expect(p).rejects.toMatchObject({ code: 'E_ARG', message: expect.stringMatching(/parameter 'x'/) });
};

describe('ptr(dtype) parameters take arrays of that dtype only', () => {
  it('f32', async () => {
    const k = copy('f32');
    await k.run({ x: new Float32Array(4), n: 4 }, opts);
    await k.run({ x: array([1, 2, 3, 4], 'f32'), n: 4 }, opts);
    await k.run({ x: dev('f32'), n: 4 }, opts);
    // @ts-expect-error an Int32Array is not f32 storage
    await rejects(k.run({ x: new Int32Array(4), n: 4 }, opts));
    // @ts-expect-error a Float64Array is not f32 storage
    await rejects(k.run({ x: new Float64Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of f64
    await rejects(k.run({ x: array([1], 'f64'), n: 1 }, opts));
    // @ts-expect-error a DeviceArray of i32
    await rejects(k.run({ x: dev('i32'), n: 4 }, opts));
  });
  it('f64', async () => {
    const k = copy('f64');
    await k.run({ x: new Float64Array(4), n: 4 }, opts);
    await k.run({ x: dev('f64'), n: 4 }, opts);
    // @ts-expect-error a Float32Array is not f64 storage
    await rejects(k.run({ x: new Float32Array(4), n: 4 }, opts));
    // @ts-expect-error a DeviceArray of f32
    await rejects(k.run({ x: dev('f32'), n: 4 }, opts));
  });
  it('f16 and bf16 take Uint16Array bit patterns, and their own HostArray/DeviceArray only', async () => {
    const h = copy('f16'), b = copy('bf16');
    await h.run({ x: new Uint16Array(4), n: 4 }, opts);
    await b.run({ x: new Uint16Array(4), n: 4 }, opts);
    await h.run({ x: array([1, 2], 'f16'), n: 2 }, opts);
    await b.run({ x: dev('bf16'), n: 4 }, opts);
    // @ts-expect-error a Float32Array is not half storage
    await rejects(h.run({ x: new Float32Array(4), n: 4 }, opts));
    // @ts-expect-error an Int16Array is not half storage
    await rejects(b.run({ x: new Int16Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of bf16 for an f16 pointer
    await rejects(h.run({ x: array([1], 'bf16'), n: 1 }, opts));
    // @ts-expect-error a DeviceArray of f16 for a bf16 pointer
    await rejects(b.run({ x: dev('f16'), n: 4 }, opts));
  });
  it('i64 takes BigInt64Array', async () => {
    const k = copy('i64');
    await k.run({ x: new BigInt64Array(4), n: 4 }, opts);
    await k.run({ x: dev('i64'), n: 4 }, opts);
    // @ts-expect-error an Int32Array is not i64 storage
    await rejects(k.run({ x: new Int32Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of u32
    await rejects(k.run({ x: array([1], 'u32'), n: 1 }, opts));
  });
  it('i32, u32', async () => {
    const i = copy('i32'), u = copy('u32');
    await i.run({ x: new Int32Array(4), n: 4 }, opts);
    await u.run({ x: new Uint32Array(4), n: 4 }, opts);
    await u.run({ x: dev('u32'), n: 4 }, opts);
    // @ts-expect-error a Uint32Array is not i32 storage
    await rejects(i.run({ x: new Uint32Array(4), n: 4 }, opts));
    // @ts-expect-error an Int32Array is not u32 storage
    await rejects(u.run({ x: new Int32Array(4), n: 4 }, opts));
    // @ts-expect-error a Float32Array is not i32 storage
    await rejects(i.run({ x: new Float32Array(4), n: 4 }, opts));
    // @ts-expect-error a DeviceArray of i32 for a u32 pointer
    await rejects(u.run({ x: dev('i32'), n: 4 }, opts));
  });
  it('i16, i8', async () => {
    const s = copy('i16'), c = copy('i8');
    await s.run({ x: new Int16Array(4), n: 4 }, opts);
    await c.run({ x: new Int8Array(4), n: 4 }, opts);
    await c.run({ x: array([1, 2], 'i8'), n: 2 }, opts);
    // @ts-expect-error a Uint16Array is not i16 storage
    await rejects(s.run({ x: new Uint16Array(4), n: 4 }, opts));
    // @ts-expect-error a Uint8Array is not i8 storage
    await rejects(c.run({ x: new Uint8Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of i16 for an i8 pointer
    await rejects(c.run({ x: array([1], 'i16'), n: 1 }, opts));
  });
  it('u8 and bool take Uint8Array, and their own HostArray/DeviceArray only', async () => {
    const u = copy('u8'), b = copy('bool');
    await u.run({ x: new Uint8Array(4), n: 4 }, opts);
    await b.run({ x: new Uint8Array(4), n: 4 }, opts);
    await b.run({ x: array([1, 0], 'bool'), n: 2 }, opts);
    await u.run({ x: dev('u8'), n: 4 }, opts);
    // @ts-expect-error an Int8Array is not u8 storage
    await rejects(u.run({ x: new Int8Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of u8 for a bool pointer
    await rejects(b.run({ x: array([1], 'u8'), n: 1 }, opts));
    // @ts-expect-error a DeviceArray of bool for a u8 pointer
    await rejects(u.run({ x: dev('bool'), n: 4 }, opts));
  });
  it('f8e4m3 and f8e5m2 take Uint8Array bit patterns, and their own HostArray/DeviceArray only', async () => {
    const e4 = copy('f8e4m3'), e5 = copy('f8e5m2');
    const bits = Uint8Array.from([0x38, 0xc0, 0x7e, 0x01]);
    await e4.run({ x: bits, n: 4 }, opts);
    expect(Array.from(bits)).toEqual([0x38, 0xc0, 0x7e, 0x01]); // copied through by bits
    const h = array([1, -2, 448, 1e6], 'f8e4m3');
    expect(h.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(h.data)).toEqual([0x38, 0xc0, 0x7e, 0x7e]); // rounded and saturated
    expect(h.toArray()).toEqual([1, -2, 448, 448]);
    await e4.run({ x: h, n: 4 }, opts);
    await e5.run({ x: array([1, 57344], 'f8e5m2'), n: 2 }, opts);
    await e5.run({ x: dev('f8e5m2'), n: 4 }, opts);
    expect(Array.from(array([1, 70000, -Infinity], 'f8e5m2').data)).toEqual([0x3c, 0x7b, 0xfb]);
    // @ts-expect-error an Int8Array is not fp8 storage
    await rejects(e4.run({ x: new Int8Array(4), n: 4 }, opts));
    // @ts-expect-error a Uint16Array is not fp8 storage
    await rejects(e5.run({ x: new Uint16Array(4), n: 4 }, opts));
    // @ts-expect-error a HostArray of f8e5m2 for an f8e4m3 pointer
    await rejects(e4.run({ x: array([1], 'f8e5m2'), n: 1 }, opts));
    // @ts-expect-error a HostArray of u8 for an f8e4m3 pointer
    await rejects(e4.run({ x: array([1], 'u8'), n: 1 }, opts));
    // @ts-expect-error a DeviceArray of f8e4m3 for an f8e5m2 pointer
    await rejects(e5.run({ x: dev('f8e4m3'), n: 4 }, opts));
  });
  it('a HostArray and a DeviceArray carry their dtype in their type', () => {
    const h: HostArray<'f32'> = array([1], 'f32');
    const d: DeviceArray<'i8'> = dev('i8');
    // @ts-expect-error an i8 DeviceArray is not an f32 one
    const wrong: DeviceArray<'f32'> = d;
    // @ts-expect-error an f32 HostArray is not an f16 one
    const wrong2: HostArray<'f16'> = h;
    expect([h.dtype, d.dtype, wrong.dtype, wrong2.dtype]).toEqual(['f32', 'i8', 'i8', 'f32']);
  });
});

describe('scalar parameters are typed too', () => {
  const k = kernel({ name: 'scalars', params: { x: ptr('i64'), a: scalar('i64'), b: 'i32', c: 'bool' } }, ({ x, a, b, c }) => {
    store(x.add(arange(0, 4)), a.add(b.to('i64')).add(c.to('i64')));
  });
  it('i64 takes a bigint or a number, i32 a number, bool a boolean', async () => {
    const x = new BigInt64Array(4);
    await k.run({ x, a: 5n, b: 2, c: true }, opts);
    expect(Array.from(x)).toEqual([8n, 8n, 8n, 8n]);
    await k.run({ x, a: 1, b: 2, c: false }, opts);
    // @ts-expect-error an i32 parameter takes a number, not a bigint
    await expect(k.run({ x, a: 1n, b: 2n, c: false }, opts)).rejects.toMatchObject({ code: 'E_ARG' });
    // @ts-expect-error a bool parameter takes a boolean
    await expect(k.run({ x, a: 1n, b: 2, c: 1 }, opts)).rejects.toMatchObject({ code: 'E_ARG' });
  });
});
