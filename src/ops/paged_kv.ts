// PagedKVCache: the key/value cache of a decoder, in fixed-size pages (blocks) shared by every
// sequence, as vLLM and FlashInfer keep it. Per layer, kCache(l) and vCache(l) are
// [numBlocks, blockSize, numKVHeads, headDim] arrays (FlashInfer's NHD page layout: a token's
// heads are contiguous); a sequence owns a list of block ids (its block table row), token i of it
// lives in block blocks[i / blockSize] at offset i % blockSize, i.e. at slot
// block * blockSize + offset (vLLM's slot mapping). The allocator is host-side bookkeeping: no
// kernel runs to allocate or free a page, and a page is never read before appendKV wrote it
// (pagedAttention reads only a sequence's first seqLen tokens).
import type { DType } from '../ir/types.js';
import { getDevice, type Device, type DeviceName, type Stream } from '../runtime/device.js';
import { DeviceArray } from '../runtime/device_array.js';
import { checkInt, checkOptions, FLOATS, OpsError } from './check.js';
import { checkHeadDim } from './attention_check.js';

export type SeqId = number | string;

export interface PagedKVCacheOptions {
  readonly numLayers: number;
  readonly numBlocks: number;
  /** Tokens per page (default 16): a power of two from 1 to 256. */
  readonly blockSize?: number;
  readonly numKVHeads: number;
  readonly headDim: number;
  readonly dtype: 'f32' | 'f16' | 'bf16';
}

/** allocate() found too few free pages: nothing was allocated. */
export class KVCacheFullError extends OpsError {
  constructor(readonly seqId: SeqId, readonly neededBlocks: number, readonly freeBlocks: number) {
    super('E_OPS_ARG', 'PagedKVCache.allocate', 'nTokens', `sequence ${String(seqId)} needs ${neededBlocks} more block(s), ${freeBlocks} free (free finished sequences, or make the cache larger)`);
  }
}

/**
 * Host copies of the index arrays the cache made (block tables, seqLens, slot mappings), so the
 * ops that take them can check their bounds before anything runs. Arrays from elsewhere are
 * bounds-masked on the device instead (see pagedAttention, appendKV).
 */
const mirrors = new WeakMap<DeviceArray, { values: Int32Array; cache: PagedKVCache }>();

/** The host copy of an index array this cache made, if it is one. */
export function indexMirror(a: DeviceArray): { values: Int32Array; cache: PagedKVCache } | undefined {
  return mirrors.get(a);
}

const MAX_ELEMS = 2 ** 31 - 1; // the kernels index pages with i32 offsets

export class PagedKVCache {
  readonly device: Device;
  readonly numLayers: number;
  readonly numBlocks: number;
  readonly blockSize: number;
  readonly numKVHeads: number;
  readonly headDim: number;
  readonly dtype: DType;
  readonly #k: DeviceArray[] = [];
  readonly #v: DeviceArray[] = [];
  /** Free block ids, popped from the end (lowest id first). */
  readonly #free: number[] = [];
  readonly #seqs = new Map<SeqId, { blocks: number[]; length: number }>();
  #disposed = false;

  constructor(device: DeviceName | Device, opts: PagedKVCacheOptions) {
    const op = 'PagedKVCache';
    const o = checkOptions(op, opts, ['numLayers', 'numBlocks', 'blockSize', 'numKVHeads', 'headDim', 'dtype']) as unknown as PagedKVCacheOptions;
    if (opts === undefined) throw new OpsError('E_OPS_ARG', op, 'options', 'expected { numLayers, numBlocks, numKVHeads, headDim, dtype }');
    this.numLayers = checkInt(op, 'numLayers', o.numLayers, 1);
    this.numBlocks = checkInt(op, 'numBlocks', o.numBlocks, 1);
    this.blockSize = checkInt(op, 'blockSize', o.blockSize ?? 16, 1, 256);
    if ((this.blockSize & (this.blockSize - 1)) !== 0) throw new OpsError('E_OPS_ARG', op, 'blockSize', `expected a power of two, got ${this.blockSize}`);
    this.numKVHeads = checkInt(op, 'numKVHeads', o.numKVHeads, 1);
    this.headDim = checkInt(op, 'headDim', o.headDim, 1);
    checkHeadDim(op, 'headDim', this.headDim);
    if (!FLOATS.includes(o.dtype)) throw new OpsError('E_OPS_DTYPE', op, 'dtype', `expected ${FLOATS.join(', ')}, got ${String(o.dtype)}`);
    this.dtype = o.dtype;
    const elems = this.numBlocks * this.blockSize * this.numKVHeads * this.headDim;
    if (elems > MAX_ELEMS) throw new OpsError('E_OPS_ARG', op, 'numBlocks', `a layer's cache of ${elems} elements exceeds ${MAX_ELEMS} (i32 offsets): fewer blocks`);
    try {
      this.device = getDevice(device);
    } catch (e) {
      throw new OpsError('E_OPS_DEVICE', op, 'device', (e as Error).message);
    }
    const shape = [this.numBlocks, this.blockSize, this.numKVHeads, this.headDim];
    for (let l = 0; l < this.numLayers; l++) {
      this.#k.push(DeviceArray.empty(shape, this.dtype, { device: this.device }));
      this.#v.push(DeviceArray.empty(shape, this.dtype, { device: this.device }));
    }
    for (let b = this.numBlocks - 1; b >= 0; b--) this.#free.push(b);
  }

