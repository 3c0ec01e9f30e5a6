// Structured control flow. Conditions and loop bounds are scalars (uniform across the CTA), so
// branches are uniform (bra.uni) and barriers inside them are legal. Loop-carried tiles live in
// registers that the back edge overwrites (a parallel copy, so swaps are safe); the body may
// update them in place where a carried value has no other use (Lowering.mayClobber).
import type { Op } from '../ir/ops.js';
import { definedInside, walkOps } from '../ir/walk.js';
import type { Lowering } from './context.js';
import { movFor } from './context.js';
import { regKind } from './ptx_types.js';
import { hoistWgmmaA } from './tensor_cores/wgmma_a_hoist.js';
import { hoistAFragments } from './tensor_cores/mma_a_hoist.js';
import { withTcgen05AHoist } from './tensor_cores/tcgen05_a_hoist.js';

type Rule = (cx: Lowering, op: Op) => void;

// a loop-invariant A of a tcgen05 dot is stored to shared memory once, before the loop
const forLoop: Rule = (cx, op) => withTcgen05AHoist(cx, op, 0, () => plainFor(cx, op));

const plainFor: Rule = (cx, op) => {
  const [lb, ub, step] = [0, 1, 2].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const body = op.regions[0]!;
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  hoistAFragments(cx, op);
  hoistWgmmaA(cx, op);
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label('for');
  const end = cx.e.label('endfor');
  const p = cx.reg('pred');
  // a loop runs while iv < ub (step > 0) or iv > ub (step < 0)
  const stepConst = constantOf(cx, op.operands[2]!);
  const cond = (): void => {
    if (stepConst !== undefined) cx.emit(`setp.${stepConst > 0 ? 'ge' : 'le'}.${ty} ${p}, ${iv}, ${ub};`);
    else {
      const q = cx.reg('pred');
      const pos = cx.reg('pred');
      const e1 = cx.reg('pred');
      const e2 = cx.reg('pred');
      cx.emit(`setp.ge.${ty} ${p}, ${iv}, ${ub};`);
      cx.emit(`setp.le.${ty} ${q}, ${iv}, ${ub};`);
      cx.emit(`setp.gt.${ty} ${pos}, ${step}, 0;`);
      cx.emit(`and.pred ${e1}, ${pos}, ${p};`);
      cx.emit(`not.pred ${pos}, ${pos};`);
      cx.emit(`and.pred ${e2}, ${pos}, ${q};`);
      cx.emit(`or.pred ${p}, ${e1}, ${e2};`);
    }
  };
  if (stepConst === 0 || stepConst === undefined) {
    // a zero step fails the launch instead of hanging (docs/semantics.md)
    const z = cx.reg('pred');
    cx.emit(`setp.eq.${ty} ${z}, ${step}, 0;`);
    cx.emit(`@${z} trap;`);
  }
  cx.e.placeLabel(top);
  cond();
  cx.emit(`@${p} bra.uni ${end};`);
  body.args.slice(1).forEach((a) => cx.own(a, body));
  const yields = cx.scope(() =>
    cx.region(body, [[iv], ...carried.map((c) => c)], (o) => cx.lowerOp(o), op.results.map((r) => cx.layoutOf(r))),
  );
  backEdge(cx, op, carried, yields);
  cx.emit(`add.${ty} ${iv}, ${iv}, ${step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
};

/**
 * The back edge: carried[k] := yields[k], all at once. A parallel copy: a register that is
 * yielded to itself (a dot that accumulated in place) costs nothing, the others are one mov each,
 * and a temporary is needed only to break a cycle (a swap of carried values).
 */
export function backEdge(cx: Lowering, op: Op, carried: string[][], yields: string[][]): void {
  let moves = yields
    .flatMap((y, k) => y.map((src, i) => ({ dst: carried[k]![i]!, src, mov: movFor(op.results[k]!.type.elem), t: op.results[k]!.type.elem })))
    .filter((m) => m.dst !== m.src);
  while (moves.length) {
    // a move whose destination no pending move still reads can go now
    const ready = moves.find((m) => !moves.some((o) => o.src === m.dst));
    if (ready) {
      cx.emit(`${ready.mov} ${ready.dst}, ${ready.src};`);
      moves = moves.filter((m) => m !== ready);
      continue;
    }
    // only cycles left: save one source, and read it from the temporary
    const m = moves[0]!;
    const [t] = cx.copy(m.t, [m.src]);
    moves = moves.map((o) => (o.src === m.src ? { ...o, src: t! } : o));
  }
}

/**
 * Values defined before the loop that the body needs in another layout are converted once,
 * before the loop, instead of on every iteration (the conversion cache then serves the body).
 */
export function hoistConversions(cx: Lowering, loop: Op): void {
  const inside = definedInside(loop);
  walkOps(loop.regions[0]!, (op) => {
    const want = cx.plan.expected.get(op);
    if (!want || op.kind === 'yield') return;
    op.operands.forEach((v, i) => {
      if (!inside.has(v.id) && want[i] && v.type.shape.length && cx.has(v)) cx.regsIn(v, want[i]);
    });
  });
}

function constantOf(cx: Lowering, v: Op['operands'][number]): number | undefined {
  return cx.info.get(v).constant;
}

const ifOp: Rule = (cx, op) => {
  const c = cx.regs(op.operands[0]!)[0]!;
  const outs = op.results.map((r) => cx.newRegs(r.type.elem, cx.slots(r).length));
  const els = cx.e.label('else');
  const end = cx.e.label('endif');
  cx.emit(`@!${c} bra.uni ${els};`);
  op.regions.forEach((region, ri) => {
    if (ri === 1) {
      cx.emit(`bra.uni ${end};`);
      cx.e.placeLabel(els);
    }
    const ys = cx.scope(() => cx.region(region, [], (o) => cx.lowerOp(o), op.results.map((r) => cx.layoutOf(r))));
    ys.forEach((y, k) => y.forEach((r, i) => cx.emit(`${movFor(op.results[k]!.type.elem)} ${outs[k]![i]}, ${r};`)));
  });
  if (op.regions.length < 2) {
    cx.emit(`bra.uni ${end};`);
    cx.e.placeLabel(els);
  }
  cx.e.placeLabel(end);
  op.results.forEach((r, k) => cx.define(r, outs[k]!));
};

export const CONTROL_RULES: Record<string, Rule> = { for: forLoop, if: ifOp };
