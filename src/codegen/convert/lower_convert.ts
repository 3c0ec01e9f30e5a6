// Layout conversion through shared memory: `planConversion` (convert_plan.ts) picks the
// contiguous dim, a row padding or an XOR swizzle (convert_swizzle.ts) and the access widths with
// the fewest shared-memory wavefronts; this file emits it: barrier, every thread writes its runs
// with the widest st.shared the plan allows, barrier, every thread reads its target runs.
import type { Value } from '../../ir/ops.js';
import { numel, type ElemType } from '../../ir/types.js';
import { blockedOf, ctaTile, laneRep, layoutKey, parentDim, parentShape, regSlots, wraps, type BlockedLayout, type Layout } from '../../compiler/layout.js';
import { addrStr, rowMajorStrides, type Lowering, type SmemAddr } from '../context.js';
import { planConversion, vecGroups, type ConvertPlan } from './convert_plan.js';
import { chunkXor } from './convert_swizzle.js';
import { loadTile, smemBytesOf, stType, storeTile } from '../lower_shared.js';
import { regBits, regKind } from '../ptx_types.js';

/** Shared-memory addresses of the slots `heads` of a tile in layout `l` stored with `strides`. */
function slotAddrs(cx: Lowering, l: Layout, shape: readonly number[], strides: readonly number[], size: number, heads: readonly number[]): SmemAddr[] {
  const b = blockedOf(l)!;
  const ps = parentShape(l, shape);
  const pstr = ps.map(() => 0);
  strides.forEach((s, d) => (pstr[parentDim(l, d)] = s));
  const slots = regSlots(l, shape);
  const base = cx.reg('b32');
  cx.emit(`mov.u32 ${base}, ${cx.smemBase()};`);
  const bases = cx.base(b);
  const wrapped = ps.map((_, d) => pstr[d] !== 0 && wraps(b, ps, d));
  // dims that do not wrap: thread base once, slot offsets as immediates
  ps.forEach((_, d) => {
    if (pstr[d] && !wrapped[d]) cx.emit(`mad.lo.u32 ${base}, ${bases[d]}, ${pstr[d]! * size}, ${base};`);
  });
  const fixed = (i: number): number => slots[i]!.off.reduce((a, o, d) => a + (wrapped[d] ? 0 : o * pstr[d]! * size), 0);
  if (!wrapped.some(Boolean)) return heads.map((i) => ({ reg: base, imm: fixed(i) }));
  return heads.map((i) => {
    const r = cx.reg('b32');
    cx.emit(`mov.u32 ${r}, ${base};`);
    ps.forEach((_, d) => {
      if (wrapped[d]) cx.emit(`mad.lo.u32 ${r}, ${cx.coordReg(l, shape, slots[i]!, d)}, ${pstr[d]! * size}, ${r};`);
    });
    return { reg: r, imm: fixed(i) };
  });
}

/** The ld/st.shared type suffix and register list of one vector group (16-bit pairs packed in b32 words). */
function vecForm(t: ElemType, n: number): { suffix: string; words: number; per: number } {
  const bits = regBits(regKind(t));
  if (bits === 16 && n >= 2) return { suffix: `${n > 2 ? `.v${n / 2}` : ''}.b32`, words: n / 2, per: 2 };
  return { suffix: `${n > 1 ? `.v${n}` : ''}.${stType(t)}`, words: n, per: 1 };
}
const regList = (rs: readonly string[]): string => (rs.length > 1 ? `{${rs.join(', ')}}` : rs[0]!);

/**
 * Addresses of the slots `heads` in a swizzled 2-D buffer (convert_swizzle.ts). The chunk index
 * is J = J(thread) | J(slot) (disjoint bit fields) and F is linear, so J ^ F(J >> low) =
 * X ^ k with X = J(thread) ^ F(J(thread) >> low), computed once, and k a constant per slot whose
 * bits from `low` up cannot meet X's: address = A0 + (X ^ (k mod 2^low))·G·size + immediate.
 */
