// The row ops (rmsNorm, layerNorm, softmax, greedy sample) against f64 references (bounds in
// cases.ts) on the interpreter and the sim (sm_80 code), at ragged row lengths, one-chunk rows and
// rows longer than a chunk (a loop over BLOCK-column chunks).
import { describe, it } from 'vitest';
import { checkArgmax, checkLayerNorm, checkRmsNorm, checkSoftmax } from './cases.js';
import { DEVICES } from './helpers.js';

describe.each(DEVICES)('row ops on %s', (device) => {
  it.each(['f32', 'f16', 'bf16'] as const)('rmsNorm %s, 5 x 70 and 3 x 300; f32 weight', async (dt) => {
    await checkRmsNorm(device, dt, 5, 70);
    await checkRmsNorm(device, dt, 3, 300);
    if (dt !== 'f32') await checkRmsNorm(device, dt, 2, 45, 'f32');
  });
  it.each(['f32', 'bf16'] as const)('layerNorm %s, with and without bias (rows with mean ~3)', async (dt) => {
    await checkLayerNorm(device, dt, 6, 77, true);
    await checkLayerNorm(device, dt, 2, 130, false);
  });
  it.each(['f32', 'f16'] as const)('softmax %s, 7 x 45, and logits up to +-30', async (dt) => {
    await checkSoftmax(device, dt, 7, 45);
    await checkSoftmax(device, dt, 3, 250, 30);
  });
  it('greedy sample: first index of the maximum, planted ties, f32 and bf16', async () => {
    await checkArgmax(device, 'f32', 4, 300);
    await checkArgmax(device, 'bf16', 3, 257);
  });
  it('rows longer than a chunk (5000 columns: two 4096 chunks on sm_80)', async () => {
    await checkRmsNorm(device, 'f32', 2, 5000);
    await checkSoftmax(device, 'f32', 2, 5000);
    await checkArgmax(device, 'f16', 2, 5000, 4096); // a tie within one lane, one chunk apart
  });
});
