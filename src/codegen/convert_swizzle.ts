// XOR-swizzled scratch for 2-D conversions that row padding cannot make conflict-free (e.g. a
// transpose: one side's lanes walk down a column). Rows are unpadded (pitch P = the row length);
// the row is cut into chunks of G elements and chunk j of row r is stored at chunk j ^ f(r),
// where f is linear over GF(2) in the bits of r: f(r) = XOR of masks[i] for each set bit i.
// Each side's vectors stay inside one chunk (vec <= G), so they stay contiguous and aligned.
// A blocked layout without wrapping builds its coordinates from disjoint bit fields (register,
// lane, warp, repeat), so every access of a side is the first access of warp 0 with constant
// bits XORed into its address: a bank permutation when those bits are whole words. One access
// per side and per sub-word column offset is therefore enough to count wavefronts.
import { regSlots, threadShifts, wraps, type BlockedLayout, type Layout } from '../compiler/layout.js';
import { coordsOf, maxVec, vecGroups, wavefronts } from './convert_plan.js';

export interface Swizzle {
  /** Elements per chunk. */
  readonly granule: number;
  /** Chunk-index XOR mask per bit of the row coordinate. */
  readonly masks: readonly number[];
}

/** f(r): the chunk XOR of row `r`. */
export function rowXor(s: Swizzle, r: number): number {
  let x = 0;
  s.masks.forEach((m, i) => {
    if ((r >> i) & 1) x ^= m;
  });
  return x;
}
/** Element offset of (row r, column c) in a swizzled buffer with rows of `pitch` elements. */
export function swizzled(s: Swizzle, pitch: number, r: number, c: number): number {
  const g = s.granule;
  return r * pitch + (Math.floor(c / g) ^ rowXor(s, r)) * g + (c % g);
}

const addrs = new Float64Array(32);

export interface SwizzlePlan {
  readonly swizzle: Swizzle;
  readonly writeVec: number;
  readonly readVec: number;
  readonly accesses: number;
  readonly wavefronts: number;
  readonly conflicts: number;
}

/**
 * Accesses to count for one side, as [access][lane] = [row, col] with a multiplicity: one per
 * class of the column's offset within a 4-byte word (a shift by whole words permutes banks).
 */
function sideLanes(b: BlockedLayout, shape: readonly number[], inner: number, vec: number, numWarps: number, size: number): { lanes: number[][][]; times: number[]; accesses: number } | undefined {
  const groups = vecGroups(b, shape, inner, vec);
  if (!groups) return undefined;
  const slots = regSlots(b, shape);
  const sh = threadShifts(b);
  const outer = 1 - inner;
  const per = Math.max(1, 4 / size);
  const classes = new Map<number, { lanes: number[][]; times: number }>();
  for (let w = 0; w < numWarps; w++) {
    for (const g of groups) {
      const off = slots[g[0]!]!.off;
      const key = coordsOf(b, shape, sh, w, 0, off)[inner]! % per;
      const c = classes.get(key);
      if (c) {
        c.times++;
        continue;
      }
      classes.set(key, {
        times: 1,
        lanes: Array.from({ length: 32 }, (_, lane) => {
          const x = coordsOf(b, shape, sh, w, lane, off);
          return [x[outer]!, x[inner]!];
        }),
      });
    }
  }
  const cs = [...classes.values()];
  return { lanes: cs.map((c) => c.lanes), times: cs.map((c) => c.times), accesses: numWarps * groups.length };
}

/**
 * Greedy search for a swizzle with the fewest wavefronts: for each granule, masks are chosen bit
 * by bit (a single chunk bit or none per row bit, a few sweeps) by the exact count.
 * Undefined when the conversion is not 2-D between wrap-free blocked layouts.
 */
export function searchSwizzle(from: Layout, to: Layout, shape: readonly number[], size: number, numWarps: number, inner: number): SwizzlePlan | undefined {
  if (shape.length !== 2 || from.kind !== 'blocked' || to.kind !== 'blocked' || size < 2) return undefined;
  if ([from, to].some((b) => wraps(b, shape, 0) || wraps(b, shape, 1))) return undefined;
  const pitch = shape[inner]!;
  const rowBits = Math.log2(shape[1 - inner]!);
  let best: SwizzlePlan | undefined;
  for (let g = Math.max(maxVec(from, shape, inner, size), maxVec(to, shape, inner, size)); g >= 1; g /= 2) {
    const wv = Math.min(maxVec(from, shape, inner, size), g), rv = Math.min(maxVec(to, shape, inner, size), g);
    const ws = sideLanes(from, shape, inner, wv, numWarps, size), rs = sideLanes(to, shape, inner, rv, numWarps, size);
    if (!ws || !rs) continue;
    const chunks = pitch / g;
    // XOR bits above one 128-byte line do not change banks
    const useful = Math.min(chunks, Math.max(1, 128 / (g * size)));
    const cost = (masks: number[]): number => {
      const s = { granule: g, masks };
      const side = (x: { lanes: number[][][]; times: number[] }, vec: number): number => {
        let n = 0;
        x.lanes.forEach((acc, k) => {
          for (let l = 0; l < 32; l++) addrs[l] = swizzled(s, pitch, acc[l]![0]!, acc[l]![1]!) * size;
          n += x.times[k]! * wavefronts(addrs, vec * size);
        });
        return n;
      };
      return side(ws, wv) + side(rs, rv);
    };
    const masks = new Array<number>(rowBits).fill(0);
    let cur = cost(masks);
    const floor = ws.accesses * Math.max(1, (wv * size) / 4) + rs.accesses * Math.max(1, (rv * size) / 4);
    for (let sweep = 0; sweep < 3 && cur > floor; sweep++) {
      let improved = false;
      for (let i = 0; i < rowBits; i++) {
        for (let m = 0; m < useful; m = m ? m * 2 : 1) {
          if (m === masks[i]) continue;
          const keep = masks[i]!;
          masks[i] = m;
          const c = cost(masks);
          if (c < cur) {
            cur = c;
            improved = true;
          } else masks[i] = keep;
        }
      }
      if (!improved) break;
    }
    const plan = { swizzle: { granule: g, masks: [...masks] }, writeVec: wv, readVec: rv, accesses: ws.accesses + rs.accesses, wavefronts: cur, conflicts: cur - floor };
    if (!best || plan.wavefronts < best.wavefronts || (plan.wavefronts === best.wavefronts && plan.accesses < best.accesses)) best = plan;
  }
  return best;
}
