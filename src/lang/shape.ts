// Shape ops: expandDims, reshape/view, trans, broadcastTo, join, split.
import { numel } from '../ir/types.js';
import { broadcastToIn, checkShape, describe, promoteOperands, toTileIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { checkOptionNames } from './options.js';

/** Normalizes an axis in [-rank, rank) (or [-(rank+1), rank] when inserting), else E_AXIS. */
export function normAxis(t: Trace, axis: unknown, rank: number, what = 'axis', inserting = false): number {
  const n = inserting ? rank + 1 : rank;
  if (typeof axis !== 'number' || !Number.isInteger(axis) || axis < -n || axis >= n) {
    return t.fail('E_AXIS', `${what} ${describe(axis)} is out of range for a tile of rank ${rank} (valid: ${-n}..${n - 1})`);
  }
  return axis < 0 ? axis + n : axis;
}

export function expandDimsIn(t: Trace, x: Tile, axis: number): Tile {
  const a = normAxis(t, axis, x.rank, 'axis', true);
  const shape = [...x.shape];
  shape.splice(a, 0, 1);
  return t.emit('expand_dims', [x], { elem: x.dtype, shape }, { axis: a });
}

/** Inserts size-1 dims (several axes are inserted in increasing order of the final position). */
export const expandDims = (x: Tile, axis: number | number[]): Tile =>
  api('expandDims', (t) => {
    let cur = toTileIn(t, x, 'input');
    const axes = Array.isArray(axis) ? axis : [axis];
    const finalRank = cur.rank + axes.length;
    const norm = axes.map((a) => normAxis(t, a, finalRank - 1, 'axis', true)).sort((p, q) => p - q);
    if (new Set(norm).size !== norm.length) return t.fail('E_AXIS', `repeated axis in [${axes.join(', ')}]`);
    for (const a of norm) cur = expandDimsIn(t, cur, a);
    return cur;
  });

function reshapeIn(t: Trace, x: Tile, shape: number[], allowReorder: boolean, name: string): Tile {
  if (!Array.isArray(shape)) return t.fail('E_SHAPE', `${name} needs a shape array, got ${describe(shape)}`);
  const total = x.numel;
  const holes = shape.filter((d) => d === -1).length;
  if (holes > 1) return t.fail('E_SHAPE', `${name}: at most one dimension may be -1`);
  let dims = shape;
  if (holes === 1) {
    const known = numel(shape.filter((d) => d !== -1));
    dims = shape.map((d) => (d === -1 ? total / known : d));
  }
  checkShape(t, dims, `${name} target shape`);
  if (numel(dims) !== total) {
    return t.fail('E_SHAPE', `${name}: cannot reshape [${x.shape.join(', ')}] (${total} elements) to [${dims.join(', ')}] (${numel(dims)} elements)`);
  }
  return t.emit('reshape', [x], { elem: x.dtype, shape: dims }, { shape: [...dims], allowReorder });
}

/** Row-major reshape. `canReorder: true` lets the compiler reorder elements (like view). */
export const reshape = (x: Tile, shape: number[], opts: { canReorder?: boolean } = {}): Tile =>
  api('reshape', (t) => reshapeIn(t, toTileIn(t, x, 'input'), shape, checkOptionNames(t, 'reshape', opts, ['canReorder'])['canReorder'] === true, 'reshape'));

/** Reshape where the order of elements is unspecified (compiler's choice). */
export const view = (x: Tile, shape: number[]): Tile => api('view', (t) => reshapeIn(t, toTileIn(t, x, 'input'), shape, true, 'view'));

/** Permutes dims: result dim i is input dim perm[i]. Default: reverse the dims. */
export const trans = (x: Tile, ...perm: (number | number[])[]): Tile =>
  api('trans', (t) => {
    const xt = toTileIn(t, x, 'input');
    const p0 = perm.length === 1 && Array.isArray(perm[0]) ? perm[0] : (perm as number[]);
    const p = p0.length === 0 ? xt.shape.map((_, i) => xt.rank - 1 - i) : p0.map((a) => normAxis(t, a, xt.rank, 'permutation axis'));
    if (p.length !== xt.rank || new Set(p).size !== p.length) {
      return t.fail('E_AXIS', `trans needs a permutation of 0..${xt.rank - 1}, got [${p0.join(', ')}]`);
    }
    return t.emit('trans', [xt], { elem: xt.dtype, shape: p.map((a) => xt.shape[a]!) }, { perm: p });
  });
export const permute = trans;

export const broadcastTo = (x: TileLike, shape: number[]): Tile =>
  api('broadcastTo', (t) => broadcastToIn(t, toTileIn(t, x, 'input'), checkShape(t, shape, 'target shape'), 'broadcastTo'));

/** Stacks a and b along a new last dim of size 2. */
export const join = (a: TileLike, b: TileLike): Tile =>
  api('join', (t) => {
    const { tiles, dtype, shape } = promoteOperands(t, [a, b], 'join');
    return t.emit('join', tiles, { elem: dtype, shape: [...shape, 2] }, {});
  });

/** Splits a tile whose last dim is 2 into its two halves. */
export const split = (x: Tile): [Tile, Tile] =>
  api('split', (t) => {
    const xt = toTileIn(t, x, 'input');
    if (xt.rank === 0 || xt.shape[xt.rank - 1] !== 2) {
      return t.fail('E_SHAPE', `split needs a tile whose last dim is 2, got [${xt.shape.join(', ')}]`);
    }
    const ty = { elem: xt.dtype, shape: xt.shape.slice(0, -1) };
    const [lo, hi] = t.emitOp('split', [xt], [ty, ty], {}).results;
    return [t.wrap(lo!), t.wrap(hi!)];
  });
