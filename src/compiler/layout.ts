// Layouts are first-class data: how the elements of a tile are spread over the registers of the
// threads of a CTA. `blocked` is Triton's blocked layout; `slice` is a blocked parent with one dim
// removed (what a reduction produces, what expand_dims consumes for free); `scalar` is one value
// held by every thread. All sizes are powers of two.
import { mmaKindOf } from './mma_kinds.js';
import { wgmmaKindOf, wgmmaN } from './wgmma_kinds.js';
import { isPow2 } from '../ir/types.js';

export interface BlockedLayout {
  readonly kind: 'blocked';
  readonly sizePerThread: readonly number[];
  readonly threadsPerWarp: readonly number[];
  readonly warpsPerCTA: readonly number[];
  /** Dims from fastest-varying to slowest. */
  readonly order: readonly number[];
  /**
   * Per dim, how many times the lanes' tile repeats inside one warp's tile before the next warp
   * (absent: 1 everywhere). Along a dim with repeat R a thread holds R runs spaced spt*tpw apart
   * and warps are spaced spt*tpw*R apart: the wgmma accumulator (wgmmaLayout) has R = 2 along M
   * (warp w owns rows 16w..16w+15, lane g rows g and g+8), which no plain blocked layout gives.
   */
  readonly laneRepeat?: readonly number[];
}
export interface SliceLayout {
  readonly kind: 'slice';
  readonly parent: BlockedLayout;
  readonly dim: number;
}
export interface ScalarLayout {
  readonly kind: 'scalar';
}
export type Layout = BlockedLayout | SliceLayout | ScalarLayout;

export const SCALAR: ScalarLayout = { kind: 'scalar' };

const keys = new WeakMap<Layout, string>();
/** A string naming the layout (equal layouts, equal keys); memoized per layout object. */
export function layoutKey(l: Layout): string {
  let k = keys.get(l);
  if (k === undefined) {
    k = l.kind === 'scalar'
      ? 'scalar'
      : l.kind === 'blocked'
        ? `blocked<spt=[${l.sizePerThread}],tpw=[${l.threadsPerWarp}],wpc=[${l.warpsPerCTA}],order=[${l.order}]${l.laneRepeat ? `,rep=[${l.laneRepeat}]` : ''}>`
        : `slice<dim=${l.dim},parent=${layoutKey(l.parent)}>`;
    keys.set(l, k);
  }
  return k;
}
export const sameLayout = (a: Layout, b: Layout): boolean => layoutKey(a) === layoutKey(b);

/** The lane repeat along dim `d` (laneRepeat; 1 when absent). */
export const laneRep = (b: BlockedLayout, d: number): number => b.laneRepeat?.[d] ?? 1;

/** Elements one warp covers per dim (spt * tpw * laneRepeat). */
export const warpTile = (b: BlockedLayout): number[] =>
  b.sizePerThread.map((s, d) => s * b.threadsPerWarp[d]! * laneRep(b, d));

/** Elements one CTA covers per dim before repeating (spt * tpw * laneRepeat * wpc). */
export const ctaTile = (b: BlockedLayout): number[] =>
  b.sizePerThread.map((s, d) => s * b.threadsPerWarp[d]! * laneRep(b, d) * b.warpsPerCTA[d]!);

/**
 * Blocked layout for `shape` with `numWarps` warps: `vec` contiguous elements per thread along
 * order[0], lanes then warps filled along `order`; leftover lanes/warps replicate along order[0].
 */
export function blockedFor(shape: readonly number[], numWarps: number, order: readonly number[], vec = 1): BlockedLayout {
  const spt = new Array<number>(shape.length).fill(1);
  spt[order[0]!] = Math.max(1, Math.min(vec, shape[order[0]!]!));
  return blockedWith(shape, numWarps, order, spt);
}

/** Blocked layout with the given sizePerThread; lanes then warps fill along `order`. */
export function blockedWith(shape: readonly number[], numWarps: number, order: readonly number[], sizePerThread: readonly number[]): BlockedLayout {
  const rank = shape.length;
  const spt = [...sizePerThread];
  const tpw = new Array<number>(rank).fill(1);
  const wpc = new Array<number>(rank).fill(1);
  const o0 = order[0]!;
  let lanes = 32;
  let warps = numWarps;
  for (const d of order) {
    const t = Math.max(1, Math.min(lanes, shape[d]! / spt[d]!));
    tpw[d] = t;
    lanes /= t;
  }
  for (const d of order) {
    const w = Math.max(1, Math.min(warps, shape[d]! / (spt[d]! * tpw[d]!)));
    wpc[d] = w;
    warps /= w;
  }
  tpw[o0]! *= lanes;
  wpc[o0]! *= warps;
  return { kind: 'blocked', sizePerThread: spt, threadsPerWarp: tpw, warpsPerCTA: wpc, order: [...order] };
}

