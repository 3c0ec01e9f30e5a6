// Device control flow: loops with loop-carried tiles and conditionals that yield values.
// (Static loops are plain JS `for` loops: they unroll at trace time.)
import type { DType, TileType } from '../ir/types.js';
import { isBool, isInt, sameType, typeToString } from '../ir/types.js';
import { castIn, constantIn, describe, isScalar, toTileIn, type TileLike } from './semantic.js';
import { literalDType } from './promote.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { carryOf, type BlockPointer, type CarriedOf } from './block_ptr.js';
import { MAX_NUM_STAGES, type LoopAttrs } from '../ir/ops.js';
import { checkOptionNames } from './options.js';

/** forLoop's and range's options (Triton's tl.range keywords); docs/language.md, "Loop options". */
export type LoopOptions = LoopAttrs;
const LOOP_OPTIONS = ['numStages', 'warpSpecialize', 'unroll', 'flatten', 'disallowAccMultiBuffer'] as const;

/** `opts` checked and copied into the loop op's attributes (an unknown name or a wrong type is E_ARG). */
function loopAttrs(t: Trace, op: string, opts: unknown): LoopAttrs {
  const o = checkOptionNames(t, op, opts, LOOP_OPTIONS);
  const out: Record<string, number | boolean> = {};
  const int = (k: string, lo: number, hi: number): void => {
    const v = o[k];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) t.fail('E_ARG', `${op}: option '${k}' must be an integer in ${lo}..${hi}, got ${describe(v)}`);
    out[k] = v;
  };
  const bool = (k: string): void => {
    const v = o[k];
    if (v === undefined) return;
    if (typeof v !== 'boolean') t.fail('E_ARG', `${op}: option '${k}' must be a boolean, got ${describe(v)}`);
    out[k] = v;
  };
  int('numStages', 1, MAX_NUM_STAGES);
  int('unroll', 1, 1 << 16);
  bool('warpSpecialize');
  bool('flatten');
  bool('disallowAccMultiBuffer');
  return out;
}

/** Checks the values a body returned against the expected types and emits `yield`. */
function yieldValues(t: Trace, raw: unknown, types: TileType[], what: string): void {
  const outs = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (outs.length !== types.length) t.fail('E_TYPE', `${what} must return ${types.length} value(s), got ${outs.length}`);
  const vals = outs.map((o, i) => {
    const want = types[i]!;
    if (isScalar(o)) return constantIn(t, o, want, `${what} value ${i}`);
    if (!(o instanceof Tile)) return t.fail('E_TYPE', `${what} returned ${describe(o)} at position ${i}; expected ${typeToString(want)}`);
    t.use(o);
    if (!sameType(o.type, want)) {
      return t.fail('E_TYPE', `${what} value ${i} changes type from ${typeToString(want)} to ${typeToString(o.type)}; types must match (cast or broadcast explicitly)`);
    }
    return o;
  });
  t.emitOp('yield', vals, [], {});
}

/**
 * Device loop `for (iv = lb; iv < ub; iv += step)` with loop-carried values.
 * `body(iv, ...carried)` returns the next carried values (same types); returns the final ones.
 * `opts` (LoopOptions) are recorded on the loop for the compiler; they never change the result.
 */
