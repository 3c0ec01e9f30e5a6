// Reductions and scans. Each builds a `reduce`/`scan` op whose region is the combiner, traced on
// scalar block args (acc_0..acc_{n-1}, x_0..x_{n-1}) and ending in `yield`. Built-in reductions
// write their combiner here; `reduce`/`associativeScan` trace the user's JS function.
import type { Block, OpAttrs } from '../ir/ops.js';
import type { DType, TileType } from '../ir/types.js';
import { isBool, isFloat, isPtr, sameShape } from '../ir/types.js';
import { broadcastToIn, castIn, checkDType, cmpIn, constantIn, describe, isScalar, toTileIn, whereIn, binaryIn } from './semantic.js';
import { expandDimsIn, normAxis } from './shape.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

export interface ReduceOptions {
  keepDims?: boolean;
  /** sum/cumsum: accumulate in this dtype (input is cast first). */
  dtype?: DType;
}
export interface ScanOptions {
  reverse?: boolean;
  dtype?: DType;
}

type Combine = (args: Tile[]) => unknown;

/** Traces a combiner region over scalar args and returns the block (checks what it yields). */
function combinerRegion(t: Trace, elems: DType[], fn: Combine, user: boolean, what: string): Block {
  const scalars: TileType[] = [...elems, ...elems].map((e) => ({ elem: e, shape: [] }));
  return t.region(scalars, (args) => {
    const raw = user ? t.user(() => fn(args)) : fn(args);
    const outs = Array.isArray(raw) ? raw : [raw];
    if (outs.length !== elems.length) {
      t.fail('E_TYPE', `the ${what} combine function must return ${elems.length} value(s), got ${outs.length}`);
    }
    const vals = outs.map((o, i) => {
      const want = elems[i]!;
      if (isScalar(o)) return constantIn(t, o, { elem: want, shape: [] });
      if (!(o instanceof Tile)) return t.fail('E_TYPE', `the ${what} combine function returned ${describe(o)} at position ${i}; expected a ${want} scalar`);
      t.use(o);
      if (o.rank !== 0) return t.fail('E_SHAPE', `the ${what} combine function must return scalars, got shape [${o.shape.join(', ')}] at position ${i}`);
      if (o.dtype !== want) return t.fail('E_TYPE', `the ${what} combine function returned ${o.dtype} at position ${i}; expected ${want} (cast with .to('${want}'))`);
      return o;
    });
    t.emitOp('yield', vals, [], {});
  });
}

function inputs(t: Trace, x: unknown, what: string): Tile[] {
  const xs = (Array.isArray(x) ? x : [x]).map((v, i) => toTileIn(t, v, `${what} input ${i}`));
  if (xs.length === 0) return t.fail('E_ARG', `${what} needs at least one input`);
  for (const v of xs) {
    if (isPtr(v.dtype)) t.fail('E_TYPE', `${what} does not take pointer tiles`);
    if (!sameShape(v.shape, xs[0]!.shape)) t.fail('E_SHAPE', `${what} inputs must have one shape, got [${xs[0]!.shape.join(', ')}] and [${v.shape.join(', ')}]`);
  }
  if (xs[0]!.rank === 0) t.fail('E_AXIS', `${what} needs a tile with at least one dim, got a scalar`);
  return xs;
}

function reduceCore(t: Trace, xs: Tile[], axis: number, kind: OpAttrs['reduce']['kind'], fn: Combine, user: boolean, keepDims: boolean): Tile[] {
  const a = normAxis(t, axis, xs[0]!.rank);
  const elems = xs.map((x) => x.dtype as DType);
  const region = combinerRegion(t, elems, fn, user, 'reduce');
  const shape = xs[0]!.shape.filter((_, i) => i !== a);
  const op = t.emitOp('reduce', xs, elems.map((e) => ({ elem: e, shape })), { axis: a, kind }, [region]);
  return op.results.map((r) => (keepDims ? expandDimsIn(t, t.wrap(r), a) : t.wrap(r)));
}