function swizzledAddrs(cx: Lowering, l: Layout, shape: readonly number[], p: ConvertPlan, size: number, heads: readonly number[]): SmemAddr[] {
  const sw = p.swizzle!;
  const f = p.inner, o = 1 - p.inner;
  const pitch = p.strides[o]!;
  const g = sw.granule;
  const [br, bc] = [cx.base(blockedOf(l)!)[o]!, cx.base(blockedOf(l)!)[f]!];
  const jb = cx.reg('b32');
  cx.emit(`shr.u32 ${jb}, ${bc}, ${Math.log2(g)};`);
  cx.emit(`mad.lo.u32 ${jb}, ${br}, ${pitch / g}, ${jb};`);
  const x = cx.reg('b32');
  cx.emit(`mov.b32 ${x}, ${jb};`);
  // F(J(thread) >> low): runs of source bits whose masks are consecutive single bits are one bit field
  for (let i = 0; i < sw.masks.length;) {
    const m = sw.masks[i]!;
    if (!m) {
      i++;
      continue;
    }
    let n = 1;
    const single = (m & (m - 1)) === 0;
    while (single && sw.masks[i + n] === m << n) n++;
    const t = cx.reg('b32');
    cx.emit(`bfe.u32 ${t}, ${jb}, ${sw.low + i}, ${n};`);
    if (!single) cx.emit(`mul.lo.u32 ${t}, ${t}, ${m};`);
    else if (m > 1) cx.emit(`shl.b32 ${t}, ${t}, ${Math.log2(m)};`);
    cx.emit(`xor.b32 ${x}, ${x}, ${t};`);
    i += n;
  }
  const a0 = cx.reg('b32');
  cx.emit(`mov.u32 ${a0}, ${cx.smemBase()};`);
  if (g > 1) {
    const lo = cx.reg('b32');
    cx.emit(`and.b32 ${lo}, ${bc}, ${g - 1};`);
    cx.emit(`mad.lo.u32 ${a0}, ${lo}, ${size}, ${a0};`);
  }
  const slots = regSlots(l, shape);
  const lowMask = 2 ** sw.low - 1;
  const byK = new Map<number, string>();
  return heads.map((i) => {
    const off = slots[i]!.off;
    const j = off[o]! * (pitch / g) + Math.floor(off[f]! / g);
    const k = j ^ chunkXor(sw, j);
    const kLo = k & lowMask;
    let r = byK.get(kLo);
    if (!r) {
      const y = cx.reg('b32');
      if (kLo) cx.emit(`xor.b32 ${y}, ${x}, ${kLo};`);
      r = cx.reg('b32');
      cx.emit(`mad.lo.u32 ${r}, ${kLo ? y : x}, ${g * size}, ${a0};`);
      byK.set(kLo, r);
    }
    return { reg: r, imm: ((k - kLo) * g + (off[f]! % g)) * size };
  });
}

/** Shared-memory addresses of the first slot of each group, by the plan's addressing. */
function groupAddrs(cx: Lowering, l: Layout, shape: readonly number[], p: ConvertPlan, size: number, groups: readonly (readonly number[])[]): SmemAddr[] {
  const heads = groups.map((g) => g[0]!);
  return p.swizzle ? swizzledAddrs(cx, l, shape, p, size, heads) : slotAddrs(cx, l, shape, p.strides, size, heads);
}

/** One side of a conversion: its vector groups and their addresses (computed once). */
interface Side { readonly groups: readonly (readonly number[])[]; readonly addrs: SmemAddr[]; readonly vec: number }
function sideOf(cx: Lowering, t: ElemType, l: Layout, shape: readonly number[], p: ConvertPlan, vec: number): Side {
  const groups = vecGroups(l, shape, p.inner, vec) ?? cx.fail(`convert_layout: no ${vec}-wide runs along dim ${p.inner}`);
  return { groups, addrs: groupAddrs(cx, l, shape, p, smemBytesOf(t), groups), vec };
}
const shifted = (a: SmemAddr, by: number): SmemAddr => ({ reg: a.reg, imm: a.imm - by });

