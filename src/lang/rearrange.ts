// Element rearrangements Triton users reach for: flip, cat, interleave (triton.language's), and
// swizzle2d (the grouped program-id ordering of the matmul tutorial). All are compositions of
// existing ops (join/split/trans/reshape; integer arithmetic), so the interpreter and the compiled
// code agree by construction.
import { KernelError } from './errors.js';
import { binaryIn, describe, promoteOperands, toTileIn, type TileLike } from './semantic.js';
import { normAxis } from './shape.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

const ty = (x: Tile, shape: number[]) => ({ elem: x.dtype, shape });

function transIn(t: Trace, x: Tile, perm: number[]): Tile {
  if (perm.every((p, i) => p === i)) return x;
  return t.emit('trans', [x], ty(x, perm.map((p) => x.shape[p]!)), { perm });
}
function reshapeIn(t: Trace, x: Tile, shape: number[]): Tile {
  if (shape.length === x.rank && shape.every((d, i) => d === x.shape[i])) return x;
  return t.emit('reshape', [x], ty(x, shape), { shape: [...shape], allowReorder: false });
}
/** join without promotion (both operands have one type): works for every dtype, fp8 and pointers too. */
function joinIn(t: Trace, a: Tile, b: Tile): Tile {
  return t.emit('join', [a, b], ty(a, [...a.shape, 2]), {});
}

/**
 * Reverses `x` along `dim` (default: the last; Triton's `flip`). The dim's size n = 2^s is viewed as
 * s binary digits; reversing an index is complementing every digit, and complementing one digit
 * swaps the two halves of a size-2 dim: moved last, split, joined back the other way round.
 */
export const flip = (x: Tile, dim?: number): Tile =>
  api('flip', (t) => {
    const xt = toTileIn(t, x, 'input');
    if (xt.rank === 0) return t.fail('E_SHAPE', 'flip needs a tile of rank >= 1, got a scalar');
    const d = normAxis(t, dim ?? xt.rank - 1, xt.rank, 'dim');
    const n = xt.shape[d]!;
    const s = Math.log2(n);
    if (n === 1) return xt;
    const digits = [...xt.shape.slice(0, d), ...Array<number>(s).fill(2), ...xt.shape.slice(d + 1)];
    let y = reshapeIn(t, xt, digits);
    const rank = digits.length;
    for (let k = d; k < d + s; k++) {
      // move digit k last, swap its halves, move it back
      const toLast = [...Array(rank).keys()].filter((i) => i !== k).concat(k);
      const back = [...Array(rank).keys()].map((i) => toLast.indexOf(i));
      const z = transIn(t, y, toLast);
      const half = ty(z, z.shape.slice(0, -1));
      const [lo, hi] = t.emitOp('split', [z], [half, half], {}).results;
      y = transIn(t, joinIn(t, t.wrap(hi!), t.wrap(lo!)), back);
    }
    return reshapeIn(t, y, [...xt.shape]);
  });

export interface CatOptions {
  /** The dimension to concatenate along (default 0). */
  readonly dim?: number;
  /** Triton's can_reorder hint. Accepted; the result is always in order (a, then b). */
  readonly canReorder?: boolean;
}

/**
 * Concatenates a and b along `dim` (Triton's `cat`): a's elements first, then b's, whatever
 * `canReorder` says (the ordered result is one of the orders it allows). a and b must have the
 * same shape (so the result's dim stays a power of two) and dtype after promotion.
 */