function scanCore(t: Trace, xs: Tile[], axis: number, kind: OpAttrs['scan']['kind'], fn: Combine, user: boolean, reverse: boolean): Tile[] {
  const a = normAxis(t, axis, xs[0]!.rank);
  const elems = xs.map((x) => x.dtype as DType);
  const region = combinerRegion(t, elems, fn, user, 'scan');
  const op = t.emitOp('scan', xs, xs.map((x) => x.type), { axis: a, reverse, kind }, [region]);
  return op.results.map((r) => t.wrap(r));
}

/** Sum/cumsum accumulate small integers and bool in 32 bits (as Triton). */
function accDType(t: Trace, x: Tile, dtype: DType | undefined): DType {
  if (dtype !== undefined) return checkDType(t, dtype, 'dtype');
  const d = x.dtype as DType;
  if (isBool(d) || d === 'i8' || d === 'i16') return 'i32';
  if (d === 'u8') return 'u32';
  return d;
}

function checkOpts(t: Trace, opts: unknown, allowed: string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) if (!allowed.includes(k)) t.fail('E_ARG', `unknown option '${k}' (allowed: ${allowed.join(', ')})`);
  return opts as Record<string, unknown>;
}

/** Reduces over `axis`, or over all elements when axis is undefined (result scalar or all-ones shape). */
function builtinReduce(t: Trace, name: string, x: unknown, axis: number | undefined, opts: ReduceOptions | undefined, kind: 'sum' | 'max' | 'min'): Tile {
  const o = checkOpts(t, opts, kind === 'sum' ? ['keepDims', 'dtype'] : ['keepDims']);
  let xt = inputs(t, x, name)[0]!;
  if (kind === 'sum') xt = castIn(t, xt, accDType(t, xt, o.dtype as DType | undefined));
  else if (isBool(xt.dtype)) xt = castIn(t, xt, 'i32');
  const keepDims = o.keepDims === true;
  const fn = kind === 'sum' ? 'add' : kind;
  const combine: Combine = ([acc, v]) => binaryIn(t, fn, acc, v);
  if (axis === undefined || axis === null) {
    const origRank = xt.rank;
    const flat = origRank === 1 ? xt : t.emit('reshape', [xt], { elem: xt.dtype, shape: [xt.numel] }, { shape: [xt.numel], allowReorder: true });
    const r = reduceCore(t, [flat], 0, kind, combine, false, false)[0]!;
    if (!keepDims) return r;
    const ones = Array<number>(origRank).fill(1);
    return t.emit('reshape', [r], { elem: r.dtype, shape: ones }, { shape: ones, allowReorder: false });
  }
  return reduceCore(t, [xt], axis, kind, combine, false, keepDims)[0]!;
}

export const sum = (x: Tile, axis?: number, opts?: ReduceOptions): Tile => api('sum', (t) => builtinReduce(t, 'sum', x, axis, opts, 'sum'));

/** max/min options: Triton's `return_indices` and `return_indices_tie_break_left`, plus keepDims. */
export interface MaxMinOptions {
  keepDims?: boolean;
  /** Also return the index of the extreme (Triton's return_indices): the result is [values, indices]. */
  returnIndices?: boolean;
  /** With returnIndices: ties give the lowest index (default true); false: any tied index (Triton's fast path). */
  tieBreakLeft?: boolean;
}

/** max/min, or with `returnIndices` the extreme and its i32 index (NaN counts as the extreme, as argmax). */
function maxMin(t: Trace, name: 'max' | 'min', x: unknown, axis: number | undefined, opts: MaxMinOptions | undefined): Tile | [Tile, Tile] {
  const o = checkOpts(t, opts, ['keepDims', 'returnIndices', 'tieBreakLeft']);
  for (const k of ['keepDims', 'returnIndices', 'tieBreakLeft'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'boolean') t.fail('E_ARG', `option '${k}' must be a boolean, got ${describe(o[k])}`);
  }
  if (o.returnIndices !== true) {
    if (o.tieBreakLeft !== undefined) t.fail('E_ARG', `option 'tieBreakLeft' needs returnIndices: true`);
    return builtinReduce(t, name, x, axis, { ...(o.keepDims !== undefined ? { keepDims: o.keepDims as boolean } : {}) }, name);
  }
  const kind = name === 'max' ? 'argmax' : 'argmin';
  const r = argReduceBoth(t, name, x, axis, o.keepDims === true, o.tieBreakLeft !== false, kind);
  return [r[0]!, r[1]!];
}

