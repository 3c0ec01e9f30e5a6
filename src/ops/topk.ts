// topk(x[R, N], k) -> { values[R, k], indices i32[R, k] }: the k largest of each row, descending,
// ties to the lower index. One program per row walks the row in BLOCK-column chunks and keeps the
// best KP (k rounded up to a power of two) as sort keys: each element becomes one i64 whose high
// word orders like the float (its bits, negatives' magnitude bits flipped) and whose low word is
// 2^32-1-index, so keys are unique, a larger key is a larger value or an equal value at a lower
// index, and merging a chunk's best KP with the running KP (one bitonic `topk` over 2KP keys) needs
// no stable sort. NaN ranks above +inf (a sign-bit NaN below -inf); -0 ranks just below +0.
import type { DType } from '../ir/types.js';
import { arange, constexpr, forLoop, full, join, load, programId, ptr, store, topk as tileTopk, where, type Tile } from '../lang/index.js';
import type { Device, Stream } from '../runtime/device.js';
import { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkInt, checkOptions, FLOATS, outArray, sameDevice, type OpOptions } from './check.js';
import { launchNothing, run, settleAll } from './launch.js';
import { rowConfig } from './rows.js';
import { pow2 } from './tuning.js';

/** The largest k topk (and sample's topK, cosineTopK's k) take: the kept keys live in registers. */
export const MAX_TOPK = 1024;

export interface TopkOptions extends OpOptions {
  readonly outValues?: DeviceArray;
  readonly outIndices?: DeviceArray;
}
export interface TopkResult<D extends DType = DType> { readonly values: DeviceArray<D>; readonly indices: DeviceArray<'i32'> }

/** The i64 sort key of f32 values `v` at i32 column indices `idx` (see the header). */
export function sortKey(v: Tile, idx: Tile): Tile {
  const b = v.bitcast('i32');
  const ord = where(b.lt(0), b.xor(0x7fffffff), b);
  return ord.to('i64').shl(32).add(idx.to('i64').xor(0xffffffff));
}
/** The f32 value and i32 index a key was made from. */
export function fromKey(key: Tile): [Tile, Tile] {
  const ord = key.shr(32).to('i32');
  const v = where(ord.lt(0), ord.xor(0x7fffffff), ord).bitcast('f32');
  return [v, key.and(0xffffffff).xor(0xffffffff).to('i32')];
}
/** Below every real key: the padding of a ragged last chunk. */
export const padKey = (n: number): Tile => full([n], -2147483648, 'i32').to('i64').shl(32);

/**
 * The best KP keys of row `base` of x (N columns, f32 after `load`): a chunk loop with one merge
 * per chunk. Shared by topk, sample and cosineTopK.
 */
export function rowTopKeys(loadChunk: (offs: Tile, mask: Tile) => Tile, N: Tile, BLOCK: number, KP: number): Tile {
  const cols = arange(0, BLOCK);
  const chunkKeys = (c0: Tile | number): Tile => {
    const offs = cols.add(c0), mask = offs.lt(N);
    return where(mask, sortKey(loadChunk(offs, mask), offs), padKey(BLOCK));
  };
  const first = tileTopk(chunkKeys(0), KP);
  const [best] = forLoop(BLOCK, N, BLOCK, [first], (c0, run) => [tileTopk(join(run!, tileTopk(chunkKeys(c0), KP)).view([2 * KP]), KP)]);
  return best!;
}

const kernels = new Map<DType, Kernel>();

function topkKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_topk_${dt}`, params: { x: ptr(dt), vals: ptr(dt), idxs: ptr('i32'), N: 'i32', k: 'i32', BLOCK: constexpr(), KP: constexpr() } }, ({ x, vals, idxs, N, k, BLOCK, KP }) => {
      const row = programId(0);
      const base = row.to('i64').mul(N);
      const best = rowTopKeys((offs, mask) => load(x.add(base).add(offs), { mask, other: 0 }).to('f32'), N, BLOCK, KP);
      const [v, i] = fromKey(best);
      const r = arange(0, KP), keep = r.lt(k);
      const ob = row.to('i64').mul(k);
      store(vals.add(ob).add(r), v.to(dt), { mask: keep });
      store(idxs.add(ob).add(r), i, { mask: keep });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** Launch shape: the row config, with a chunk at least KP wide. */
export function topkShape(device: Device, N: number, k: number): { BLOCK: number; KP: number; numWarps: number } {
  const KP = pow2(k), c = rowConfig(device, N);
  return { BLOCK: Math.max(c.BLOCK, KP), KP, numWarps: c.numWarps };
}

/** Queues topk of rows of `x` into `values` / `indices` (checked by the caller). */
export function queueTopk(x: DeviceArray, k: number, values: DeviceArray, indices: DeviceArray, device: Device, stream: Stream | undefined): Future<void> {
  const [R, N] = x.shape as [number, number];
  const { BLOCK, KP, numWarps } = topkShape(device, N, k);
  return run(topkKernel(x.dtype), { x, vals: values, idxs: indices, N, k, BLOCK, KP }, { numWarps }, R, device, stream);
}

/** The k largest entries of each row of x [R, N], descending (ties: lower index first); k in 1..min(N, 1024). */
export function topk<D extends DType>(x: DeviceArray<D>, k: number, opts?: TopkOptions): Future<TopkResult<D>> {
  const op = 'topk';
  const o = checkOptions(op, opts, ['outValues', 'outIndices', 'stream']) as TopkOptions;
  checkArray(op, 'x', x, 2, FLOATS);
  const [R, N] = x.shape as [number, number];
  checkInt(op, 'k', k, 1, Math.min(N, MAX_TOPK));
  const device = sameDevice(op, { x, outValues: o.outValues, outIndices: o.outIndices });
  const values = outArray(op, o.outValues, [R, k], x.dtype, device) as DeviceArray<D>;
  const indices = outArray(op, o.outIndices, [R, k], 'i32', device) as DeviceArray<'i32'>;
  const result = { values, indices };
  if (R === 0) return launchNothing(result);
  return settleAll([queueTopk(x, k, values, indices, device, o.stream)], result);
}
