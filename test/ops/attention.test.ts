// ops.attention (prefill): causal and full, GQA, head dims 64 and 128, f32/f16/bf16, ragged T,
// on the interpreter and the sim (sm_80 PTX; attention_sm90.test.ts runs sm_90a), against an f64 reference; and its argument errors.
import { describe, expect, it } from 'vitest';
import { attention } from '../../src/ops/attention.js';
import { OpsError } from '../../src/ops/check.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { ATTN_DEVICES } from './attn_helpers.js';
import { CASES, check } from './attention_cases.js';

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