export const cat = (a: TileLike, b: TileLike, opts: CatOptions = {}): Tile =>
  api('cat', (t) => {
    if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object like { dim: 0 }, got ${describe(opts)}`);
    for (const k of Object.keys(opts)) if (k !== 'dim' && k !== 'canReorder') t.fail('E_ARG', `unknown option '${k}' (allowed: dim, canReorder)`);
    if (opts.canReorder !== undefined && typeof opts.canReorder !== 'boolean') t.fail('E_ARG', `canReorder must be a boolean, got ${describe(opts.canReorder)}`);
    const at = toTileIn(t, a, 'operand 1'), bt = toTileIn(t, b, 'operand 2');
    if (at.rank === 0 || at.rank !== bt.rank || at.shape.some((s, i) => s !== bt.shape[i])) {
      return t.fail('E_SHAPE', `cat needs two tiles of one shape (rank >= 1), got [${at.shape.join(', ')}] and [${bt.shape.join(', ')}]`);
    }
    const d = normAxis(t, opts.dim ?? 0, at.rank, 'dim');
    const { tiles } = promoteOperands(t, [at, bt], 'cat');
    const j = joinIn(t, tiles[0]!, tiles[1]!); // [..., 2]
    const r = at.rank;
    const perm = [...Array(r).keys()];
    perm.splice(d, 0, r); // the pair dim just before `dim`: row-major, a's block then b's
    const shape = [...at.shape];
    shape[d] = 2 * shape[d]!;
    return reshapeIn(t, transIn(t, j, perm), shape);
  });

/** Interleaves a and b along their last dim (Triton's `interleave`): a0, b0, a1, b1, ... */
export const interleave = (a: TileLike, b: TileLike): Tile =>
  api('interleave', (t) => {
    const { tiles, shape } = promoteOperands(t, [a, b], 'interleave');
    const j = joinIn(t, tiles[0]!, tiles[1]!);
    if (shape.length === 0) return j; // two scalars: [a, b]
    return reshapeIn(t, j, [...shape.slice(0, -1), 2 * shape[shape.length - 1]!]);
  });

/**
 * Triton's `swizzle2d`: maps the row-major index (i, j) of a sizeI x sizeJ grid so that each
 * group of sizeG rows is walked column-major (the last group may have fewer rows). Returns
 * [newI, newJ]. Integer division and remainder truncate as Triton's `//` and `%`; with JS numbers
 * only, the result is JS numbers.
 */
export function swizzle2d(i: number, j: number, sizeI: number, sizeJ: number, sizeG: number): [number, number];
export function swizzle2d(i: TileLike, j: TileLike, sizeI: TileLike, sizeJ: TileLike, sizeG: TileLike): [Tile, Tile];
export function swizzle2d(i: TileLike, j: TileLike, sizeI: TileLike, sizeJ: TileLike, sizeG: TileLike): [Tile, Tile] | [number, number] {
  const args = [i, j, sizeI, sizeJ, sizeG];
  if (args.every((v) => typeof v === 'number')) {
    const [a, b, si, sj, sg] = args as number[];
    if (!args.every((v) => Number.isInteger(v)) || sj === 0 || sg === 0) {
      throw new KernelError('E_ARG', `swizzle2d needs integers and non-zero sizeJ, sizeG, got ${args.join(', ')}`, { op: 'swizzle2d' });
    }
    // as the tile path, integer x / 0 = -1 and x % 0 = x (a row past sizeI has a group of 0 rows)
    const div = (p: number, q: number) => (q === 0 ? -1 : Math.trunc(p / q) + 0);
    const rem = (p: number, q: number) => (q === 0 ? p : (p % q) + 0);
    const ij = a! * sj! + b!;
    const gj = sg! * sj!;
    const offI = div(ij, gj) * sg!;
    const g = Math.min(si! - offI, sg!);
    const r = rem(ij, gj);
    return [offI + rem(r, g), div(r, g)];
  }
  return api('swizzle2d', (t) => {
    const { tiles } = promoteOperands(t, args, 'swizzle2d', true);
    const [ti, tj, si, sj, sg] = tiles as [Tile, Tile, Tile, Tile, Tile];
    const int = { check: 'int' as const, divOrMod: true };
    const ij = binaryIn(t, 'add', binaryIn(t, 'mul', ti, sj, int), tj, int);
    const gj = binaryIn(t, 'mul', sg, sj, int);
    const offI = binaryIn(t, 'mul', binaryIn(t, 'div', ij, gj, int), sg, int);
    const g = binaryIn(t, 'min', binaryIn(t, 'sub', si, offI, int), sg, int);
    const r = binaryIn(t, 'rem', ij, gj, int);
    return [binaryIn(t, 'add', offI, binaryIn(t, 'rem', r, g, int), int), binaryIn(t, 'div', r, g, int)] as [Tile, Tile];
  });
}
