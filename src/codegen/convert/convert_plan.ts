// How a layout conversion goes through shared memory: which tile dim is contiguous in the scratch
// buffer, how far rows are padded, and how many elements each st.shared / ld.shared moves.
// Chosen at compile time by counting shared-memory wavefronts exactly as the hardware (and the
// sim's bank counter, native/sim/src/exec_mem.cpp) does: a warp access of B bytes per lane is
// served in phases of 128 bytes (B <= 4: the whole warp; 8: half-warps; 16: quarter-warps), each
// phase taking as many wavefronts as its busiest bank has distinct 4-byte words.
import {
  blockedOf, laneRep, layoutKey, parentDim, parentShape, regSlots, threadShifts, wraps, type BlockedLayout, type Layout,
} from '../../compiler/layout.js';
import { numel } from '../../ir/types.js';
import { searchSwizzle, type Swizzle } from './convert_swizzle.js';

export interface ConvertPlan {
  /** Element strides per tile dim in the scratch buffer (inner dim 1, the next one the pitch). */
  readonly strides: readonly number[];
  /** Tile dim contiguous in shared memory. */
  readonly inner: number;
  /** Elements per st.shared (write, source layout) and per ld.shared (read, target layout). */
  readonly writeVec: number;
  readonly readVec: number;
  /** Scratch bytes. */
  readonly bytes: number;
  /** XOR swizzle of the rows (2-D, unpadded; see convert_swizzle.ts), when padding could not avoid conflicts. */
  readonly swizzle?: Swizzle;
  /** Per CTA, over all warps: shared instructions, wavefronts, and extra wavefronts (conflicts). */
  readonly accesses: number;
  readonly wavefronts: number;
  readonly conflicts: number;
}

/** Slot indices of one vector access: `vec` elements consecutive along the inner dim. */
export type VecGroup = readonly number[];

/**
 * The slots of layout `l` grouped into vectors of `vec` elements consecutive along tile dim
 * `inner` (the first slot of a group is the lowest address); undefined when some thread's run
 * along `inner` is shorter than `vec`.
 */
export function vecGroups(l: Layout, shape: readonly number[], inner: number, vec: number): VecGroup[] | undefined {
  const key = `${layoutKey(l)}|${shape.join('x')}|${inner}|${vec}`;
  if (groupCache.has(key)) return groupCache.get(key);
  const g = computeGroups(l, shape, inner, vec);
  if (groupCache.size > 4096) groupCache.clear();
  groupCache.set(key, g);
  return g;
}
const groupCache = new Map<string, VecGroup[] | undefined>();
function computeGroups(l: Layout, shape: readonly number[], inner: number, vec: number): VecGroup[] | undefined {
  const slots = regSlots(l, shape);
  if (vec === 1) return slots.map((_, i) => [i]);
  const b = blockedOf(l)!;
  const pd = parentDim(l, inner);
  const run = Math.min(b.sizePerThread[pd]!, parentShape(l, shape)[pd]!);
  if (run % vec !== 0) return undefined;
  const index = new Map(slots.map((s, i) => [s.off.join(','), i]));
  const out: VecGroup[] = [];
  for (const s of slots) {
    if (s.off[pd]! % vec !== 0) continue;
    const g: number[] = [];
    for (let k = 0; k < vec; k++) {
      const off = [...s.off];
      off[pd]! += k;
      const j = index.get(off.join(','));
      if (j === undefined) return undefined;
      g.push(j);
    }
    out.push(g);
  }
  return out;
}

/** Widest vector (elements) a thread of `l` can move along `inner`: 16 bytes, pow2, one word minimum for b16 pairs. */
export function maxVec(l: Layout, shape: readonly number[], inner: number, size: number): number {
  if (size < 2) return 1; // predicates travel as single bytes
  const b = blockedOf(l)!;
  const pd = parentDim(l, inner);
  const run = Math.min(b.sizePerThread[pd]!, parentShape(l, shape)[pd]!);
  let v = 1;
  while (v * 2 <= run && v * 2 * size <= 16) v *= 2;
  return v;
}

/** Coordinates (parent rank) of thread (warp, lane)'s slot `off`, wrapped as the codegen wraps them. */
export function coordsOf(b: BlockedLayout, ps: readonly number[], sh: { lane: number[]; warp: number[] }, warp: number, lane: number, off: readonly number[]): number[] {
  return off.map((o, d) => {
    const t = (lane >> sh.lane[d]!) & (b.threadsPerWarp[d]! - 1);
    const w = (warp >> sh.warp[d]!) & (b.warpsPerCTA[d]! - 1);
    const c = (w * b.threadsPerWarp[d]! * laneRep(b, d) + t) * b.sizePerThread[d]! + o;
    return c & (ps[d]! - 1); // the wrap; a no-op when the layout does not wrap (c < ps[d])
  });
}

