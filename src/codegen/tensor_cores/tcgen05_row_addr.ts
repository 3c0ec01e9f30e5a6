// The TMEM address of a thread's accumulator row (tcgen05.ld / st of the tcgen05 layout): lane
// 32*(w%4) of the allocation (the warp's lane quarter), plus (w/4)*cols columns with 8 warps, plus
// the chunk's first column. Addressed from the allocation's start these depend on the warp alone:
// they are computed once, in the prologue, and shared by every tcgen05.ld / st of that width (flash
// attention's S read back, P stored and P V read back in each iteration no longer recompute them).
// From a buffer register that changes (setAccBase: a double-buffered accumulator), where they are used.
import type { Lowering } from '../context.js';
import { accBase, tmem } from './tmem_alloc.js';

/** Per kernel: "warps|cols|first column" -> the register holding that row address. */
const hoisted = new WeakMap<Lowering, Map<string, string>>();

/** The function from a first column c to this thread's row address at column c (wn = numWarps / 4; cols per warp). */
export function rowAddresses(cx: Lowering, wn: number, cols: number): (c: number) => string {
  const base = accBase(cx);
  const once = base === tmem(cx).addr;
  const emit = (l: string): void => (once ? cx.e.emitPrologue(l) : cx.emit(l));
  let cache = hoisted.get(cx);
  if (!cache) hoisted.set(cx, (cache = new Map()));
  const memo = cache;
  const rowOf = (): string => {
    const r = cx.reg('b32');
    const { warp } = cx.thread();
    const q = cx.reg('b32');
    emit(`and.b32 ${q}, ${warp}, 3;`);
    emit(`shl.b32 ${q}, ${q}, 21;`); // (32 * (w % 4)) << 16
    emit(`add.u32 ${r}, ${base}, ${q};`);
    if (wn > 1) {
      const h = cx.reg('b32');
      emit(`shr.u32 ${h}, ${warp}, 2;`);
      emit(`mad.lo.u32 ${r}, ${h}, ${cols}, ${r};`);
    }
    return r;
  };
  const plus = (row: string, c: number): string => {
    const r = cx.reg('b32');
    emit(`add.u32 ${r}, ${row}, ${c};`);
    return r;
  };
  if (!once) {
    // here and now, as every use follows (a chunk's column: where it is used)
    const row = rowOf();
    return (c) => (c === 0 ? row : plus(row, c));
  }
  const at = (c: number): string => {
    const key = `${wn}|${cols}|${c}`;
    let r = memo.get(key);
    if (!r) memo.set(key, (r = c === 0 ? rowOf() : plus(at(0), c)));
    return r;
  };
  return at;
}

/** The allocation's address (lane 0) plus `col` columns: once, in the prologue, where that is the accumulator's base. */
export function tmemColumn(cx: Lowering, col: number): string {
  const base = accBase(cx);
  const t = cx.reg('b32');
  if (base !== tmem(cx).addr) {
    cx.emit(`add.u32 ${t}, ${base}, ${col};`);
    return t;
  }
  let cache = hoisted.get(cx);
  if (!cache) hoisted.set(cx, (cache = new Map()));
  const key = `col|${col}`;
  const had = cache.get(key);
  if (had) return had;
  cx.e.emitPrologue(`add.u32 ${t}, ${base}, ${col};`);
  cache.set(key, t);
  return t;
}
