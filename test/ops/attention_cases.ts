// The prefill cases (ragged T, GQA, Dh 64/128, every dtype) and their check against an f64
// reference: shared by attention.test.ts (interpreter, sim as sm_80) and attention_sm90.test.ts.
import { expect } from 'vitest';
import type { DeviceName } from '../../src/runtime/device.js';
import { attention } from '../../src/ops/attention.js';
import { ATTN_TOL, attentionRef, expectNear, rand, readNumbers, upload } from './attn_helpers.js';

export type Case = { T: number; Hq: number; Hkv: number; Dh: number; dtype: 'f32' | 'f16' | 'bf16'; causal: boolean };
export const CASES: Case[] = [
  { T: 37, Hq: 4, Hkv: 2, Dh: 64, dtype: 'f32', causal: true },
  { T: 37, Hq: 4, Hkv: 2, Dh: 64, dtype: 'f16', causal: true },
  { T: 37, Hq: 4, Hkv: 2, Dh: 128, dtype: 'f16', causal: true },
  { T: 70, Hq: 4, Hkv: 1, Dh: 64, dtype: 'f16', causal: true },
  { T: 37, Hq: 2, Hkv: 2, Dh: 128, dtype: 'f32', causal: false },
  { T: 13, Hq: 4, Hkv: 2, Dh: 64, dtype: 'bf16', causal: true },
  { T: 100, Hq: 4, Hkv: 2, Dh: 128, dtype: 'bf16', causal: true },
];

export async function check(device: DeviceName, c: Case): Promise<void> {
  const { T, Hq, Hkv, Dh, dtype, causal } = c;
  const [q, qr] = await upload(rand(T * Hq * Dh, 1), dtype, [T, Hq, Dh], device);
  const [k, kr] = await upload(rand(T * Hkv * Dh, 2), dtype, [T, Hkv, Dh], device);
  const [v, vr] = await upload(rand(T * Hkv * Dh, 3), dtype, [T, Hkv, Dh], device);
  const o = await attention(q, k, v, { causal });
  expect(o.shape).toEqual([T, Hq, Dh]);
  expect(o.dtype).toBe(dtype);
  const want = attentionRef(qr, kr, vr, T, T, Hq, Hkv, Dh, 1 / Math.sqrt(Dh), causal);
  expectNear(await readNumbers(o), want, ATTN_TOL[dtype], `${device} ${JSON.stringify(c)}`);
  for (const a of [q, k, v, o]) a.free();
}
