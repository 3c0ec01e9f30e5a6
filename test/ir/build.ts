// Small helpers to build test IR with IRBuilder (the builder does no type inference; these
// helpers pick the usual result types so tests read like kernels).
import { IRBuilder } from '../../src/ir/builder.js';
import type { BinaryFn, CmpPred, ConstValue, Func, Param, UnaryFn, Value } from '../../src/ir/ops.js';
import type { DType, ElemType, TileType } from '../../src/ir/types.js';
import { pointee, tile } from '../../src/ir/types.js';

export class TB {
  readonly b = new IRBuilder();
  const(value: ConstValue, elem: ElemType, shape: number[] = []): Value {
    return this.b.op('const', [], [tile(elem, shape)], { value }).results[0]!;
  }
  pid(axis: 0 | 1 | 2 = 0): Value {
    return this.b.op('program_id', [], [tile('i32')], { axis }).results[0]!;
  }
  arange(start: number, end: number): Value {
    return this.b.op('arange', [], [tile('i32', [end - start])], { start, end }).results[0]!;
  }
  splat(x: Value, shape: number[]): Value {
    return this.b.op('splat', [x], [tile(x.type.elem, shape)], {}).results[0]!;
  }
  broadcast(x: Value, shape: number[]): Value {
    return this.b.op('broadcast', [x], [tile(x.type.elem, shape)], { shape }).results[0]!;
  }
  expand(x: Value, axis: number): Value {
    const s = [...x.type.shape];
    s.splice(axis, 0, 1);
    return this.b.op('expand_dims', [x], [tile(x.type.elem, s)], { axis }).results[0]!;
  }
  unary(fn: UnaryFn, x: Value, precise = false): Value {
    return this.b.op('unary', [x], [x.type], { fn, precise }).results[0]!;
  }
  bin(fn: BinaryFn, x: Value, y: Value, precise = false): Value {
    return this.b.op('binary', [x, y], [x.type], { fn, precise }).results[0]!;
  }
  cmp(pred: CmpPred, x: Value, y: Value): Value {
    return this.b.op('cmp', [x, y], [tile('bool', x.type.shape)], { pred }).results[0]!;
  }
  select(c: Value, x: Value, y: Value): Value {
    return this.b.op('select', [c, x, y], [x.type], {}).results[0]!;
  }
  cast(x: Value, to: DType): Value {
    return this.b.op('cast', [x], [tile(to, x.type.shape)], { to }).results[0]!;
  }
  addptr(p: Value, off: Value): Value {
    return this.b.op('addptr', [p, off], [p.type], {}).results[0]!;
  }
  load(p: Value, mask?: Value, other?: Value): Value {
    const ops = [p, ...(mask ? [mask] : []), ...(other ? [other] : [])];
    const t = tile(pointee(p.type.elem as `ptr<${DType}>`), p.type.shape);
    const attrs = { hasMask: !!mask, hasOther: !!other, cache: '', eviction: '', volatile: false } as const;
    return this.b.op('load', ops, [t], attrs).results[0]!;
  }
  store(p: Value, v: Value, mask?: Value): void {
    this.b.op('store', [p, v, ...(mask ? [mask] : [])], [], { hasMask: !!mask, cache: '', eviction: '' });
  }
  /** A device loop; `body(iv, carried)` returns the yielded values. */
  for(lb: Value, ub: Value, step: Value, inits: Value[], body: (iv: Value, carried: Value[]) => Value[]): Value[] {
    const region = this.b.region([lb.type, ...inits.map((v) => v.type)], (args) => {
      const ys = body(args[0]!, args.slice(1));
      this.b.op('yield', ys, [], {});
    });
    return this.b.op('for', [lb, ub, step, ...inits], inits.map((v) => v.type), {}, [region]).results;
  }
  if(cond: Value, types: TileType[], then: () => Value[], els: () => Value[]): Value[] {
    const r0 = this.b.region([], () => void this.b.op('yield', then(), [], {}));
    const r1 = this.b.region([], () => void this.b.op('yield', els(), [], {}));
    return this.b.op('if', [cond], types, {}, [r0, r1]).results;
  }
  sum(x: Value, axis: number): Value {
    const s = { elem: x.type.elem, shape: [] };
    const region = this.b.region([s, s], ([a, b]) => {
      this.b.op('yield', [this.bin('add', a!, b!)], [], {});
    });
    const shape = x.type.shape.filter((_, i) => i !== axis);
    return this.b.op('reduce', [x], [tile(x.type.elem, shape)], { axis, kind: 'sum' }, [region]).results[0]!;
  }
  func(name: string, params: Param[], fn: (args: Value[]) => void, constexprs: Func['constexprs'] = {}): Func {
    return this.b.func(name, params, constexprs, fn);
  }
}

/** The classic vector add: out[i] = x[i] + y[i] for i < n, BLOCK elements per program. */
export function vectorAdd(block = 128, skipIds = 0): Func {
  const t = new TB();
  for (let i = 0; i < skipIds; i++) t.b.newValue(tile('i32'));
  const params: Param[] = [
    { name: 'x', type: 'ptr<f32>' }, { name: 'y', type: 'ptr<f32>' }, { name: 'out', type: 'ptr<f32>' }, { name: 'n', type: 'i32' },
  ];
  return t.func('add', params, ([x, y, out, n]) => {
    const pid = t.pid(0);
    const start = t.bin('mul', pid, t.const(block, 'i32'));
    const offs = t.bin('add', t.splat(start, [block]), t.arange(0, block));
    const mask = t.cmp('lt', offs, t.splat(n!, [block]));
    const a = t.load(t.addptr(t.splat(x!, [block]), offs), mask);
    const b = t.load(t.addptr(t.splat(y!, [block]), offs), mask);
    t.store(t.addptr(t.splat(out!, [block]), offs), t.bin('add', a, b), mask);
  }, { BLOCK: block });
}

/** A loop with a carried tile, a reduction and an if that yields a value. */
export function loopsKernel(opts: { skipIds?: number; loc?: boolean } = {}): Func {
  const t = new TB();
  for (let i = 0; i < (opts.skipIds ?? 0); i++) t.b.newValue(tile('i32'));
  if (opts.loc) t.b.loc = { file: 'k.ts', line: 3, col: 7 };
  return t.func('loops', [{ name: 'p', type: 'ptr<f32>' }, { name: 'n', type: 'i32' }], ([p, n]) => {
    const zero = t.const(0, 'i32');
    const one = t.const(1, 'i32');
    const acc0 = t.const(0, 'f32', [16]);
    const [acc] = t.for(zero, n!, one, [acc0], (iv, [acc]) => {
      const x = t.load(t.addptr(t.splat(p!, [16]), t.splat(iv, [16])));
      return [t.bin('add', acc!, x)];
    });
    const s = t.sum(acc!, 0);
    const c = t.cmp('gt', s, t.const(0, 'f32'));
    const [r] = t.if(c, [tile('f32')], () => [s], () => [t.unary('neg', s)]);
    t.store(p!, r!);
  });
}
