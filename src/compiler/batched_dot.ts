// Batched dots ([B,M,K] x [B,K,N] + [B,M,N], Triton's 3-D tl.dot) become B ordinary 2-D dots, so
// every dot lowering (mma.sync, wgmma, fma) and the pipeliner see only the 2-D form. Each operand
// is cut into its B matrices with existing ops: trans [B,R,C] -> [R,C,B], reshape B into log2(B)
// binary digits, then a tree of `split`s (the last dim, the lowest digit, first); the B results are
// joined back the same way round (join appends the lowest digit last), reshaped and transposed to
// [B,M,N]. B is a power of two (every tile dim is). The interpreter runs the 3-D dot directly (the
// reference), so the differential tests compare this rewrite against it.
//
// Why not the batch across warps as Triton lays it out: the 2-D dot lowerings already pick the
// best warp tiling for [M,N]; running the B products one after another on all warps keeps every
// tensor-core path (and its tests) as it is. The cost is the layout conversions of the cut and the
// join (through shared memory), once per dot; a loop that carries the accumulator carries its B
// matrices, so its cut and join happen once, outside the loop. An accumulator that is a constant (a
// fresh zero) is not cut: each product gets its own 2-D constant.
import type { Block, ConstValue, Func, Op, OpAttrs, OpKind, Value } from '../ir/ops.js';
import type { TileType } from '../ir/types.js';
import { withBody } from '../ir/rewrite.js';
import { maxValueId, walkOps } from '../ir/walk.js';

