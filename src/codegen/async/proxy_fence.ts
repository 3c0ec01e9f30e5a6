// Generic-proxy global writes before a TMA load (PTX ISA, "Proxies" in the memory consistency
// model): st.global and atomics go through the generic proxy, cp.async.bulk.tensor reads global
// memory through the async proxy, and a barrier alone does not order the two; the writing threads
// need fence.proxy.async.global before the barrier the issuing thread waits on. docs/semantics.md
// promises program order, so a TMA load that some write of the program may precede (before it in
// program order, or anywhere in an enclosing loop, whose previous iteration came first) gets the
// fence. The sim makes every global write visible to every proxy at once: it cannot show a
// missing fence (checked on the PTX: test/e2e/warp_specialize_order.test.ts).
import type { Block, Op } from '../../ir/ops.js';
import { loopWriter } from '../../compiler/loop_writers.js';
import type { Lowering } from '../context.js';

/** True when a write of global memory may run before `op` in `body` (or `op` is absent: assume so). */
function writePrecedes(body: Block, op: Op): boolean | undefined {
  for (let i = 0; i < body.ops.length; i++) {
    const o = body.ops[i]!;
    if (o === op) return loopWriter({ ...body, ops: body.ops.slice(0, i) }) !== undefined;
    for (const r of o.regions) {
      const inner = writePrecedes(r, op);
      if (inner === undefined) continue;
      if (inner || loopWriter({ ...body, ops: body.ops.slice(0, i) })) return true;
      // a loop's earlier iteration (any of its regions) runs before this one
      return (o.kind === 'for' || o.kind === 'while') && o.regions.some((x) => loopWriter(x) !== undefined);
    }
  }
  return undefined;
}

/** Emits fence.proxy.async.global when a global write of the kernel may precede the TMA load `op`. */
export function fenceGlobalWrites(cx: Lowering, op: Op): void {
  if (writePrecedes(cx.func.body, op) === false) return;
  cx.emit('// the program\'s earlier global writes (generic proxy), ordered before the TMA reads (async proxy)');
  cx.emit('fence.proxy.async.global;');
}
