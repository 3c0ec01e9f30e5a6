// Small kernels built with the IRBuilder, shared by the codegen tests.
import { IRBuilder } from '../../src/ir/builder.js';
import type { Func, Value } from '../../src/ir/ops.js';
import { ptrOf, tile, type DType } from '../../src/ir/types.js';

const LOC = { file: '/src/kernels.ts', line: 10, col: 3 };

/** out[i] = x[i] + y[i] for i < n, BLOCK elements per program. */
export function vectorAdd(dtype: DType = 'f32', BLOCK = 1024, masked = true): Func {
  const b = new IRBuilder();
  const P = ptrOf(dtype);
  return b.func('add', [{ name: 'x', type: P }, { name: 'y', type: P }, { name: 'out', type: P }, { name: 'n', type: 'i32' }], { BLOCK }, ([x, y, out, n]) => {
    b.loc = LOC;
    const pid = b.op('program_id', [], [tile('i32')], { axis: 0 }).results[0]!;
    const c = b.op('const', [], [tile('i32')], { value: BLOCK }).results[0]!;
    const start = b.op('binary', [pid, c], [tile('i32')], { fn: 'mul', precise: false }).results[0]!;
    const r = b.op('arange', [], [tile('i32', [BLOCK])], { start: 0, end: BLOCK }).results[0]!;
    const s = b.op('splat', [start], [tile('i32', [BLOCK])], {}).results[0]!;
    b.loc = { ...LOC, line: 11 };
    const offs = b.op('binary', [s, r], [tile('i32', [BLOCK])], { fn: 'add', precise: false }).results[0]!;
    const nn = b.op('splat', [n!], [tile('i32', [BLOCK])], {}).results[0]!;
    const mask = b.op('cmp', [offs, nn], [tile('bool', [BLOCK])], { pred: 'lt' }).results[0]!;
    const ptr = (p: Value): Value => {
      const sp = b.op('splat', [p], [tile(P, [BLOCK])], {}).results[0]!;
      return b.op('addptr', [sp, offs], [tile(P, [BLOCK])], {}).results[0]!;
    };
    b.loc = { ...LOC, line: 12 };
    const ld = (p: Value): Value =>
      b.op('load', masked ? [ptr(p), mask] : [ptr(p)], [tile(dtype, [BLOCK])], { hasMask: masked, hasOther: false, cache: '', eviction: '', volatile: false }).results[0]!;
    const xv = ld(x!);
    const yv = ld(y!);
    const sum = b.op('binary', [xv, yv], [tile(dtype, [BLOCK])], { fn: 'add', precise: false }).results[0]!;
    b.loc = { ...LOC, line: 13 };
    b.op('store', masked ? [ptr(out!), sum, mask] : [ptr(out!), sum], [], { hasMask: masked, cache: '', eviction: '' });
  });
}
