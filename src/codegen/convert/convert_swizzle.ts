// XOR-swizzled scratch for 2-D conversions that row padding cannot make conflict-free: a
// transpose (one side's lanes walk down a column) or lanes a whole number of 16-byte chunks
// apart inside one row (f64 pairs, i8 runs). Rows are unpadded, so element (r, c) has the
// linear offset o = r·P + c; the buffer is cut into chunks of G elements, J = o / G, and chunk J
// is stored at chunk J ^ F(J >> low), where F is linear over GF(2): the XOR of masks[i] for each
// set bit i of J >> low, every mask below 2^low. The sources (J's bits from `low` up: the row
// bits and, in rows longer than 128 bytes, the chunk bits beyond one line) lie above the targets,
// so the map is a bijection, and a vector (vec <= G elements) stays inside its chunk.
// A blocked layout without wrapping builds its coordinates from disjoint bit fields (register,
// lane, warp, repeat), so J = J(thread) | J(slot) and every access of a side is the first access
// of warp 0 with a constant XORed into its chunk index: a bank permutation when the constant is
// whole words. One access per side and per sub-word column offset is enough to count wavefronts.
import { regSlots, threadShifts, wraps, type BlockedLayout, type Layout } from '../../compiler/layout.js';
import { coordsOf, maxVec, vecGroups, wavefronts } from './convert_plan.js';

export interface Swizzle {
  /** Elements per chunk. */
  readonly granule: number;
  /** Chunk-index bits below `low` are XOR targets, bits from `low` up are sources. */
  readonly low: number;
  /** XOR mask (< 2^low) per source bit: masks[i] for bit low + i of the chunk index. */
  readonly masks: readonly number[];
}

/** F(J >> low): the XOR applied to chunk J. */
export function chunkXor(s: Swizzle, j: number): number {
  let x = 0;
  const hi = Math.floor(j / 2 ** s.low);
  s.masks.forEach((m, i) => {
    if (Math.floor(hi / 2 ** i) & 1) x ^= m;
  });
  return x;
}
/** Swizzled element offset of linear element offset `o`. */
export function swizzledOffset(s: Swizzle, o: number): number {
  const g = s.granule;
  const j = Math.floor(o / g);
  return (j ^ chunkXor(s, j)) * g + (o % g);
}
/** Element offset of (row r, column c) in a swizzled buffer with rows of `pitch` elements. */
export function swizzled(s: Swizzle, pitch: number, r: number, c: number): number {
  return swizzledOffset(s, r * pitch + c);
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
 * by bit (a single target bit or none per source bit, three sweeps) by the exact count.
 * Undefined when the conversion is not 2-D between wrap-free blocked layouts.
 */
export function searchSwizzle(from: Layout, to: Layout, shape: readonly number[], size: number, numWarps: number, inner: number): SwizzlePlan | undefined {
  if (shape.length !== 2 || from.kind !== 'blocked' || to.kind !== 'blocked' || size < 2) return undefined;
  if ([from, to].some((b) => wraps(b, shape, 0) || wraps(b, shape, 1))) return undefined;
  const pitch = shape[inner]!;
  const total = shape[0]! * shape[1]!;
  let best: SwizzlePlan | undefined;
  for (let g = Math.max(maxVec(from, shape, inner, size), maxVec(to, shape, inner, size)); g >= 1; g /= 2) {
    const wv = Math.min(maxVec(from, shape, inner, size), g), rv = Math.min(maxVec(to, shape, inner, size), g);
    const ws = sideLanes(from, shape, inner, wv, numWarps, size), rs = sideLanes(to, shape, inner, rv, numWarps, size);
    if (!ws || !rs) continue;
    // targets: the chunk bits inside one 128-byte line (and inside one row)
    const low = Math.log2(Math.max(1, Math.min(pitch / g, 128 / (g * size))));
    const sources = Math.log2(total / g) - low;
    if (low === 0 || sources <= 0) continue;
    const cost = (masks: number[]): number => {
      const s: Swizzle = { granule: g, low, masks };
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
    const masks = new Array<number>(sources).fill(0);
    let cur = cost(masks);
    const floor = ws.accesses * Math.max(1, (wv * size) / 4) + rs.accesses * Math.max(1, (rv * size) / 4);
    for (let sweep = 0; sweep < 3 && cur > floor; sweep++) {
      let improved = false;
      for (let i = 0; i < sources; i++) {
        for (let m = 0; m < 2 ** low; m = m ? m * 2 : 1) {
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
    // trailing zero masks carry nothing
    while (masks.length && !masks[masks.length - 1]) masks.pop();
    const plan = { swizzle: { granule: g, low, masks }, writeVec: wv, readVec: rv, accesses: ws.accesses + rs.accesses, wavefronts: cur, conflicts: cur - floor };
    if (!best || plan.wavefronts < best.wavefronts || (plan.wavefronts === best.wavefronts && plan.accesses < best.accesses)) best = plan;
  }
  return best;
}
