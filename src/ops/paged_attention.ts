// pagedAttention(q[B,Hq,Dh], kCache, vCache, blockTables i32[B,maxBlocks], seqLens i32[B]) ->
// o[B,Hq,Dh]: decode, one query token per sequence against the seqLens[b] tokens cached for it.
// One program per (sequence, kv head) serves the kv head's group of Hq / Hkv query heads (GQA:
// each page's keys and values are loaded once per group, not once per query head). It walks the
// sequence's pages through its block-table row, one page (blockSize tokens) per step, with an
// online softmax in f32: s = q K^T on the page's valid tokens (a [G, 1, Dh] by [1, blockSize, Dh]
// product summed over Dh), then the per-head m, l and [G, Dh] accumulator rescaled as in flash
// attention. Only tokens < seqLens[b] of pages the row names are
// read: the rest of a page, pages past the row and unwritten pages are never touched. Block ids
// outside the cache are skipped on the device (and are a named error before anything runs when
// the table came from PagedKVCache.blockTable); a sequence of length 0 gives zeros.
import type { DType } from '../ir/types.js';
import { arange, cdiv, constexpr, exp, forLoop, full, load, max, maximum, minimum, programId, ptr, store, sum, where, zeros, type KernelParamSpec, type Tile } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel, type RunArgs } from '../runtime/kernel.js';
import { checkArray, checkNumber, checkOptions, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch } from './launch.js';
import { pick, pow2 } from './tuning.js';
import { DECODE_TUNING } from './attention_tuning.js';
import { checkCachePair } from './append_kv.js';
import { indexMirror } from './paged_kv.js';

export interface PagedAttentionOptions extends OpOptions {
  /** Multiplies q . k before the softmax (default 1/sqrt(Dh)). */
  readonly scale?: number;
  /** The result [B, Hq, Dh] in q's dtype (else a new one). */
  readonly out?: DeviceArray;
}

const kernels = new Map<string, Kernel>();

