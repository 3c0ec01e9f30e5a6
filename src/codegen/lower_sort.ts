// sort / top-k as a bitonic network over the sorted dim, which lies inside one warp
// (compiler/sort_layout.ts): a position's low bits (below sizePerThread) and, where the warp's
// tile repeats along the dim, its high bits pick one of the thread's registers; the bits between
// are lane bits. Keys first become unsigned integers whose order is the wanted order
// (floats: IEEE totalOrder by flipping bits; descending: complemented), with the position packed
// below when indices are asked for, so every compare-exchange is one unsigned compare: between two
// registers of a thread, or with shfl.sync.bfly across lanes (each lane keeps its half). Top-k
// (k < n) sorts the whole dim, then reads the first k through shared memory in the output layout.
import type { Op } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { layoutKey, threadShifts, type BlockedLayout } from '../compiler/layout.js';
import { sortFits } from '../compiler/sort_layout.js';
import { rowMajorStrides, type Lowering } from './context.js';
import { regKind } from './ptx_types.js';
import { shuffleXor } from './lower_reduce.js';
import { loadTile, smemBytesOf, storeTile } from './lower_shared.js';

type Rule = (cx: Lowering, op: Op) => void;

/** One element in the network: 1 register (a u32 or u64 key, position packed in when 32-bit), or u64 key + u32 position. */
type Item = string[];

const is64 = (t: ElemType): boolean => regKind(t) === 'b64' || regKind(t) === 'f64';
const isFloatKey = (t: ElemType): boolean => t === 'f32' || t === 'f64' || t === 'f16' || t === 'bf16';
const isSigned = (t: ElemType): boolean => t === 'i8' || t === 'i16' || t === 'i32' || t === 'i64';

/** The unsigned sort key of `v` (dtype t): ascending key order = ascending element order. */
function toKey(cx: Lowering, t: ElemType, v: string, descending: boolean): string {
  const w = is64(t) ? 64 : 32;
  const b = `b${w}`;
  const k = cx.reg(w === 64 ? 'b64' : 'b32');
  if (t === 'f16' || t === 'bf16') {
    cx.emit(`cvt.u32.u16 ${k}, ${v};`);
    cx.emit(`shl.b32 ${k}, ${k}, 16;`);
  } else cx.emit(`mov.${b} ${k}, ${v};`);
  const top = w === 64 ? '0x8000000000000000' : '0x80000000';
  if (isFloatKey(t)) {
    // negative: all bits flipped; positive: the sign bit set (IEEE totalOrder as unsigned)
    const m = cx.reg(w === 64 ? 'b64' : 'b32');
    cx.emit(`shr.s${w} ${m}, ${k}, ${w - 1};`);
    cx.emit(`or.${b} ${m}, ${m}, ${top};`);
    cx.emit(`xor.${b} ${k}, ${k}, ${m};`);
  } else if (isSigned(t)) cx.emit(`xor.${b} ${k}, ${k}, ${top};`);
  if (descending) cx.emit(`not.${b} ${k}, ${k};`);
  return k;
}

/** The element of dtype t back from its key. */
function fromKey(cx: Lowering, t: ElemType, key: string, descending: boolean): string {
  const w = is64(t) ? 64 : 32;
  const b = `b${w}`;
  const k = cx.reg(w === 64 ? 'b64' : 'b32');
  cx.emit(descending ? `not.${b} ${k}, ${key};` : `mov.${b} ${k}, ${key};`);
  const top = w === 64 ? '0x8000000000000000' : '0x80000000';
  if (isFloatKey(t)) {
    const m = cx.reg(w === 64 ? 'b64' : 'b32');
    cx.emit(`shr.s${w} ${m}, ${k}, ${w - 1};`);
    cx.emit(`not.${b} ${m}, ${m};`);
    cx.emit(`or.${b} ${m}, ${m}, ${top};`);
    cx.emit(`xor.${b} ${k}, ${k}, ${m};`);
  } else if (isSigned(t)) cx.emit(`xor.${b} ${k}, ${k}, ${top};`);
  const out = cx.newRegs(t, 1)[0]!;
  if (t === 'f16' || t === 'bf16') {
    cx.emit(`shr.u32 ${k}, ${k}, 16;`);
    cx.emit(`cvt.u16.u32 ${out}, ${k};`);
  } else cx.emit(`mov.${b} ${out}, ${k};`);
  return out;
}