/**
 * Accumulator layout for an FMA dot [M, N]: each thread owns a small 2-D block (up to 4x4) so
 * every loaded a/b value feeds several FMAs.
 */
export function dotLayout(M: number, N: number, numWarps: number): BlockedLayout {
  const perThread = Math.max(1, (M * N) / (32 * numWarps));
  const n = Math.min(4, N, perThread);
  const m = Math.max(1, Math.min(4, M, Math.floor(perThread / n)));
  return blockedWith([M, N], numWarps, [1, 0], [m, n]);
}

/** The layout of trans(x, perm) when x has layout `b`: every thread keeps its elements. */
export function permuteBlocked(b: BlockedLayout, perm: readonly number[]): BlockedLayout {
  return {
    kind: 'blocked',
    sizePerThread: perm.map((p) => b.sizePerThread[p]!),
    threadsPerWarp: perm.map((p) => b.threadsPerWarp[p]!),
    warpsPerCTA: perm.map((p) => b.warpsPerCTA[p]!),
    order: b.order.map((d) => perm.indexOf(d)),
    ...(b.laneRepeat ? { laneRepeat: perm.map((p) => b.laneRepeat![p]!) } : {}),
  };
}

/** Row-major order (last dim fastest). */
export const rowMajor = (rank: number): number[] => Array.from({ length: rank }, (_, i) => rank - 1 - i);

/** One register of a thread: its element's per-dim offset from the thread's base coordinate. */
export interface RegSlot {
  /** Offsets in the blocked parent's rank (the sliced dim has offset 0). */
  readonly off: readonly number[];
}

/** Shape in the blocked parent's rank (a slice's removed dim has size 1). */
export function parentShape(l: Layout, shape: readonly number[]): number[] {
  if (l.kind === 'slice') return [...shape.slice(0, l.dim), 1, ...shape.slice(l.dim)];
  return [...shape];
}
export const blockedOf = (l: Layout): BlockedLayout | undefined =>
  l.kind === 'blocked' ? l : l.kind === 'slice' ? l.parent : undefined;

/** The parent-rank dim of tile dim `d` (a slice's dims after the removed one shift by one). */
export const parentDim = (l: Layout, d: number): number => (l.kind === 'slice' && d >= l.dim ? d + 1 : d);

/** Registers per dim in the parent rank. */
export function regsPerDim(b: BlockedLayout, pshape: readonly number[]): number[] {
  const cta = ctaTile(b);
  const lanes = b.sizePerThread.map((x, d) => x * b.threadsPerWarp[d]!);
  // lane repeats a tile smaller than the warp's tile does not reach are not held
  return pshape.map((s, d) => Math.min(b.sizePerThread[d]!, s) * Math.min(laneRep(b, d), Math.max(1, s / lanes[d]!)) * Math.max(1, s / cta[d]!));
}

const slotCache = new Map<string, RegSlot[]>();
/** The registers a thread holds for a tile of `shape` in layout `l`, order[0] varying fastest. */
export function regSlots(l: Layout, shape: readonly number[]): RegSlot[] {
  const key = `${layoutKey(l)}|${shape.join('x')}`;
  let slots = slotCache.get(key);
  if (!slots) {
    slots = computeSlots(l, shape);
    if (slotCache.size > 4096) slotCache.clear();
    slotCache.set(key, slots);
  }
  return slots;
}
function computeSlots(l: Layout, shape: readonly number[]): RegSlot[] {
  const b = blockedOf(l);
  if (!b) return [{ off: [] }];
  const ps = parentShape(l, shape);
  const cta = ctaTile(b);
  const n = regsPerDim(b, ps);
  const total = n.reduce((a, x) => a * x, 1);
  const out: RegSlot[] = [];
  for (let r = 0; r < total; r++) {
    let rem = r;
    const off = new Array<number>(ps.length).fill(0);
    for (const d of b.order) {
      const i = rem % n[d]!;
      rem = Math.floor(rem / n[d]!);
      const sptEff = Math.min(b.sizePerThread[d]!, ps[d]!);
      const lanes = b.sizePerThread[d]! * b.threadsPerWarp[d]!;
      const repEff = Math.min(laneRep(b, d), Math.max(1, ps[d]! / lanes));
      const run = Math.floor(i / sptEff);
      off[d] = Math.floor(run / repEff) * cta[d]! + (run % repEff) * lanes + (i % sptEff);
    }
    out.push({ off });
  }
  return out;
}

