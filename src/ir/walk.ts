// Read-only traversals of the tile IR shared by the verifier, the printer and the passes.
import type { Block, Func, Op, Value } from './ops.js';

/** Visits every op in `block` and its regions, pre-order (an op before the ops of its regions). */
export function walkOps(block: Block, fn: (op: Op, path: readonly (number | string)[]) => void, path: (number | string)[] = []): void {
  block.ops.forEach((op, i) => {
    const here = [...path, i];
    fn(op, here);
    op.regions.forEach((r, ri) => walkOps(r, fn, [...here, `r${ri}`]));
  });
}

/** Largest value id defined in `f` (block args and op results), or -1 when there is none. */
export function maxValueId(f: Func): number {
  let max = -1;
  const seeBlock = (b: Block): void => {
    for (const a of b.args) max = Math.max(max, a.id);
  };
  seeBlock(f.body);
  walkOps(f.body, (op) => {
    for (const r of op.results) max = Math.max(max, r.id);
    op.regions.forEach(seeBlock);
  });
  return max;
}

/** Ids of the values defined inside the regions of `op` (region args and nested results). */
export function definedInside(op: Op): Set<number> {
  const ids = new Set<number>();
  for (const r of op.regions) {
    for (const a of r.args) ids.add(a.id);
    walkOps(r, (inner) => {
      for (const v of inner.results) ids.add(v.id);
      for (const rr of inner.regions) for (const a of rr.args) ids.add(a.id);
    });
  }
  return ids;
}

/** Values `op` reads that are defined outside it: its operands plus what its regions capture. */
export function freeValues(op: Op): Value[] {
  const inside = definedInside(op);
  const seen = new Set<number>();
  const out: Value[] = [];
  const use = (v: Value): void => {
    if (inside.has(v.id) || seen.has(v.id)) return;
    seen.add(v.id);
    out.push(v);
  };
  op.operands.forEach(use);
  for (const r of op.regions) walkOps(r, (inner) => inner.operands.forEach(use));
  return out;
}

/** Ids of every value used as an operand anywhere in `block` (nested regions included). */
export function usedIds(block: Block): Set<number> {
  const ids = new Set<number>();
  walkOps(block, (op) => {
    for (const v of op.operands) ids.add(v.id);
  });
  return ids;
}