export function splitBatchedDots(f: Func): Func {
  let any = false;
  const defs = new Map<number, Op>();
  const uses = new Map<number, number>();
  walkOps(f.body, (op) => {
    if (isBatched(op)) any = true;
    op.results.forEach((r) => defs.set(r.id, op));
    op.operands.forEach((v) => uses.set(v.id, (uses.get(v.id) ?? 0) + 1));
  });
  if (!any) return f;
  let next = maxValueId(f) + 1;
  const fresh = (type: TileType): Value => ({ id: next++, type });

  const block = (b: Block): Block => {
    const ops: Op[] = [];
    for (const o of b.ops) {
      if (isBatched(o)) expand(o as Op<'dot'>, ops);
      else if (o.kind === 'for') splitLoop(o as Op<'for'>, ops);
      else ops.push(o.regions.length ? { ...o, regions: o.regions.map(block) } : o);
    }
    return { args: b.args, ops };
  };

  const emitter = (out: Op[], loc: Op['loc']) => <K extends OpKind>(kind: K, operands: Value[], types: TileType[], attrs: OpAttrs[K], results?: Value[]): Value[] => {
    const rs = results ?? types.map(fresh);
    out.push({ kind, operands, results: rs, attrs, regions: [], ...(loc ? { loc } : {}) } as Op);
    return rs;
  };
  const ty = (v: Value, shape: number[]): TileType => ({ elem: v.type.elem, shape });

  /** The B matrices [R,C] of x [B,R,C], in batch order (a constant: B 2-D constants). */
  const cut = (x: Value, out: Op[], loc: Op['loc']): Value[] => {
    const emit = emitter(out, loc);
    const [B, R, C] = x.type.shape as [number, number, number];
    const def = defs.get(x.id);
    if (def?.kind === 'const') return Array.from({ length: B }, () => emit('const', [], [ty(x, [R, C])], { value: (def as Op<'const'>).attrs.value as ConstValue })[0]!);
    if (B === 1) return emit('reshape', [x], [ty(x, [R, C])], { shape: [R, C], allowReorder: false });
    const digits = Math.log2(B);
    let t = emit('trans', [x], [ty(x, [R, C, B])], { perm: [1, 2, 0] })[0]!;
    if (digits > 1) t = emit('reshape', [t], [ty(t, [R, C, ...Array<number>(digits).fill(2)])], { shape: [R, C, ...Array<number>(digits).fill(2)], allowReorder: false })[0]!;
    // t's trailing dims are the batch index's binary digits, the lowest last
    const parts = (v: Value): Value[] => {
      if (v.type.shape.length === 2) return [v];
      const half = ty(v, v.type.shape.slice(0, -1));
      const [lo, hi] = emit('split', [v], [half, half], {});
      const pl = parts(lo!), ph = parts(hi!);
      return pl.flatMap((l, i) => [l, ph[i]!]);
    };
    return parts(t);
  };

  /** `result` [B,M,N] from the B products [M,N] in batch order (the lowest digit joined last). */
  const joinAll = (prods: Value[], result: Value, out: Op[], loc: Op['loc']): void => {
    const emit = emitter(out, loc);
    const [B, M, N] = result.type.shape as [number, number, number];
    if (B === 1) return void emit('reshape', [prods[0]!], [], { shape: [1, M, N], allowReorder: false }, [result]);
    const join = (vs: Value[]): Value => {
      if (vs.length === 1) return vs[0]!;
      const lo = join(vs.filter((_, i) => i % 2 === 0)), hi = join(vs.filter((_, i) => i % 2 === 1));
      return emit('join', [lo, hi], [ty(lo, [...lo.type.shape, 2])], {})[0]!;
    };
    let j = join(prods);
    if (B > 2) j = emit('reshape', [j], [ty(j, [M, N, B])], { shape: [M, N, B], allowReorder: false })[0]!;
    emit('trans', [j], [], { perm: [2, 0, 1] }, [result]);
  };

  /** The B 2-D dots of a batched dot (accumulators `accs` if given, else cut from its acc); its result joined back. */
  const expand = (op: Op<'dot'>, out: Op[], accs?: Value[]): Value[] => {
    const [a, b, acc] = op.operands as [Value, Value, Value];
    const [M, N] = acc.type.shape.slice(1) as [number, number];
    const cs = accs ?? cut(acc, out, op.loc);
    const as = cut(a, out, op.loc), bs = cut(b, out, op.loc);
    const emit = emitter(out, op.loc);
    const prods = as.map((ai, i) => emit('dot', [ai, bs[i]!, cs[i]!], [ty(acc, [M, N])], { ...op.attrs })[0]!);
    joinAll(prods, op.results[0]!, out, op.loc);
    return prods;
  };

  /**
   * A loop that carries a batched dot's accumulator (acc = dot(a, b, acc) each iteration, the
   * tutorial shape) carries its B 2-D accumulators instead, so the cut and the join happen once,
   * around the loop, not in every iteration (where they would keep the accumulator in two layouts).
   */
  const splitLoop = (loop: Op<'for'>, out: Op[]): void => {
    const body = loop.regions[0]!;
    const yieldOp = body.ops[body.ops.length - 1]!;
    const n = loop.results.length;
    const split = new Map<number, Op<'dot'>>(); // carried index -> the dot that advances it
    for (let i = 0; i < n; i++) {
      const x = body.args[1 + i]!;
      const d = body.ops.find((o) => isBatched(o) && o.results[0]!.id === yieldOp.operands[i]!.id);
      if (d && d.operands[2]!.id === x.id && (uses.get(x.id) ?? 0) === 1) split.set(i, d as Op<'dot'>);
    }
    if (!split.size) return void out.push({ ...loop, regions: loop.regions.map(block) });
    const operands = loop.operands.slice(0, 3), args = [body.args[0]!], results: Value[] = [];
    const parts = new Map<number, Value[]>(); // carried index -> its B body args
    const after: [Value[], Value][] = []; // the loop's B results -> the 3-D result they form
    for (let i = 0; i < n; i++) {
      if (!split.has(i)) {
        operands.push(loop.operands[3 + i]!), args.push(body.args[1 + i]!), results.push(loop.results[i]!);
        continue;
      }
      const inits = cut(loop.operands[3 + i]!, out, loop.loc);
      operands.push(...inits);
      const ps = inits.map((v) => fresh(v.type)), rs = inits.map((v) => fresh(v.type));
      args.push(...ps), results.push(...rs), parts.set(i, ps), after.push([rs, loop.results[i]!]);
    }
    const ops: Op[] = [];
    const prodsOf = new Map<number, Value[]>();
    for (const o of body.ops.slice(0, -1)) {
      const i = [...split].find(([, d]) => d === o)?.[0];
      if (i !== undefined) prodsOf.set(i, expand(o as Op<'dot'>, ops, parts.get(i)));
      else ops.push(...block({ args: [], ops: [o] }).ops);
    }
    const yielded = yieldOp.operands.flatMap((v, i) => prodsOf.get(i) ?? [v]);
    ops.push({ ...yieldOp, operands: yielded });
    out.push({ ...loop, operands, results, regions: [{ args, ops }] });
    for (const [rs, r] of after) joinAll(rs, r, out, loop.loc);
  };

  return withBody(f, block(f.body));
}

const isBatched = (op: Op): boolean => op.kind === 'dot' && op.operands[0]!.type.shape.length === 3;