/** Whether coordinates along `d` wrap (the CTA tile is larger than the tile: replication). */
export function wraps(b: BlockedLayout, pshape: readonly number[], d: number): boolean {
  return ctaTile(b)[d]! > pshape[d]!;
}

/** Bit position, within the lane id and the warp id, of each dim's lane/warp index. */
export function threadShifts(b: BlockedLayout): { lane: number[]; warp: number[] } {
  const lane = new Array<number>(b.order.length).fill(0);
  const warp = new Array<number>(b.order.length).fill(0);
  let ls = 0;
  let ws = 0;
  for (const d of b.order) {
    lane[d] = ls;
    warp[d] = ws;
    ls += Math.log2(b.threadsPerWarp[d]!);
    ws += Math.log2(b.warpsPerCTA[d]!);
  }
  return { lane, warp };
}

/** Checks a layout against a shape and warp count; returns a problem or undefined. */
export function checkLayout(l: Layout, shape: readonly number[], numWarps: number): string | undefined {
  const b = blockedOf(l);
  if (!b) return shape.length === 0 ? undefined : 'scalar layout on a tile';
  const ps = parentShape(l, shape);
  if (b.order.length !== ps.length) return `layout rank ${b.order.length} != tile rank ${ps.length}`;
  if (!ps.every(isPow2)) return `tile shape [${shape}] is not made of powers of two`;
  const lanes = b.threadsPerWarp.reduce((a, x) => a * x, 1);
  const warps = b.warpsPerCTA.reduce((a, x) => a * x, 1);
  if (lanes !== 32) return `threadsPerWarp multiplies to ${lanes}, not 32`;
  if (warps !== numWarps) return `warpsPerCTA multiplies to ${warps}, not ${numWarps}`;
  return undefined;
}

export function layoutToString(l: Layout): string {
  switch (l.kind) {
    case 'scalar':
      return '#scalar';
    case 'blocked':
      return `#blocked{spt=[${l.sizePerThread.join(',')}] tpw=[${l.threadsPerWarp.join(',')}] wpc=[${l.warpsPerCTA.join(',')}] order=[${l.order.join(',')}]${l.laneRepeat ? ` rep=[${l.laneRepeat.join(',')}]` : ''}}`;
    case 'slice':
      return `#slice{dim=${l.dim}, parent=${layoutToString(l.parent)}}`;
  }
}

/**
 * The mma.sync m16n8k16 accumulator as a blocked layout: spt [1,2], tpw [8,4], wpc [WM,WN].
 * Lane l holds row g = l>>2 and columns 2(l&3)+{0,1} of every 8x8 block it covers, exactly the
 * c0,c1 / c2,c3 pairs of the PTX fragment. A warp's rows repeat with stride 8*WM, so the fragment
 * rows g and g+8 of an m16 tile are the thread's i-th and (i+1)-th row blocks; the A operand is
 * read with ldmatrix from those same rows (ldmatrix takes one row address per lane), so the row
 * permutation costs nothing. The warp grid WM x WN follows `pref` (compiler/mma_warps.ts: 'M'
 * puts as many warps along M as tile, 'N' along N, 'balanced' is Triton's MMAv2 balance of m16
 * and n8 tiles per warp) among the grids that tile (M % 16*WM, N % 8*WN); undefined when none does.
 */
export function mmaLayout(M: number, N: number, numWarps: number, pref: 'M' | 'N' | 'balanced' = 'balanced'): BlockedLayout | undefined {
  const tiles = (wm: number): boolean => M % (16 * wm) === 0 && N % (8 * (numWarps / wm)) === 0;
  const grids: number[] = []; // WM of every grid that tiles, most warps along M first
  for (let wm = numWarps; wm >= 1; wm /= 2) if (tiles(wm)) grids.push(wm);
  if (grids.length === 0) return undefined;
  let wm: number;
  if (pref === 'M') wm = grids[0]!;
  else if (pref === 'N') wm = grids[grids.length - 1]!;
  else {
    // double the warps along the dim with more tiles per warp (M on ties: an A fragment is 4
    // registers, a B fragment 2)
    let [wM, repM, repN] = [1, M / 16, N / 8];
    for (let w = 1; w < numWarps; w *= 2) {
      if (repM >= repN) {
        wM *= 2;
        repM = Math.max(1, repM / 2);
      } else repN /= 2;
    }
    wm = grids.includes(wM) ? wM : fewestLdmatrix(M, N, numWarps, grids);
  }
  return { kind: 'blocked', sizePerThread: [1, 2], threadsPerWarp: [8, 4], warpsPerCTA: [wm, numWarps / wm], order: [1, 0] };
}

