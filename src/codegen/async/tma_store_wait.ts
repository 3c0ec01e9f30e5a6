// How long a descriptor store's thread waits for its TMA copies (PTX ISA "cp.async.bulk.wait_group"):
// `.read` waits only until the async proxy has read the shared tile; the global writes complete,
// visible to the waiting thread, only at a full wait_group (without `.read`), and to the other
// threads of the CTA after a barrier that follows it. docs/semantics.md promises program order (a
// load sees every earlier store of its program), so a store that some later op of the program may
// observe (a load, a store or atomic that must land after it, another descriptor op: any impure op
// but print/assert/yield/return, after it in program order or anywhere in an enclosing loop, whose
// next iteration follows) waits fully. A store with nothing after it waits with `.read`: its writes
// land by the kernel's end, before any later kernel or copy sees the memory.
import { isPure } from '../../ir/effects.js';
import type { Block, Func, Op } from '../../ir/ops.js';

/** Impure ops that touch no global memory. */
const NO_MEMORY = new Set(['print', 'assert', 'yield', 'return']);

function touchesGlobal(op: Op): boolean {
  if (op.regions.length) return op.regions.some((r) => r.ops.some(touchesGlobal));
  return !isPure(op) && !NO_MEMORY.has(op.kind);
}

/** The ops enclosing `target` (outermost first) with their blocks and indices; undefined if absent. */
function pathTo(block: Block, target: Op): { block: Block; index: number; op: Op }[] | undefined {
  for (let i = 0; i < block.ops.length; i++) {
    const op = block.ops[i]!;
    if (op === target) return [{ block, index: i, op }];
    for (const r of op.regions) {
      const inner = pathTo(r, target);
      if (inner) return [{ block, index: i, op }, ...inner];
    }
  }
  return undefined;
}

/** True when an op of `func` that may run after `store` may read or write global memory. */
export function globalAccessFollows(func: Func, store: Op): boolean {
  const path = pathTo(func.body, store);
  if (!path) return true; // not found: assume the worst
  if (path.some((p) => p.op.kind === 'for')) return true; // the next iteration (this store included)
  return path.some((p) => p.block.ops.slice(p.index + 1).some(touchesGlobal));
}