export const forLoop = <T extends readonly (TileLike | BlockPointer)[]>(
  lb: TileLike, ub: TileLike, step: TileLike, inits: readonly [...T],
  body: (iv: Tile, ...carried: CarriedOf<T>) => TileLike[] | TileLike | void | readonly (TileLike | BlockPointer)[],
  opts?: LoopOptions,
): CarriedOf<T> =>
  api('forLoop', (t) => {
    if (typeof body !== 'function') return t.fail('E_ARG', `forLoop needs a body function, got ${describe(body)}`);
    const attrs = loopAttrs(t, 'forLoop', opts);
    if (!Array.isArray(inits)) return t.fail('E_ARG', `forLoop's inits must be an array of tiles, got ${describe(inits)}`);
    const bounds = [lb, ub, step].map((v, i) => toTileIn(t, v, ['lower bound', 'upper bound', 'step'][i]!));
    for (const [i, v] of bounds.entries()) {
      if (!isInt(v.dtype) || v.rank !== 0) t.fail('E_TYPE', `forLoop ${['lower bound', 'upper bound', 'step'][i]} must be an integer scalar, got ${typeToString(v.type)}`);
    }
    if (typeof step === 'number' && step <= 0) t.fail('E_ARG', `forLoop step must be positive, got ${step}`);
    const ivType: DType = bounds.some((v) => v.dtype === 'i64') ? 'i64' : 'i32';
    const [l, u, s] = bounds.map((v) => castIn(t, v, ivType));
    // block pointers travel as their offsets (block_ptr.ts)
    const carry = carryOf(inits);
    const user = (ts: Tile[]): CarriedOf<T> => carry.unflatten(ts) as unknown as CarriedOf<T>;
    const init = carry.flat.map((v, i) => toTileIn(t, v, `init ${i}`));
    const types = init.map((v) => v.type);
    const region = t.region([{ elem: ivType, shape: [] }, ...types], ([iv, ...carried]) => {
      const out = t.user(() => body(iv!, ...user(carried)));
      yieldValues(t, carry.flatten(t, out, 'forLoop body'), types, 'forLoop body');
    });
    return user(t.emitOp('for', [l!, u!, s!, ...init], types, attrs, [region]).results.map((r) => t.wrap(r)));
  });

/** Python-like `range(lb, ub)` loop over carried values (alias of forLoop with step 1; same options). */
export const range = <T extends readonly (TileLike | BlockPointer)[]>(
  lb: TileLike, ub: TileLike, inits: readonly [...T],
  body: (iv: Tile, ...carried: CarriedOf<T>) => TileLike[] | TileLike | void | readonly (TileLike | BlockPointer)[],
  opts?: LoopOptions,
): CarriedOf<T> => forLoop(lb, ub, 1, inits, body, opts);

/**
 * `if (cond) then() else else_()` on the device; both branches return values of the same types.
 * A JS boolean condition is decided at trace time (only one branch is traced).
 */
export const ifThenElse = (cond: TileLike, then: () => TileLike[] | TileLike | void, else_?: () => TileLike[] | TileLike | void): Tile[] =>
  api('ifThenElse', (t) => {
    if (typeof then !== 'function' || (else_ !== undefined && typeof else_ !== 'function')) {
      return t.fail('E_ARG', 'ifThenElse needs branch functions: ifThenElse(cond, () => [...], () => [...])');
    }
    if (typeof cond === 'boolean') {
      const raw = cond ? t.user(then) : else_ ? t.user(else_) : undefined;
      const outs = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      return outs.map((o, i) => toTileIn(t, o, `branch value ${i}`));
    }
    const c = toTileIn(t, cond, 'condition');
    if (!isBool(c.dtype) || c.rank !== 0) return t.fail('E_TYPE', `ifThenElse needs a bool scalar condition, got ${typeToString(c.type)}`);
    // The then-branch fixes the result types; the else-branch must match them.
    let types: TileType[] = [];
    const thenBlock = t.region([], () => {
      const raw = t.user(then);
      const outs = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      types = outs.map((o, i) => (o instanceof Tile ? o.type : isScalar(o) ? { elem: literalDType(o), shape: [] } : t.fail('E_TYPE', `then branch returned ${describe(o)} at position ${i}`)));
      yieldValues(t, raw, types, 'then branch');
    }, 'if');
    const elseBlock = t.region([], () => {
      if (else_) yieldValues(t, t.user(else_), types, 'else branch');
      else yieldValues(t, undefined, types, 'else branch (missing, so the then branch may not return values)');
    }, 'if');
    return t.emitOp('if', [c], types, {}, [thenBlock, elseBlock]).results.map((r) => t.wrap(r));
  });
