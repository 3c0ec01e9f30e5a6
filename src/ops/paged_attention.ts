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
import { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel, type RunArgs } from '../runtime/kernel.js';
import { checkArray, checkInt, checkNumber, checkOptions, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, run, settleAll } from './launch.js';
import { pick, pow2 } from './tuning.js';
import { DECODE_TUNING } from './attention_tuning.js';
import { checkCachePair } from './append_kv.js';
import { indexMirror } from './paged_kv.js';

export interface PagedAttentionOptions extends OpOptions {
  /** Multiplies q . k before the softmax (default 1/sqrt(Dh)). */
  readonly scale?: number;
  /** The result [B, Hq, Dh] in q's dtype (else a new one). */
  readonly out?: DeviceArray;
  /**
   * Splits of each sequence's pages run by separate programs, then combined (flash-decoding):
   * 1 = none; default: autoSplits (more when few sequences and long block tables).
   */
  readonly splits?: number;
}

const kernels = new Map<string, Kernel>();

/**
 * The decode kernel. Split (flash-decoding, for long sequences with few programs): program
 * (b, kvh, sid) takes pages sid*PPS .. sid*PPS+PPS-1 only and writes its partial row max, row sum
 * and unnormalised accumulator (f32) for combineKernel; a split past the sequence's pages writes
 * m = -inf, l = 0, acc = 0 (so the combine never reads an unwritten partial).
 */
export function decodeKernel(qt: DType, ct: DType, split = false): Kernel {
  const name = `ops_paged_attention_${qt}_${ct}${split ? '_split' : ''}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = {
    q: ptr(qt), kc: ptr(ct), vc: ptr(ct), tables: ptr('i32'), lens: ptr('i32'),
    ...(split ? { pm: ptr('f32'), pl: ptr('f32'), pacc: ptr('f32'), PPS: 'i32', nSplits: 'i32' } : { o: ptr(qt) }),
    numBlocks: 'i32', maxBlocks: 'i32', scale: 'f32',
    HQ: constexpr(), HKV: constexpr(), D: constexpr(), BS: constexpr(), GP: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { q, kc, vc, tables, lens, numBlocks, maxBlocks, scale } = p as unknown as Record<string, Tile>;
    const { pm, pl, pacc, PPS, nSplits, o } = p as unknown as Record<string, Tile | undefined>;
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
    const sid = programId(2);
    const lo = split ? sid.mul(PPS!) : 0;
    const hi = split ? minimum(pages, sid.add(1).mul(PPS!)) : pages;
    const [mEnd, l, acc] = forLoop(lo, hi, 1, init, (j, m, l, acc) => {
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
    if (split) {
      const row = b.mul(HQ).add(kvh.mul(G)).add(rg).mul(nSplits!).add(sid); // [GP]: (b, head, sid)
      store(pm!.add(row), mEnd!, { mask: rg.lt(G) });
      store(pl!.add(row), l!, { mask: rg.lt(G) });
      store(pacc!.add(row.mul(D).expandDims(1).add(rd.expandDims(0))), acc!, { mask: inGroup });
      return;
    }
    const res = where(l!.gt(0).expandDims(1), acc!.div(l!.expandDims(1)), 0);
    store(o!.add(qOff), res.to(qt), { mask: inGroup });
  });
  kernels.set(name, k);
  return k;
}

/**
 * Combines the splits of one (sequence, query head): o = sum_s w_s acc_s / sum_s w_s l_s with
 * w_s = exp(m_s - max_s m_s), the online softmax's rescaling applied once across splits.
 */
export function combineKernel(qt: DType): Kernel {
  const name = `ops_paged_attention_combine_${qt}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = { pm: ptr('f32'), pl: ptr('f32'), pacc: ptr('f32'), o: ptr(qt), nSplits: 'i32', D: constexpr(), NSP: constexpr() };
  k = kernel({ name, params }, (p) => {
    const { pm, pl, pacc, o, nSplits } = p as unknown as Record<string, Tile>;
    const { D, NSP } = p as unknown as Record<string, number>;
    const row = programId(0); // b * Hq + head
    const rs = arange(0, NSP), rd = arange(0, D);
    const ok = rs.lt(nSplits!);
    const base = row.mul(nSplits!).add(rs);
    const m = load(pm!.add(base), { mask: ok, other: -Infinity });
    const l = load(pl!.add(base), { mask: ok, other: 0 });
    const acc = load(pacc!.add(base.mul(D).expandDims(1).add(rd.expandDims(0))), { mask: ok.expandDims(1), other: 0 });
    const mMax = max(m, 0);
    const w = exp(m.sub(where(mMax.eq(-Infinity), 0, mMax))); // a split with no tokens: weight 0
    const total = sum(l.mul(w), 0);
    const res = where(total.gt(0), sum(acc.mul(w.expandDims(1)), 0).div(total), 0);
    store(o!.add(row.mul(D).add(rd)), res.to(qt));
  });
  kernels.set(name, k);
  return k;
}

