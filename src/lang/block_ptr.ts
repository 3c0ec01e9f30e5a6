// Block pointers, Triton's `tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`
// and `tl.advance(ptr, offsets)`: a window of `blockShape` elements at `offsets` into a strided
// tensor. `load(bp, { boundaryCheck, paddingOption })` and `store(bp, value, { boundaryCheck })`
// become a tile of pointers and a mask (the ordinary load/store path): no new IR. The address
// math is i64 (Triton's shape and strides are i64), so large tensors do not wrap.
import { isFloat, isInt, isPtr, pointee, type DType, type PtrType } from '../ir/types.js';
import { castIn, constantIn, describe, isScalar, toTileIn, type TileLike } from './semantic.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { loadIn, storeIn, type LoadOptions, type StoreOptions } from './memory.js';
import { arange } from './creation.js';

/** A block pointer made by makeBlockPtr or advance; its tiles are those of the trace it was made in. */
export class BlockPointer {
  /** @internal */
  constructor(
    readonly base: Tile,
    readonly shape: readonly Tile[],
    readonly strides: readonly Tile[],
    readonly offsets: readonly Tile[],
    readonly blockShape: readonly number[],
    readonly order: readonly number[],
  ) {}
  get dtype(): DType { return pointee(this.base.dtype as PtrType); }
  get rank(): number { return this.blockShape.length; }
  toString(): string { return `BlockPointer<${this.dtype}[${this.blockShape.join('x')}]>`; }
}

export interface BlockLoadOptions {
  /** Dims whose bounds are checked (0 <= offset + i < shape); elsewhere the window must be in bounds. */
  boundaryCheck?: readonly number[];
  /** What out-of-bounds elements of checked dims read: 'zero' (the default) or 'nan' (float dtypes). */
  paddingOption?: 'zero' | 'nan';
  cache?: LoadOptions['cache'];
  eviction?: LoadOptions['eviction'];
  volatile?: boolean;
}
export interface BlockStoreOptions {
  /** Dims whose bounds are checked: out-of-bounds elements are not written. */
  boundaryCheck?: readonly number[];
  cache?: StoreOptions['cache'];
  eviction?: StoreOptions['eviction'];
}

function scalarInt(t: Trace, x: unknown, to: 'i32' | 'i64', what: string): Tile {
  if (typeof x === 'number' || typeof x === 'bigint') {
    if (typeof x === 'number' && !Number.isInteger(x)) return t.fail('E_ARG', `${what} must be an integer, got ${x}`);
    return constantIn(t, to === 'i64' ? BigInt(x) : x, { elem: to, shape: [] }, what);
  }
  if (!(x instanceof Tile)) return t.fail('E_ARG', `${what} must be a scalar integer (tile or number), got ${describe(x)}`);
  t.use(x);
  if (x.rank !== 0 || !isInt(x.dtype)) return t.fail('E_TYPE', `${what} must be a scalar integer, got ${x.toString()}`);
  return x.dtype === to ? x : castIn(t, x, to);
}

function list(t: Trace, xs: unknown, rank: number, what: string): unknown[] {
  if (!Array.isArray(xs) || xs.length !== rank) {
    return t.fail('E_ARG', `${what} must be an array of ${rank} entries (one per block dim), got ${Array.isArray(xs) ? `${xs.length} entries` : describe(xs)}`);
  }
  return xs;
}

/**
 * Triton's `make_block_ptr`: `base` a scalar pointer; `shape`, `strides` (in elements, i64) and
 * `offsets` (i32) one scalar per dim; `blockShape` powers of two; `order` a permutation of the
 * dims (fastest-varying first from the right, as Triton's; kept as a layout hint only).
 */