/** Writes the groups `which` of `regs` with one st.shared each, `shift` bytes lower. */
function storeVec(cx: Lowering, t: ElemType, regs: string[], s: Side, which: readonly number[], shift: number): void {
  const f = vecForm(t, s.vec);
  for (const k of which) {
    let src = s.groups[k]!.map((i) => regs[regs.length === 1 ? 0 : i]!);
    if (f.per === 2) {
      src = Array.from({ length: f.words }, (_, j) => {
        const w = cx.reg('b32');
        cx.emit(`mov.b32 ${w}, {${src[2 * j]}, ${src[2 * j + 1]}};`);
        return w;
      });
    }
    cx.emit(`st.shared${f.suffix} ${addrStr(shifted(s.addrs[k]!, shift))}, ${regList(src)};`);
  }
}
/** Reads the groups `which` into `out` with one ld.shared each, `shift` bytes lower. */
function loadVec(cx: Lowering, t: ElemType, out: string[], s: Side, which: readonly number[], shift: number): void {
  const f = vecForm(t, s.vec);
  for (const k of which) {
    const dst = s.groups[k]!.map((i) => out[i]!);
    const at = addrStr(shifted(s.addrs[k]!, shift));
    if (f.per === 2) {
      const words = Array.from({ length: f.words }, () => cx.reg('b32'));
      cx.emit(`ld.shared${f.suffix} ${regList(words)}, ${at};`);
      words.forEach((w, j) => cx.emit(`mov.b32 {${dst[2 * j]}, ${dst[2 * j + 1]}}, ${w};`));
    } else cx.emit(`ld.shared${f.suffix} ${regList(dst)}, ${at};`);
  }
}

/** Unpadded bytes above which a conversion is done in rounds (Triton bounds its scratch too). */
const ROUND_BYTES = 32 * 1024;

/**
 * Rounds along the outer dim of a padded 2-D plan: R rows at a time, R a multiple of both
 * layouts' CTA tiles along that dim, so whether a slot falls in a round does not depend on the
 * thread (base row < CTA tile <= R) and each round is the full plan's access pattern shifted by
 * whole rows (same conflicts). Halves R until the scratch fits ROUND_BYTES, and further while
 * that keeps the kernel's shared memory from growing: a conversion after a pipelined loop (the
 * matmul epilogue) fits in the bytes of the ring it shares, as Triton's does.
 */
function roundsOf(p: ConvertPlan, from: Layout, to: Layout, shape: readonly number[], size: number, room: number): number {
  if (p.swizzle || shape.length !== 2 || from.kind !== 'blocked' || to.kind !== 'blocked') return 1;
  const o = 1 - p.inner;
  const unit = Math.max(ctaTile(from)[o]!, ctaTile(to)[o]!);
  const split = (n: number): boolean => shape[o]! / (2 * n) >= unit;
  let n = 1;
  while ((numel(shape) * size) / n > ROUND_BYTES && split(n)) n *= 2;
  const bytes = (k: number): number => (k === 1 ? p.bytes : Math.ceil(((shape[o]! / k) * p.strides[o]! * size) / 16) * 16);
  let m = n;
  while (bytes(m) > room && split(m)) m *= 2;
  return bytes(m) <= room ? m : n;
}

/**
 * `b` on a tile of `shape` with bit `bit` of dim `d`'s coordinate squeezed out, when that bit is
 * a register bit (a lane repeat or CTA repeat bit, never a lane, warp or in-run bit): thread
 * (warp, lane)'s slot at c holds, in the result on half the tile, the slot at squeeze(c).
 */
function withoutBit(b: BlockedLayout, shape: readonly number[], d: number, bit: number): BlockedLayout | undefined {
  if (shape.some((_, k) => wraps(b, shape, k))) return undefined;
  const lanes = b.sizePerThread[d]! * b.threadsPerWarp[d]!;
  const lr = laneRep(b, d);
  if (2 ** bit >= ctaTile(b)[d]!) return b;
  if (2 ** bit < lanes || 2 ** bit >= lanes * lr) return undefined;
  const rep = b.laneRepeat!.map((r, k) => (k === d ? r / 2 : r));
  const { laneRepeat: _lr, ...rest } = b;
  return rep.every((r) => r === 1) ? rest : { ...rest, laneRepeat: rep };
}
const squeeze = (x: number, bit: number): number => (x & (2 ** bit - 1)) | ((x >> (bit + 1)) << bit);