/**
 * Splits for a decode of B x Hkv programs over rows of maxBlocks pages: none for rows under 16
 * pages (the second launch and the scratch would cost more than they win), else enough programs
 * to fill a GPU (~128), at least 4 pages each, at most 32.
 */
export function autoSplits(B: number, hkv: number, maxBlocks: number): number {
  if (maxBlocks < 16) return 1;
  const want = Math.floor(128 / (B * hkv));
  return Math.max(1, Math.min(want, Math.ceil(maxBlocks / 4), 32));
}

/**
 * Decode attention over a paged KV cache (one query token per sequence, GQA: query head h reads
 * kv head h / (Hq / Hkv)). q: f32/f16/bf16 (the result's dtype); the cache any float dtype.
 */
export function pagedAttention(q: DeviceArray, kCache: DeviceArray, vCache: DeviceArray, blockTables: DeviceArray, seqLens: DeviceArray, opts?: PagedAttentionOptions): Future<DeviceArray> {
  const op = 'pagedAttention';
  const o = checkOptions(op, opts, ['scale', 'out', 'stream', 'splits']) as PagedAttentionOptions;
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
  const common: RunArgs = { q, kc: kCache, vc: vCache, tables: blockTables, lens: seqLens, numBlocks: nb, maxBlocks, scale, HQ: Hq, HKV: hkv, D: dh, BS: bs, GP: pow2(Hq / hkv) };
  const cfg = pick(DECODE_TUNING, device, { Dh: dh, dtype: kCache.dtype, group: pow2(Hq / hkv) });
  const want = o.splits === undefined ? autoSplits(B, hkv, maxBlocks) : checkInt(op, 'splits', o.splits, 1, 64);
  const pps = Math.ceil(maxBlocks / want), splits = Math.ceil(maxBlocks / pps);
  if (splits === 1) return launch(decodeKernel(q.dtype, kCache.dtype), { ...common, o: out }, cfg, [B, hkv], device, o.stream, out);
  // partials in f32 scratch, freed once the launches that use them are done (a deferred free)
  const on = { device, ...(o.stream ? { stream: o.stream } : {}) };
  const pm = DeviceArray.empty([B * Hq * splits], 'f32', on), pl = DeviceArray.empty([B * Hq * splits], 'f32', on);
  const pacc = DeviceArray.empty([B * Hq * splits, dh], 'f32', on);
  const runs = [
    run(decodeKernel(q.dtype, kCache.dtype, true), { ...common, pm, pl, pacc, PPS: pps, nSplits: splits }, cfg, [B, hkv, splits], device, o.stream),
    run(combineKernel(q.dtype), { pm, pl, pacc, o: out, nSplits: splits, D: dh, NSP: pow2(splits) }, { numWarps: 4 }, [B * Hq], device, o.stream),
  ];
  for (const a of [pm, pl, pacc]) a.free();
  return settleAll(runs, out);
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
