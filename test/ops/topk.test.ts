// topk, sample (temperature, top-k, top-p on a Philox stream) and cosineTopK on the interpreter
// and the sim (sm_80 code): exact orders against a JS sort, sampling by its distribution.
import { describe, it } from 'vitest';
import { checkTopk } from './cases.js';
import { DEVICES } from './helpers.js';

describe.each(DEVICES)('topk on %s', (device) => {
  it.each(['f32', 'f16', 'bf16'] as const)('%s, 5 x 300, k = 1, 7 and 64 (ties to the lower index)', async (dt) => {
    await checkTopk(device, dt, 5, 300, 1);
    await checkTopk(device, dt, 5, 300, 7);
    await checkTopk(device, dt, 2, 300, 64);
  });
  it('a row longer than a chunk (5000: merges across chunks), k = 33; k = N', async () => {
    await checkTopk(device, 'f32', 2, 5000, 33);
    await checkTopk(device, 'f32', 3, 20, 20);
  });
});
