// The decode cases (ragged sequences over 16-token pages, interleaved pages, GQA, Dh 64/128,
// f32/f16), filled by appendKV as a runner does, and their check against an f64 reference:
// shared by paged_attention.test.ts and paged_attention_sm90.test.ts.
import { expect } from 'vitest';
import type { DeviceName } from '../../src/runtime/device.js';
import { appendKV } from '../../src/ops/append_kv.js';
import { pagedAttention } from '../../src/ops/paged_attention.js';
import { PagedKVCache } from '../../src/ops/paged_kv.js';
import { ATTN_TOL, attentionRef, expectNear, rand, readNumbers, upload } from './attn_helpers.js';

export type Case = { lens: number[]; Hq: number; Hkv: number; Dh: number; dtype: 'f32' | 'f16' };
export const CASES: Case[] = [
  { lens: [1, 17, 40], Hq: 4, Hkv: 2, Dh: 64, dtype: 'f32' },
  { lens: [1, 17, 40], Hq: 4, Hkv: 2, Dh: 64, dtype: 'f16' },
  { lens: [1, 17, 40], Hq: 4, Hkv: 2, Dh: 128, dtype: 'f16' },
  { lens: [33, 5], Hq: 4, Hkv: 1, Dh: 128, dtype: 'f32' },
];
export const BS = 16;

export async function check(device: DeviceName, c: Case): Promise<void> {
  const { lens, Hq, Hkv, Dh, dtype } = c;
  const B = lens.length;
  const cache = new PagedKVCache(device, { numLayers: 2, numBlocks: 12, blockSize: BS, numKVHeads: Hkv, headDim: Dh, dtype });
  // pages interleaved between sequences: allocate the prompts (all but the last token) a page at a time
  const ids = lens.map((_, b) => `s${b}`);
  for (let grown = true, round = 0; grown; round++) {
    grown = false;
    lens.forEach((n, b) => {
      const want = Math.min(n - 1, (round + 1) * BS);
      if (want > cache.length(ids[b]!)) { cache.allocate(ids[b]!, want - cache.length(ids[b]!)); grown = true; }
    });
  }
  const refK: Float64Array[] = [], refV: Float64Array[] = [];
  const layer = 1;
  for (let b = 0; b < B; b++) {
    const n = lens[b]!;
    const [k, kr] = await upload(rand(n * Hkv * Dh, 100 + b), dtype, [n, Hkv, Dh], device);
    const [v, vr] = await upload(rand(n * Hkv * Dh, 200 + b), dtype, [n, Hkv, Dh], device);
    refK.push(kr); refV.push(vr);
    // prefill: tokens 0..n-2, then the decode step's token n-1
    if (n > 1) await appendKV(cache.kCache(layer), cache.vCache(layer), k.slice([0, n - 1]), v.slice([0, n - 1]), cache.slotMapping(ids[b]!, 0, n - 1));
    const pos = cache.allocate(ids[b]!, 1);
    await appendKV(cache.kCache(layer), cache.vCache(layer), k.slice([n - 1, n]), v.slice([n - 1, n]), cache.slotMapping(ids[b]!, pos, 1));
  }
  const [q, qr] = await upload(rand(B * Hq * Dh, 7), dtype, [B, Hq, Dh], device);
  const o = await pagedAttention(q, cache.kCache(layer), cache.vCache(layer), cache.blockTable(ids), cache.seqLens(ids));
  expect(o.shape).toEqual([B, Hq, Dh]);
  const got = await readNumbers(o);
  for (let b = 0; b < B; b++) {
    const want = attentionRef(qr.subarray(b * Hq * Dh, (b + 1) * Hq * Dh), refK[b]!, refV[b]!, 1, lens[b]!, Hq, Hkv, Dh, 1 / Math.sqrt(Dh), false);
    expectNear(got.subarray(b * Hq * Dh, (b + 1) * Hq * Dh), want, ATTN_TOL[dtype], `${device} ${JSON.stringify(c)} sequence ${b}`);
  }
  cache.dispose();
}
