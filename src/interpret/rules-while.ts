// The `while` loop: run the before region on the carried values; while it yields true, run the
// body and carry what it yields. (No iteration limit: a loop that never ends hangs, as on a GPU.)
import type { Rule } from './context.js';
import { unsupported } from './errors.js';

export const whileRule: Rule<'while'> = (op, c) => {
  const [before, body] = op.regions;
  if (!before || !body) throw unsupported(c.kernel, op, 'a while loop needs a before and a body region');
  const cb = c.compileBlock(before);
  const bb = c.compileBlock(body);
  const inits = op.operands.map((v) => v.id);
  const outIds = op.results.map((v) => v.id);
  return (cx) => {
    let carried = inits.map((id) => cx.env[id]!);
    while (cb.run(cx, carried)[0]![0]) carried = bb.run(cx, carried);
    outIds.forEach((id, j) => { cx.env[id] = carried[j]!; });
  };
};
