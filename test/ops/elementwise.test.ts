// add, swiglu, embedding and rope against f64 references (bounds in cases.ts) on the interpreter and
// the sim (sm_80 code), at ragged sizes.
import { describe, it } from 'vitest';
import { checkAdd, checkEmbedding, checkRope, checkSwiglu } from './cases.js';
import { DEVICES } from './helpers.js';
import { getDevice } from '../../src/runtime/device.js';

describe.each(DEVICES)('elementwise ops on %s', (device) => {
  it.each(['f32', 'f16', 'bf16'] as const)('swiglu %s, 9 x 70 and 3 x 1500', async (dt) => {
    await checkSwiglu(device, dt, 9, 70);
    await checkSwiglu(device, dt, 3, 1500);
  });
  it.each(['f32', 'f16', 'bf16'] as const)('add %s, [7, 3, 50] and in place on [3, 1500]', async (dt) => {
    await checkAdd(device, dt, [7, 3, 50], false);
    await checkAdd(device, dt, [3, 1500], true);
  });
  it.each(['f32', 'bf16'] as const)('embedding %s: a gather of 11 ids from 37 x 70 (repeats, first and last row)', async (dt) => {
    await checkEmbedding(device, dt, 37, 70, [3, 0, 36, 5, 5, 12, 36, 1, 2, 30, 0]);
  });
  it('embedding: device ids out of range give zero rows', async () => {
    await checkEmbedding(device, 'f32', 10, 33, [1, -1, 10, 9, 1000]);
  });
  it.each(['f32', 'f16', 'bf16'] as const)('rope %s half-split (HF rotate_half), head dim 64, positions to 3000', async (dt) => {
    await checkRope(device, dt, 5, 3, 64, { offset: 2970 });
  });
  it('rope interleaved pairs, head dim 40 (ragged half), theta 500000', async () => {
    await checkRope(device, 'f32', 6, 2, 40, { interleaved: true, theta: 500000 });
  });
  it('rope with invFreq overrides (rope_scaling): a Float32Array and a device array', async () => {
    await checkRope(device, 'f16', 4, 2, 32, { invFreq: 'host' });
    await checkRope(device, 'f32', 4, 2, 128, { invFreq: 'device', interleaved: true });
  });
  it('rope on a stream of its own', async () => {
    const stream = getDevice(device).createStream!();
    await checkRope(device, 'f32', 4, 2, 48, { theta: 20000, stream });
  });
});