/** Rounds by register bits: each round converts the slots whose squeezed coordinate bits equal its index. */
interface BitRounds { readonly steps: readonly (readonly [number, number])[]; readonly from: BlockedLayout; readonly to: BlockedLayout; readonly shape: readonly number[]; readonly plan: ConvertPlan }

const planOf = (cx: Lowering, from: Layout, to: Layout, shape: readonly number[], size: number): ConvertPlan =>
  planConversion(from, to, shape, size, cx.numWarps, `${layoutKey(from)}|${layoutKey(to)}|${shape.join('x')}|${size}|${cx.numWarps}`);

/**
 * When a plan does not fit the shared bytes the kernel has and its rows cannot be split in
 * ranges (the wgmma accumulator: warp w owns rows 16w.., its lane repeat is row bit 3), split
 * it by coordinate bits that are register bits in both layouts: 2^k rounds on a tile 2^k times
 * smaller, each no costlier in wavefronts and accesses per slot than the whole. Taken when the
 * tile's data then fits `room`; the rows stay padded (an unpadded swizzle would fit exactly but
 * costs ~20 address instructions per thread, more than the padding's few hundred bytes are worth).
 */
function bitRounds(cx: Lowering, from: Layout, to: Layout, shape: readonly number[], size: number, room: number, p: ConvertPlan): BitRounds | undefined {
  if (from.kind !== 'blocked' || to.kind !== 'blocked') return undefined;
  let cur: BitRounds = { steps: [], from, to, shape, plan: p };
  while (numel(cur.shape) * size > room) {
    let next: BitRounds | undefined;
    cur.shape.forEach((n, d) => {
      for (let bit = 0; 2 ** bit < n; bit++) {
        const f = withoutBit(cur.from, cur.shape, d, bit), t = withoutBit(cur.to, cur.shape, d, bit);
        if (!f || !t) continue;
        const shape2 = cur.shape.map((x, j) => (j === d ? x / 2 : x));
        const plan = planOf(cx, f, t, shape2, size);
        const rounds = 2 ** (cur.steps.length + 1);
        if (plan.wavefronts * rounds > p.wavefronts || plan.accesses * rounds > p.accesses) continue;
        const b = next?.plan;
        if (!b || plan.bytes < b.bytes || (plan.bytes === b.bytes && plan.wavefronts < b.wavefronts)) {
          next = { steps: [...cur.steps, [d, bit] as const], from: f, to: t, shape: shape2, plan };
        }
      }
    });
    if (!next) return undefined;
    cur = next;
  }
  return cur.steps.length ? cur : undefined;
}

/** Round and slot index in the squeezed layout of each slot of `l` (the full tile's). */
function roundSlots(l: Layout, shape: readonly number[], r: BitRounds, small: Layout): { q: number; i: number }[] {
  const index = new Map(regSlots(small, r.shape).map((s, i) => [s.off.join(','), i]));
  return regSlots(l, shape).map((s) => {
    const off = [...s.off];
    let q = 0;
    r.steps.forEach(([d, bit], k) => {
      q |= ((off[d]! >> bit) & 1) << k;
      off[d] = squeeze(off[d]!, bit);
    });
    return { q, i: index.get(off.join(','))! };
  });
}

