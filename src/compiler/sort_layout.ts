// Layouts for `sort` (and `gather` by shuffles): the sorted dim must lie inside one warp (its positions split between a
// thread's registers and lane bits; warps along it only replicate), so the bitonic network is
// register compare-exchanges and shfl.bfly, never shared memory (codegen/lower_sort.ts).
import { blockedWith, laneRep, rowMajor, type BlockedLayout, type Layout } from './layout.js';

/**
 * Whether blocked layout `l` holds dim `axis` (length `n`) within each warp: one warp's lanes
 * cover it (warps along it replicate), or no warps along it (the warp tile repeats in registers).
 */
export function sortFits(l: Layout, axis: number, n: number): l is BlockedLayout {
  if (l.kind !== 'blocked' || laneRep(l, axis) !== 1 || l.sizePerThread[axis]! > n) return false;
  return l.sizePerThread[axis]! * l.threadsPerWarp[axis]! >= n || l.warpsPerCTA[axis] === 1;
}

/** The layout a sort along `axis` gets when its input's does not fit: lanes first along `axis`. */
export function sortLayout(shape: readonly number[], axis: number, numWarps: number): BlockedLayout {
  const n = shape[axis]!;
  const spt = shape.map((_, d) => (d === axis ? n / Math.min(n, 32) : 1));
  return blockedWith(shape, numWarps, [axis, ...rowMajor(shape.length).filter((d) => d !== axis)], spt);
}

/** gather by warp shuffles: src and index of one shape, the dim at most 256 long (8 registers a lane). */
export const gatherByShuffle = (src: readonly number[], index: readonly number[], axis: number): boolean =>
  src.length === index.length && src.every((d, i) => d === index[i]) && src[axis]! <= 256;
