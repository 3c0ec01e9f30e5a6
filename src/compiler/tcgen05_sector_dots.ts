// Which tcgen05 dots take the sector layout (tcgen05_sector_layout.ts) instead of the row per
// thread: those whose result reaches memory only through pointer stores that can write whole
// sectors from it, i.e. every use (through the loop that carries it and elementwise ops of it
// alone: casts, unary ops, ops with scalars) is a store whose anchor is contiguous along the
// columns and whose vector (AxisInfo's, mask included) is 16 bytes. Any other use (a reduction,
// a descriptor store, a transposed or narrow store, a second tile operand) keeps the row per
// thread, which those need (and which the conversion before a narrow store starts from).
import type { Func, Op, Value } from '../ir/ops.js';
import { byteSize, pointee, type PtrType } from '../ir/types.js';
import type { BlockedLayout, Layout } from './layout.js';
import { isTcgen05Layout } from './tcgen05_kinds.js';
import { tcgen05SectorLayout } from './tcgen05_sector_layout.js';

const PER_ELEMENT = new Set(['cast', 'unary', 'hint', 'binary', 'fma', 'select']);

function* allOps(ops: readonly Op[]): Generator<Op> {
  for (const op of ops) {
    yield op;
    for (const r of op.regions) yield* allOps(r.ops);
  }
}

/**
 * The dots of `f` to give the sector layout, with it. `accLayout`: the layout a dot would get
 * (the tcgen05 row per thread where it fits tcgen05); `anchors` / `vec`: the memory ops' anchors
 * and vector widths before the tcgen05 epilogue's own choice.
 */
export function tcgen05SectorDots(f: Func, anchors: ReadonlyMap<Op, Layout>, vec: ReadonlyMap<Op, number>, numWarps: number, accLayout: (op: Op) => BlockedLayout | undefined): Map<Op, BlockedLayout> {
  const ops = [...allOps(f.body.ops)];
  const uses = new Map<number, Op[]>();
  for (const op of ops) {
    for (const v of op.operands) {
      const u = uses.get(v.id);
      if (u) u.push(op);
      else uses.set(v.id, [op]);
    }
  }
  const loopOf = new Map<Op, Op>(); // a for loop's yield -> the loop
  for (const op of ops) if (op.kind === 'for') loopOf.set(op.regions[0]!.ops.at(-1)!, op);
  const out = new Map<Op, BlockedLayout>();
  for (const dot of ops) {
    if (dot.kind !== 'dot') continue;
    const [M, N] = dot.results[0]!.type.shape as [number, number];
    const l = accLayout(dot);
    if (!l || !isTcgen05Layout(l, M, N, numWarps)) continue;
    const runs = new Set<number>();
    const seen = new Set<number>();
    const todo: Value[] = [dot.results[0]!];
    let ok = true;
    while (ok && todo.length) {
      const v = todo.pop()!;
      if (seen.has(v.id)) continue;
      seen.add(v.id);
      for (const u of uses.get(v.id) ?? []) {
        const loop = loopOf.get(u);
        if (loop) {
          // carried by a loop: its body arg may feed this dot's accumulator only
          const k = u.operands.indexOf(v);
          const arg = loop.regions[0]!.args[1 + k]!;
          ok = u.operands.lastIndexOf(v) === k && (uses.get(arg.id) ?? []).every((a) => a === dot && dot.operands[2] === arg && dot.operands.indexOf(arg) === 2);
          if (ok) todo.push(loop.results[k]!);
        } else if (u.kind === 'store' && u.operands[1] === v && u.operands.indexOf(v) === 1) {
          const a = anchors.get(u);
          const bytes = byteSize(pointee(u.operands[0]!.type.elem as PtrType));
          ok = !!a && a.kind === 'blocked' && a.order[0] === 1 && (vec.get(u) ?? 1) * bytes >= 16 && 16 % bytes === 0;
          if (ok) runs.add(16 / bytes);
        } else if (PER_ELEMENT.has(u.kind) && u.results.length === 1) {
          // elementwise on this value alone (other operands scalars): the layout passes through
          ok = u.operands.every((o) => o === v || o.type.shape.length === 0);
          if (ok) todo.push(u.results[0]!);
        } else ok = false;
      }
    }
    if (!ok || runs.size !== 1) continue;
    const s = tcgen05SectorLayout(M, N, numWarps, [...runs][0]!);
    if (s) out.set(dot, s);
  }
  return out;
}
