// Memory writes in a loop body, for the pipeliners (pipeline.ts: the cp.async ring; codegen/
// lower_tma_ring.ts: the TMA ring). Both issue a load of iteration i+D (D = 1..numStages-1)
// before the body of iteration i runs, so before that body's stores, atomics and descriptor
// stores, and before those of the D-1 iterations after it. docs/semantics.md promises program
// order: a load sees every earlier store of its program. So a load may be pipelined across a
// write only when the two provably touch different bytes, and Tessera proves no such thing: two
// pointer parameters may be the same buffer (or overlapping views of one), and it does not
// compare index ranges of one base. A loop that writes global memory therefore keeps its loads
// as they are, in order (docs/compiler.md, "Software pipelining"). Triton 3.8's pipeliner checks
// nothing here and reads stale data (test/e2e/pipeline_raw.test.ts).
import { isPure } from '../ir/effects.js';
import type { Block, Op } from '../ir/ops.js';

/** Ops that write global memory. */
const WRITES = new Set(['store', 'atomic_rmw', 'atomic_cas', 'desc_store']);
/** Impure ops that write no memory a load can read (anything else impure counts as a write). */
const NO_WRITE = new Set(['load', 'desc_load', 'print', 'assert', 'yield', 'return']);

const mayWrite = (op: Op): boolean =>
  WRITES.has(op.kind) || (!op.regions.length && !isPure(op) && !NO_WRITE.has(op.kind));

/** The first op of `body` (regions included, in program order) that may write global memory. */
export function loopWriter(body: Block): Op | undefined {
  for (const op of body.ops) {
    if (mayWrite(op)) return op;
    for (const r of op.regions) {
      const w = loopWriter(r);
      if (w) return w;
    }
  }
  return undefined;
}

/** How a note names the writer: its kind, result or source line. */
export function describeWriter(w: Op): string {
  const at = w.loc ? ` at ${w.loc.file}:${w.loc.line}` : w.results[0] ? ` %${w.results[0].id}` : '';
  return `the loop also writes memory (${w.kind}${at}) that it may read: loads stay in program order (no alias proof)`;
}
