// dce: dead code elimination, one backward walk with a set of live value ids.
// - A pure op none of whose results is used is removed (loads are kept: they may fault).
// - `if`: results nobody uses are removed (with the matching yield operands); an `if` with no
//   side effects in its regions and no used result disappears.
// - `for`: a carried value is kept when its result is used after the loop or the body's live
//   ops read it (found by iterating to a fixed point); the others are removed from the inits,
//   the region args, the yield and the results. A side-effect-free loop with no used result
//   disappears. (Loops always terminate here: bounds are fixed when the loop starts.)
import { isPure } from '../ir/effects.js';
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { withBody } from '../ir/rewrite.js';

type Live = Set<number>;

/** Keeps the yield operands whose index is in `keep`. */
function trimYield(b: Block, keep: readonly number[]): Block {
  const y = b.ops.at(-1)!;
  const trimmed: Op = { ...y, operands: keep.map((i) => y.operands[i]!) };
  return { args: b.args, ops: [...b.ops.slice(0, -1), trimmed] };
}

/** Removes dead ops from `b` (walking backwards) and marks what the kept ops read as live. */
function dceBlock(b: Block, live: Live): Block {
  const kept: Op[] = [];
  for (let i = b.ops.length - 1; i >= 0; i--) {
    const op = rewriteOp(b.ops[i]!, live);
    if (op) kept.push(op);
  }
  return { args: b.args, ops: kept.reverse() };
}

const markUses = (vs: readonly Value[], live: Live): void => vs.forEach((v) => live.add(v.id));

/** The op with dead parts removed, or undefined when the whole op is dead. */
function rewriteOp(op: Op, live: Live): Op | undefined {
  const used = op.results.map((r) => live.has(r.id));
  const pure = isPure(op);
  if (pure && !used.some(Boolean)) return undefined;
  if (op.kind === 'if') return rewriteIf(op, used, live);
  if (op.kind === 'for') return rewriteFor(op, used, live);
  // Terminators, side effects and used pure ops: keep everything they read.
  const regions = op.regions.map((r) => dceBlock(r, live));
  markUses(op.operands, live);
  return { ...op, regions };
}

function rewriteIf(op: Op, used: boolean[], live: Live): Op {
  const keep = used.flatMap((u, i) => (u ? [i] : []));
  const regions = op.regions.map((r) => dceBlock(trimYield(r, keep), live));
  markUses(op.operands, live);
  return { ...op, results: keep.map((i) => op.results[i]!), regions };
}

function rewriteFor(op: Op, used: boolean[], live: Live): Op {
  const body = op.regions[0]!;
  const keep = new Set(used.flatMap((u, i) => (u ? [i] : [])));
  // Iterate: a carried value the live body reads must be carried, which may make more ops live.
  let newBody: Block;
  for (;;) {
    const idx = [...keep].sort((a, b) => a - b);
    newBody = dceBlock(trimYield(body, idx), live);
    const before = keep.size;
    body.args.slice(1).forEach((a, i) => {
      if (live.has(a.id)) keep.add(i);
    });
    if (keep.size === before) break;
  }
  const idx = [...keep].sort((a, b) => a - b);
  const operands = [...op.operands.slice(0, 3), ...idx.map((i) => op.operands[3 + i]!)];
  markUses(operands, live);
  const region: Block = { args: [body.args[0]!, ...idx.map((i) => body.args[1 + i]!)], ops: newBody.ops };
  return { ...op, operands, results: idx.map((i) => op.results[i]!), regions: [region] };
}

export function dce(f: Func): Func {
  return withBody(f, dceBlock(f.body, new Set()));
}
