// `whileLoop`: a device loop with a dynamic trip count (Triton's `while`, scf.while). The condition
// is computed from the carried values at the top of every iteration; the body returns the next ones.
import type { TileType } from '../ir/types.js';
import { isBool, sameType, typeToString } from '../ir/types.js';
import { constantIn, describe, isScalar, toTileIn, type TileLike } from './semantic.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { carryOf, type BlockPointer, type CarriedOf } from './block_ptr.js';

type Returned = TileLike[] | TileLike | void;

/** Checks what a region returned against `types` and emits its `yield`. */
function yieldAs(t: Trace, raw: unknown, types: readonly TileType[], what: string): void {
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
 * `while (cond(...carried)) carried = body(...carried)` on the device; returns the final carried
 * values. `cond` returns a bool scalar (the same in every thread of the program: it is computed
 * from scalars and tiles by reductions, never per element); `body` returns the next carried
 * values, with the types of `inits`. The loop may run zero times.
 */
export const whileLoop = <T extends readonly (TileLike | BlockPointer)[]>(
  inits: readonly [...T], cond: (...carried: CarriedOf<T>) => TileLike, body: (...carried: CarriedOf<T>) => Returned | readonly (TileLike | BlockPointer)[],
): CarriedOf<T> =>
  api('whileLoop', (t) => {
    if (!Array.isArray(inits)) return t.fail('E_ARG', `whileLoop's inits must be an array of tiles, got ${describe(inits)}`);
    if (typeof cond !== 'function' || typeof body !== 'function') {
      return t.fail('E_ARG', 'whileLoop needs a condition and a body function: whileLoop(inits, (...c) => cond, (...c) => [...next])');
    }
    const carry = carryOf(inits);
    const init = carry.flat.map((v, i) => toTileIn(t, v, `init ${i}`));
    const types = init.map((v) => v.type);
    const user = (ts: Tile[]): CarriedOf<T> => carry.unflatten(ts) as unknown as CarriedOf<T>;
    const before = t.region(types, (carried) => {
      const raw = t.user(() => cond(...user(carried)));
      if (typeof raw === 'boolean') {
        yieldAs(t, [raw], [{ elem: 'bool', shape: [] }], 'whileLoop condition');
        return;
      }
      if (!(raw instanceof Tile) || !isBool(raw.dtype) || raw.rank !== 0) {
        t.fail('E_TYPE', `whileLoop's condition must return a bool scalar, got ${raw instanceof Tile ? typeToString(raw.type) : describe(raw)} (reduce a tile first, e.g. with max)`);
      }
      yieldAs(t, [raw], [{ elem: 'bool', shape: [] }], 'whileLoop condition');
    });
    const loop = t.region(types, (carried) => {
      yieldAs(t, carry.flatten(t, t.user(() => body(...user(carried))), 'whileLoop body'), types, 'whileLoop body');
    });
    return user(t.emitOp('while', init, types, {}, [before, loop]).results.map((r) => t.wrap(r)));
  });
