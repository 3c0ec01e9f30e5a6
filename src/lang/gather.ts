// gather (Triton's tl.gather): picks along one dim by an index tile of the same rank. One
// `gather` op; the compiled code shuffles within a warp when the dim fits one (codegen/lower_gather.ts).
import { isInt, isPtr } from '../ir/types.js';
import { describe, toTileIn } from './semantic.js';
import { normAxis } from './shape.js';
import type { Tile } from './tile.js';
import { api } from './trace.js';

/** out[i] = src[i with dim `axis` replaced by index[i]]; index has src's rank and, off `axis`, its dims. */
export function gather(src: Tile, index: Tile, axis: number): Tile {
  return api('gather', (t) => {
    const s = toTileIn(t, src, 'gather src');
    const ix = toTileIn(t, index, 'gather index');
    if (isPtr(s.dtype)) t.fail('E_TYPE', 'gather of pointer tiles is not supported');
    if (!isInt(ix.dtype)) t.fail('E_TYPE', `index must be an integer tile, got ${ix.dtype}`);
    if (s.rank === 0) t.fail('E_AXIS', 'gather needs a src tile with at least one dim, got a scalar');
    if (ix.rank !== s.rank) t.fail('E_SHAPE', `src and index must have the same rank, got [${s.shape.join(', ')}] and [${ix.shape.join(', ')}]`);
    if (typeof axis !== 'number') t.fail('E_AXIS', `gather needs an axis, got ${describe(axis)}`);
    const a = normAxis(t, axis, s.rank);
    s.shape.forEach((d, i) => {
      if (i !== a && ix.shape[i] !== d) t.fail('E_SHAPE', `index dim ${i} must match src's (${d}) off the gather axis ${a}, got index [${ix.shape.join(', ')}] for src [${s.shape.join(', ')}]`);
    });
    return t.emit('gather', [s, ix], { elem: s.dtype, shape: [...ix.shape] }, { axis: a });
  });
}
