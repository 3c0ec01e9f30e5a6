// exit_if (the traced early `return`) and assume (a promise the interpreter checks).
import { indexString, type Lanes } from './arrays.js';
import type { Rule } from './context.js';
import { InterpretError } from './errors.js';

/** Thrown by exit_if to end the running program; the program loop (index.ts) catches it. */
export class ProgramExit {
  readonly reason = 'exit_if';
}

export const exitIfRule: Rule<'exit_if'> = (op) => {
  const cond = op.operands[0]!.id;
  return (cx) => {
    if (cx.env[cond]![0]) throw new ProgramExit();
  };
};

export const assumeRule: Rule<'assume'> = (op, c) => {
  const cond = op.operands[0]!.id;
  const shape = op.operands[0]!.type.shape;
  return (cx) => {
    const v = cx.env[cond]! as Lanes;
    for (let i = 0; i < v.length; i++) {
      if (v[i]) continue;
      const idx = shape.length ? ` [${indexString(shape, i)}]` : '';
      throw new InterpretError('E_ASSUME', `assume failed in program (${cx.pid.join(', ')}), lane ${i}${idx}: the condition the kernel promised is false (compiled code would be undefined here)`, {
        kernel: c.kernel, ...(op.loc ? { loc: op.loc } : {}), pid: [...cx.pid], lane: i,
      });
    }
  };
};
