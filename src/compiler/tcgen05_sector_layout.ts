// The tcgen05 accumulator read back for whole-sector pointer stores (sm_100a).
//
// `tcgen05.ld.32x32b` gives each thread one row (tcgen05_kinds.ts), so a warp's 16-byte vector
// store writes 32 rows, half a 32-byte sector each: every sector of C is written in two halves by
// two instructions. `tcgen05.ld.16x32bx2` with immHalfSplitoff s instead gives lanes t and t + 16
// the same row (TMEM lane t % 16 of the address), columns c..c+s-1 and c+s..c+2s-1: with s the
// columns of 16 bytes of C (4 for f32, 8 for 16-bit C) the two lanes' vectors are one whole sector.
// One such load reads 16 rows by 2s columns; M = 128 takes two per warp and column group (TMEM
// lanes 32(w%4) and 32(w%4) + 16: laneRepeat 2 along M), M = 64 one (its warp's 16 lanes).
// As a blocked layout: spt [1, s], tpw [16, 2], wpc [4, Wn], order [0, 1] (M = 128: laneRepeat
// [2, 1]); with 8 warps (Wn = 2) warps 4..7 take every other 2s-column group.
import { layoutKey, type BlockedLayout, type Layout } from './layout.js';
import { isTcgen05Layout, tcgen05Layout } from './tcgen05_kinds.js';

/** The sector layout of an [M, N] accumulator on numWarps warps whose runs are `s` columns, or undefined. */
export function tcgen05SectorLayout(M: number, N: number, numWarps: number, s: number): BlockedLayout | undefined {
  if (!tcgen05Layout(M, N, numWarps) || (s !== 4 && s !== 8)) return undefined;
  const wn = numWarps / 4;
  if (N < 2 * s * wn) return undefined;
  const base = { kind: 'blocked' as const, sizePerThread: [1, s], threadsPerWarp: [16, 2], warpsPerCTA: [4, wn], order: [0, 1] };
  return M === 64 ? base : { ...base, laneRepeat: [2, 1] };
}

/** The run length s of `l` if it is a sector layout of [M, N] on numWarps warps, else 0. */
export function tcgen05SectorRun(l: Layout, M: number, N: number, numWarps: number): number {
  if (l.kind !== 'blocked' || l.sizePerThread.length !== 2) return 0;
  const s = l.sizePerThread[1]!;
  const t = tcgen05SectorLayout(M, N, numWarps, s);
  return t && layoutKey(t) === layoutKey(l) ? s : 0;
}

/** Either tcgen05 accumulator layout (row per thread, or the sector layout). */
export function isTcgen05AccLayout(l: Layout, M: number, N: number, numWarps: number): l is BlockedLayout {
  return isTcgen05Layout(l, M, N, numWarps) || tcgen05SectorRun(l, M, N, numWarps) > 0;
}