export function decodeKernel(qt: DType, ct: DType): Kernel {
  const name = `ops_paged_attention_${qt}_${ct}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = {
    q: ptr(qt), kc: ptr(ct), vc: ptr(ct), tables: ptr('i32'), lens: ptr('i32'), o: ptr(qt),
    numBlocks: 'i32', maxBlocks: 'i32', scale: 'f32',
    HQ: constexpr(), HKV: constexpr(), D: constexpr(), BS: constexpr(), GP: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { q, kc, vc, tables, lens, o, numBlocks, maxBlocks, scale } = p as unknown as Record<string, Tile>;
    const { HQ, HKV, D, BS, GP } = p as unknown as Record<string, number>;
    const G = HQ / HKV;
    const b = programId(0), kvh = programId(1);
    const rd = arange(0, D), rn = arange(0, BS), rg = arange(0, GP);
    const inGroup = rg.lt(G).expandDims(1); // [GP, 1]: GP is G rounded up to a power of two
    const qOff = b.mul(HQ).add(kvh.mul(G)).add(rg).mul(D).expandDims(1).add(rd.expandDims(0)); // [GP, D]
    const qv = load(q!.add(qOff), { mask: inGroup, other: 0 }).to('f32').expandDims(1); // [GP, 1, D]
    const len = maximum(load(lens!.add(b)), 0);
    const pages = minimum(cdiv(len, BS), maxBlocks!); // never past the block-table row
    const init = [full([GP], -Infinity, 'f32'), zeros([GP], 'f32'), zeros([GP, D], 'f32')];
    const [, l, acc] = forLoop(0, pages, 1, init, (j, m, l, acc) => {
      const blk = load(tables!.add(b.mul(maxBlocks!).add(j)));
      const tok = j.mul(BS).add(rn);
      const valid = tok.lt(len).logicalAnd(blk.ge(0)).logicalAnd(blk.lt(numBlocks!)); // [BS]
      const off = blk.mul(BS).add(rn).mul(HKV).add(kvh).mul(D).expandDims(1).add(rd.expandDims(0)); // [BS, D]
      // the page's keys and values are loaded once for the group's GP query heads
      const kt = load(kc!.add(off), { mask: valid.expandDims(1), other: 0 }).to('f32').expandDims(0); // [1, BS, D]
      const vt = load(vc!.add(off), { mask: valid.expandDims(1), other: 0 }).to('f32').expandDims(0);
      const s = where(valid.expandDims(0), sum(kt.mul(qv), 2).mul(scale!), -Infinity); // [GP, BS]
      const mNew = maximum(m!, max(s, 1));
      // a page with no valid token while m is still -inf: exponents against 0, not -inf - -inf
      const mRef = where(mNew.eq(-Infinity), 0, mNew);
      const alpha = exp(m!.sub(mRef));
      const pr = exp(s.sub(mRef.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(pr, 1)), acc!.mul(alpha.expandDims(1)).add(sum(vt.mul(pr.expandDims(2)), 1))];
    });
    const res = where(l!.gt(0).expandDims(1), acc!.div(l!.expandDims(1)), 0);
    store(o!.add(qOff), res.to(qt), { mask: inGroup });
  });
  kernels.set(name, k);
  return k;
}

/**
 * Decode attention over a paged KV cache (one query token per sequence, GQA: query head h reads
 * kv head h / (Hq / Hkv)). q: f32/f16/bf16 (the result's dtype); the cache any float dtype.
 */
export function pagedAttention(q: DeviceArray, kCache: DeviceArray, vCache: DeviceArray, blockTables: DeviceArray, seqLens: DeviceArray, opts?: PagedAttentionOptions): Future<DeviceArray> {
  const op = 'pagedAttention';
  const o = checkOptions(op, opts, ['scale', 'out', 'stream']) as PagedAttentionOptions;
  const [nb, bs, hkv, dh] = checkCachePair(op, kCache, vCache);
  checkArray(op, 'q', q, 3, ['f32', 'f16', 'bf16'], [null, null, dh]);
  const [B, Hq] = q.shape as [number, number];
  if (Hq % hkv !== 0) throw new OpsError('E_OPS_SHAPE', op, 'q', `has ${Hq} heads; the cache's ${hkv} kv heads must divide it (GQA)`);
  checkArray(op, 'blockTables', blockTables, 2, ['i32'], [B, null]);
  const maxBlocks = blockTables.shape[1]!;
  if (maxBlocks < 1) throw new OpsError('E_OPS_SHAPE', op, 'blockTables', 'has no columns');
  checkArray(op, 'seqLens', seqLens, 1, ['i32'], [B]);
  const scale = o.scale === undefined ? 1 / Math.sqrt(dh) : checkNumber(op, 'scale', o.scale);
  const device = sameDevice(op, { q, kCache, vCache, blockTables, seqLens, out: o.out });
  checkMirrors(op, blockTables, seqLens, nb, bs, maxBlocks);
  const out = outArray(op, o.out, [B, Hq, dh], q.dtype, device);
  const args: RunArgs = { q, kc: kCache, vc: vCache, tables: blockTables, lens: seqLens, o: out, numBlocks: nb, maxBlocks, scale, HQ: Hq, HKV: hkv, D: dh, BS: bs, GP: pow2(Hq / hkv) };
  const cfg = pick(DECODE_TUNING, device, { Dh: dh, dtype: kCache.dtype, group: pow2(Hq / hkv) });
  return launch(decodeKernel(q.dtype, kCache.dtype), args, cfg, [B, hkv], device, o.stream, out);
}

/** Bounds of tables and lengths the cache made (host copies): the pages read must exist. */
function checkMirrors(op: string, tables: DeviceArray, lens: DeviceArray, nb: number, bs: number, maxBlocks: number): void {
  const lm = indexMirror(lens)?.values, tm = indexMirror(tables)?.values;
  if (lm) {
    const bad = lm.findIndex((n) => n > maxBlocks * bs);
    if (bad >= 0) throw new OpsError('E_OPS_ARG', op, 'seqLens', `seqLens[${bad}] = ${lm[bad]} needs ${Math.ceil(lm[bad]! / bs)} pages, the block table has ${maxBlocks} columns`);
  }
  if (tm) {
    const bad = tm.findIndex((blk, i) => (blk < 0 || blk >= nb) && (!lm || (i % maxBlocks) * bs < lm[Math.floor(i / maxBlocks)]!));
    if (bad >= 0) throw new OpsError('E_OPS_ARG', op, 'blockTables', `blockTables[${Math.floor(bad / maxBlocks)}, ${bad % maxBlocks}] = ${tm[bad]} is not a block of the cache (0..${nb - 1})`);
  }
}
