// Which ops may be moved, merged or deleted. "Pure" means: no memory writes, no output, no
// launch failure, and the result depends only on the operands (program_id is constant within
// one program, so it is pure). Loads are not pure: they may fault and may observe stores. A
// `while` loop is not pure either: it may never end, so it is never deleted, merged or hoisted;
// nor are `exit_if` (it ends the program) and `assume` (the interpreter checks it).
import type { Op, OpKind } from './ops.js';
import { isFloat } from './types.js';

const IMPURE: ReadonlySet<OpKind> = new Set<OpKind>(['load', 'store', 'atomic_rmw', 'atomic_cas', 'desc_load', 'desc_store', 'print', 'assert', 'yield', 'return', 'while', 'exit_if', 'assume']);

/** True when `op` and every op in its regions (terminators aside) are pure. */
export function isPure(op: Op): boolean {
  if (IMPURE.has(op.kind)) return false;
  if (op.kind === 'inline_asm' && !(op as Op<'inline_asm'>).attrs.isPure) return false;
  return op.regions.every((r) => r.ops.every((inner) => inner.kind === 'yield' || isPure(inner)));
}

/**
 * True when `op` may run on a path where it did not run before (hoisting out of a loop that may
 * run zero times): pure, and not an integer division, which may trap on a zero divisor.
 */
export function isSpeculatable(op: Op): boolean {
  if (!isPure(op)) return false;
  if (op.kind === 'binary') {
    const fn = (op as Op<'binary'>).attrs.fn;
    const elem = op.results[0]?.type.elem;
    if ((fn === 'div' || fn === 'rem' || fn === 'floordiv') && elem !== undefined && !isFloat(elem)) return false;
  }
  return op.regions.every((r) => r.ops.every((inner) => inner.kind === 'yield' || isSpeculatable(inner)));
}
