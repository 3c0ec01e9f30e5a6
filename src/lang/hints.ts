// Compiler hints and debugging ops: multipleOf, maxContiguous, devicePrint, deviceAssert.
import { isBool } from '../ir/types.js';
import { describe, rejectFp8, toTileIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { checkOptionNames } from './options.js';

/**
 * Per-dimension hint values; a single number applies to every dim. A scalar takes one value
 * (the IR's rule: one entry per dim, one for a scalar).
 */
function hintValues(t: Trace, x: Tile, v: unknown, what: string): number[] {
  const n = Math.max(1, x.rank);
  const vals = typeof v === 'number' ? Array<number>(n).fill(v) : v;
  if (!Array.isArray(vals) || vals.length !== n || !vals.every((d) => Number.isInteger(d) && d > 0)) {
    return t.fail('E_ARG', `${what} needs ${n} positive integer(s) (one per dim), got ${describe(v)}`);
  }
  return [...vals] as number[];
}

/** Promises the compiler that values are multiples of `values` (per dim). */
export const multipleOf = (x: Tile, values: number | number[]): Tile =>
  api('multipleOf', (t) => {
    const xt = toTileIn(t, x, 'input');
    const v = hintValues(t, xt, values, 'multipleOf');
    return t.emit('hint', [xt], xt.type, { multipleOf: v });
  });

/** Promises the compiler that runs of `values` consecutive elements are contiguous (per dim). */
export const maxContiguous = (x: Tile, values: number | number[]): Tile =>
  api('maxContiguous', (t) => {
    const xt = toTileIn(t, x, 'input');
    const v = hintValues(t, xt, values, 'maxContiguous');
    return t.emit('hint', [xt], xt.type, { maxContiguous: v });
  });

/** Prints `prefix` and the tiles, with the program id, when the kernel runs. */
export const devicePrint = (prefix: string, ...tiles: (TileLike | { hex: boolean })[]): void =>
  api('devicePrint', (t) => {
    if (typeof prefix !== 'string') t.fail('E_ARG', `devicePrint's first argument must be a prefix string, got ${describe(prefix)}`);
    let hex = false;
    const last = tiles[tiles.length - 1];
    const args = [...tiles];
    if (last !== null && typeof last === 'object' && !('trace' in last) && !Array.isArray(last)) {
      // a trailing plain object is devicePrint's options
      hex = checkOptionNames(t, 'devicePrint', last, ['hex'])['hex'] === true;
      args.pop();
    }
    const vals = args.map((v, i) => toTileIn(t, v, `argument ${i + 1}`));
    for (const v of vals) rejectFp8(t, v.dtype, 'devicePrint');
    t.emitOp('print', vals, [], { prefix, hex });
  });

/** Fails the launch where `cond` is false. A JS boolean is checked at trace time. */
export const deviceAssert = (cond: TileLike, message = 'assertion failed'): void =>
  api('deviceAssert', (t) => {
    if (typeof message !== 'string') t.fail('E_ARG', `deviceAssert's message must be a string, got ${describe(message)}`);
    if (typeof cond === 'boolean') {
      if (!cond) t.fail('E_ARG', `static assertion failed: ${message}`);
      return;
    }
    const c = toTileIn(t, cond, 'condition');
    if (!isBool(c.dtype)) t.fail('E_TYPE', `deviceAssert needs a bool condition, got ${c.dtype}`);
    t.emitOp('assert', [c], [], { message });
  });
