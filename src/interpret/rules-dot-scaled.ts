// dot_scaled on the interpreter: the op's region is its definition (decode, scale in f32, an
// ordinary dot with fma in k order; docs/semantics.md "dotScaled"), so running it with the operands
// is the reference semantics every target is checked against.
import type { Rule } from './context.js';
import { unsupported } from './errors.js';

export const dotScaledRule: Rule<'dot_scaled'> = (op, c) => {
  const def = op.regions[0];
  if (!def || def.args.length !== op.operands.length) throw unsupported(c.kernel, op, 'dot_scaled needs its definition region over its operands');
  const body = c.compileBlock(def);
  const ins = op.operands.map((v) => v.id);
  const out = op.results[0]!.id;
  return (cx) => {
    cx.env[out] = body.run(cx, ins.map((id) => cx.env[id]!))[0]!;
  };
};
