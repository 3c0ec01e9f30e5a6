// carried: loop-carried pointers and integers that advance by a loop-invariant amount each
// iteration (Triton's tutorial matmul: `return [acc, pa.add(BK), pb.add(BK * N)]`) read, in the
// body, as closed forms of the induction variable:
//     x_j = x_init + j * d,   j = (iv - lb) / step   (the iteration number, 0-based)
// so that the pipeliner (pipeline.ts, codegen/pipeline/lower_tma_ring.ts), which prefetches loads whose
// address is computed from the induction variable and values defined before the loop, takes them.
// The carried chain itself is kept as it was (the yield still reads `x + d`), so the value the
// loop returns for a use after it is computed exactly as the user wrote it.
//
// Exactness: integer adds wrap, so x_init + j*d in the carried value's own type equals j wrapped
// additions of d (mod 2^n). A pointer advances by its offset sign-extended to 64 bits each time,
// so the closed form multiplies in i64 (j and d as i64 scalars): no i32 overflow where the walk
// had none. j itself is computed in i64 too (iv - lb cannot overflow there).
//
// Which loops: innermost `for`s with a tensor-core candidate (a `dot` in the body) and no memory
// writes (loop_writers.ts: those are never pipelined, so they keep their code as written). Which
// values: a carried x whose yielded value is `addptr(x, d)` (d a scalar, a splat of a scalar or a
// constant), or an i32/i64 `x + d` / `d + x`, with d defined outside the loop (licm has hoisted
// everything invariant). Anything else, an amount that varies with the iteration included, stays
// loop-carried, and its loads are not pipelined (the 'pipeline' stage says why).
import type { Block, ConstValue, Func, Op, OpAttrs, OpKind, Value } from '../ir/ops.js';
import { withBody, withParts } from '../ir/rewrite.js';
import { isPtr, type DType, type TileType } from '../ir/types.js';
import { loopWriter } from './loop_writers.js';
import { maxValueId, walkOps } from '../ir/walk.js';

const INT_CARRIED = new Set(['i32', 'i64']);

