// ops.pagedAttention (decode against a paged KV cache): ragged sequences (lengths 1, 17, 40 over
// 16-token pages, interleaved so their pages are not contiguous), GQA, Dh 64/128, f32/f16, filled
// by appendKV the way a runner does (prefill, then one decode token), on the interpreter and the
// sim, against an f64 reference; bad block tables (masked on the device; named errors for the
// cache's own tables), a length-0 sequence, and argument errors.
import { describe, expect, it } from 'vitest';
import { appendKV } from '../../src/ops/append_kv.js';
import { OpsError } from '../../src/ops/check.js';
import { pagedAttention } from '../../src/ops/paged_attention.js';
import { PagedKVCache } from '../../src/ops/paged_kv.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { ATTN_DEVICES, ATTN_TOL, attentionRef, expectNear, rand, readNumbers, upload } from './attn_helpers.js';
import { BS, CASES, check } from './paged_attention_cases.js';

describe.each(ATTN_DEVICES)('ops.pagedAttention on %s vs an f64 reference', (device) => {
  for (const c of CASES) it(`lens ${c.lens.join(',')} Hq=${c.Hq} Hkv=${c.Hkv} Dh=${c.Dh} ${c.dtype}`, () => check(device, c));

  it('skips block ids outside the cache on the device; a length-0 sequence gives zeros', async () => {
    const Hq = 2, Hkv = 1, Dh = 64, dtype = 'f16';
    const cache = new PagedKVCache(device, { numLayers: 1, numBlocks: 3, blockSize: BS, numKVHeads: Hkv, headDim: Dh, dtype });
    cache.allocate('a', BS);
    const [k, kr] = await upload(rand(BS * Dh, 1), dtype, [BS, Hkv, Dh], device);
    const [v, vr] = await upload(rand(BS * Dh, 2), dtype, [BS, Hkv, Dh], device);
    await appendKV(cache.kCache(0), cache.vCache(0), k, v, cache.slotMapping('a', 0, BS));
    // row 0: its page, then block 1000 (not in the cache) for tokens 16..19; row 1: length 0
    const tables = DeviceArray.from(new Int32Array([cache.blocks('a')[0]!, 1000, 0, 0]), 'i32', { device, shape: [2, 2] });
    const lens = DeviceArray.from(new Int32Array([BS + 4, 0]), 'i32', { device });
    const [q, qr] = await upload(rand(2 * Hq * Dh, 3), dtype, [2, Hq, Dh], device);
    const got = await readNumbers(await pagedAttention(q, cache.kCache(0), cache.vCache(0), tables, lens));
    expectNear(got.subarray(0, Hq * Dh), attentionRef(qr.subarray(0, Hq * Dh), kr, vr, 1, BS, Hq, Hkv, Dh, 1 / 8, false), ATTN_TOL.f16, 'valid pages only');
    expect(Array.from(got.subarray(Hq * Dh))).toEqual(new Array(Hq * Dh).fill(0));
    cache.dispose();
  });
});

describe('ops.pagedAttention argument errors (before anything runs)', () => {
  const errOf = (f: () => unknown): string => {
    try { f(); } catch (e) { expect(e).toBeInstanceOf(OpsError); return `${(e as OpsError).code} ${(e as OpsError).arg}`; }
    return 'no error';
  };
  it('names the argument and the problem', () => {
    const on = { device: 'interpret' as const };
    const c = new PagedKVCache('interpret', { numLayers: 1, numBlocks: 4, blockSize: 16, numKVHeads: 2, headDim: 64, dtype: 'f16' });
    c.allocate('x', 3);
    c.allocate('y', 40);
    const kc = c.kCache(0), vc = c.vCache(0);
    const q = DeviceArray.zeros([1, 4, 64], 'f16', on);
    const t = c.blockTable(['x']), l = c.seqLens(['x']);
    expect(errOf(() => pagedAttention(DeviceArray.zeros([1, 3, 64], 'f16', on), kc, vc, t, l))).toBe('E_OPS_SHAPE q');
    expect(errOf(() => pagedAttention(DeviceArray.zeros([1, 4, 128], 'f16', on), kc, vc, t, l))).toBe('E_OPS_SHAPE q');
    expect(errOf(() => pagedAttention(q, kc, vc, c.blockTable(['x', 'y']), l))).toBe('E_OPS_SHAPE blockTables');
    expect(errOf(() => pagedAttention(q, kc, vc, t, DeviceArray.zeros([1], 'f32', on)))).toBe('E_OPS_DTYPE seqLens');
    expect(errOf(() => pagedAttention(q, kc, DeviceArray.zeros([4, 16, 2, 64], 'f32', on), t, l))).toBe('E_OPS_DTYPE vCache');
    expect(errOf(() => pagedAttention(q, kc, vc, t, DeviceArray.zeros([1], 'i32', { device: 'sim:0' })))).toBe('E_OPS_DEVICE seqLens');
    // the cache's own arrays are bounds-checked on the host: y's 40 tokens do not fit x's one-page row
    expect(errOf(() => pagedAttention(q, kc, vc, t, c.seqLens(['y'])))).toBe('E_OPS_ARG seqLens');
    // a table from a bigger cache names a block this cache does not have
    const big = new PagedKVCache('interpret', { numLayers: 1, numBlocks: 10, blockSize: 16, numKVHeads: 2, headDim: 64, dtype: 'f16' });
    big.allocate('a', 16 * 9);
    big.allocate('b', 1);
    expect(errOf(() => pagedAttention(q, kc, vc, big.blockTable(['b']), l))).toBe('E_OPS_ARG blockTables');
    expect(errOf(() => pagedAttention(q, kc, vc, t, l, { scale: 'x' as never }))).toBe('E_OPS_ARG scale');
    c.dispose();
    big.dispose();
  });
});