  /** Layer l's key pages [numBlocks, blockSize, numKVHeads, headDim]. */
  kCache(layer: number): DeviceArray { return this.#layer(this.#k, layer, 'kCache'); }
  /** Layer l's value pages [numBlocks, blockSize, numKVHeads, headDim]. */
  vCache(layer: number): DeviceArray { return this.#layer(this.#v, layer, 'vCache'); }

  /**
   * Grows sequence `seqId` (created when new) by nTokens tokens, taking pages as needed; returns
   * the position of its first new token. Out of pages: KVCacheFullError, nothing taken.
   */
  allocate(seqId: SeqId, nTokens: number): number {
    this.#live('allocate');
    checkSeqId('PagedKVCache.allocate', seqId);
    checkInt('PagedKVCache.allocate', 'nTokens', nTokens, 0);
    const s = this.#seqs.get(seqId) ?? { blocks: [], length: 0 };
    const need = Math.ceil((s.length + nTokens) / this.blockSize) - s.blocks.length;
    if (need > this.#free.length) throw new KVCacheFullError(seqId, need, this.#free.length);
    for (let i = 0; i < need; i++) s.blocks.push(this.#free.pop()!);
    const start = s.length;
    s.length += nTokens;
    this.#seqs.set(seqId, s);
    return start;
  }

  /** Gives a sequence's pages back (an unknown id is a no-op: freeing twice is harmless). */
  free(seqId: SeqId): void {
    const s = this.#seqs.get(seqId);
    if (!s) return;
    this.#seqs.delete(seqId);
    for (let i = s.blocks.length - 1; i >= 0; i--) this.#free.push(s.blocks[i]!);
  }

  /** Tokens allocated to a sequence (0 when unknown). */
  length(seqId: SeqId): number {
    return this.#seqs.get(seqId)?.length ?? 0;
  }

  /** A sequence's block ids in token order. */
  blocks(seqId: SeqId): readonly number[] {
    return [...(this.#seq('blocks', seqId).blocks)];
  }

  /** i32 [B, maxBlocks]: row b is seqIds[b]'s block ids, padded with 0 (never read past seqLens). */
  blockTable(seqIds: readonly SeqId[], opts: { stream?: Stream } = {}): DeviceArray {
    this.#live('blockTable');
    const rows = this.#seqList('blockTable', seqIds).map((s) => s.blocks);
    const width = Math.max(1, ...rows.map((r) => r.length));
    const t = new Int32Array(rows.length * width);
    rows.forEach((r, b) => t.set(r, b * width));
    return this.#upload(t, [rows.length, width], opts.stream);
  }

  /** i32 [B]: each sequence's allocated length. */
  seqLens(seqIds: readonly SeqId[], opts: { stream?: Stream } = {}): DeviceArray {
    this.#live('seqLens');
    const lens = Int32Array.from(this.#seqList('seqLens', seqIds), (s) => s.length);
    return this.#upload(lens, [lens.length], opts.stream);
  }

  /** i32 [n]: the slots (block * blockSize + offset) of tokens start..start+n-1 of a sequence (allocated ones only). */
  slotMapping(seqId: SeqId, start: number, n: number, opts: { stream?: Stream } = {}): DeviceArray {
    this.#live('slotMapping');
    const op = 'PagedKVCache.slotMapping';
    const s = this.#seq('slotMapping', seqId);
    checkInt(op, 'start', start, 0);
    checkInt(op, 'n', n, 1);
    if (start + n > s.length) throw new OpsError('E_OPS_ARG', op, 'n', `tokens ${start}..${start + n - 1} of sequence ${String(seqId)}: only ${s.length} allocated`);
    const slots = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const p = start + i;
      slots[i] = s.blocks[Math.floor(p / this.blockSize)]! * this.blockSize + (p % this.blockSize);
    }
    return this.#upload(slots, [n], opts.stream);
  }

  stats(): { usedBlocks: number; freeBlocks: number; sequences: number } {
    return { usedBlocks: this.numBlocks - this.#free.length, freeBlocks: this.#free.length, sequences: this.#seqs.size };
  }

  /** Frees every layer's pages (deferred past queued work); later use is an error. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const a of [...this.#k, ...this.#v]) a.free();
    this.#seqs.clear();
  }

  #upload(values: Int32Array, shape: number[], stream: Stream | undefined): DeviceArray {
    const a = DeviceArray.from(values, 'i32', { device: this.device, shape, ...(stream ? { stream } : {}) });
    mirrors.set(a, { values, cache: this });
    return a;
  }

  #layer(list: DeviceArray[], layer: number, what: string): DeviceArray {
    this.#live(what);
    checkInt(`PagedKVCache.${what}`, 'layer', layer, 0, this.numLayers - 1);
    return list[layer]!;
  }

  #seq(what: string, seqId: SeqId): { blocks: number[]; length: number } {
    const s = this.#seqs.get(seqId);
    if (!s) throw new OpsError('E_OPS_ARG', `PagedKVCache.${what}`, 'seqId', `unknown sequence ${String(seqId)} (allocate it first)`);
    return s;
  }

  #seqList(what: string, seqIds: readonly SeqId[]): { blocks: number[]; length: number }[] {
    if (!Array.isArray(seqIds) || seqIds.length === 0) throw new OpsError('E_OPS_ARG', `PagedKVCache.${what}`, 'seqIds', 'expected a non-empty array of sequence ids');
    return seqIds.map((id) => this.#seq(what, id));
  }

  #live(what: string): void {
    if (this.#disposed) throw new OpsError('E_OPS_ARG', `PagedKVCache.${what}`, 'cache', 'the cache was disposed');
  }
}

function checkSeqId(op: string, id: unknown): void {
  if (!((typeof id === 'number' && Number.isFinite(id)) || typeof id === 'string')) throw new OpsError('E_OPS_ARG', op, 'seqId', `expected a number or a string, got ${typeof id}`);
}