export function closeCarriedInductions(f: Func): Func {
  let next = maxValueId(f) + 1;
  const defs = new Map<number, Op>();
  walkOps(f.body, (op) => op.results.forEach((r) => defs.set(r.id, op)));

  const rewriteBlock = (b: Block): Block => {
    const ops: Op[] = [];
    for (const old of b.ops) {
      const op = old.regions.length ? withParts(old, old.operands, old.regions.map(rewriteBlock)) : old;
      if (op.kind === 'for') ops.push(...rewriteLoop(op as Op<'for'>));
      else ops.push(op);
    }
    return { args: b.args, ops };
  };

  function rewriteLoop(loop: Op<'for'>): Op[] {
    const body = loop.regions[0]!;
    const yieldOp = body.ops[body.ops.length - 1];
    if (!yieldOp || yieldOp.kind !== 'yield') return [loop];
    if (!body.ops.some((o) => o.kind === 'dot') || body.ops.some(hasFor)) return [loop];
    if (loopWriter(body)) return [loop];
    const inBody = new Set<number>(body.args.map((a) => a.id));
    walkOps(body, (op) => {
      op.results.forEach((r) => inBody.add(r.id));
      op.regions.forEach((rg) => rg.args.forEach((a) => inBody.add(a.id)));
    });
    const useCount = new Map<number, number>();
    walkOps(body, (op) => op.operands.forEach((v) => useCount.set(v.id, (useCount.get(v.id) ?? 0) + 1)));

    const pre: Op[] = []; // before the loop: loop-invariant casts and constants
    const head: Op[] = []; // at the top of the body: the iteration number and the closed forms
    const mk = <K extends OpKind>(into: Op[], kind: K, operands: Value[], type: TileType, attrs: OpAttrs[K]): Value => {
      const r: Value = { id: next++, type };
      into.push({ kind, operands, results: [r], attrs, regions: [], ...(loop.loc ? { loc: loop.loc } : {}) } as Op);
      return r;
    };
    const scalar = (elem: DType): TileType => ({ elem, shape: [] });
    const toI64 = (into: Op[], v: Value): Value => (v.type.elem === 'i64' ? v : mk(into, 'cast', [v], scalar('i64'), { to: 'i64' }));
    const cst = (into: Op[], elem: DType, n: number | bigint): Value =>
      mk(into, 'const', [], scalar(elem), { value: (elem === 'i64' ? BigInt(n) : Number(n)) as ConstValue });

    let iter: Value | undefined; // j = (iv - lb) / step, i64, built on first need
    const iteration = (): Value => {
      if (iter) return iter;
      const [lb, , step] = loop.operands as [Value, Value, Value];
      const diff = mk(head, 'binary', [toI64(head, body.args[0]!), toI64(pre, lb)], scalar('i64'), { fn: 'sub', precise: false });
      const s = constValue(step);
      if (s === 1) return (iter = diff);
      // iv - lb is a non-negative multiple of step: a power of two divides by a shift
      if (s !== undefined && s > 0 && Number.isInteger(Math.log2(s))) return (iter = mk(head, 'binary', [diff, cst(pre, 'i64', Math.log2(s))], scalar('i64'), { fn: 'shr', precise: false }));
      return (iter = mk(head, 'binary', [diff, toI64(pre, step)], scalar('i64'), { fn: 'div', precise: false }));
    };
    const constValue = (v: Value): number | undefined => {
      const d = defs.get(v.id);
      if (d?.kind !== 'const') return undefined;
      const n = Number((d as Op<'const'>).attrs.value);
      return Number.isSafeInteger(n) ? n : undefined;
    };
    /** The loop-invariant scalar a pointer advances by (d itself, what it splats, or its constant), built before the loop. */
    const scalarAmount = (d: Value): Value | undefined => {
      if (inBody.has(d.id)) return undefined;
      if (!d.type.shape.length) return d;
      const def = defs.get(d.id);
      if (def?.kind === 'splat' && !inBody.has(def.operands[0]!.id)) return def.operands[0]!;
      if (def?.kind === 'const') {
        const v = (def as Op<'const'>).attrs.value;
        return typeof v === 'boolean' ? undefined : cst(pre, d.type.elem as DType, v);
      }
      return undefined;
    };

    const subst = new Map<number, Value>();
    const keepIn = new Set<Op>(); // the ops that advance the carried values keep reading them
    body.args.slice(1).forEach((x, i) => {
      const init = loop.operands[3 + i]!;
      const y = yieldOp.operands[i]!;
      const adv = body.ops.find((o) => o.results[0]?.id === y.id);
      if (!adv || (useCount.get(x.id) ?? 0) <= 1) return; // nothing but the advance reads x
      let closed: Value | undefined;
      if (adv.kind === 'addptr' && adv.operands[0]!.id === x.id && isPtr(x.type.elem)) {
        const s = scalarAmount(adv.operands[1]!);
        if (!s) return;
        const off = mk(head, 'binary', [iteration(), toI64(pre, s)], scalar('i64'), { fn: 'mul', precise: false });
        const offT = x.type.shape.length ? mk(head, 'splat', [off], { elem: 'i64', shape: [...x.type.shape] }, {}) : off;
        closed = mk(head, 'addptr', [init, offT], x.type, {});
      } else if (adv.kind === 'binary' && (adv as Op<'binary'>).attrs.fn === 'add' && INT_CARRIED.has(x.type.elem)) {
        const [a, b] = adv.operands as [Value, Value];
        const d = a.id === x.id ? b : b.id === x.id ? a : undefined;
        if (!d || inBody.has(d.id)) return;
        const elem = x.type.elem as DType;
        let j = elem === 'i64' ? iteration() : mk(head, 'cast', [iteration()], scalar(elem), { to: elem });
        if (x.type.shape.length) j = mk(head, 'splat', [j], x.type, {});
        const prod = mk(head, 'binary', [j, d], x.type, { fn: 'mul', precise: false });
        closed = mk(head, 'binary', [init, prod], x.type, { fn: 'add', precise: false });
      }
      if (!closed) return;
      subst.set(x.id, closed);
      keepIn.add(adv);
    });
    if (!subst.size) return [loop];
    const redirect = (b: Block): Block => ({
      args: b.args,
      ops: b.ops.map((o) => (keepIn.has(o) ? o : withParts(o, o.operands.map((v) => subst.get(v.id) ?? v), o.regions.map(redirect)))),
    });
    const newBody = redirect(body);
    return [...pre, withParts(loop, loop.operands, [{ args: body.args, ops: [...head, ...newBody.ops] }])];
  }

  return withBody(f, rewriteBlock(f.body));
}

const hasFor = (op: Op): boolean => op.kind === 'for' || op.regions.some((r) => r.ops.some(hasFor));
