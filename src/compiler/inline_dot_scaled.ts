// dot_scaled without block-scaled tensor cores: the op is replaced by its region, its definition
// (the exact emulation src/lang/dot_scaled.ts traced: decode, scale in f32, an ordinary dot), with
// the region's args read as the op's operands and the op's result as the value the region yields.
// It runs before the IR passes, so the emulation is folded, CSE'd and hoisted as if it had been
// traced inline. `keep` names the dot_scaled ops the target lowers itself.
import type { Block, Func, Op } from '../ir/ops.js';
import { Subst, withParts } from '../ir/rewrite.js';

const has = (b: Block, keep: (op: Op) => boolean): boolean =>
  b.ops.some((o) => (o.kind === 'dot_scaled' && !keep(o)) || o.regions.some((r) => has(r, keep)));

export function inlineDotScaled(f: Func, keep: (op: Op) => boolean = () => false): Func {
  if (!has(f.body, keep)) return f;
  const subst = new Subst();
  const block = (b: Block): Block => {
    const ops: Op[] = [];
    for (const o of b.ops) {
      if (o.kind === 'dot_scaled' && !keep(o)) {
        const def = o.regions[0]!;
        def.args.forEach((a, i) => subst.set(a, subst.get(o.operands[i]!)));
        const inner = block({ args: [], ops: def.ops });
        const y = inner.ops.at(-1)!;
        ops.push(...inner.ops.slice(0, -1));
        subst.set(o.results[0]!, y.operands[0]!);
      } else {
        ops.push(withParts(o, o.operands.map((v) => subst.get(v)), o.regions.map(block)));
      }
    }
    return { args: b.args, ops };
  };
  return { ...f, body: block(f.body) };
}
