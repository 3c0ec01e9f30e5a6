// Text of the analysis stages: every op with its results' AxisInfo or layouts (and the vector
// width chosen for memory ops), one line per op, indented by region depth.
import type { Block, Func, Op } from '../ir/ops.js';
import { typeToString } from '../ir/types.js';
import { axisInfoToString, type AxisInfoMap } from './axis_info.js';
import { layoutToString, SCALAR } from './layout.js';
import type { LayoutPlan } from './layout_assign.js';

function lines(b: Block, depth: number, describe: (op: Op) => string, out: string[]): void {
  for (const op of b.ops) {
    const res = op.results.map((r) => `%${r.id}: ${typeToString(r.type)}`).join(', ');
    const args = op.operands.map((v) => `%${v.id}`).join(', ');
    out.push(`${'  '.repeat(depth)}${res ? `${res} = ` : ''}${op.kind}(${args})${describe(op)}`);
    op.regions.forEach((r) => lines(r, depth + 1, describe, out));
  }
}

export function printAxisInfo(f: Func, info: AxisInfoMap): string {
  const out = [`func @${f.name} axisinfo`];
  f.body.args.forEach((a, i) => out.push(`  param ${f.params[i]!.name} %${a.id}: ${axisInfoToString(info.get(a))}`));
  lines(f.body, 1, (op) => (op.results.length ? `  ${op.results.map((r) => axisInfoToString(info.get(r))).join(' ')}` : ''), out);
  return `${out.join('\n')}\n`;
}

export function printLayouts(f: Func, plan: LayoutPlan): string {
  const out = [`func @${f.name} layouts (numWarps=${plan.numWarps})`];
  lines(f.body, 1, (op) => {
    const res = op.results.map((r) => layoutToString(plan.layouts.get(r.id) ?? SCALAR)).join(' ');
    const vec = plan.vec.get(op);
    const exp = plan.expected.get(op);
    const conv = exp
      ?.map((l, i) => {
        const have = plan.layouts.get(op.operands[i]!.id);
        return l && have && layoutToString(l) !== layoutToString(have) ? ` convert(%${op.operands[i]!.id} -> ${layoutToString(l)})` : '';
      })
      .join('');
    return `${res ? `  ${res}` : ''}${vec !== undefined ? `  vec=${vec}` : ''}${conv ?? ''}`;
  }, out);
  return `${out.join('\n')}\n`;
}
