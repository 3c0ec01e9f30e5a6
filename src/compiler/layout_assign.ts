// Layout assignment (Triton's coalesce + layout propagation, in one pass over our IR).
//  1. anchors: every global load/store/atomic gets a blocked layout whose fastest dim is the
//     pointer's most contiguous dim and whose sizePerThread is the widest vector (<= 128 bits)
//     that AxisInfo proves aligned, contiguous and uniformly masked;
//  2. backward: consumers tell producers which layout they would like (expand_dims wants a slice
//     of its result's layout, elementwise ops pass their wish on), so arange/const/splat are born
//     in the right layout and no conversion is needed;
//  3. forward: every value gets one layout (side table keyed by value id) and every op records the
//     layout it expects for each operand; a mismatch is a conversion the codegen performs (through
//     shared memory), so conversions appear only where layouts really differ. An elementwise op
//     none of whose operands has the layout wished for its result follows an operand born of a
//     dot (an mma accumulator or a reduction of one), so softmax-like math stays in the
//     accumulator's layout;
//  4. loops: where a loop yields a carried value in a dot-born layout other than the one it
//     carries, steps 2-3 run again with that layout wished for the carried value (its init is
//     then born in it), so the value crosses the back edge without a conversion;
//  5. sm_100a: a store of a value in a tcgen05 accumulator layout adopts that layout as its anchor
//     where memory allows (tcgen05_epilogue.ts): the epilogue stores without a conversion.
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { byteSize, numel, pointee, type PtrType } from '../ir/types.js';
import type { AxisInfoMap } from './axis_info.js';
import { dotInputPrecision } from './mma_kinds.js';
import { dotWarpPrefs, type WarpPref } from './mma_warps.js';
import { gatherByShuffle, sortFits, sortLayout } from './sort_layout.js';
import { descOperands } from '../ir/tensor_desc.js';
import { stmatrixLayout } from './stmatrix.js';
import { tcgen05Layout, tcgen05LayoutForDot } from './tcgen05_kinds.js';
import { storedValue, tcgen05StoreAnchor } from './tcgen05_epilogue.js';
import { tcgen05SectorDots } from './tcgen05_sector_dots.js';
import { blockedFor, dotLayout, layoutKey, mmaLayoutForDot, wgmmaLayoutForDot, permuteBlocked, rowMajor, SCALAR, type BlockedLayout, type Layout } from './layout.js';

export interface LayoutPlan {
  readonly numWarps: number;
  /** Layout of every value (side table keyed by value id). */
  readonly layouts: Map<number, Layout>;
  /** Layout each op needs for each operand (undefined: whatever the operand has). */
  readonly expected: Map<Op, (Layout | undefined)[]>;
  /** Elements per vector access for global loads/stores/atomics. */
  readonly vec: Map<Op, number>;
}

const isMem = (op: Op): boolean =>
  op.kind === 'load' || op.kind === 'store' || op.kind === 'atomic_rmw' || op.kind === 'atomic_cas' || op.kind === 'desc_load' || op.kind === 'desc_store';
/**
 * The value of a 16-bit descriptor store on sm_90a: it keeps the layout it arrives in when that is
 * an accumulator layout stmatrix writes as is (compiler/stmatrix.ts), so no wish is sent back.
 */
const stmatrixValue = (op: Op, sm90a: boolean): Value | undefined =>
  sm90a && op.kind === 'desc_store' && byteSize(pointee(op.operands[0]!.type.elem as PtrType)) === 2 ? descOperands(op as Op<'desc_store'>).value : undefined;
const ELEMENTWISE = new Set(['unary', 'binary', 'cmp', 'select', 'fma', 'cast', 'bitcast', 'addptr', 'hint', 'inline_asm']);

function* opsOf(b: Block): Generator<Op> {
  for (const op of b.ops) {
    yield op;
    for (const r of op.regions) yield* opsOf(r);
  }
}

