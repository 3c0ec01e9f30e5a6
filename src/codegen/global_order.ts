// Program order of global memory between the threads of one program. docs/semantics.md promises
// that tile ops run whole and in order, so a load sees every earlier store of its program; but a
// tile's lanes are spread over the CTA's threads, and nothing orders one thread's st.global with
// another thread's later ld.global (or an earlier ld.global with a later st.global) but a CTA
// barrier: bar.sync also makes the memory accesses of every thread before it performed for every
// thread after it (membar.cta semantics, PTX ISA "barrier"). This pass finds the memory ops that
// need one in front of them:
//   - after a write (store, atomic, descriptor store), before any later access (load, store,
//     atomic, descriptor op) unless each of its elements is provably accessed by the thread that
//     wrote it: the same pointer tile, in the same layout, with no replicated copies (a replica
//     reads what the first copy wrote), and the same mask (or an unmasked write);
//   - after any access, before a later write through a pointer with the same root (the same
//     pointer parameter, or one the analysis cannot trace), on the same condition. Pointers rooted
//     in two different parameters are taken to be two buffers here (docs/semantics.md, "Memory"):
//     kernels load their inputs and store their outputs, and a barrier before every output store
//     would cost every kernel.
// A loop's back edge makes the next iteration's accesses follow this one's (iterated to a fixed
// point; a loop whose body must follow what precedes it gets its barrier before the loop); an
// `if`'s two branches both follow what precedes it. Conditions and bounds are scalars,
// so the barriers are in uniform control flow (see lower_control.ts). Ops that already start with
// a barrier (descriptor ops) or end with one (scalar atomics broadcast their old value through
// shared memory after a bar.sync) clear what is pending at that point.
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { walkOps } from '../ir/walk.js';
import type { LayoutPlan } from '../compiler/layout_assign.js';
import { blockedOf, ctaTile, parentShape, sameLayout, type Layout } from '../compiler/layout.js';

const WRITES = new Set(['store', 'atomic_rmw', 'atomic_cas', 'desc_store']);
const READS = new Set(['load', 'desc_load']);

interface Pending {
  readonly op: Op;
  readonly write: boolean;
}
type State = Map<Op, Pending>;

/** The memory ops of `f` that must be preceded by a CTA barrier (bar.sync). */
export function globalBarriers(f: Func, plan: LayoutPlan): Set<Op> {
  const a = new Analysis(f, plan);
  a.block(f.body, new Map());
  return a.barriers;
}

class Analysis {
  readonly barriers = new Set<Op>();
  private readonly def = new Map<number, Op>();
  /** Loop-carried region args: the for op and the carried index. */
  private readonly carried = new Map<number, { loop: Op; k: number }>();
  private readonly params: Set<number>;

  constructor(f: Func, private readonly plan: LayoutPlan) {
    this.params = new Set(f.body.args.map((v) => v.id));
    walkOps(f.body, (op) => {
      for (const r of op.results) this.def.set(r.id, op);
      if (op.kind === 'for') op.regions[0]!.args.slice(1).forEach((v, k) => this.carried.set(v.id, { loop: op, k }));
    });
  }

  /** Runs `b` from the pending accesses `s`; returns those pending at its end. */
  block(b: Block, s: State): State {
    for (const op of b.ops) s = this.op(op, s);
    return s;
  }

  private op(op: Op, s: State): State {
    if (op.kind === 'for') {
      // an access in the body that must follow what precedes the loop: one barrier before the
      // loop rather than one in every iteration (and before a pipeline's prologue copies)
      if (s.size && this.bodyConflicts(op, s)) {
        this.barriers.add(op);
        s = new Map();
      }
      // the body runs after what precedes the loop and after its own previous iteration
      const entry = new Map(s);
      for (let guard = 0; guard < 64; guard++) {
        const exit = this.block(op.regions[0]!, new Map(entry));
        const before = entry.size;
        exit.forEach((p, k) => entry.set(k, p));
        if (entry.size === before) return entry; // zero iterations, or any number
      }
      throw new Error('global memory order: the loop analysis did not converge');
    }
    if (op.kind === 'if') {
      const out: State = new Map();
      for (const r of op.regions) this.block(r, new Map(s)).forEach((p, k) => out.set(k, p));
      return out;
    }
    const write = WRITES.has(op.kind);
    if (!write && !READS.has(op.kind)) return s;
    if (op.kind === 'desc_load' || op.kind === 'desc_store') s = new Map(); // lower_tma.ts: bar.sync first
    else if ([...s.values()].some((p) => this.conflict(p, op, write))) {
      this.barriers.add(op);
      s = new Map();
    }
    const ptr = op.operands[0]!;
    if ((op.kind === 'atomic_rmw' || op.kind === 'atomic_cas') && ptr.type.shape.length === 0) return new Map(); // bar.sync after it
    const out = new Map(s);
    out.set(op, { op, write });
    return out;
  }

