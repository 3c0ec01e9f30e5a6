// Small helpers to build tile IR directly with IRBuilder and run it on the interpreter.
import { IRBuilder } from '../../src/ir/builder.js';
import type { BinaryFn, CmpPred, Func, OpAttrs, UnaryFn, Value } from '../../src/ir/ops.js';
import { ptrOf, tile, type DType, type ElemType, type TileType } from '../../src/ir/types.js';
import { HostMemory, interpret } from '../../src/interpret/index.js';

export const LOC = { file: 'test.ts', line: 7, col: 3 };

/** Thin op helpers over IRBuilder (types are given explicitly, as the front end would). */
export class K {
  readonly b = new IRBuilder();
  constructor() {
    this.b.loc = LOC;
  }
  one(kind: Parameters<IRBuilder['op']>[0], operands: Value[], t: TileType, attrs: unknown, regions: ReturnType<IRBuilder['region']>[] = []): Value {
    return this.b.op(kind, operands, [t], attrs as never, regions).results[0]!;
  }
  c(value: number | bigint | boolean, elem: ElemType, shape: number[] = []): Value {
    return this.one('const', [], tile(elem, shape), { value });
  }
  pid(axis: 0 | 1 | 2 = 0): Value {
    return this.one('program_id', [], tile('i32'), { axis });
  }
  nprog(axis: 0 | 1 | 2 = 0): Value {
    return this.one('num_programs', [], tile('i32'), { axis });
  }
  arange(n: number, start = 0): Value {
    return this.one('arange', [], tile('i32', [n - start]), { start, end: n });
  }
  splat(x: Value, shape: number[]): Value {
    return this.one('splat', [x], tile(x.type.elem, shape), {});
  }
  bin(fn: BinaryFn, a: Value, b: Value): Value {
    return this.one('binary', [a, b], a.type, { fn, precise: false });
  }
  un(fn: UnaryFn, a: Value): Value {
    return this.one('unary', [a], a.type, { fn, precise: false });
  }
  cmp(pred: CmpPred, a: Value, b: Value): Value {
    return this.one('cmp', [a, b], tile('bool', a.type.shape), { pred });
  }
  select(c: Value, a: Value, b: Value): Value {
    return this.one('select', [c, a, b], a.type, {});
  }
  cast(x: Value, to: DType): Value {
    return this.one('cast', [x], tile(to, x.type.shape), { to });
  }
  addptr(p: Value, off: Value): Value {
    return this.one('addptr', [p, off], tile(p.type.elem, off.type.shape), {});
  }
  load(p: Value, mask?: Value, other?: Value): Value {
    const ops = [p, ...(mask ? [mask] : []), ...(other ? [other] : [])];
    const elem = p.type.elem.slice(4, -1) as DType;
    const attrs: OpAttrs['load'] = { hasMask: !!mask, hasOther: !!other, cache: '', eviction: '', volatile: false };
    return this.one('load', ops, tile(elem, p.type.shape), attrs);
  }
  store(p: Value, v: Value, mask?: Value): void {
    this.b.op('store', [p, v, ...(mask ? [mask] : [])], [], { hasMask: !!mask, cache: '', eviction: '' });
  }
}

/**
 * A 1-D elementwise kernel: params (in_0..in_k: ptr, out: ptr, n: i32); each program handles
 * `block` elements with a mask for the ragged end. `body` maps the loaded tiles to the output tile.
 */
export function ewKernel(ins: DType[], out: DType, block: number, body: (k: K, xs: Value[]) => Value): Func {
  const k = new K();
  const params = [...ins.map((d, i) => ({ name: `x${i}`, type: ptrOf(d) })), { name: 'out', type: ptrOf(out) }, { name: 'n', type: 'i32' as const }];
  return k.b.func('ew', params, {}, (args) => {
    const offs = k.bin('add', k.splat(k.bin('mul', k.pid(), k.c(block, 'i32')), [block]), k.arange(block));
    const mask = k.cmp('lt', offs, k.splat(args[ins.length + 1]!, [block]));
    const xs = ins.map((_, i) => k.load(k.addptr(k.splat(args[i]!, [block]), offs), mask));
    const r = body(k, xs);
    k.store(k.addptr(k.splat(args[ins.length]!, [block]), offs), r, mask);
  });
}

type TA = Float64Array | Float32Array | Uint16Array | BigInt64Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint8Array;

/** Uploads `inputs`, runs `func` with (inputs..., out, n), returns the output array. */
export function runEw<T extends TA>(func: Func, inputs: TA[], out: T, block: number): T {
  const mem = new HostMemory();
  const addrs = inputs.map((a) => mem.upload(a));
  const o = mem.upload(out);
  const n = out.length;
  interpret(func, [...addrs, o, n], mem, { grid: [Math.ceil(n / block)] });
  mem.download(o, out);
  return out;
}

/** Deterministic pseudo-random numbers (xorshift), so failures reproduce. */
export function rng(seed = 1234): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}
