// pagedAttention(q[B,Hq,Dh], kCache, vCache, blockTables i32[B,maxBlocks], seqLens i32[B]) ->
// o[B,Hq,Dh]: decode, one query token per sequence against the seqLens[b] tokens cached for it.
// One program per (sequence, query head); it walks the sequence's pages through its block-table
// row, one page (blockSize tokens) per step, with an online softmax in f32: s = K q on the page's
// valid tokens (a [blockSize, Dh] tile times q, summed over Dh), then m, l and the [Dh]
// accumulator rescaled as in flash attention. Only tokens < seqLens[b] of pages the row names are
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
import { pick } from './tuning.js';
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
    HQ: constexpr(), HKV: constexpr(), D: constexpr(), BS: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { q, kc, vc, tables, lens, o, numBlocks, maxBlocks, scale } = p as unknown as Record<string, Tile>;
    const { HQ, HKV, D, BS } = p as unknown as Record<string, number>;
    const b = programId(0), h = programId(1);
    const kvh = h.floordiv(HQ / HKV);
    const rd = arange(0, D), rn = arange(0, BS);
    const len = maximum(load(lens!.add(b)), 0);
    const pages = minimum(cdiv(len, BS), maxBlocks!); // never past the block-table row
    const qv = load(q!.add(b.mul(HQ).add(h).mul(D).add(rd))).to('f32');
    const init = [full([], -Infinity, 'f32'), zeros([], 'f32'), zeros([D], 'f32')];
    const [, l, acc] = forLoop(0, pages, 1, init, (j, m, l, acc) => {
      const blk = load(tables!.add(b.mul(maxBlocks!).add(j)));
      const tok = j.mul(BS).add(rn);
      const valid = tok.lt(len).logicalAnd(blk.ge(0)).logicalAnd(blk.lt(numBlocks!)); // [BS]
      const off = blk.mul(BS).add(rn).mul(HKV).add(kvh).mul(D).expandDims(1).add(rd.expandDims(0)); // [BS, D]
      const kt = load(kc!.add(off), { mask: valid.expandDims(1), other: 0 }).to('f32');
      const vt = load(vc!.add(off), { mask: valid.expandDims(1), other: 0 }).to('f32');
      const s = where(valid, sum(kt.mul(qv.expandDims(0)), 1).mul(scale!), -Infinity);
      const mNew = maximum(m!, max(s, 0));
      // a page with no valid token while m is still -inf: exponents against 0, not -inf - -inf
      const mRef = where(mNew.eq(-Infinity), 0, mNew);
      const alpha = exp(m!.sub(mRef));
      const pr = exp(s.sub(mRef));
      return [mNew, l!.mul(alpha).add(sum(pr, 0)), acc!.mul(alpha).add(sum(vt.mul(pr.expandDims(1)), 0))];
    });
    const res = where(l!.gt(0), acc!.div(l!), 0);
    store(o!.add(b.mul(HQ).add(h).mul(D).add(rd)), res.to(qt));
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
  const args: RunArgs = { q, kc: kCache, vc: vCache, tables: blockTables, lens: seqLens, o: out, numBlocks: nb, maxBlocks, scale, HQ: Hq, HKV: hkv, D: dh, BS: bs };
  const cfg = pick(DECODE_TUNING, device, { Dh: dh, dtype: kCache.dtype });
  return launch(decodeKernel(q.dtype, kCache.dtype), args, cfg, [B, Hq], device, o.stream, out);
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
