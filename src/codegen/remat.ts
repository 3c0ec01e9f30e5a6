// Rematerialization: a value that is cheap to recompute (arange, constants, splats and integer
// index math on them) is recomputed in the layout a consumer wants instead of being moved
// through shared memory. CSE merges e.g. two `arange(0, 64)` that the layouts then want in
// different forms; this undoes that at no cost.
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { walkOps } from '../ir/walk.js';
import { isFloat } from '../ir/types.js';
import { layoutKey, type Layout } from '../compiler/layout.js';
import type { Lowering } from './context.js';
import { convertLayout } from './convert/lower_convert.js';

const CHEAP = new Set(['arange', 'const', 'splat', 'binary', 'cmp', 'cast', 'addptr', 'select', 'expand_dims', 'broadcast']);
const MAX_DEPTH = 6;

export function defsOf(f: Func): Map<number, Op> {
  const m = new Map<number, Op>();
  const visit = (b: Block): void => {
    for (const op of b.ops) {
      for (const r of op.results) m.set(r.id, op);
      op.regions.forEach(visit);
    }
  };
  visit(f.body);
  return m;
}

function cheap(cx: Lowering, defs: Map<number, Op>, v: Value, to: Layout, depth: number): boolean {
  if (v.type.shape.length === 0 || layoutKey(cx.layoutOf(v)) === layoutKey(to)) return true;
  const op = defs.get(v.id);
  if (!op || depth > MAX_DEPTH || !CHEAP.has(op.kind) || op.results.length !== 1) return false;
  if (op.kind === 'binary' && isFloat(v.type.elem)) return false;
  return op.operands.every((o) => {
    const want = operandLayout(op, o, to);
    return want !== undefined && cheap(cx, defs, o, want, depth + 1);
  });
}

/** Layout operand `o` of `op` must have for the result to come out in `to`. */
export function operandLayout(op: Op, o: Value, to: Layout): Layout | undefined {
  if (o.type.shape.length === 0) return to;
  if (op.kind === 'expand_dims') return to.kind === 'blocked' ? { kind: 'slice', parent: to, dim: (op as Op<'expand_dims'>).attrs.axis } : undefined;
  if (op.kind === 'broadcast') return to.kind === 'blocked' ? to : undefined;
  return to;
}

/** Converts by recomputation when possible, else through shared memory. */
export function makeConvert(defs: Map<number, Op>): (cx: Lowering, v: Value, from: Layout, to: Layout) => string[] {
  return (cx, v, from, to) => {
    if (!cheap(cx, defs, v, to, 0) || to.kind === 'scalar') return convertLayout(cx, v, from, to);
    const op = defs.get(v.id)!;
    return cx.recompute(op, to);
  };
}

/**
 * Index tensors (addresses, masks: integer, pointer or bool results of cheap ops) defined in
 * `ops` before the loop `ops[i]` and used after it are lowered again after the loop, from the
 * scalars they derive from, so they are not live through it: a matmul's output pointers and
 * masks (a 64x32 f32 tile on 4 warps: 16 64-bit pointers and 16 predicates a thread) would
 * otherwise hold registers across the whole k-loop, beside its operand tiles.
 */
export function rematAfterLoop(cx: Lowering, ops: readonly Op[], i: number): void {
  const before = new Map<number, number>();
  for (let k = 0; k < i; k++) for (const r of ops[k]!.results) before.set(r.id, k);
  const memo = new Map<number, boolean>();
  const cheapHere = (v: Value, depth: number): boolean => {
    if (v.type.shape.length === 0) return true; // scalars stay live: one register
    const k = before.get(v.id);
    if (k === undefined || depth > MAX_DEPTH) return false;
    let ok = memo.get(v.id);
    if (ok === undefined) {
      const op = ops[k]!;
      ok = CHEAP.has(op.kind) && op.results.length === 1 && !isFloat(v.type.elem) && op.operands.every((o) => cheapHere(o, depth + 1));
      memo.set(v.id, ok);
    }
    return ok;
  };
  const redo = new Set<number>();
  const take = (v: Value): void => {
    const k = before.get(v.id);
    if (v.type.shape.length === 0 || k === undefined || redo.has(k)) return;
    redo.add(k);
    ops[k]!.operands.forEach(take);
  };
  const use = (op: Op): void => {
    for (const v of op.operands) if (cheapHere(v, 0)) take(v);
  };
  for (const op of ops.slice(i + 1)) {
    use(op);
    op.regions.forEach((r) => walkOps(r, use));
  }
  cx.relower([...redo].sort((x, y) => x - y).map((k) => ops[k]!));
}