  private bodyConflicts(loop: Op, s: State): boolean {
    let hit = false;
    walkOps(loop.regions[0]!, (m) => {
      const w = WRITES.has(m.kind);
      if (!hit && (w || READS.has(m.kind))) hit = [...s.values()].some((p) => this.conflict(p, m, w));
    });
    return hit;
  }

  /** Whether `op` (a write when `write`) may touch, from another thread, what `p` accessed. */
  private conflict(p: Pending, op: Op, write: boolean): boolean {
    if (!p.write && !write) return false; // two reads
    if (this.sameThread(p.op, op)) return false;
    if (!write) return true; // a write, then a read: any two pointers may alias
    // a read or a write, then a write: only through the same buffer
    const ra = this.root(p.op.operands[0]!);
    const rb = this.root(op.operands[0]!);
    return !(this.params.has(ra) && this.params.has(rb) && ra !== rb);
  }

  /** Each element `b` accesses is accessed by `a` from the same thread (and the same address). */
  private sameThread(a: Op, b: Op): boolean {
    if (a.kind.startsWith('desc_') || b.kind.startsWith('desc_')) return false;
    const pa = a.operands[0]!;
    const pb = b.operands[0]!;
    if (pa.id !== pb.id) return false;
    const la = this.accessLayout(a);
    const lb = this.accessLayout(b);
    if (!la || !lb || !sameLayout(la, lb) || replicated(la, pa.type.shape)) return false;
    // a masked write leaves lanes another copy of the address (another thread) may have written
    const ma = this.mask(a);
    return ma === undefined || ma === this.mask(b);
  }

  /** The layout a memory op reads its pointer operand in (as lower_memory.ts does). */
  private accessLayout(op: Op): Layout | undefined {
    const own = this.plan.layouts.get(op.operands[0]!.id);
    if (op.kind === 'atomic_rmw' || op.kind === 'atomic_cas') return own;
    return this.plan.expected.get(op)?.[0] ?? own;
  }

  private mask(op: Op): number | undefined {
    const a = op.attrs as { hasMask?: boolean };
    if (!a.hasMask) return undefined;
    const i = op.kind === 'load' ? 1 : 2; // load (ptr, mask, other); store/atomic_rmw (ptr, value, mask)
    return op.operands[i]!.id;
  }

  /** The value a pointer is derived from: a parameter, or the first value the trace cannot see through. */
  private root(v: Value, seen = new Set<number>()): number {
    if (seen.has(v.id)) return v.id; // (no memo: a value inside a cycle sees the partial answer)
    seen.add(v.id);
    let r = v.id;
    const d = this.def.get(v.id);
    const c = this.carried.get(v.id);
    if (d && THROUGH.has(d.kind)) r = this.root(d.operands[0]!, seen);
    else if (c) {
      // a carried pointer advanced by the loop keeps the root of its initial value
      const init = this.root(c.loop.operands[3 + c.k]!, seen);
      const body = c.loop.regions[0]!;
      const next = body.ops[body.ops.length - 1]!.operands[c.k]!;
      const nr = this.root(next, seen);
      if (nr === init || nr === v.id) r = init;
    }
    return r;
  }
}

/** Ops whose pointer result addresses the buffer of their first operand. */
const THROUGH = new Set(['addptr', 'splat', 'broadcast', 'expand_dims', 'reshape', 'trans', 'hint']);

/** Whether a layout holds copies of some element in several threads (a scalar: every thread). */
function replicated(l: Layout, shape: readonly number[]): boolean {
  const b = blockedOf(l);
  if (!b) return true;
  const ps = parentShape(l, shape);
  const cta = ctaTile(b);
  return ps.some((n, d) => cta[d]! > n);
}