/** Memory anchor: layout + vector width for a global access through `ptr`. */
function anchorFor(op: Op, info: AxisInfoMap, numWarps: number): { layout: Layout; vec: number } {
  const ptr = op.operands[0]!;
  if (op.kind === 'desc_load' || op.kind === 'desc_store') {
    // a TMA tile in shared memory: threads read 16-byte runs of its contiguous last dim
    const block = (op as Op<'desc_load'>).attrs.block;
    const bytes = byteSize(pointee(ptr.type.elem as PtrType));
    let vec = Math.min(16 / bytes, block[block.length - 1]!, Math.max(1, numel(block) / (32 * numWarps)));
    vec = 2 ** Math.floor(Math.log2(Math.max(1, vec)));
    return { layout: blockedFor(block, numWarps, rowMajor(block.length), vec), vec };
  }
  const shape = ptr.type.shape;
  if (shape.length === 0) return { layout: SCALAR, vec: 1 };
  const pi = info.get(ptr);
  const rank = shape.length;
  const order = rowMajor(rank).sort((x, y) => pi.contiguity[y]! - pi.contiguity[x]!);
  const d0 = order[0]!;
  const elem = pointee(ptr.type.elem as PtrType);
  const bytes = byteSize(elem);
  let vec = 1;
  if (op.kind === 'load' || op.kind === 'store') {
    vec = Math.min(pi.contiguity[d0]!, Math.max(1, Math.floor(pi.divisibility[d0]! / bytes)), 16 / bytes, shape[d0]!);
    const maskIdx = op.kind === 'load' ? ((op as Op<'load'>).attrs.hasMask ? 1 : -1) : (op as Op<'store'>).attrs.hasMask ? 2 : -1;
    if (maskIdx > 0) vec = Math.min(vec, info.get(op.operands[maskIdx]!).constancy[d0]!);
    vec = Math.min(vec, Math.max(1, numel(shape) / (32 * numWarps)));
    vec = 2 ** Math.floor(Math.log2(Math.max(1, vec)));
    if (bytes === 1 && vec < 4) vec = 1; // bytes move in whole b32 words (4 per word) or singly
  }
  return { layout: blockedFor(shape, numWarps, order, vec), vec };
}

/**
 * The tensor-core accumulator layout a dot gets, or undefined for FMA: with `wgmma` (target
 * sm_90a) the wgmma layout where the dot fits wgmma, else the mma.sync layout, whose warp grid
 * `pref` orients (mma_warps.ts).
 */
export function mmaLayoutOf(op: Op, numWarps: number, pref: WarpPref = 'balanced', wgmma = false, tcgen05 = false): BlockedLayout | undefined {
  const [a, b] = op.operands as [Value, Value];
  const [M, K] = a.type.shape as [number, number];
  const args = [M, b.type.shape[1]!, K, a.type.elem, b.type.elem, op.results[0]!.type.elem, numWarps, dotInputPrecision(op)] as const;
  return (wgmma ? wgmmaLayoutForDot(...args) : undefined) ?? (tcgen05 ? tcgen05LayoutForDot(...args) : undefined) ?? mmaLayoutForDot(...args, pref);
}

/**
 * `dot`: the dot lowering by name ('fma' keeps every dot off tensor cores). `fixed`: memory ops
 * whose anchor is decided elsewhere (the pipeliner's cp.async layouts, compiler/pipeline.ts).
 * `wgmma`: dots that fit wgmma (sm_90a) get its accumulator layout; `tcgen05`: dots that fit
 * tcgen05 (sm_100a) get the layout their accumulator is read back from tensor memory in.
 */