/** The result of max/min: [values, indices] with `returnIndices: true`, else the values. */
export type MaxMinResult<O> = O extends { returnIndices: true } ? [Tile, Tile] : Tile;

export function max<O extends MaxMinOptions>(x: Tile, axis?: number, opts?: O): MaxMinResult<O> {
  return api('max', (t) => maxMin(t, 'max', x, axis, opts)) as MaxMinResult<O>;
}
export function min<O extends MaxMinOptions>(x: Tile, axis?: number, opts?: O): MaxMinResult<O> {
  return api('min', (t) => maxMin(t, 'min', x, axis, opts)) as MaxMinResult<O>;
}

/**
 * Index-tracking reduction: keeps the extreme value and its i32 index; NaN counts as the extreme.
 * `tieBreakLeft`: ties (and several NaNs) give the lower index; otherwise whichever the reduction
 * order meets (Triton's tie_break_left=False: cheaper, any tied index). Returns [values, indices].
 * `axis` undefined: over all elements, the index into the row-major flattening.
 */
function argReduceBoth(t: Trace, name: string, x: unknown, axis: number | undefined, keepDims: boolean, tieBreakLeft: boolean, kind: 'argmax' | 'argmin'): Tile[] {
  let xt = inputs(t, x, name)[0]!;
  if (isBool(xt.dtype)) xt = castIn(t, xt, 'i32');
  const origRank = xt.rank;
  const all = axis === undefined || axis === null;
  if (all && origRank !== 1) xt = t.emit('reshape', [xt], { elem: xt.dtype, shape: [xt.numel] }, { shape: [xt.numel], allowReorder: false });
  const a = normAxis(t, all ? 0 : axis, xt.rank);
  // index tile: arange along `a`, broadcast to x's shape
  const n = xt.shape[a]!;
  let idx = t.emit('arange', [], { elem: 'i32', shape: [n] }, { start: 0, end: n });
  for (let i = 0; i < xt.rank; i++) if (i !== a) idx = expandDimsIn(t, idx, i);
  idx = broadcastToIn(t, idx, xt.shape);
  const better = kind === 'argmax' ? 'gt' : 'lt';
  const float = isFloat(xt.dtype);
  const combine: Combine = ([v1, i1, v2, i2]) => {
    let pick1: Tile;
    if (tieBreakLeft) {
      const lower = cmpIn(t, 'lt', i1, i2);
      const tieOrBetter = binaryIn(t, 'or', cmpIn(t, better, v1, v2), binaryIn(t, 'and', cmpIn(t, 'eq', v1, v2), lower));
      pick1 = tieOrBetter;
      if (float) {
        const nan1 = cmpIn(t, 'ne', v1, v1), nan2 = cmpIn(t, 'ne', v2, v2);
        const notNan2 = t.emit('unary', [nan2], nan2.type, { fn: 'not', precise: false });
        pick1 = whereIn(t, nan1, binaryIn(t, 'or', notNan2, lower), binaryIn(t, 'and', notNan2, tieOrBetter));
      }
    } else {
      pick1 = cmpIn(t, better, v1, v2);
      if (float) {
        const nan1 = cmpIn(t, 'ne', v1, v1), nan2 = cmpIn(t, 'ne', v2, v2);
        const notNan2 = t.emit('unary', [nan2], nan2.type, { fn: 'not', precise: false });
        pick1 = binaryIn(t, 'or', nan1, binaryIn(t, 'and', notNan2, pick1));
      }
    }
    return [whereIn(t, pick1, v1, v2), whereIn(t, pick1, i1, i2)];
  };
  const rs = reduceCore(t, [xt, idx], a, kind, combine, false, keepDims && !all);
  if (all && keepDims) {
    const ones = Array<number>(origRank).fill(1);
    return rs.map((r) => t.emit('reshape', [r], { elem: r.dtype, shape: ones }, { shape: ones, allowReorder: false }));
  }
  return rs;
}

