// Greedy shrinking of a failing Program: drop outputs, cut nodes nobody reads, replace a node by
// one of its operands (or a constant), then shrink the launch (grid, block, warps, trips, n).
// A candidate is kept when it still fails in the same way (same status; same device for errors).
import { check, type CheckResult } from './check.js';
import { operands, type Node, type Output, type Program } from './program.js';

const kindOf = (r: CheckResult): string => (r.status === 'error' ? `error:${r.device}` : r.status);

/** Drops nodes no output reads (directly or not) and renumbers; loads of inputs are kept in place. */
export function prune(p: Program): Program {
  const live = new Set<number>();
  const visit = (i: number): void => {
    if (live.has(i)) return;
    live.add(i);
    for (const j of operands(p.nodes[i]!)) visit(j);
  };
  for (const o of p.outputs) visit(o.node);
  const map = new Map<number, number>();
  const nodes: Node[] = [];
  p.nodes.forEach((n, i) => {
    if (!live.has(i)) return;
    map.set(i, nodes.length);
    nodes.push(renumber(n, (j) => map.get(j)!));
  });
  const outputs = p.outputs.map((o) => ({ ...o, node: map.get(o.node)! }) as Output);
  return { ...p, nodes, outputs };
}

function renumber(n: Node, f: (i: number) => number): Node {
  switch (n.op) {
    case 'load': case 'iota': case 'const': return n;
    case 'unary': case 'cast': case 'reduce': case 'scan': return { ...n, a: f(n.a) };
    case 'binary': case 'cmp': case 'loop': case 'if': case 'dot': return { ...n, a: f(n.a), b: f(n.b) };
    case 'where': return { ...n, c: f(n.c), a: f(n.a), b: f(n.b) };
  }
}

/** Every program one step smaller than `p`. */
function* candidates(p: Program): Generator<Program> {
  if (p.outputs.length > 1) for (let k = 0; k < p.outputs.length; k++) yield prune({ ...p, outputs: p.outputs.filter((_, i) => i !== k) });
  for (let i = p.nodes.length - 1; i >= 0; i--) {
    const n = p.nodes[i]!;
    // node i becomes a copy of one of its operands j (< i, so the copy's operands are valid too)
    for (const j of operands(n)) yield prune({ ...p, nodes: p.nodes.map((m, k) => (k === i ? p.nodes[j]! : m)) });
  }
  if (p.grid > 1) yield { ...p, grid: 1, n: Math.min(p.n, p.block) };
  if (p.block > 2) yield { ...p, block: p.block / 2, grid: p.grid, n: Math.min(p.n, (p.block / 2) * p.grid), nodes: p.nodes.map((m) => ('rows' in m && m.rows > p.block / 2 ? { ...m, rows: p.block / 2 } : m)) };
  if (p.numWarps > 1) yield { ...p, numWarps: 1 };
  if (p.trips > 1) yield { ...p, trips: 1 };
  if (p.n < p.block * p.grid) yield { ...p, n: p.block * p.grid };
}

/** Shrinks while each step still fails the same way; returns the smallest failing program found. */
export async function shrink(p: Program, first: CheckResult, opts: Parameters<typeof check>[1] = {}, budget = 300): Promise<{ program: Program; result: CheckResult }> {
  const want = kindOf(first);
  let best = prune(p), result = first;
  for (let steps = 0, progress = true; progress && steps < budget;) {
    progress = false;
    for (const c of candidates(best)) {
      if (++steps > budget) break;
      let r: CheckResult;
      try {
        r = await check(c, opts);
      } catch {
        continue; // ill-typed after the edit
      }
      if (kindOf(r) === want) {
        best = c;
        result = r;
        progress = true;
        break;
      }
    }
  }
  return { program: best, result };
}