export const makeBlockPtr = (
  base: Tile, shape: readonly TileLike[], strides: readonly TileLike[], offsets: readonly TileLike[],
  blockShape: readonly number[], order: readonly number[],
): BlockPointer =>
  api('makeBlockPtr', (t) => {
    if (!(base instanceof Tile)) return t.fail('E_ARG', `base must be a pointer, got ${describe(base)}`);
    t.use(base);
    if (!isPtr(base.dtype) || base.rank !== 0) return t.fail('E_TYPE', `base must be a scalar pointer, got ${base.toString()}`);
    if (!Array.isArray(blockShape) || !blockShape.length || !blockShape.every((b) => Number.isInteger(b) && b > 0 && (b & (b - 1)) === 0)) {
      return t.fail('E_ARG', `blockShape must be a non-empty array of powers of two, got ${describe(blockShape)}`);
    }
    const rank = blockShape.length;
    const sh = list(t, shape, rank, 'shape').map((s, i) => scalarInt(t, s, 'i64', `shape[${i}]`));
    const st = list(t, strides, rank, 'strides').map((s, i) => scalarInt(t, s, 'i64', `strides[${i}]`));
    const off = list(t, offsets, rank, 'offsets').map((s, i) => scalarInt(t, s, 'i32', `offsets[${i}]`));
    const ord = list(t, order, rank, 'order');
    if (!ord.every((o) => typeof o === 'number') || [...(ord as number[])].sort((a, b) => a - b).some((o, i) => o !== i)) {
      return t.fail('E_ARG', `order must be a permutation of 0..${rank - 1}, got ${describe(order)}`);
    }
    return new BlockPointer(base, sh, st, off, [...blockShape], [...(ord as number[])]);
  });

/** Triton's `advance`: the same block pointer with `offsets` added to its offsets (i32). */
export const advance = (ptr: BlockPointer, offsets: readonly TileLike[]): BlockPointer =>
  api('advance', (t) => {
    if (!(ptr instanceof BlockPointer)) return t.fail('E_ARG', `advance needs a block pointer (makeBlockPtr), got ${describe(ptr)}`);
    const d = list(t, offsets, ptr.rank, 'offsets').map((s, i) => scalarInt(t, s, 'i32', `offsets[${i}]`));
    return new BlockPointer(ptr.base, ptr.shape, ptr.strides, ptr.offsets.map((o, i) => o.add(d[i]!)), ptr.blockShape, ptr.order);
  });