const sort: Rule = (cx, op) => {
  const { axis, descending, k, indices } = (op as Op<'sort'>).attrs;
  const x = op.operands[0]!;
  const t = x.type.elem;
  const shape = x.type.shape;
  const n = shape[axis]!;
  const want = cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(x);
  if (!sortFits(want, axis, n)) return cx.fail(`sort needs its dim within a warp, got ${layoutKey(want)}`);
  const inL: BlockedLayout = want;
  const vals = cx.operand(op, 0);
  const slots = cx.slots(x, inL);
  const spt = inL.sizePerThread[axis]!;
  const logS = Math.log2(spt);
  const m = Math.log2(n);
  const laneBit = (j: number): number => threadShifts(inL).lane[axis]! + j - logS;
  const regBit = (j: number): boolean => j < logS || 1 << j >= spt * inL.threadsPerWarp[axis]!;
  const wide = is64(t);
  const packed = indices && !wide; // position in the low word of a u64 whose high word is the key
  const kinds: ElemType[] = wide ? (indices ? ['i64', 'u32'] : ['i64']) : packed ? ['i64'] : ['u32']; // i64: a b64 register

  // items: keys (and positions), in slot order
  let items: Item[] = slots.map((s, i) => {
    const key = toKey(cx, t, vals[vals.length === 1 ? 0 : i]!, descending);
    if (!indices) return [key];
    const pos = cx.coordReg(inL, shape, s, axis);
    if (!packed) return [key, pos];
    const p = cx.reg('b64');
    cx.emit(`mov.b64 ${p}, {${pos}, ${key}};`);
    return [p];
  });

  const less = (a: Item, b: Item): string => {
    const p = cx.reg('pred');
    const w = kinds[0] === 'i64' ? 'u64' : 'u32';
    if (a.length === 1) {
      cx.emit(`setp.lt.${w} ${p}, ${a[0]}, ${b[0]};`);
      return p;
    }
    const eq = cx.reg('pred');
    const lo = cx.reg('pred');
    cx.emit(`setp.lt.u64 ${p}, ${a[0]}, ${b[0]};`);
    cx.emit(`setp.eq.u64 ${eq}, ${a[0]}, ${b[0]};`);
    cx.emit(`setp.lt.u32 ${lo}, ${a[1]}, ${b[1]};`);
    cx.emit(`and.pred ${eq}, ${eq}, ${lo};`);
    cx.emit(`or.pred ${p}, ${p}, ${eq};`);
    return p;
  };
  const select = (p: string, a: Item, b: Item): Item => a.map((r, j) => {
    const out = cx.newRegs(kinds[j]!, 1)[0]!;
    cx.emit(`selp.b${kinds[j] === 'i64' ? 64 : 32} ${out}, ${r}, ${b[j]}, ${p};`);
    return out;
  });
  const lanePreds = new Map<number, string>();
  const lanePred = (bit: number): string => {
    let p = lanePreds.get(bit);
    if (!p) {
      const r = cx.reg('b32');
      p = cx.reg('pred');
      cx.emit(`and.b32 ${r}, ${cx.thread().lane}, ${1 << bit};`);
      cx.emit(`setp.ne.u32 ${p}, ${r}, 0;`);
      lanePreds.set(bit, p);
    }
    return p;
  };
  const xorPred = (a: string, b: string): string => {
    const p = cx.reg('pred');
    cx.emit(`xor.pred ${p}, ${a}, ${b};`);
    return p;
  };
  const slotOf = new Map(slots.map((s, i) => [s.off.join(','), i]));
  const partner = (i: number, j: number): number => {
    const off = [...slots[i]!.off];
    off[axis] = off[axis]! ^ (1 << j);
    return slotOf.get(off.join(',')) ?? cx.fail(`sort: no register for [${off.join(', ')}]`);
  };

  const notPred = (a: string): string => {
    const p = cx.reg('pred');
    cx.emit(`not.pred ${p}, ${a};`);
    return p;
  };
  /** Direction of slot i's merge of size 2^s: a register bit (known), a lane bit (a predicate), or ascending. */
  const dirOf = (i: number, s: number): boolean | string =>
    s === m ? false : regBit(s) ? ((slots[i]!.off[axis]! >> s) & 1) === 1 : lanePred(laneBit(s));

  // bitonic network: merges of size 2^s; in each, compare-exchange at distance 2^j, j = s-1..0.
  // Direction of a merge: bit s of the position (0: ascending), always ascending for s = m.
  for (let s = 1; s <= m; s++) {
    for (let j = s - 1; j >= 0; j--) {
      const next = [...items];
      if (regBit(j)) {
        slots.forEach((sl, i) => {
          if ((sl.off[axis]! >> j) & 1) return;
          const pi = partner(i, j);
          const a = items[i]!, b = items[pi]!;
          const dir = dirOf(i, s);
          // swap when the pair is out of order for this merge's direction
          const swap = typeof dir === 'string' ? xorPred(less(b, a), dir) : dir ? less(a, b) : less(b, a);
          next[i] = select(swap, b, a);
          next[pi] = select(swap, a, b);
        });
      } else {
        // each lane keeps the first of the pair (lower lane, ascending) or the second
        const upper = lanePred(laneBit(j));
        const flips = new Map<boolean | string, string>();
        const flipOf = (dir: boolean | string): string => {
          let f = flips.get(dir);
          if (!f) flips.set(dir, (f = typeof dir === 'string' ? xorPred(upper, dir) : dir ? notPred(upper) : upper));
          return f;
        };
        items.forEach((a, i) => {
          const other = a.map((r, q) => shuffleXor(cx, kinds[q]!, r, 1 << laneBit(j)));
          const take = xorPred(less(other, a), flipOf(dirOf(i, s)));
          next[i] = select(take, other, a);
        });
      }
      items = next;
    }
  }

  // back to values (and positions), in the input layout
  const outVals: string[] = [];
  const outIdx: string[] = [];
  items.forEach((it) => {
    let key = it[0]!;
    if (packed) {
      const lo = cx.reg('b32');
      const hi = cx.reg('b32');
      cx.emit(`mov.b64 {${lo}, ${hi}}, ${it[0]};`);
      key = hi;
      outIdx.push(lo);
    } else if (indices) outIdx.push(it[1]!);
    outVals.push(fromKey(cx, t, key, descending));
  });
  const results: [ElemType, string[]][] = [[t, outVals]];
  if (indices) results.push(['i32', outIdx]);
  if (k === n) {
    results.forEach(([, regs], q) => cx.define(op.results[q]!, regs));
    return;
  }
  // top-k: the first k positions along the dim, through shared memory, in the output layout
  const outL = cx.layoutOf(op.results[0]!);
  const outShape = op.results[0]!.type.shape;
  const strides = rowMajorStrides(shape);
  const total = shape.reduce((a, d) => a * d, 1);
  const bases = results.map((_, q) => results.slice(0, q).reduce((a, [e]) => a + total * smemBytesOf(e), 0));
  cx.needShared(results.reduce((a, [e]) => a + total * smemBytesOf(e), 0));
  cx.barrier();
  results.forEach(([e, regs], q) => storeTile(cx, e, regs, inL, shape, strides, bases[q]));
  cx.barrier();
  results.forEach(([e], q) => cx.define(op.results[q]!, loadTile(cx, e, outL, outShape, strides, bases[q])));
};

export const SORT_RULES: Record<string, Rule> = { sort };
