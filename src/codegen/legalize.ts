// Legalization before emission: every value's layout fits its shape and the warp count, and
// every op/dtype pair is one the renderer has a template for. Errors name the op and dtype.
import type { Block, Func, Op } from '../ir/ops.js';
import { isPtr } from '../ir/types.js';
import { CompileError } from '../compiler/errors.js';
import { checkLayout, SCALAR } from '../compiler/layout.js';
import type { LayoutPlan } from '../compiler/layout_assign.js';

const FLOAT_ONLY_UNARY = new Set(['exp', 'exp2', 'log', 'log2', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'erf', 'erfc', 'floor', 'ceil']);
const INT_ONLY_BINARY = new Set(['floordiv', 'and', 'or', 'xor', 'shl', 'shr', 'umulhi']);

export function legalize(f: Func, plan: LayoutPlan): void {
  const fail = (op: Op, msg: string): never => {
    throw new CompileError(f.name, msg, op.kind, op.loc);
  };
  const visit = (b: Block): void => {
    for (const op of b.ops) {
      for (const v of [...op.operands, ...op.results]) {
        const l = v.type.shape.length === 0 ? SCALAR : plan.layouts.get(v.id);
        if (!l) fail(op, `value %${v.id} has no layout`);
        const bad = checkLayout(l!, v.type.shape, plan.numWarps);
        if (bad) fail(op, `${bad} (dtype ${v.type.elem})`);
      }
      const t = op.operands[0]?.type.elem;
      if (op.kind === 'unary' && t) {
        const fn = (op as Op<'unary'>).attrs.fn;
        if (FLOAT_ONLY_UNARY.has(fn) && !/^(f|bf)/.test(t)) fail(op, `unary '${fn}' is not defined for dtype ${t}`);
      }
      if (op.kind === 'binary' && t) {
        const fn = (op as Op<'binary'>).attrs.fn;
        if (INT_ONLY_BINARY.has(fn) && /^(f|bf)/.test(t)) fail(op, `binary '${fn}' is not defined for dtype ${t}`);
        if (fn === 'pow' && !/^(f|bf)/.test(t)) fail(op, `binary 'pow' is not defined for dtype ${t}`);
        if (t === 'bool' && !['and', 'or', 'xor'].includes(fn)) fail(op, `binary '${fn}' is not defined for dtype bool`);
        if (isPtr(t)) fail(op, `binary '${fn}' is not defined for pointers (use addptr)`);
      }
      op.regions.forEach(visit);
    }
  };
  visit(f.body);
}