function argReduce(t: Trace, name: string, x: unknown, axis: number, opts: ReduceOptions | undefined, kind: 'argmax' | 'argmin'): Tile {
  const o = checkOpts(t, opts, ['keepDims']);
  return argReduceBoth(t, name, x, axis, o.keepDims === true, true, kind)[1]!;
}
export const argmax = (x: Tile, axis: number, opts?: ReduceOptions): Tile => api('argmax', (t) => argReduce(t, 'argmax', x, axis, opts, 'argmax'));
export const argmin = (x: Tile, axis: number, opts?: ReduceOptions): Tile => api('argmin', (t) => argReduce(t, 'argmin', x, axis, opts, 'argmin'));

/**
 * Reduction with a traced combine function over one tile or several tiles of one shape.
 * `combine(acc_0..acc_{n-1}, x_0..x_{n-1})` gets scalar tiles and returns n scalars.
 */
export function reduce(x: Tile, axis: number, combine: (...args: Tile[]) => Tile | number, opts?: { keepDims?: boolean }): Tile;
export function reduce(x: Tile[], axis: number, combine: (...args: Tile[]) => (Tile | number)[], opts?: { keepDims?: boolean }): Tile[];
export function reduce(x: Tile | Tile[], axis: number, combine: (...args: Tile[]) => unknown, opts?: { keepDims?: boolean }): Tile | Tile[] {
  return api('reduce', (t) => {
    const o = checkOpts(t, opts, ['keepDims']);
    if (typeof combine !== 'function') return t.fail('E_ARG', `reduce needs a combine function, got ${describe(combine)}`);
    const xs = inputs(t, x, 'reduce');
    const rs = reduceCore(t, xs, axis, 'custom', (args) => combine(...args), true, o.keepDims === true);
    return Array.isArray(x) ? rs : rs[0]!;
  });
}

function builtinScan(t: Trace, name: string, x: unknown, axis: number, opts: ScanOptions | undefined, kind: 'sum' | 'prod'): Tile {
  const o = checkOpts(t, opts, ['reverse', 'dtype']);
  let xt = inputs(t, x, name)[0]!;
  xt = castIn(t, xt, accDType(t, xt, o.dtype as DType | undefined));
  const fn = kind === 'sum' ? 'add' : 'mul';
  return scanCore(t, [xt], axis, kind, ([acc, v]) => binaryIn(t, fn, acc, v), false, o.reverse === true)[0]!;
}
export const cumsum = (x: Tile, axis = 0, opts?: ScanOptions): Tile => api('cumsum', (t) => builtinScan(t, 'cumsum', x, axis, opts, 'sum'));
export const cumprod = (x: Tile, axis = 0, opts?: ScanOptions): Tile => api('cumprod', (t) => builtinScan(t, 'cumprod', x, axis, opts, 'prod'));

/** Inclusive scan with a traced associative combine function (one tile or several of one shape). */
export function associativeScan(x: Tile, axis: number, combine: (...args: Tile[]) => Tile | number, opts?: { reverse?: boolean }): Tile;
export function associativeScan(x: Tile[], axis: number, combine: (...args: Tile[]) => (Tile | number)[], opts?: { reverse?: boolean }): Tile[];
export function associativeScan(x: Tile | Tile[], axis: number, combine: (...args: Tile[]) => unknown, opts?: { reverse?: boolean }): Tile | Tile[] {
  return api('associativeScan', (t) => {
    const o = checkOpts(t, opts, ['reverse']);
    if (typeof combine !== 'function') return t.fail('E_ARG', `associativeScan needs a combine function, got ${describe(combine)}`);
    const xs = inputs(t, x, 'associativeScan');
    const rs = scanCore(t, xs, axis, 'custom', (args) => combine(...args), true, o.reverse === true);
    return Array.isArray(x) ? rs : rs[0]!;
  });
}

