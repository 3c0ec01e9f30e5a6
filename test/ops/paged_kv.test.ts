// PagedKVCache's host bookkeeping (pages, block tables, slot mappings, running out of pages) and
// appendKV's writes into the pages (exact, every slot checked), on the interpreter and the sim.
import { describe, expect, it } from 'vitest';
import { appendKV } from '../../src/ops/append_kv.js';
import { OpsError } from '../../src/ops/check.js';
import { KVCacheFullError, PagedKVCache } from '../../src/ops/paged_kv.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { ATTN_DEVICES, rand, readNumbers, upload } from './attn_helpers.js';

const ints = async (a: DeviceArray): Promise<number[]> => Array.from((await a.toArray()) as Int32Array);

const errOf = (f: () => unknown): string => {
  try { f(); } catch (e) { expect(e).toBeInstanceOf(OpsError); return `${(e as OpsError).code} ${(e as OpsError).arg}`; }
  return 'no error';
};

describe('PagedKVCache bookkeeping', () => {
  it('hands out pages per sequence, lays out block tables and slots as vLLM does, and frees them', async () => {
    const c = new PagedKVCache('interpret', { numLayers: 2, numBlocks: 6, blockSize: 4, numKVHeads: 2, headDim: 16, dtype: 'f16' });
    expect(c.kCache(1).shape).toEqual([6, 4, 2, 16]);
    expect(c.vCache(0).dtype).toBe('f16');
    expect(c.allocate('a', 5)).toBe(0);  // blocks 0, 1
    expect(c.allocate(7, 1)).toBe(0);    // block 2
    expect(c.allocate('a', 4)).toBe(5);  // 9 tokens: block 3 too
    expect(c.length('a')).toBe(9);
    expect(c.blocks('a')).toEqual([0, 1, 3]);
    expect(c.stats()).toEqual({ usedBlocks: 4, freeBlocks: 2, sequences: 2 });
    expect(await ints(c.blockTable(['a', 7]))).toEqual([0, 1, 3, 2, 0, 0]);
    expect(c.blockTable(['a', 7]).shape).toEqual([2, 3]);
    expect(await ints(c.seqLens([7, 'a']))).toEqual([1, 9]);
    expect(await ints(c.slotMapping('a', 3, 6))).toEqual([3, 4, 5, 6, 7, 12]);
    // out of pages: a named error, and nothing taken
    expect(() => c.allocate(7, 12)).toThrow(KVCacheFullError);
    expect(c.length(7)).toBe(1);
    expect(c.stats().freeBlocks).toBe(2);
    c.free('a');
    c.free('a');
    expect(c.stats()).toEqual({ usedBlocks: 1, freeBlocks: 5, sequences: 1 });
    expect(c.allocate('b', 16)).toBe(0);
    expect(c.blocks('b')).toEqual([0, 1, 3, 4]);
    c.dispose();
    expect(errOf(() => c.kCache(0))).toBe('E_OPS_ARG cache');
  });

  it('rejects bad options and calls with named errors', () => {
    const base = { numLayers: 1, numBlocks: 4, numKVHeads: 2, headDim: 64, dtype: 'f16' } as const;
    expect(errOf(() => new PagedKVCache('interpret', { ...base, blockSize: 12 }))).toBe('E_OPS_ARG blockSize');
    expect(errOf(() => new PagedKVCache('interpret', { ...base, headDim: 48 }))).toBe('E_OPS_SHAPE headDim');
    expect(errOf(() => new PagedKVCache('interpret', { ...base, dtype: 'i32' as never }))).toBe('E_OPS_DTYPE dtype');
    expect(errOf(() => new PagedKVCache('interpret', { ...base, numBlocks: 0 }))).toBe('E_OPS_ARG numBlocks');
    expect(errOf(() => new PagedKVCache('nowhere' as never, base))).toBe('E_OPS_DEVICE device');
    const c = new PagedKVCache('interpret', base);
    expect(errOf(() => c.kCache(1))).toBe('E_OPS_ARG layer');
    expect(errOf(() => c.blockTable(['x']))).toBe('E_OPS_ARG seqId');
    c.allocate('x', 3);
    expect(errOf(() => c.slotMapping('x', 2, 2))).toBe('E_OPS_ARG n');
    expect(errOf(() => c.allocate('x', -1))).toBe('E_OPS_ARG nTokens');
    c.dispose();
  });
});