// Per-bank distinct words of one phase (reused: this runs thousands of times per plan).
const bankWords = new Float64Array(32 * 64);
const bankCount = new Int32Array(32);

/** Wavefronts of one warp access: `addrs` byte addresses per lane, `bytes` per lane. */
export function wavefronts(addrs: ArrayLike<number>, bytes: number): number {
  const perPhase = bytes <= 4 ? 32 : 128 / bytes;
  const words = Math.max(1, Math.ceil(bytes / 4));
  let total = 0;
  for (let p = 0; p < 32; p += perPhase) {
    bankCount.fill(0);
    let wave = 0;
    for (let l = p; l < p + perPhase; l++) {
      const w0 = Math.floor(addrs[l]! / 4);
      for (let k = 0; k < words; k++) {
        const w = w0 + k;
        const b = w & 31;
        const n = bankCount[b]!;
        let seen = false;
        for (let i = 0; i < n && !seen; i++) seen = bankWords[b * 64 + i] === w;
        if (seen) continue;
        bankWords[b * 64 + n] = w;
        bankCount[b] = n + 1;
        if (n + 1 > wave) wave = n + 1;
      }
    }
    total += wave;
  }
  return total;
}

interface SideCost { readonly vec: number; readonly accesses: number; readonly wavefronts: number; readonly phases: number }

/**
 * Where each lane's access lands, independent of the strides: parent-rank coordinates per lane.
 * Without wrapping, every access of every warp is the first access of warp 0 shifted by a
 * constant, and a shift by whole 4-byte words only renames banks: then only that access's lanes
 * and each access's shift (as a coordinate delta) are kept.
 */
interface Geometry { readonly accesses: number; readonly lanes: number[][][]; readonly deltas?: number[][] }
const geoCache = new Map<string, Geometry | undefined>();
function geometry(l: Layout, shape: readonly number[], inner: number, vec: number, numWarps: number, stridesMatter: (d: number) => boolean): Geometry | undefined {
  const key = `${layoutKey(l)}|${shape.join('x')}|${inner}|${vec}|${numWarps}`;
  if (geoCache.has(key)) return geoCache.get(key);
  const groups = vecGroups(l, shape, inner, vec);
  let geo: Geometry | undefined;
  if (groups) {
    const b = blockedOf(l)!;
    const ps = parentShape(l, shape);
    const sh = threadShifts(b);
    const slots = regSlots(l, shape);
    const lanesOf = (w: number, off: readonly number[]): number[][] => Array.from({ length: 32 }, (_, lane) => coordsOf(b, ps, sh, w, lane, off));
    const wrapped = ps.some((_, d) => stridesMatter(d) && wraps(b, ps, d));
    const offs = groups.map((g) => slots[g[0]!]!.off);
    if (wrapped) {
      const lanes: number[][][] = [];
      for (let w = 0; w < numWarps; w++) for (const off of offs) lanes.push(lanesOf(w, off));
      geo = { accesses: lanes.length, lanes };
    } else {
      const first = lanesOf(0, offs[0]!);
      const deltas: number[][] = [];
      for (let w = 0; w < numWarps; w++) {
        for (const off of offs) deltas.push(coordsOf(b, ps, sh, w, 0, off).map((c, d) => c - first[0]![d]!));
      }
      geo = { accesses: deltas.length, lanes: [first], deltas };
    }
  }
  if (geoCache.size > 1024) geoCache.clear();
  geoCache.set(key, geo);
  return geo;
}

/** Cost of moving tile `shape` in layout `l` with `vec`-element accesses, summed over all warps. */
function sideCost(l: Layout, shape: readonly number[], strides: readonly number[], size: number, inner: number, vec: number, numWarps: number): SideCost | undefined {
  // strides in the parent rank (a slice's removed dim has none)
  const pstr = parentShape(l, shape).map(() => 0);
  strides.forEach((s, d) => (pstr[parentDim(l, d)] = s));
  const geo = geometry(l, shape, inner, vec, numWarps, (d) => d !== (l.kind === 'slice' ? l.dim : -1));
  if (!geo) return undefined;
  const bytes = vec * size;
  const phases = geo.accesses * (bytes <= 4 ? 1 : bytes / 4);
  const addr = (c: readonly number[]): number => {
    let a = 0;
    for (let d = 0; d < c.length; d++) a += c[d]! * pstr[d]!;
    return a * size;
  };
  let waves = 0;
  if (geo.deltas) {
    const lanes0 = geo.lanes[0]!.map(addr);
    if (size % 4 === 0) return { vec, accesses: geo.accesses, wavefronts: geo.accesses * wavefronts(lanes0, bytes), phases };
    const memo = new Map<number, number>();
    for (const dl of geo.deltas) {
      const cls = ((addr(dl) % 4) + 4) % 4;
      let n = memo.get(cls);
      if (n === undefined) memo.set(cls, (n = wavefronts(lanes0.map((a) => a + cls), bytes)));
      waves += n;
    }
  } else for (const acc of geo.lanes) waves += wavefronts(acc.map(addr), bytes);
  return { vec, accesses: geo.accesses, wavefronts: waves, phases };
}

