// `exitIf(cond)`: the traced early `return` (Triton: `if cond: return` at the kernel's top level).
// `assume(cond)`: a promise (Triton: `tl.assume`) that the interpreter checks and the compiler uses.
import { isBool, typeToString } from '../ir/types.js';
import { describe, toTileIn, type TileLike } from './semantic.js';
import { api } from './trace.js';

/**
 * Ends the program when `cond` (a bool scalar) is true; ops after it run only where it is false.
 * Only at the top level of the kernel or inside ifThenElse branches there (as Triton allows
 * `return` only outside loops), so every thread of the program leaves together. A JS boolean decides at trace time.
 */
export const exitIf = (cond: TileLike): void =>
  api('exitIf', (t) => {
    // the kernel's top level or ifs nested in it: every condition on the way is a scalar, the same
    // in every thread, so the whole program still leaves together
    for (let s = t.scope; s.parent !== undefined; s = s.parent) {
      if (s.kind !== 'if') t.fail('E_ARG', 'exitIf must be at the top level of the kernel or inside ifs there, not inside a loop or a combiner; combine the conditions instead, e.g. exitIf(a.logicalOr(b))');
    }
    if (typeof cond === 'boolean' && !cond) return;
    if (typeof cond !== 'boolean' && typeof cond !== 'object') t.fail('E_TYPE', `exitIf needs a bool scalar condition, got ${describe(cond)}`);
    const c = toTileIn(t, cond, 'condition');
    if (!isBool(c.dtype) || c.rank !== 0) {
      t.fail('E_TYPE', `exitIf needs a bool scalar condition (the same in every thread), got ${typeToString(c.type)}${c.rank ? ' (reduce it first, e.g. max(mask.to(\'i32\')).gt(0))' : ''}`);
    }
    t.emitOp('exit_if', [c], [], {});
  });

/**
 * Promises that `cond` (a bool tile or scalar) is true in every lane. The interpreter checks it
 * (E_ASSUME when false); compiled code does not, and may rely on it: AxisInfo reads
 * `assume(x.rem(n).eq(0))` at the kernel's top level as "x is a multiple of n". A JS boolean is
 * checked at trace time.
 */
export const assume = (cond: TileLike): void =>
  api('assume', (t) => {
    if (typeof cond === 'boolean') {
      if (!cond) t.fail('E_ARG', 'assume(false): the promised condition is false at trace time');
      return;
    }
    const c = toTileIn(t, cond, 'condition');
    if (!isBool(c.dtype)) t.fail('E_TYPE', `assume needs a bool condition, got ${typeToString(c.type)} (compare, e.g. x.rem(16).eq(0))`);
    t.emitOp('assume', [c], [], {});
  });