/** Among the tiling grids (their WM), the one with the fewest ldmatrix.x4 per k-step. */
function fewestLdmatrix(M: number, N: number, numWarps: number, grids: readonly number[]): number {
  const cost = (wm: number): number => M / (16 * wm) + Math.ceil(N / (8 * (numWarps / wm)) / 2);
  return grids.reduce((b, wm) => (cost(wm) < cost(b) ? wm : b));
}

/** Whether `l` is an mma accumulator layout (any warp grid) that tiles [M, N] with `numWarps`. */
export function isMmaLayout(l: Layout, M: number, N: number, numWarps: number): l is BlockedLayout {
  if (l.kind !== 'blocked' || l.order.length !== 2 || l.laneRepeat) return false;
  const [WM, WN] = l.warpsPerCTA as [number, number];
  return l.sizePerThread[0] === 1 && l.sizePerThread[1] === 2 && l.threadsPerWarp[0] === 8 && l.threadsPerWarp[1] === 4
    && l.order[0] === 1 && WM * WN === numWarps && M % (16 * WM) === 0 && N % (8 * WN) === 0;
}

/**
 * The mma accumulator layout for a dot a[M,K] x b[K,N] -> [M,N] of these dtypes, or undefined
 * when the dot stays on FMA: no mma form for the dtypes (mma_kinds.ts: f64, f32 with
 * inputPrecision 'ieee', wide ints, ...), K not a multiple of the instruction's k (16 for
 * f16/bf16, 8 for tf32, 32 for i8/u8), or M, N that do not tile over the warps (the rule is: no
 * padding, fall back to FMA). `inputPrecision` defaults to 'ieee' (f32 stays exact).
 */
export function mmaLayoutForDot(M: number, N: number, K: number, ta: string, tb: string, tc: string, numWarps: number, inputPrecision = 'ieee', pref: 'M' | 'N' | 'balanced' = 'balanced'): BlockedLayout | undefined {
  const kind = mmaKindOf(ta, tb, tc, inputPrecision);
  if (!kind || K % kind.k !== 0) return undefined;
  return mmaLayout(M, N, numWarps, pref);
}

/**
 * The wgmma accumulator (sm_90a) as a blocked layout: spt [1,2], tpw [8,4], laneRepeat [2,1],
 * wpc [numWarps,1]. PTX ISA (wgmma D fragments): warp w of a warpgroup owns rows 16w..16w+15 of
 * each m64 block; lane 4g+t holds rows g and g+8, columns 8j+2t, 8j+2t+1 - the mma.sync m16n8 C
 * fragment repeated along N. Rows of one m64 instruction are consecutive rows of the A tile in
 * shared memory (a descriptor cannot permute them, unlike ldmatrix's per-lane rows), so the plain
 * mma layout (warp w on rows 8w+g+8W*i) does not describe it: laneRepeat 2 along M does. With 8
 * warps, warpgroup 1 takes rows 64..127 of every 128. Undefined when M does not tile (M a
 * multiple of 16*numWarps) or numWarps is not 4 or 8 (one or two warpgroups).
 */
export function wgmmaLayout(M: number, numWarps: number): BlockedLayout | undefined {
  if ((numWarps !== 4 && numWarps !== 8) || M % (16 * numWarps) !== 0) return undefined;
  return { kind: 'blocked', sizePerThread: [1, 2], threadsPerWarp: [8, 4], warpsPerCTA: [numWarps, 1], order: [1, 0], laneRepeat: [2, 1] };
}

/** Whether `l` is the wgmma accumulator layout for an [M, N] tile with `numWarps`. */
export function isWgmmaLayout(l: Layout, M: number, numWarps: number): l is BlockedLayout {
  const w = wgmmaLayout(M, numWarps);
  return !!w && layoutKey(l) === layoutKey(w);
}

/**
 * The wgmma accumulator layout for a dot a[M,K] x b[K,N] -> [M,N], or undefined when the dot
 * stays on mma.sync (or FMA): no wgmma form for the dtypes (wgmma_kinds.ts), K not a multiple
 * of the instruction's k, M not a multiple of 64 per warpgroup (wgmmaLayout), no instruction N
 * (wgmmaN), or operand rows narrower than the 32-byte swizzle (a's K, a 16-bit b's N).
 */
export function wgmmaLayoutForDot(M: number, N: number, K: number, ta: string, tb: string, tc: string, numWarps: number, inputPrecision = 'ieee'): BlockedLayout | undefined {
  const kind = wgmmaKindOf(ta, tb, tc, inputPrecision);
  if (!kind || K % kind.k !== 0 || !wgmmaN(N, kind)) return undefined;
  if ((K * kind.bytes) % 32 !== 0 || (kind.transposable && (N * kind.bytes) % 32 !== 0)) return undefined;
  return wgmmaLayout(M, numWarps);
}
