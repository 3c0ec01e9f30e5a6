// topk, sample (temperature, top-k, top-p on a Philox stream) and cosineTopK on the interpreter
// and the sim (sm_80 code): exact orders against a JS sort, sampling by its distribution.
import { describe, it } from 'vitest';
import { expect } from 'vitest';
import { ops } from '../../src/index.js';
import { checkSampleDistribution, checkTopk } from './cases.js';
import { devArray } from './helpers.js';
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

const LOGITS = [1.5, -0.5, 2.25, 0, 0.75, 2.25, -3, 1, 0.5, -1, 3, 0.25];

describe.each(DEVICES)('sample at temperature > 0 on %s', (device) => {
  it('temperature 0.7, no filter: softmax(logits / 0.7)', async () => {
    await checkSampleDistribution(device, 'f32', 1500, LOGITS, { temperature: 0.7 });
  });
  it('top-k 3 (a tie at the 2nd/3rd place), f16', async () => {
    await checkSampleDistribution(device, 'f16', 1500, LOGITS, { temperature: 1, topK: 3 });
  });
  it('top-p 0.6, and top-k 5 with top-p 0.8 at temperature 1.3', async () => {
    await checkSampleDistribution(device, 'f32', 1500, LOGITS, { temperature: 1, topP: 0.6 });
    await checkSampleDistribution(device, 'bf16', 1500, LOGITS, { temperature: 1.3, topK: 5, topP: 0.8 });
  });
  it('the stream: the same seed and offset give the same tokens, another seed or offset other ones', async () => {
    const x = devArray(Array.from({ length: 64 }, () => LOGITS).flat(), 'f32', [64, LOGITS.length], device);
    const draw = async (o: object) => Array.from(await (await ops.sample(x, { temperature: 1, ...o })).toArray());
    const a = await draw({ seed: 7 }), b = await draw({ seed: 7 }), c = await draw({ seed: 8 }), d = await draw({ seed: 7, offset: 64 * 12 });
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(d).not.toEqual(a);
    // an offset of one row's worth shifts the rows: row b at offset V draws what row b+1 drew at 0
    const e = await draw({ seed: 7, offset: LOGITS.length });
    expect(e.slice(0, 63)).toEqual(a.slice(1));
  });
  it('a long row (3000 logits) with top-k 40: the candidates merge across chunks', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => ((i * 7919) % 3001) / 300 - 5);
    await checkSampleDistribution(device, 'f32', device === 'interpret' ? 300 : 120, long, { temperature: 0.5, topK: 40 });
  });
});
