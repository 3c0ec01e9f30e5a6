// cse: common subexpression elimination by value numbering. Two pure ops with the same kind,
// attributes, operands and result types compute the same values; the later one is dropped and
// its uses read the earlier one's results. Scopes follow regions: an op inside a loop body or
// an if branch may reuse a value from an enclosing block, but values defined inside a region
// are never reused outside it. Ops with regions (for, if, reduce, scan) are not merged.
import { isPure } from '../ir/effects.js';
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { formatAttrs, formatConst, opName } from '../ir/print.js';
import { Subst, withBody, withParts } from '../ir/rewrite.js';
import { typeToString } from '../ir/types.js';

const COMMUTATIVE = new Set(['binary.add', 'binary.mul', 'binary.min', 'binary.max', 'binary.and', 'binary.or', 'binary.xor', 'cmp.eq', 'cmp.ne']);

/** The value-numbering key of a pure op with already-substituted operands. */
function keyOf(op: Op): string {
  const name = opName(op);
  let ids = op.operands.map((v) => v.id);
  if (COMMUTATIVE.has(name)) ids = [...ids].sort((a, b) => a - b);
  const value = op.kind === 'const' ? formatConst((op as Op<'const'>).attrs.value) : '';
  return `${name} ${value} ${ids.join(',')} ${formatAttrs(op)} : ${op.results.map((r) => typeToString(r.type)).join(',')}`;
}

class Scope {
  private readonly table = new Map<string, Value[]>();
  constructor(private readonly parent?: Scope) {}
  lookup(key: string): Value[] | undefined {
    return this.table.get(key) ?? this.parent?.lookup(key);
  }
  add(key: string, results: Value[]): void {
    this.table.set(key, results);
  }
}

export function cse(f: Func): Func {
  const subst = new Subst();
  const block = (b: Block, scope: Scope): Block => {
    const ops: Op[] = [];
    for (const old of b.ops) {
      const op = withParts(old, old.operands.map((v) => subst.get(v)), old.regions.map((r) => block(r, new Scope(scope))));
      if (op.regions.length || !isPure(op)) {
        ops.push(op);
        continue;
      }
      const key = keyOf(op);
      const prev = scope.lookup(key);
      if (prev) {
        op.results.forEach((v, i) => subst.set(v, prev[i]!));
      } else {
        scope.add(key, op.results);
        ops.push(op);
      }
    }
    return { args: b.args, ops };
  };
  return withBody(f, block(f.body, new Scope()));
}
