// histogram (Triton's tl.histogram): numBins bins of width 1 starting at 0, one `histogram` op.
import { isInt, isPow2 } from '../ir/types.js';
import { broadcastToIn, describe, toTileIn } from './semantic.js';
import type { Tile } from './tile.js';
import { api } from './trace.js';

export interface HistogramOptions {
  /** Elements where the mask is false are not counted (Triton's mask). */
  mask?: Tile | boolean;
}

/** i32 [numBins]: bin b counts the elements of the 1-D integer tile x equal to b (others not counted). */
export function histogram(x: Tile, numBins: number, opts?: HistogramOptions): Tile {
  return api('histogram', (t) => {
    if (opts !== undefined && (typeof opts !== 'object' || opts === null)) t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
    for (const k of Object.keys(opts ?? {})) if (k !== 'mask') t.fail('E_ARG', `unknown option '${k}' for histogram (allowed: mask)`);
    const xt = toTileIn(t, x, 'histogram input');
    if (xt.rank !== 1 || !isInt(xt.dtype)) t.fail('E_TYPE', `histogram needs a 1-D integer tile, got ${xt.dtype} [${xt.shape.join(', ')}]`);
    if (typeof numBins !== 'number' || !isPow2(numBins)) t.fail('E_ARG', `numBins must be a power of two, got ${describe(numBins)}`);
    const operands = [xt];
    if (opts?.mask !== undefined) {
      const m = toTileIn(t, opts.mask, 'histogram mask');
      if (m.dtype !== 'bool') t.fail('E_TYPE', `mask must be a bool tile, got ${m.dtype}`);
      operands.push(broadcastToIn(t, m, xt.shape, 'histogram mask'));
    }
    return t.emit('histogram', operands, { elem: 'i32', shape: [numBins] }, { numBins, hasMask: operands.length === 2 });
  });
}
