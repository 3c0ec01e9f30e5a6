// ops.attention (prefill): causal and full, GQA, head dims 64 and 128, f32/f16/bf16, ragged T,
// on the interpreter and the sim (sm_80 PTX), against an f64 reference; and its argument errors.
import { describe, expect, it } from 'vitest';
import { attention } from '../../src/ops/attention.js';
import { OpsError } from '../../src/ops/check.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import type { DeviceName } from '../../src/runtime/device.js';
import { ATTN_DEVICES, ATTN_TOL, attentionRef, expectNear, rand, readNumbers, upload } from './attn_helpers.js';

type Case = { T: number; Hq: number; Hkv: number; Dh: number; dtype: 'f32' | 'f16' | 'bf16'; causal: boolean };
const CASES: Case[] = [
  { T: 37, Hq: 4, Hkv: 2, Dh: 64, dtype: 'f32', causal: true },
  { T: 37, Hq: 4, Hkv: 2, Dh: 64, dtype: 'f16', causal: true },
  { T: 37, Hq: 4, Hkv: 2, Dh: 128, dtype: 'f16', causal: true },
  { T: 70, Hq: 4, Hkv: 1, Dh: 64, dtype: 'f16', causal: true },
  { T: 37, Hq: 2, Hkv: 2, Dh: 128, dtype: 'f32', causal: false },
  { T: 13, Hq: 4, Hkv: 2, Dh: 64, dtype: 'bf16', causal: true },
];

async function check(device: DeviceName, c: Case): Promise<void> {
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

describe.each(ATTN_DEVICES)('ops.attention on %s vs an f64 reference', (device) => {
  for (const c of CASES) it(`T=${c.T} Hq=${c.Hq} Hkv=${c.Hkv} Dh=${c.Dh} ${c.dtype} ${c.causal ? 'causal' : 'full'}`, () => check(device, c));
});

describe('ops.attention argument errors (before anything runs)', () => {
  const dev = { device: 'interpret' as const };
  const q = DeviceArray.zeros([5, 4, 64], 'f16', dev), k = DeviceArray.zeros([5, 2, 64], 'f16', dev), v = DeviceArray.zeros([5, 2, 64], 'f16', dev);
  const code = (f: () => unknown): string => {
    try { f(); } catch (e) { expect(e).toBeInstanceOf(OpsError); return `${(e as OpsError).code} ${(e as OpsError).arg}`; }
    return 'no error';
  };
  it('names the argument and the problem', () => {
    expect(code(() => attention(q, DeviceArray.zeros([5, 3, 64], 'f16', dev), DeviceArray.zeros([5, 3, 64], 'f16', dev)))).toBe('E_OPS_SHAPE k');
    expect(code(() => attention(q, DeviceArray.zeros([5, 2, 64], 'f32', dev), v))).toBe('E_OPS_DTYPE k');
    expect(code(() => attention(q, k, DeviceArray.zeros([6, 2, 64], 'f16', dev)))).toBe('E_OPS_SHAPE v');
    expect(code(() => attention(DeviceArray.zeros([5, 4, 48], 'f16', dev), DeviceArray.zeros([5, 2, 48], 'f16', dev), DeviceArray.zeros([5, 2, 48], 'f16', dev)))).toBe('E_OPS_SHAPE q');
    expect(code(() => attention(DeviceArray.zeros([5, 4, 64], 'i32', dev), k, v))).toBe('E_OPS_DTYPE q');
    expect(code(() => attention(q, k, DeviceArray.zeros([5, 2, 64], 'f16', { device: 'sim:0' })))).toBe('E_OPS_DEVICE v');
    expect(code(() => attention(q, k, v, { scale: Number.NaN }))).toBe('E_OPS_ARG scale');
    expect(code(() => attention(q, k, v, { casual: true } as never))).toBe('E_OPS_ARG options');
    expect(code(() => attention(q, k, v, { out: DeviceArray.zeros([5, 4, 64], 'f32', dev) }))).toBe('E_OPS_DTYPE out');
  });
});