export function assignLayouts(f: Func, info: AxisInfoMap, numWarps: number, dot = 'mma', fixed?: ReadonlyMap<Op, { layout: Layout; vec: number }>, wgmma = false, tcgen05 = false): LayoutPlan {
  const prefs = dotWarpPrefs(f);
  // kept dot_scaled ops exist only where a block-scaled tcgen05 kind computes them (compiler/tcgen05_scaled.ts)
  const scaledLayout = (op: Op): BlockedLayout => {
    const l = tcgen05 ? tcgen05Layout(op.operands[0]!.type.shape[0]!, op.results[0]!.type.shape[1]!, numWarps) : undefined;
    if (!l) throw new Error(`internal: a dot_scaled kept without a tcgen05 accumulator layout (${f.name})`);
    return l;
  };
  const rowMmaOf = (op: Op): BlockedLayout | undefined => (dot === 'fma' ? undefined : mmaLayoutOf(op, numWarps, prefs.get(op), wgmma, tcgen05));
  const vec = new Map<Op, number>();
  const anchors = new Map<Op, Layout>();
  const preferred = new Map<string, BlockedLayout>();
  for (const op of opsOf(f.body)) {
    if (!isMem(op)) continue;
    const a = fixed?.get(op) ?? anchorFor(op, info, numWarps);
    anchors.set(op, a.layout);
    vec.set(op, a.vec);
    const key = (op.kind === 'desc_load' || op.kind === 'desc_store' ? (op as Op<'desc_load'>).attrs.block : op.operands[0]!.type.shape).join('x');
    if (a.layout.kind === 'blocked' && !preferred.has(key) && !fixed?.has(op)) preferred.set(key, a.layout);
  }
  // sm_100a: tcgen05 dots whose result is only stored by 16-byte pointer stores are read back in
  // the sector layout (tcgen05_sector_dots.ts): those stores then write whole 32-byte sectors
  const sectorDots = tcgen05 && dot !== 'fma' ? tcgen05SectorDots(f, anchors, vec, numWarps, rowMmaOf) : new Map<Op, BlockedLayout>();
  const mmaOf = (op: Op): BlockedLayout | undefined => sectorDots.get(op) ?? rowMmaOf(op);
  const pref = (shape: readonly number[]): Layout => {
    if (shape.length === 0) return SCALAR;
    const key = shape.join('x');
    let l = preferred.get(key);
    if (!l) {
      l = blockedFor(shape, numWarps, rowMajor(shape.length), 1);
      preferred.set(key, l);
    }
    return l;
  };

  // keyed by the loop's result id: the layout step 4 wants the carried value in
  const carriedWish = new Map<number, Layout>();
  let changed = true;
  let layouts = new Map<number, Layout>();
  let expected = new Map<Op, (Layout | undefined)[]>();
  for (let round = 0; changed && round < 4; round++) {
    changed = false;
    layouts = new Map();
    expected = new Map();
    const dotBorn = new Set<string>(); // layout keys of mma accumulators and their reductions
    // 2. backward wishes
    const wish = new Map<number, Layout>();
    const want = (v: Value | undefined, l: Layout | undefined): void => {
      if (!v || !l || v.type.shape.length === 0 || wish.has(v.id)) return;
      wish.set(v.id, l);
    };
    const backward = (b: Block): void => {
      for (let i = b.ops.length - 1; i >= 0; i--) {
        const op = b.ops[i]!;
        op.regions.forEach(backward);
        const anchor = anchors.get(op);
        if (anchor) {
          const sv = stmatrixValue(op, wgmma);
          op.operands.forEach((v) => v !== sv && want(v, anchor));
          continue;
        }
        const w = op.results[0] ? wish.get(op.results[0].id) : undefined;
        if (ELEMENTWISE.has(op.kind) || op.kind === 'broadcast') {
          if (w && w.kind === 'blocked') op.operands.forEach((v) => want(v, w));
          else if (w) op.operands.forEach((v) => v.type.shape.length === op.results[0]!.type.shape.length && want(v, w));
        } else if (op.kind === 'expand_dims') {
          if (w && w.kind === 'blocked') want(op.operands[0], { kind: 'slice', parent: w, dim: (op as Op<'expand_dims'>).attrs.axis });
        } else if (op.kind === 'dot') {
          const [M, N] = op.results[0]!.type.shape as [number, number];
          const mma = mmaOf(op); // tensor cores dictate the accumulator's layout
          const l = mma ?? (w && w.kind === 'blocked' ? w : dotLayout(M, N, numWarps));
          want(op.operands[2], l);
          if (!w) wish.set(op.results[0]!.id, l);
        } else if (op.kind === 'dot_scaled') {
          // a dot_scaled left to the codegen (block-scaled tcgen05): the accumulator's layout
          const l = scaledLayout(op);
          want(op.operands.at(-1), l);
          if (!w) wish.set(op.results[0]!.id, l);
        } else if (op.kind === 'for') {
          const body = op.regions[0]!;
          op.results.forEach((r, k) => {
            // a layout the loop yields (step 4) first, then: inside the loop matters more
            want(op.operands[3 + k], carriedWish.get(r.id) ?? wish.get(body.args[1 + k]!.id) ?? wish.get(r.id));
          });
        } else if (op.kind === 'while') {
          // the carried values keep their inits' layouts (the body's wish first, then the condition's)
          const [before, body] = op.regions as [Block, Block];
          op.results.forEach((r, k) => want(op.operands[k], wish.get(body.args[k]!.id) ?? wish.get(before.args[k]!.id) ?? wish.get(r.id)));
        }
      }
    };
    backward(f.body);

    // 3. forward assignment
    const lay = (v: Value): Layout => layouts.get(v.id) ?? pref(v.type.shape);
    const set = (v: Value, l: Layout): void => void layouts.set(v.id, v.type.shape.length === 0 ? SCALAR : l);
    const wishOr = (v: Value): Layout => {
      const w = wish.get(v.id);
      return w ?? pref(v.type.shape);
    };
    const blockedWishOr = (v: Value): Layout => {
      const w = wish.get(v.id);
      return w && w.kind === 'blocked' ? w : pref(v.type.shape);
    };
    const forward = (b: Block): void => {
      for (const op of b.ops) {
        const ops = op.operands;
        const r0 = op.results[0];
        const anchor = anchors.get(op);
        if (anchor) {
          const sv = stmatrixValue(op, wgmma);
          const keep = sv && stmatrixLayout(lay(sv), sv.type.shape) ? sv : undefined;
          expected.set(op, ops.map((v) => (v === keep ? lay(v) : v.type.shape.length ? anchor : undefined)));
          op.results.forEach((r) => set(r, anchor));
          continue;
        }
        switch (op.kind) {
          case 'const':
          case 'arange':
          case 'splat':
          case 'program_id':
          case 'num_programs':
          case 'cluster_cta_rank':
            set(r0!, wishOr(r0!));
            break;
          case 'expand_dims': {
            const axis = (op as Op<'expand_dims'>).attrs.axis;
            const l = lay(ops[0]!);
            if (l.kind === 'slice' && l.dim === axis) set(r0!, l.parent);
            else {
              const out = blockedWishOr(r0!) as BlockedLayout;
              set(r0!, out);
              expected.set(op, [ops[0]!.type.shape.length ? { kind: 'slice', parent: out, dim: axis } : undefined]);
            }
            break;
          }
          case 'broadcast': {
            const l = lay(ops[0]!);
            if (l.kind === 'blocked') set(r0!, l);
            else {
              const out = blockedWishOr(r0!);
              set(r0!, out);
              expected.set(op, [out]);
            }
            break;
          }
          case 'reduce':
          case 'scan': {
            const l0 = lay(ops[0]!);
            const inL = l0.kind === 'blocked' ? l0 : (pref(ops[0]!.type.shape) as BlockedLayout);
            expected.set(op, ops.map(() => inL));
            const axis = (op as Op<'reduce'>).attrs.axis;
            for (const r of op.results) set(r, op.kind === 'scan' ? inL : { kind: 'slice', parent: inL, dim: axis });
            if (dotBorn.has(layoutKey(inL))) op.results.forEach((r) => dotBorn.add(layoutKey(lay(r))));
            for (const region of op.regions) {
              region.args.forEach((a) => set(a, SCALAR));
              forward(region);
            }
            break;
          }
          case 'histogram': {
            // the mask in the values' layout (element for element); the bins in the default layout
            const l0 = lay(ops[0]!);
            const inL = l0.kind === 'blocked' ? l0 : pref(ops[0]!.type.shape);
            expected.set(op, ops.map(() => inL));
            set(r0!, wishOr(r0!));
            break;
          }
          case 'gather': {
            // same shapes and a dim that fits a warp: warp shuffles in one layout; else shared memory
            const axis = (op as Op<'gather'>).attrs.axis;
            const shape = ops[0]!.type.shape;
            const l0 = lay(ops[0]!);
            if (gatherByShuffle(shape, ops[1]!.type.shape, axis)) {
              const l = sortFits(l0, axis, shape[axis]!) && shape[axis]! / Math.min(l0.threadsPerWarp[axis]!, shape[axis]! / l0.sizePerThread[axis]!) <= 8 ? l0 : sortLayout(shape, axis, numWarps);
              expected.set(op, [l, l]);
              set(r0!, l);
            } else {
              const li = lay(ops[1]!);
              const out = li.kind === 'blocked' ? li : blockedWishOr(r0!);
              expected.set(op, [undefined, out]);
              set(r0!, out);
            }
            break;
          }
          case 'sort': {
            // the sorted dim within a warp: keep the input's layout when it has that, else convert
            const { axis, k } = (op as Op<'sort'>).attrs;
            const shape = ops[0]!.type.shape;
            const l0 = lay(ops[0]!);
            const inL = sortFits(l0, axis, shape[axis]!) ? l0 : sortLayout(shape, axis, numWarps);
            expected.set(op, [inL]);
            const out = k === shape[axis] ? inL : sortLayout(r0!.type.shape, axis, numWarps);
            op.results.forEach((r) => set(r, out));
            break;
          }
          case 'dot': {
            const acc = lay(ops[2]!);
            const mma = mmaOf(op);
            const out = mma ?? (acc.kind === 'blocked' ? acc : blockedWishOr(r0!));
            if (mma) dotBorn.add(layoutKey(mma));
            set(r0!, out);
            expected.set(op, [undefined, undefined, out]);
            break;
          }
          case 'dot_scaled': {
            const out = scaledLayout(op);
            dotBorn.add(layoutKey(out));
            // its region (cut to a yield of the accumulator arg: inline_dot_scaled.ts) is never lowered
            op.regions[0]!.args.forEach((a, i) => set(a, lay(ops[i]!)));
            set(r0!, out);
            expected.set(op, ops.map((_, i) => (i === ops.length - 1 ? out : undefined)));
            break;
          }
          case 'for': {
            const body = op.regions[0]!;
            // a carried value the body yields in a dot-born layout (step 4) crosses the back edge in
            // it even when its init cannot be born in it (a load): the init is converted once, before the loop
            const carried = ops.slice(3).map((v, k) => carriedWish.get(op.results[k]!.id) ?? lay(v));
            set(body.args[0]!, SCALAR);
            body.args.slice(1).forEach((a, k) => set(a, carried[k]!));
            op.results.forEach((r, k) => set(r, carried[k]!));
            forward(body);
            const y = body.ops[body.ops.length - 1]!;
            expected.set(y, carried);
            y.operands.forEach((v, k) => {
              const l = lay(v);
              if (v.type.shape.length && layoutKey(l) !== layoutKey(carried[k]!) && dotBorn.has(layoutKey(l)) && !carriedWish.has(op.results[k]!.id)) {
                carriedWish.set(op.results[k]!.id, l);
                changed = true;
              }
            });
            break;
          }
          case 'while': {
            // the carried values cross the back edge in their inits' layouts; the body's yield is
            // converted to them (no dot-born wish as `for` has: kept simple, it is always correct)
            const carried = ops.map(lay);
            for (const region of op.regions) {
              region.args.forEach((a, k) => set(a, carried[k]!));
              forward(region);
            }
            op.results.forEach((r, k) => set(r, carried[k]!));
            const yb = op.regions[0]!.ops[op.regions[0]!.ops.length - 1]!;
            expected.set(yb, [SCALAR]);
            const y = op.regions[1]!.ops[op.regions[1]!.ops.length - 1]!;
            expected.set(y, carried);
            break;
          }
          case 'if': {
            op.regions.forEach(forward);
            const yThen = op.regions[0]!.ops[op.regions[0]!.ops.length - 1]!;
            const outs = yThen.operands.map(lay);
            op.results.forEach((r, k) => set(r, outs[k]!));
            for (const region of op.regions) expected.set(region.ops[region.ops.length - 1]!, outs);
            break;
          }
          case 'trans': {
            // a transpose is a relabeling of dims: free in registers with the permuted layout
            const l = lay(ops[0]!);
            set(r0!, l.kind === 'blocked' ? permuteBlocked(l, (op as Op<'trans'>).attrs.perm) : blockedWishOr(r0!));
            break;
          }
          case 'reshape':
          case 'join':
          case 'split':
            op.results.forEach((r) => set(r, blockedWishOr(r)));
            break;
          default: {
            if (ELEMENTWISE.has(op.kind) && r0) {
              const tiles = ops.filter((v) => v.type.shape.length > 0);
              const w = wish.get(r0.id);
              const match = tiles.find((v) => w && layoutKey(lay(v)) === layoutKey(w)) ?? tiles.find((v) => dotBorn.has(layoutKey(lay(v))));
              const out = match ? lay(match) : tiles[0] ? lay(tiles[0]) : wishOr(r0);
              op.results.forEach((r) => set(r, out)); // inline_asm has several
              expected.set(op, ops.map((v) => (v.type.shape.length ? out : undefined)));
            } else {
              op.results.forEach((r) => set(r, wishOr(r)));
            }
          }
        }
      }
    };
    f.body.args.forEach((a) => set(a, SCALAR));
    forward(f.body);
    // 5. sm_100a: a store of a tcgen05 accumulator takes its layout (tcgen05_epilogue.ts), so the
    // next round gives the pointers and mask that layout and the value needs no conversion
    if (tcgen05 && round < 3) {
      for (const op of opsOf(f.body)) {
        const v = storedValue(op);
        const a = v && !fixed?.has(op) ? tcgen05StoreAnchor(op, lay(v), anchors.get(op)!, vec.get(op) ?? 1, numWarps) : undefined;
        if (!a || a.kind !== 'blocked') continue;
        anchors.set(op, a);
        vec.set(op, Math.min(vec.get(op) ?? 1, a.sizePerThread[1]!));
        changed = true;
      }
    }
  }
  return { numWarps, layouts, expected, vec };
}