describe.each(ATTN_DEVICES)('appendKV on %s', (device) => {
  it.each(['f32', 'f16'] as const)('%s: writes every token to its slot (a permutation, one padding slot -1), exactly', async (dtype) => {
    const NB = 2, BS = 16, H = 2, D = 64, T = NB * BS + 1;
    const c = new PagedKVCache(device, { numLayers: 1, numBlocks: NB, blockSize: BS, numKVHeads: H, headDim: D, dtype });
    const order = Array.from({ length: NB * BS }, (_, i) => (i * 7 + 3) % (NB * BS)); // 7 is coprime with 32
    const slotsHost = Int32Array.from([...order.slice(0, 10), -1, ...order.slice(10)]);
    const slots = DeviceArray.from(slotsHost, 'i32', { device });
    const [k, kr] = await upload(rand(T * H * D, 11), dtype, [T, H, D], device);
    const [v, vr] = await upload(rand(T * H * D, 12), dtype, [T, H, D], device);
    await appendKV(c.kCache(0), c.vCache(0), k, v, slots);
    const kc = await readNumbers(c.kCache(0)), vc = await readNumbers(c.vCache(0));
    for (let t = 0; t < T; t++) {
      const s = slotsHost[t]!;
      if (s < 0) continue;
      for (let x = 0; x < H * D; x++) {
        if (kc[s * H * D + x] !== kr[t * H * D + x] || vc[s * H * D + x] !== vr[t * H * D + x]) expect.fail(`token ${t} slot ${s} element ${x}`);
      }
    }
    c.dispose();
  });

  it('checks its arguments before anything runs', () => {
    const c = new PagedKVCache(device, { numLayers: 1, numBlocks: 2, blockSize: 16, numKVHeads: 2, headDim: 64, dtype: 'f16' });
    const on = { device };
    const k = DeviceArray.zeros([3, 2, 64], 'f16', on), v = DeviceArray.zeros([3, 2, 64], 'f16', on), s = DeviceArray.zeros([3], 'i32', on);
    expect(errOf(() => appendKV(c.kCache(0), c.vCache(0), DeviceArray.zeros([3, 1, 64], 'f16', on), v, s))).toBe('E_OPS_SHAPE k');
    expect(errOf(() => appendKV(c.kCache(0), c.vCache(0), k, DeviceArray.zeros([3, 2, 64], 'f32', on), s))).toBe('E_OPS_DTYPE v');
    expect(errOf(() => appendKV(c.kCache(0), c.vCache(0), k, v, DeviceArray.zeros([3], 'f32', on)))).toBe('E_OPS_DTYPE slots');
    expect(errOf(() => appendKV(c.kCache(0), c.vCache(0), k, v, DeviceArray.zeros([4], 'i32', on)))).toBe('E_OPS_SHAPE slots');
    expect(errOf(() => appendKV(c.kCache(0), k, k, v, s))).toBe('E_OPS_SHAPE vCache');
    // slots from another (bigger) cache's slotMapping: past this cache's 32 slots
    const big = new PagedKVCache(device, { numLayers: 1, numBlocks: 8, blockSize: 16, numKVHeads: 2, headDim: 64, dtype: 'f16' });
    big.allocate('a', 100);
    expect(errOf(() => appendKV(c.kCache(0), c.vCache(0), k, v, big.slotMapping('a', 60, 3)))).toBe('E_OPS_ARG slots');
    c.dispose();
    big.dispose();
  });
});