/** The conversion in rounds by register bits: the squeezed layouts' plan once per round, on the same scratch. */
function convertByBits(cx: Lowering, t: ElemType, regs: string[], from: Layout, to: Layout, shape: readonly number[], r: BitRounds): string[] {
  const p = r.plan;
  const n = 2 ** r.steps.length;
  const how = p.swizzle ? `swizzle: ${p.swizzle.granule}-element chunk J at J ^ F(J >> ${p.swizzle.low}), F masks [${p.swizzle.masks}]` : `strides [${p.strides}]`;
  cx.emit(`// ${how}, ${p.writeVec}-element writes, ${p.readVec}-element reads, ${p.conflicts * n} bank conflicts (model), ${n} rounds by coordinate bits [${r.steps.map(([d, b]) => `${d}:${b}`)}] of [${r.shape}] tiles`);
  cx.needShared(p.bytes);
  const w = sideOf(cx, t, r.from, r.shape, p, p.writeVec);
  const rd = sideOf(cx, t, r.to, r.shape, p, p.readVec);
  const ins = roundSlots(from, shape, r, r.from), outs = roundSlots(to, shape, r, r.to);
  const out = new Array<string>(outs.length);
  for (let q = 0; q < n; q++) {
    const src = new Array<string>(regSlots(r.from, r.shape).length);
    ins.forEach((s, i) => { if (s.q === q) src[s.i] = regs[regs.length === 1 ? 0 : i]!; });
    const dst = cx.newRegs(t, regSlots(r.to, r.shape).length);
    cx.barrier();
    storeVec(cx, t, src, w, w.groups.map((_, k) => k), 0);
    cx.barrier();
    loadVec(cx, t, dst, rd, rd.groups.map((_, k) => k), 0);
    outs.forEach((s, i) => { if (s.q === q) out[i] = dst[s.i]!; });
  }
  return out;
}

/**
 * Layout conversion of `v` from `from` to `to` through shared memory. `planConversion` picks the
 * contiguous dim, the row padding or XOR swizzle, and the access widths with the fewest
 * wavefronts (convert_plan.ts); each thread writes its runs with the widest st.shared the plan
 * allows and reads its target runs the same way, in rounds of rows when the tile is large.
 */
export function convertLayout(cx: Lowering, v: Value, from: Layout, to: Layout): string[] {
  const shape = v.type.shape;
  const t = v.type.elem;
  const size = smemBytesOf(t);
  cx.emit(`// convert_layout %${v.id}`);
  const p = blockedOf(from) && blockedOf(to) && regKind(t) !== 'pred'
    ? planConversion(from, to, shape, size, cx.numWarps, `${layoutKey(from)}|${layoutKey(to)}|${shape.join('x')}|${size}|${cx.numWarps}`)
    : undefined;
  if (!p) {
    // scalar tiles and predicates (bytes): row-major, one element per access
    const st = rowMajorStrides(shape);
    cx.needShared(numel(shape) * size);
    cx.barrier();
    storeTile(cx, t, cx.regs(v), from, shape, st);
    cx.barrier();
    return loadTile(cx, t, to, shape, st);
  }
  const n = roundsOf(p, from, to, shape, size, cx.scratchRoom);
  const byBits = n === 1 && p.bytes > cx.scratchRoom ? bitRounds(cx, from, to, shape, size, cx.scratchRoom, p) : undefined;
  if (byBits) return convertByBits(cx, t, cx.regs(v), from, to, shape, byBits);
  const o = 1 - p.inner;
  const rows = shape[o]! / n;
  const how = p.swizzle ? `swizzle: ${p.swizzle.granule}-element chunk J at J ^ F(J >> ${p.swizzle.low}), F masks [${p.swizzle.masks}]` : `strides [${p.strides}]`;
  cx.emit(`// ${how}, ${p.writeVec}-element writes, ${p.readVec}-element reads, ${p.conflicts} bank conflicts (model)${n > 1 ? `, ${n} rounds of ${rows} rows` : ''}`);
  cx.needShared(n > 1 ? Math.ceil((rows * p.strides[o]! * size) / 16) * 16 : p.bytes);
  const w = sideOf(cx, t, from, shape, p, p.writeVec);
  const r = sideOf(cx, t, to, shape, p, p.readVec);
  const out = cx.newRegs(t, regSlots(to, shape).length);
  const round = (l: Layout, s: Side, q: number): number[] =>
    s.groups.map((g, k) => (n === 1 || Math.floor(regSlots(l, shape)[g[0]!]!.off[o]! / rows) === q ? k : -1)).filter((k) => k >= 0);
  for (let q = 0; q < n; q++) {
    const shift = n === 1 ? 0 : q * rows * p.strides[o]! * size;
    cx.barrier();
    storeVec(cx, t, cx.regs(v), w, round(from, w, q), shift);
    cx.barrier();
    loadVec(cx, t, out, r, round(to, r, q), shift);
  }
  return out;
}
