// exit_if: `@p exit;` The condition is a scalar (the same in every thread), so the whole CTA
// leaves together; `exit` also releases a CTA-wide barrier that only exited threads hold up
// (PTX ISA, `exit`), but with a uniform condition no thread of a program that goes on has left.
// assume: a promise for the compiler (AxisInfo reads it); it emits nothing.
import type { Op } from '../ir/ops.js';
import type { Lowering } from './context.js';

export function lowerExitIf(cx: Lowering, op: Op): void {
  cx.emit(`@${cx.regs(op.operands[0]!)[0]!} exit;`);
}

export function lowerAssume(): void {}
