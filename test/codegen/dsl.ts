// A terse wrapper over IRBuilder for writing test kernels by hand (the tracer in src/lang is the
// real front end; this keeps codegen tests independent of it).
import { IRBuilder } from '../../src/ir/builder.js';
import type { AtomicOp, BinaryFn, CmpPred, Func, Param, UnaryFn, Value } from '../../src/ir/ops.js';
import { ptrOf, tile, type DType, type ElemType } from '../../src/ir/types.js';

export class K {
  readonly b = new IRBuilder();
  line = 1;
  private at(): void {
    this.b.loc = { file: '/test/kernel.ts', line: this.line++, col: 1 };
  }
  private one(kind: Parameters<IRBuilder['op']>[0], ops: Value[], elem: ElemType, shape: readonly number[], attrs: object): Value {
    this.at();
    return this.b.op(kind, ops, [tile(elem, shape)], attrs as never).results[0]!;
  }
  pid(axis: 0 | 1 | 2 = 0): Value {
    return this.one('program_id', [], 'i32', [], { axis });
  }
  c(value: number | boolean, elem: DType = 'i32', shape: number[] = []): Value {
    return this.one('const', [], elem, shape, { value });
  }
  arange(n: number, start = 0): Value {
    return this.one('arange', [], 'i32', [n], { start, end: start + n });
  }
  splat(v: Value, shape: number[]): Value {
    return this.one('splat', [v], v.type.elem, shape, {});
  }
  bin(fn: BinaryFn, a: Value, b: Value): Value {
    return this.one('binary', [a, b], a.type.elem, a.type.shape, { fn, precise: false });
  }
  un(fn: UnaryFn, a: Value): Value {
    return this.one('unary', [a], a.type.elem, a.type.shape, { fn, precise: false });
  }
  cmp(pred: CmpPred, a: Value, b: Value): Value {
    return this.one('cmp', [a, b], 'bool', a.type.shape, { pred });
  }
  select(c: Value, a: Value, b: Value): Value {
    return this.one('select', [c, a, b], a.type.elem, a.type.shape, {});
  }
  cast(a: Value, to: DType): Value {
    return this.one('cast', [a], to, a.type.shape, { to });
  }
  expand(a: Value, axis: number): Value {
    const s = [...a.type.shape];
    s.splice(axis, 0, 1);
    return this.one('expand_dims', [a], a.type.elem, s, { axis });
  }
  broadcast(a: Value, shape: number[]): Value {
    return this.one('broadcast', [a], a.type.elem, shape, { shape });
  }
  trans(a: Value, perm: number[] = [1, 0]): Value {
    return this.one('trans', [a], a.type.elem, perm.map((p) => a.type.shape[p]!), { perm });
  }
  reshape(a: Value, shape: number[]): Value {
    return this.one('reshape', [a], a.type.elem, shape, { shape, allowReorder: false });
  }
  join(a: Value, b: Value): Value {
    return this.one('join', [a, b], a.type.elem, [...a.type.shape, 2], {});
  }
  split(a: Value): [Value, Value] {
    this.at();
    const t = tile(a.type.elem, a.type.shape.slice(0, -1));
    const r = this.b.op('split', [a], [t, t], {}).results;
    return [r[0]!, r[1]!];
  }
  addptr(p: Value, off: Value): Value {
    const pp = p.type.shape.length === off.type.shape.length ? p : this.splat(p, [...off.type.shape]);
    return this.one('addptr', [pp, off], p.type.elem, off.type.shape, {});
  }
  load(p: Value, mask?: Value, other?: Value): Value {
    const ops = [p, ...(mask ? [mask] : []), ...(other ? [other] : [])];
    const elem = p.type.elem.slice(4, -1) as DType;
    return this.one('load', ops, elem, p.type.shape, { hasMask: !!mask, hasOther: !!other, cache: '', eviction: '', volatile: false });
  }
  store(p: Value, v: Value, mask?: Value): void {
    this.at();
    this.b.op('store', [p, v, ...(mask ? [mask] : [])], [], { hasMask: !!mask, cache: '', eviction: '' });
  }
  atomic(op: AtomicOp, p: Value, v: Value, mask?: Value): Value {
    return this.one('atomic_rmw', [p, v, ...(mask ? [mask] : [])], v.type.elem, v.type.shape, { op, sem: 'acq_rel', scope: 'gpu', hasMask: !!mask });
  }
  cas(p: Value, cmp: Value, v: Value): Value {
    return this.one('atomic_cas', [p, cmp, v], v.type.elem, v.type.shape, { sem: 'relaxed', scope: 'gpu' });
  }
  /** reduce with a binary combiner over `axis`. */
  reduce(a: Value, axis: number, fn: 'add' | 'max' | 'min'): Value {
    this.at();
    const s = a.type.shape.filter((_, i) => i !== axis);
    const region = this.b.region([tile(a.type.elem), tile(a.type.elem)], ([x, y]) => {
      const r = this.b.op('binary', [x!, y!], [tile(a.type.elem)], { fn, precise: false }).results[0]!;
      this.b.op('yield', [r], [], {});
    });
    const kind = fn === 'add' ? 'sum' : fn;
    return this.b.op('reduce', [a], [tile(a.type.elem, s)], { axis, kind }, [region]).results[0]!;
  }
  /** argmax over `axis`: (value, index) pairs, ties to the lower index. */
  argmax(a: Value, idx: Value, axis: number): [Value, Value] {
    this.at();
    const s = a.type.shape.filter((_, i) => i !== axis);
    const e = a.type.elem;
    const region = this.b.region([tile(e), tile('i32'), tile(e), tile('i32')], ([av, ai, bv, bi]) => {
      const gt = this.b.op('cmp', [av!, bv!], [tile('bool')], { pred: 'gt' }).results[0]!;
      const eq = this.b.op('cmp', [av!, bv!], [tile('bool')], { pred: 'eq' }).results[0]!;
      const lo = this.b.op('cmp', [ai!, bi!], [tile('bool')], { pred: 'lt' }).results[0]!;
      const tie = this.b.op('binary', [eq, lo], [tile('bool')], { fn: 'and', precise: false }).results[0]!;
      const take = this.b.op('binary', [gt, tie], [tile('bool')], { fn: 'or', precise: false }).results[0]!;
      const v = this.b.op('select', [take, av!, bv!], [tile(e)], {}).results[0]!;
      const i = this.b.op('select', [take, ai!, bi!], [tile('i32')], {}).results[0]!;
      this.b.op('yield', [v, i], [], {});
    });
    const r = this.b.op('reduce', [a, idx], [tile(e, s), tile('i32', s)], { axis, kind: 'argmax' }, [region]).results;
    return [r[0]!, r[1]!];
  }
  cumsum(a: Value, axis: number, reverse = false): Value {
    this.at();
    const region = this.b.region([tile(a.type.elem), tile(a.type.elem)], ([x, y]) => {
      const r = this.b.op('binary', [x!, y!], [tile(a.type.elem)], { fn: 'add', precise: false }).results[0]!;
      this.b.op('yield', [r], [], {});
    });
    return this.b.op('scan', [a], [tile(a.type.elem, a.type.shape)], { axis, reverse, kind: 'sum' }, [region]).results[0]!;
  }
  dot(a: Value, b: Value, acc: Value, inputPrecision: 'ieee' | 'tf32' = 'ieee'): Value {
    return this.one('dot', [a, b, acc], acc.type.elem, acc.type.shape, { inputPrecision });
  }
  /** for iv in [lb, ub) step: body(iv, carried) returns the next carried values. */
  for(lb: Value, ub: Value, step: Value, init: Value[], body: (iv: Value, carried: Value[]) => Value[]): Value[] {
    this.at();
    const region = this.b.region([lb.type, ...init.map((v) => v.type)], ([iv, ...c]) => {
      const next = body(iv!, c);
      this.b.op('yield', next, [], {});
    });
    return this.b.op('for', [lb, ub, step, ...init], init.map((v) => v.type), {}, [region]).results;
  }
  if(cond: Value, then: () => Value[], els: () => Value[]): Value[] {
    this.at();
    let types: Value['type'][] = [];
    const t = this.b.region([], () => {
      const r = then();
      types = r.map((v) => v.type);
      this.b.op('yield', r, [], {});
    });
    const e = this.b.region([], () => this.b.op('yield', els(), [], {}));
    return this.b.op('if', [cond], types, {}, [t, e]).results;
  }
}

export function kernel(name: string, params: [string, ElemType][], body: (k: K, args: Value[]) => void): Func {
  const k = new K();
  const ps: Param[] = params.map(([n, t]) => ({ name: n, type: t }));
  return k.b.func(name, ps, {}, (args) => body(k, args));
}
export const P = ptrOf;
