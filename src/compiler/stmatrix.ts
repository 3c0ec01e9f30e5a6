// Which register layouts a descriptor store can write to its shared tile with `stmatrix` (sm_90,
// PTX ISA "stmatrix"): the 8x8 b16 matrices of stmatrix.m8n8 hold, in lane L, row L/4 and
// columns 2(L%4), 2(L%4)+1 - exactly the pairs of the mma.sync / wgmma accumulator layouts (spt
// [1,2], tpw [8,4], row-major lanes). Every register pair of such a layout is then one whole 8x8
// matrix of the tile, at an offset every lane of the warp shares, so the accumulator (cast to
// 16 bits) goes to shared memory without a layout conversion. codegen/async/lower_stmatrix.ts emits it.
import { ctaTile, type Layout, type BlockedLayout } from './layout.js';

/** True when 16-bit elements of a [R, C] tile in layout `l` can be stored with stmatrix. */
export function stmatrixLayout(l: Layout | undefined, shape: readonly number[]): l is BlockedLayout {
  if (!l || l.kind !== 'blocked' || shape.length !== 2 || l.order.length !== 2) return false;
  const [spt, tpw, order] = [l.sizePerThread, l.threadsPerWarp, l.order];
  if (spt[0] !== 1 || spt[1] !== 2 || tpw[0] !== 8 || tpw[1] !== 4 || order[0] !== 1 || order[1] !== 0) return false;
  if ((l.laneRepeat?.[1] ?? 1) !== 1) return false;
  // no replicas (each element held once) and whole 8x8 matrices
  const cta = ctaTile(l);
  return cta[0]! <= shape[0]! && cta[1]! <= shape[1]! && shape[0]! % 8 === 0 && shape[1]! % 8 === 0;
}
