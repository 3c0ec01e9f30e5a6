// dot_scaled without block-scaled tensor cores: the op is replaced by its region, its definition
// (the exact emulation src/lang/dot_scaled.ts traced: decode, scale in f32, an ordinary dot), with
// the region's args read as the op's operands and the op's result as the value the region yields.
// It runs before the IR passes, so the emulation is folded, CSE'd and hoisted as if it had been
// traced inline. `keep` names the dot_scaled ops the target lowers itself.
import type { Block, Func, Op } from '../ir/ops.js';
import { Subst, withParts } from '../ir/rewrite.js';

const has = (b: Block): boolean => b.ops.some((o) => o.kind === 'dot_scaled' || o.regions.some(has));

export function inlineDotScaled(f: Func, keep: (op: Op) => boolean = () => false): Func {
  if (!has(f.body)) return f;
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
      } else if (o.kind === 'dot_scaled') {
        // kept: codegen lowers the op itself and never compiles its definition, so the region is
        // cut to what the IR passes and the verifier need (its args, a yield of the accumulator)
        const def = o.regions[0]!;
        const stub: Block = { args: def.args, ops: [{ ...def.ops.at(-1)!, operands: [def.args.at(-1)!] }] };
        ops.push(withParts(o, o.operands.map((v) => subst.get(v)), [stub]));
      } else {
        ops.push(withParts(o, o.operands.map((v) => subst.get(v)), o.regions.map(block)));
      }
    }
    return { args: b.args, ops };
  };
  return { ...f, body: block(f.body) };
}

const scaledOps = (b: Block, out: Op[] = []): Op[] => {
  for (const o of b.ops) {
    if (o.kind === 'dot_scaled') out.push(o);
    else o.regions.forEach((r) => scaledOps(r, out));
  }
  return out;
};

/**
 * Which dot_scaled ops of `f` the target keeps (`whyNot` undefined: lowered natively; a reason:
 * emulated; no `whyNot`: the target has no native form, all emulated), and a line per op for the
 * compile's `dot_scaled` stage.
 */
export function scaledPlan(f: Func, whyNot?: (op: Op) => string | undefined): { keep: (op: Op) => boolean; text: string } {
  const ops = scaledOps(f.body);
  const kept = new Set<Op>();
  const lines = ops.map((o, i) => {
    const { aFormat, bFormat } = (o as Op<'dot_scaled'>).attrs;
    const name = `dot_scaled #${i} (${aFormat} x ${bFormat})`;
    if (!whyNot) return `${name}: emulated (no block-scaled tensor cores on this target)`;
    const why = whyNot(o);
    if (why === undefined) {
      kept.add(o);
      return `${name}: native, tcgen05 block-scaled kind`;
    }
    return `${name}: emulated (${why})`;
  });
  return { keep: (o) => kept.has(o), text: lines.map((l) => `${l}\n`).join('') };
}
