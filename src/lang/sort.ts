// sort and topk (Triton's tl.sort / tl.topk): one `sort` op per call, a bitonic network in
// registers and warp shuffles in the compiled code (codegen/lower_sort.ts). With `returnIndices`
// an i32 index tile travels with the keys (equal keys keep their order: ascending positions).
import type { DType } from '../ir/types.js';
import { isBool, isMiniFloat, isPow2, isPtr } from '../ir/types.js';
import { describe, toTileIn } from './semantic.js';
import { normAxis } from './shape.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

export interface SortOptions {
  /** The dim to sort along (default: the last; negative counts from the end). Triton: `dim`. */
  dim?: number;
  /** Largest first (sort's default false, topk's default true, as Triton). */
  descending?: boolean;
  /** Also return the i32 index (along `dim`) each value came from: the result is [values, indices]. */
  returnIndices?: boolean;
}
export type SortResult<O> = O extends { returnIndices: true } ? [Tile, Tile] : Tile;

function options(t: Trace, name: string, opts: unknown): SortOptions {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
  const allowed = ['dim', 'descending', 'returnIndices'];
  for (const k of Object.keys(opts)) if (!allowed.includes(k)) t.fail('E_ARG', `unknown option '${k}' for ${name} (allowed: ${allowed.join(', ')})`);
  const o = opts as Record<string, unknown>;
  for (const k of ['descending', 'returnIndices']) {
    if (o[k] !== undefined && typeof o[k] !== 'boolean') t.fail('E_ARG', `option '${k}' must be a boolean, got ${describe(o[k])}`);
  }
  return o as SortOptions;
}

function sortCore(t: Trace, name: string, x: unknown, k: number | undefined, o: SortOptions, descDefault: boolean): Tile | [Tile, Tile] {
  const xt = toTileIn(t, x, `${name} input`);
  const d = xt.dtype as DType;
  if (xt.rank === 0) t.fail('E_AXIS', `${name} needs a tile with at least one dim, got a scalar`);
  if (isPtr(d) || isBool(d) || isMiniFloat(d)) t.fail('E_TYPE', `${name} sorts integers, f16, bf16, f32 and f64, got ${d}`);
  const axis = o.dim === undefined ? xt.rank - 1 : normAxis(t, o.dim, xt.rank, 'dim');
  const n = xt.shape[axis]!;
  const kk = k ?? n;
  if (!isPow2(kk) || kk > n) t.fail('E_ARG', `k must be a power of two no larger than the dim's length ${n}, got ${describe(k)}`);
  const descending = o.descending ?? descDefault;
  const shape = xt.shape.map((s, i) => (i === axis ? kk : s));
  const indices = o.returnIndices === true;
  const types = indices ? [{ elem: d, shape }, { elem: 'i32' as DType, shape }] : [{ elem: d, shape }];
  const op = t.emitOp('sort', [xt], types, { axis, descending, k: kk, indices });
  const rs = op.results.map((r) => t.wrap(r));
  return o.returnIndices === true ? [rs[0]!, rs[1]!] : rs[0]!;
}

/** Sorts along `dim` (default: the last), ascending unless `descending`; floats by IEEE totalOrder. */
export function sort<O extends SortOptions>(x: Tile, opts?: O): SortResult<O> {
  return api('sort', (t) => sortCore(t, 'sort', x, undefined, options(t, 'sort', opts), false)) as SortResult<O>;
}

/** The k largest (or with `descending: false` smallest) along `dim`, in order; k a power of two. */
export function topk<O extends SortOptions>(x: Tile, k: number, opts?: O): SortResult<O> {
  return api('topk', (t) => {
    if (typeof k !== 'number' || !Number.isInteger(k)) t.fail('E_ARG', `k must be an integer, got ${describe(k)}`);
    return sortCore(t, 'topk', x, k, options(t, 'topk', opts), true);
  }) as SortResult<O>;
}
