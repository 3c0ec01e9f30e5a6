// Helpers of the attention tests: seeded inputs rounded to the dtype under test (so the f64
// references see exactly what the kernels see), uploads, read-backs as numbers, and f64 references.
import { expect } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { array } from '../../src/runtime/array.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import type { DeviceName } from '../../src/runtime/device.js';
import { setDeviceAnnouncer } from '../../src/runtime/index.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_CACHE'] = '0';

/** The devices every attention test runs on: the reference interpreter and the compiled sim. */
export const ATTN_DEVICES = ['interpret', 'sim:0'] as const;

/** Stated tolerances (|got - want| <= tol * (1 + |want|)): f32 accumulates exactly; f16/bf16 round P and the output. */
export const ATTN_TOL: Record<'f32' | 'f16' | 'bf16', number> = { f32: 2e-5, f16: 4e-3, bf16: 3e-2 };

/** Deterministic values in [lo, hi). */
export function rand(n: number, seed: number, lo = -1, hi = 1): Float64Array {
  let s = (seed * 2654435761) >>> 0 || 1;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = lo + ((s >>> 0) / 4294967296) * (hi - lo);
  }
  return out;
}

/** Uploads `vals` as `dtype` and returns the array plus the values as rounded to that dtype. */
export async function upload(vals: ArrayLike<number>, dtype: DType, shape: readonly number[], device: DeviceName): Promise<[DeviceArray, Float64Array]> {
  const h = array(Array.from(vals), dtype, shape);
  const rounded = Float64Array.from(h.toArray() as number[]);
  return [DeviceArray.from(h, dtype, { device }), rounded];
}

/** An array's elements as JS numbers (f16/bf16 decoded). */
export async function readNumbers(a: DeviceArray): Promise<Float64Array> {
  return Float64Array.from((await a.toHost()).toArray() as number[]);
}

export function expectNear(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  let worst = 0, at = -1;
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!));
    if (!(err <= worst)) { worst = err; at = i; }
  }
  if (!(worst <= tol)) expect.fail(`${what}: element ${at}: got ${got[at]}, want ${want[at]} (relative error ${worst}, tol ${tol})`);
}

/**
 * f64 reference: o[t, h] = softmax_j(scale * q[t,h] . k[j, h/G]) v[j, h/G] over keys j < nKeys
 * (and j <= t + causalOffset when causal: a query at position t + causalOffset of the sequence).
 */
export function attentionRef(q: Float64Array, k: Float64Array, v: Float64Array, T: number, nKeys: number, Hq: number, Hkv: number, Dh: number, scale: number, causal: boolean, causalOffset = 0): Float64Array {
  const o = new Float64Array(T * Hq * Dh);
  const G = Hq / Hkv;
  for (let t = 0; t < T; t++) for (let h = 0; h < Hq; h++) {
    const kh = Math.floor(h / G);
    const lim = causal ? Math.min(nKeys, t + causalOffset + 1) : nKeys;
    const s = new Float64Array(lim);
    let m = -Infinity;
    for (let j = 0; j < lim; j++) {
      let d = 0;
      for (let x = 0; x < Dh; x++) d += q[(t * Hq + h) * Dh + x]! * k[(j * Hkv + kh) * Dh + x]!;
      s[j] = d * scale;
      m = Math.max(m, s[j]!);
    }
    let sum = 0;
    for (let j = 0; j < lim; j++) sum += s[j] = Math.exp(s[j]! - m);
    for (let j = 0; j < lim; j++) for (let x = 0; x < Dh; x++) o[(t * Hq + h) * Dh + x] += (s[j]! / sum) * v[(j * Hkv + kh) * Dh + x]!;
  }
  return o;
}
