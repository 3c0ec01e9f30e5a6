// licm: loop-invariant code motion. An op in a `for` body moves to just before the loop when it
// is speculatable (pure, and not an integer division that could trap: the loop may run zero
// times) and everything it reads (operands and values its regions capture) is defined outside
// the loop or by ops already hoisted. Inner loops are handled first, so an op can climb out of
// several loops. Ops inside `if` branches stay where they are (they are conditional).
import { isSpeculatable } from '../ir/effects.js';
import type { Block, Func, Op } from '../ir/ops.js';
import { withBody } from '../ir/rewrite.js';
import { freeValues } from '../ir/walk.js';

/** Rewrites the loops in `b` (recursively) and returns the new block. */
function licmBlock(b: Block): Block {
  const ops: Op[] = [];
  for (const old of b.ops) {
    const op: Op = { ...old, regions: old.regions.map(licmBlock) };
    if (op.kind !== 'for') {
      ops.push(op);
      continue;
    }
    const body = op.regions[0]!;
    // Values that vary with the iteration: the region args and results of ops that stay.
    const variant = new Set(body.args.map((a) => a.id));
    const stay: Op[] = [];
    for (const inner of body.ops) {
      const invariant = inner.kind !== 'yield' && isSpeculatable(inner) && freeValues(inner).every((v) => !variant.has(v.id));
      if (invariant) {
        ops.push(inner);
      } else {
        stay.push(inner);
        for (const r of inner.results) variant.add(r.id);
      }
    }
    ops.push({ ...op, regions: [{ args: body.args, ops: stay }] });
  }
  return { args: b.args, ops };
}

export function licm(f: Func): Func {
  return withBody(f, licmBlock(f.body));
}