/** Best access width for one side: fewest wavefronts, then fewest instructions. */
function bestSide(l: Layout, shape: readonly number[], strides: readonly number[], size: number, inner: number, limit: number, numWarps: number): SideCost {
  let best: SideCost | undefined;
  for (let v = maxVec(l, shape, inner, size); v >= 1; v /= 2) {
    if (v > limit) continue;
    const c = sideCost(l, shape, strides, size, inner, v, numWarps);
    if (c && (!best || c.wavefronts < best.wavefronts || (c.wavefronts === best.wavefronts && c.accesses < best.accesses))) best = c;
  }
  return best!;
}

/** Strides with tile dim `inner` contiguous, the next dim (highest other index) `pitch` apart. */
function stridesFor(shape: readonly number[], inner: number, pitch: number): number[] {
  const st = shape.map(() => 0);
  st[inner] = 1;
  let s = pitch;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (d === inner) continue;
    st[d] = s;
    s *= shape[d]!;
  }
  return st;
}

const cache = new Map<string, ConvertPlan>();

/**
 * The conversion plan from `from` to `to` for a tile of `shape` with `size`-byte elements: for
 * each inner dim candidate (either layout's fastest dim) and each row padding of 0..31 words,
 * the widest aligned accesses with the fewest wavefronts on each side; the plan with the fewest
 * wavefronts overall wins (then fewer instructions, then less padding).
 */
export function planConversion(from: Layout, to: Layout, shape: readonly number[], size: number, numWarps: number, key: string): ConvertPlan {
  const hit = cache.get(key);
  if (hit) return hit;
  const rank = shape.length;
  const fastest = (l: Layout): number | undefined => {
    const b = blockedOf(l)!;
    const p = b.order[0]!;
    if (l.kind === 'slice') return p === l.dim ? undefined : p > l.dim ? p - 1 : p;
    return p;
  };
  const inners = [...new Set([fastest(to), fastest(from), rank - 1].filter((d): d is number => d !== undefined))];
  let best: (ConvertPlan & { pad: number }) | undefined;
  const better = (a: ConvertPlan & { pad: number }, b: ConvertPlan & { pad: number }): boolean =>
    a.wavefronts !== b.wavefronts ? a.wavefronts < b.wavefronts : a.accesses !== b.accesses ? a.accesses < b.accesses : a.pad < b.pad;
  for (const inner of inners) {
    const padStep = Math.max(1, 4 / size);
    const pads = rank === 1 ? [0] : Array.from({ length: 32 }, (_, i) => i * padStep);
    for (const pad of pads) {
      const pitch = shape[inner]! + pad;
      const strides = stridesFor(shape, inner, pitch);
      // vector accesses must stay aligned: every row starts on a multiple of the vector
      const align = rank === 1 ? 16 : pitch & -pitch;
      const limit = Math.max(1, align);
      const w = bestSide(from, shape, strides, size, inner, limit, numWarps);
      const r = bestSide(to, shape, strides, size, inner, limit, numWarps);
      const bytes = Math.ceil((shape.reduce((a, n, d) => a + (n - 1) * strides[d]!, 0) + 1) * size / 16) * 16;
      const plan = {
        strides, inner, writeVec: w.vec, readVec: r.vec, bytes, pad,
        accesses: w.accesses + r.accesses,
        wavefronts: w.wavefronts + r.wavefronts,
        conflicts: w.wavefronts - w.phases + r.wavefronts - r.phases,
      };
      if (!best || better(plan, best)) best = plan;
      // conflict-free at the widest accesses: more padding cannot do better along this dim
      if (plan.conflicts === 0 && w.vec === maxVec(from, shape, inner, size) && r.vec === maxVec(to, shape, inner, size)) break;
    }
  }
  // padding leaves conflicts (lanes of one side walk down a column): try an XOR swizzle
  for (const inner of rank === 2 && best!.conflicts > 0 ? inners : []) {
    const sw = searchSwizzle(from, to, shape, size, numWarps, inner);
    if (!sw || sw.wavefronts >= best!.wavefronts) continue;
    const strides = stridesFor(shape, inner, shape[inner]!);
    best = { ...sw, strides, inner, pad: 0, bytes: Math.ceil((numel(shape) * size) / 16) * 16 };
  }
  if (cache.size > 1024) cache.clear();
  const { pad: _pad, ...plan } = best!;
  cache.set(key, plan);
  return plan;
}
