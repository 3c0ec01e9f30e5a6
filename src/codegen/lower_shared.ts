// Data movement through shared memory: trans, reshape, join, split (layout conversion is in
// lower_convert.ts). A tile is written row-major (replicated copies write the same value), a
// barrier, and each thread reads the elements its target layout gives it. The scratch buffer is
// shared by all ops; a barrier before each write keeps earlier readers safe.
import type { Op, Value } from '../ir/ops.js';
import { numel, type ElemType } from '../ir/types.js';
import { layoutKey, permuteBlocked, type Layout } from '../compiler/layout.js';
import { addrStr, rowMajorStrides, type Lowering } from './context.js';
import { regBits, regKind } from './ptx_types.js';

type Rule = (cx: Lowering, op: Op) => void;

export const smemBytesOf = (t: ElemType): number => {
  const k = regKind(t);
  return k === 'pred' ? 1 : regBits(k) / 8;
};
export const stType = (t: ElemType): string => (regKind(t) === 'pred' ? 'u8' : `b${regBits(regKind(t))}`);

/** Writes registers of a tile (layout `l`, tile `shape`) to shared memory with `strides`. */
export function storeTile(cx: Lowering, t: ElemType, regs: string[], l: Layout, shape: readonly number[], strides: readonly number[], baseBytes = 0): void {
  const sz = smemBytesOf(t);
  const addrs = cx.linearAddrs(l, shape, sz, strides, baseBytes);
  addrs.forEach((a, i) => {
    let src = regs[regs.length === 1 ? 0 : i]!;
    if (regKind(t) === 'pred') {
      const w = cx.reg('b32');
      cx.emit(`selp.u32 ${w}, 1, 0, ${src};`);
      src = w;
    }
    cx.emit(`st.shared.${stType(t)} ${addrStr(a)}, ${src};`);
  });
}
/** Reads a tile in layout `l` from shared memory laid out with `strides`. */
export function loadTile(cx: Lowering, t: ElemType, l: Layout, shape: readonly number[], strides: readonly number[], baseBytes = 0): string[] {
  const sz = smemBytesOf(t);
  const addrs = cx.linearAddrs(l, shape, sz, strides, baseBytes);
  const out = cx.newRegs(t, addrs.length);
  addrs.forEach((a, i) => {
    if (regKind(t) === 'pred') {
      const w = cx.reg('b32');
      cx.emit(`ld.shared.u8 ${w}, ${addrStr(a)};`);
      cx.emit(`setp.ne.u32 ${out[i]}, ${w}, 0;`);
    } else cx.emit(`ld.shared.${stType(t)} ${out[i]}, ${addrStr(a)};`);
  });
  return out;
}

function through(cx: Lowering, op: Op, write: (strides: readonly number[]) => void, bytes: number): void {
  cx.needShared(bytes);
  cx.barrier();
  write(rowMajorStrides(op.operands[0]!.type.shape));
  cx.barrier();
}

const trans: Rule = (cx, op) => {
  const src = op.operands[0]!;
  const r = op.results[0]!;
  const perm = (op as Op<'trans'>).attrs.perm;
  const sl = cx.layoutOf(src);
  const rl = cx.layoutOf(r);
  if (sl.kind === 'blocked' && layoutKey(permuteBlocked(sl, perm)) === layoutKey(rl)) {
    // same elements per thread: only the register order changes
    const regs = cx.regs(src);
    const index = new Map(cx.slots(src, sl).map((s, i) => [s.off.join(','), i]));
    cx.define(r, cx.slots(r, rl).map((s) => {
      const key = perm.map((_, j) => s.off[perm.indexOf(j)]).join(',');
      return regs[index.get(key) ?? cx.fail(`trans: no register for [${key}]`)]!;
    }));
    return;
  }
  const sst = rowMajorStrides(src.type.shape);
  through(cx, op, (st) => storeTile(cx, src.type.elem, cx.regs(src), cx.layoutOf(src), src.type.shape, st), numel(src.type.shape) * smemBytesOf(src.type.elem));
  cx.define(r, loadTile(cx, r.type.elem, cx.layoutOf(r), r.type.shape, perm.map((p) => sst[p]!)));
};
const reshape: Rule = (cx, op) => {
  const src = op.operands[0]!;
  const r = op.results[0]!;
  through(cx, op, (st) => storeTile(cx, src.type.elem, cx.regs(src), cx.layoutOf(src), src.type.shape, st), numel(src.type.shape) * smemBytesOf(src.type.elem));
  cx.define(r, loadTile(cx, r.type.elem, cx.layoutOf(r), r.type.shape, rowMajorStrides(r.type.shape)));
};
const join: Rule = (cx, op) => {
  const [a, b] = op.operands as [Value, Value];
  const r = op.results[0]!;
  const t = r.type.elem;
  const sz = smemBytesOf(t);
  const ost = rowMajorStrides(r.type.shape);
  const inner = ost.slice(0, -1);
  cx.needShared(numel(r.type.shape) * sz);
  cx.barrier();
  storeTile(cx, t, cx.regs(a), cx.layoutOf(a), a.type.shape, inner, 0);
  storeTile(cx, t, cx.regs(b), cx.layoutOf(b), b.type.shape, inner, sz);
  cx.barrier();
  cx.define(r, loadTile(cx, t, cx.layoutOf(r), r.type.shape, ost));
};
const split: Rule = (cx, op) => {
  const src = op.operands[0]!;
  const t = src.type.elem;
  const sz = smemBytesOf(t);
  const sst = rowMajorStrides(src.type.shape);
  through(cx, op, (st) => storeTile(cx, t, cx.regs(src), cx.layoutOf(src), src.type.shape, st), numel(src.type.shape) * sz);
  op.results.forEach((r, k) => cx.define(r, loadTile(cx, t, cx.layoutOf(r), r.type.shape, sst.slice(0, -1), k * sz)));
};

export const SHARED_RULES: Record<string, Rule> = { trans, reshape, join, split };