function checkKeys(t: Trace, opts: unknown, allowed: readonly string[], op: string): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) return t.fail('E_ARG', `${op} options must be an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) {
    if (!allowed.includes(k)) {
      const hint = k === 'mask' || k === 'other' ? ' (a block pointer takes boundaryCheck and paddingOption instead of mask and other)' : '';
      t.fail('E_ARG', `unknown ${op} option '${k}' for a block pointer (allowed: ${allowed.join(', ')})${hint}`);
    }
  }
  return opts as Record<string, unknown>;
}

function boundaryDims(t: Trace, v: unknown, rank: number): number[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((d) => Number.isInteger(d) && d >= 0 && d < rank) || new Set(v).size !== v.length) {
    return t.fail('E_ARG', `boundaryCheck must be an array of distinct dims in 0..${rank - 1}, got ${describe(v)}`);
  }
  return v as number[];
}

/** The tile of pointers of the window, and the mask of its in-bounds elements along `check`. */
function addresses(bp: BlockPointer, check: readonly number[]): { ptrs: Tile; mask?: Tile } {
  const r = bp.rank;
  let off: Tile | undefined;
  let mask: Tile | undefined;
  for (let d = 0; d < r; d++) {
    // offsets[d] + 0..B_d-1 along dim d, size 1 along the others
    let idx = bp.offsets[d]!.add(arangeOf(bp.blockShape[d]!)).to('i64');
    for (let e = 0; e < r; e++) if (e !== d) idx = idx.expandDims(e);
    const term = idx.mul(bp.strides[d]!);
    off = off ? off.add(term) : term;
    if (check.includes(d)) {
      const inside = idx.ge(0).logicalAnd(idx.lt(bp.shape[d]!));
      mask = mask ? mask.logicalAnd(inside) : inside;
    }
  }
  const shape = [...bp.blockShape];
  return { ptrs: bp.base.add(off!.broadcastTo(shape)), ...(mask ? { mask: mask.broadcastTo(shape) } : {}) };
}

const arangeOf = (n: number): Tile => arange(0, n);

export function blockLoadIn(t: Trace, bp: BlockPointer, opts: unknown): Tile {
  const o = checkKeys(t, opts, ['boundaryCheck', 'paddingOption', 'cache', 'eviction', 'volatile'], 'load');
  const check = boundaryDims(t, o.boundaryCheck, bp.rank);
  const pad = o.paddingOption ?? 'zero';
  if (pad !== 'zero' && pad !== 'nan') return t.fail('E_ARG', `paddingOption must be 'zero' or 'nan', got ${describe(pad)}`);
  if (pad === 'nan' && !isFloat(bp.dtype)) return t.fail('E_TYPE', `paddingOption 'nan' needs a float block pointer, got ${bp.dtype}`);
  const { ptrs, mask } = addresses(bp, check);
  const rest: LoadOptions = {
    ...(o.cache !== undefined ? { cache: o.cache as LoadOptions['cache'] } : {}),
    ...(o.eviction !== undefined ? { eviction: o.eviction as LoadOptions['eviction'] } : {}),
    ...(o.volatile !== undefined ? { volatile: o.volatile as boolean } : {}),
  };
  return loadIn(t, ptrs, mask ? { ...rest, mask, other: pad === 'nan' ? NaN : 0 } : rest);
}

export function blockStoreIn(t: Trace, bp: BlockPointer, value: unknown, opts: unknown): void {
  const o = checkKeys(t, opts, ['boundaryCheck', 'cache', 'eviction'], 'store');
  const check = boundaryDims(t, o.boundaryCheck, bp.rank);
  const { ptrs, mask } = addresses(bp, check);
  const rest: StoreOptions = {
    ...(o.cache !== undefined ? { cache: o.cache as StoreOptions['cache'] } : {}),
    ...(o.eviction !== undefined ? { eviction: o.eviction as StoreOptions['eviction'] } : {}),
  };
  const v = isScalar(value) ? value : toTileIn(t, value, 'value');
  storeIn(t, ptrs, v, mask ? { ...rest, mask } : rest);
}

/** What a loop carries for each init: a block pointer stays a block pointer, the rest become tiles. */
export type CarriedOf<T extends readonly unknown[]> = { [K in keyof T]: T[K] extends BlockPointer ? BlockPointer : Tile };

/**
 * Loop-carried block pointers travel as their offsets (i32 scalars): base, shape, strides,
 * blockShape and order are loop-invariant, so the value a body returns must be the carried
 * pointer advanced (Triton's rule too: a loop may not change a block pointer's base or shape).
 */
export interface Carry {
  /** The inits with each block pointer replaced by its offsets. */
  readonly flat: unknown[];
  /** Region args or results (one per flat entry) back to the user's values. */
  unflatten(tiles: readonly Tile[]): (Tile | BlockPointer)[];
  /** What a body returned, flattened like the inits (unchanged when no block pointer is carried). */
  flatten(t: Trace, raw: unknown, what: string): unknown;
}

export function carryOf(inits: readonly unknown[]): Carry {
  const bps = inits.map((v) => (v instanceof BlockPointer ? v : undefined));
  if (!bps.some(Boolean)) return { flat: [...inits], unflatten: (ts) => [...ts], flatten: (_, raw) => raw };
  return {
    flat: inits.flatMap((v) => (v instanceof BlockPointer ? [...v.offsets] : [v])),
    unflatten(ts) {
      let i = 0;
      return bps.map((bp) => {
        if (!bp) return ts[i++]!;
        const offs = ts.slice(i, i + bp.rank);
        i += bp.rank;
        return new BlockPointer(bp.base, bp.shape, bp.strides, offs, bp.blockShape, bp.order);
      });
    },
    flatten(t, raw, what) {
      const outs = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      if (outs.length !== inits.length) t.fail('E_TYPE', `${what} must return ${inits.length} value(s), got ${outs.length}`);
      return outs.flatMap((o, k) => {
        const bp = bps[k];
        if (!bp) {
          if (o instanceof BlockPointer) t.fail('E_TYPE', `${what} returned a block pointer at position ${k}, where a tile is carried`);
          return [o];
        }
        if (!(o instanceof BlockPointer)) return t.fail('E_TYPE', `${what} value ${k} must be a block pointer (the carried one, advanced), got ${describe(o)}`);
        const same = o.base === bp.base && o.shape.every((s, i) => s === bp.shape[i]) && o.strides.every((s, i) => s === bp.strides[i])
          && o.blockShape.every((b, i) => b === bp.blockShape[i]) && o.rank === bp.rank && o.order.every((x, i) => x === bp.order[i]);
        if (!same) t.fail('E_TYPE', `${what} value ${k} is a different block pointer: a loop may only advance the one it carries (same base, shape, strides, blockShape and order)`);
        return [...o.offsets];
      });
    },
  };
}
