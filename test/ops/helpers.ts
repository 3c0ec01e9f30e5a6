// Shared by the ops tests: seeded data in every dtype, device arrays on the devices under test,
// decoding of results, and error-bound comparisons against plain-JS f64 references.
import { expect } from 'vitest';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32, toBF16, toF16 } from '../../src/ir/half.js';
import { f8e4m3Array, f8e5m2Array, toF8E4M3, toF8E5M2 } from '../../src/ir/fp8.js';
import { fp8Value } from '../../src/ir/fp8.js';
import type { DType } from '../../src/ir/types.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import '../../src/runtime/index.js'; // registers the native devices (cuda, sim)

// Compile afresh (as the e2e tests): a compiler change must not run stale PTX from the disk cache.
process.env['TESSERA_CACHE'] = '0';

/** The devices every op is checked on (a missing sim fails, never skips). */
export const DEVICES = ['interpret', 'sim:0'] as const;
export type TestDevice = (typeof DEVICES)[number];

export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** Values uniform in [lo, hi), already rounded to `dtype` (so the reference sees the inputs exactly). */
export function randValues(n: number, seed: number, dtype: DType, lo = -2, hi = 2): Float64Array {
  const r = lcg(seed);
  return Float64Array.from({ length: n }, () => roundTo(dtype, lo + (hi - lo) * r()));
}

export function roundTo(dtype: DType, x: number): number {
  switch (dtype) {
    case 'f32': return Math.fround(x);
    case 'f16': return toF16(x);
    case 'bf16': return toBF16(x);
    case 'f8e4m3': return toF8E4M3(x);
    case 'f8e5m2': return toF8E5M2(x);
    default: return x;
  }
}

/** A device array of `dtype` holding `values` (which are representable in it). */
export function devArray(values: ArrayLike<number>, dtype: DType, shape: readonly number[], device: string): DeviceArray {
  const data = dtype === 'f32' ? Float32Array.from(values) : dtype === 'f16' ? f16Array(values) : dtype === 'bf16' ? bf16Array(values)
    : dtype === 'f8e4m3' ? f8e4m3Array(values) : dtype === 'f8e5m2' ? f8e5m2Array(values) : dtype === 'i32' ? Int32Array.from(values) : undefined;
  if (!data) throw new Error(`devArray: ${dtype}`);
  return DeviceArray.from(data, dtype, { shape, device: device as never });
}

/** The elements of a float or i32 device array as numbers. */
export async function values(a: DeviceArray): Promise<Float64Array> {
  const raw = await a.toArray();
  switch (a.dtype) {
    case 'f16': return Float64Array.from(f16ToFloat32(raw as Uint16Array));
    case 'bf16': return Float64Array.from(bf16ToFloat32(raw as Uint16Array));
    case 'f8e4m3': case 'f8e5m2': return Float64Array.from(raw as Uint8Array, (b) => fp8Value(a.dtype as 'f8e4m3', b));
    default: return Float64Array.from(raw as ArrayLike<number>);
  }
}

/** Unit roundoff of a dtype (half an ulp at 1). */
export const UNIT: Readonly<Record<string, number>> = { f32: 2 ** -24, f16: 2 ** -11, bf16: 2 ** -8 };

/** |got - want| <= bound[i] for every element, else a failure naming the first bad element. */
export function expectWithin(got: ArrayLike<number>, want: ArrayLike<number>, bound: (i: number) => number, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!);
    if (!(err <= bound(i))) expect.fail(`${what}: element ${i}: got ${got[i]}, want ${want[i]} (|err| ${err} > bound ${bound(i)})`);
  }
}

/** Rounds each value to dtype (what a correct kernel's final store does). */
export const roundAll = (x: ArrayLike<number>, dtype: DType): Float64Array => Float64Array.from(x, (v) => roundTo(dtype, v));

/** The smallest subnormal of a dtype: the absolute part of rounding a result near zero. */
export const TINY: Readonly<Record<string, number>> = { f32: 2 ** -149, f16: 2 ** -24, bf16: 2 ** -133 };
