// Which way the warps of a tensor-core dot's accumulator go (the warp grid WM x WN of the mma
// layout). Triton's MMAv2 rule (AccelerateMatmul.cpp, warpsPerTileV2), restated for our IR:
// - a dot chained to another dot (its result reaches another dot, or one of its operands comes
//   from one, through ops of the same block; as in attention: S = Q K^T, then P V with P from S)
//   puts its warps along M, so each row of the accumulator lives in one warp: the next dot's A
//   operand can be the accumulator's registers, and row statistics need no shared memory;
// - a dot whose result is reduced along N (a row max or sum) also puts its warps along M (the
//   reduction becomes lane shuffles only); reduced along M only: along N;
// - any other dot balances its m16 and n8 tiles per warp (the A fragment is 4 registers, B 2):
//   warps double along M while M/16 >= N/8 per warp, else along N.
import type { Block, Func, Op, Value } from '../ir/ops.js';

export type WarpPref = 'M' | 'N' | 'balanced';

/** Ops whose result is shape-for-shape their tile operands' (a reduction along a dim keeps its meaning through them). */
const SAME_SHAPE = new Set(['unary', 'binary', 'cmp', 'select', 'fma', 'cast', 'bitcast', 'hint']);

function* opsOf(b: Block): Generator<Op> {
  for (const op of b.ops) {
    yield op;
    for (const r of op.regions) yield* opsOf(r);
  }
}

/** The warp preference of every dot of `f`. */
export function dotWarpPrefs(f: Func): Map<Op, WarpPref> {
  const users = new Map<number, Op[]>();
  const def = new Map<number, Op>();
  const blockOf = new Map<Op, Block>();
  const index = (b: Block): void => {
    for (const op of b.ops) {
      blockOf.set(op, b);
      op.operands.forEach((v) => (users.get(v.id) ?? users.set(v.id, []).get(v.id)!).push(op));
      op.results.forEach((v) => def.set(v.id, op));
      op.regions.forEach(index);
    }
  };
  index(f.body);
  // the slice stays in the dot's block and does not cross loops, ifs or transposes (Triton's filter)
  const follows = (op: Op, home: Block): boolean =>
    blockOf.get(op) === home && op.kind !== 'for' && op.kind !== 'while' && op.kind !== 'if' && op.kind !== 'trans' && op.kind !== 'yield';

  const prefs = new Map<Op, WarpPref>();
  for (const dot of opsOf(f.body)) {
    if (dot.kind !== 'dot') continue;
    const home = blockOf.get(dot)!;
    let chained = false;
    const seen = new Set<Op>([dot]);
    const fwd: Value[] = [...dot.results];
    while (fwd.length && !chained) {
      for (const u of users.get(fwd.pop()!.id) ?? []) {
        if (seen.has(u) || !follows(u, home)) continue;
        seen.add(u);
        if (u.kind === 'dot') chained = true;
        fwd.push(...u.results);
      }
    }
    const bwd: Value[] = [...dot.operands];
    while (bwd.length && !chained) {
      const d = def.get(bwd.pop()!.id);
      if (!d || seen.has(d) || !follows(d, home)) continue;
      seen.add(d);
      if (d.kind === 'dot') chained = true;
      bwd.push(...d.operands);
    }
    prefs.set(dot, chained ? 'M' : reducedPref(dot, users));
  }
  return prefs;
}

/** 'M' when the dot's result (through same-shape ops) is reduced along N, 'N' when only along M. */
function reducedPref(dot: Op, users: Map<number, Op[]>): WarpPref {
  const axes = new Set<number>();
  const seen = new Set<Op>();
  const work: Value[] = [dot.results[0]!];
  while (work.length) {
    for (const u of users.get(work.pop()!.id) ?? []) {
      if (seen.has(u)) continue;
      seen.add(u);
      if (u.kind === 'reduce') axes.add((u as Op<'reduce'>).attrs.axis);
      else if (SAME_SHAPE.has(u.kind)) work.push(...u.results);
    }
  }
  return axes.has(1) ? 'M' : axes.has(0) ? 'N' : 'balanced';
}
