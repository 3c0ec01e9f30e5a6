// The `while` loop (scf.while). The carried values live in private registers (copied from the
// inits, in the results' layouts) that the back edge overwrites with a parallel copy, as `for`
// does. Each iteration lowers the before region on them, leaves on its bool scalar (uniform across
// the CTA: scalars are computed alike in every thread, so `bra.uni` is right and barriers inside
// the loop are legal), then lowers the body and jumps back.
import type { Op } from '../ir/ops.js';
import type { Lowering } from './context.js';
import { backEdge } from './lower_control.js';

export function lowerWhile(cx: Lowering, op: Op): void {
  const [before, body] = op.regions as [Op['regions'][number], Op['regions'][number]];
  const layouts = op.results.map((r) => cx.layoutOf(r));
  const carried = op.operands.map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, layouts[k])));
  const top = cx.e.label('while');
  const end = cx.e.label('endwhile');
  cx.e.placeLabel(top);
  const [c] = cx.scope(() => cx.region(before, carried, (o) => cx.lowerOp(o), [undefined]));
  cx.emit(`@!${c![0]!} bra.uni ${end};`);
  // The body may update a carried register in place where it is the value's only use (the
  // before region has already read it this iteration).
  body.args.forEach((a) => cx.own(a, body));
  const yields = cx.scope(() => cx.region(body, carried, (o) => cx.lowerOp(o), layouts));
  backEdge(cx, op, carried, yields);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
}
