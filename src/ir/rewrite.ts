// Small tools for passes that build a new Func from an old one without mutating it: a value
// substitution (uses of a replaced value are redirected to its replacement) and op copying.
import type { Block, Func, Op, Value } from './ops.js';

/** Maps replaced values to their replacements, following chains (a -> b -> c reads a as c). */
export class Subst {
  private readonly map = new Map<number, Value>();
  set(from: Value, to: Value): void {
    if (from.id !== to.id) this.map.set(from.id, to);
  }
  get(v: Value): Value {
    let cur = v;
    for (let next = this.map.get(cur.id); next; next = this.map.get(cur.id)) cur = next;
    return cur;
  }
}

/** A copy of `op` with new operands and regions (same kind, attrs, results and loc). */
export function withParts(op: Op, operands: Value[], regions: Block[] = op.regions): Op {
  // Spelled out rather than `{ ...op }`: object spread was a hot spot of the passes.
  const o: { -readonly [P in keyof Op]: Op[P] } = { kind: op.kind, operands, results: op.results, attrs: op.attrs, regions };
  if ('loc' in op) o.loc = op.loc;
  return o;
}

/** A copy of `f` with a new body. */
export const withBody = (f: Func, body: Block): Func => ({ ...f, body });
