import { describe, expect, test } from 'vitest';
import { IRVerifyError } from '../../src/ir/errors.js';
import type { Func, Param, Value } from '../../src/ir/ops.js';
import { tile } from '../../src/ir/types.js';
import { verify } from '../../src/ir/verify.js';
import { TesseraError } from '../../src/ir/errors.js';
import { loopsKernel, TB, vectorAdd } from './build.js';

const PARAMS: Param[] = [{ name: 'p', type: 'ptr<f32>' }, { name: 'n', type: 'i32' }];

function build(fn: (t: TB, p: Value, n: Value) => void): Func {
  const t = new TB();
  return t.func('k', PARAMS, ([p, n]) => fn(t, p!, n!));
}

function verifyError(f: Func): IRVerifyError {
  try {
    verify(f);
  } catch (e) {
    expect(e).toBeInstanceOf(IRVerifyError);
    expect(e).toBeInstanceOf(TesseraError);
    expect((e as IRVerifyError).code).toBe('E_IR_VERIFY');
    return e as IRVerifyError;
  }
  throw new Error('verify accepted invalid IR');
}

describe('verify accepts valid IR', () => {
  test('vector add and a kernel with for, reduce and if', () => {
    expect(() => verify(vectorAdd())).not.toThrow();
    expect(() => verify(loopsKernel())).not.toThrow();
  });

  test('every other op kind in a valid use', () => {
    const f = build((t, p, n) => {
      const b = t.b;
      const r = t.arange(0, 4);
      const r2 = t.expand(r, 1);                                            // i32[4x1]
      const bc = t.broadcast(r2, [4, 8]);                                   // i32[4x8]
      b.op('reshape', [bc], [tile('i32', [32])], { shape: [32], allowReorder: false });
      const tr = b.op('trans', [bc], [tile('i32', [8, 4])], { perm: [1, 0] }).results[0]!;
      const f32 = t.cast(tr, 'f32');
      b.op('bitcast', [f32], [tile('u32', [8, 4])], { to: 'u32' });
      b.op('fma', [f32, f32, f32], [f32.type], {});
      const a = t.const(1, 'f16', [16, 8]);
      const w = t.const(2, 'f16', [8, 16]);
      const acc = t.const(0, 'f32', [16, 16]);
      b.op('dot', [a, w, acc], [acc.type], { inputPrecision: 'ieee' });
      b.op('scan', [r], [r.type], { axis: 0, reverse: false, kind: 'sum' }, [
        b.region([tile('i32'), tile('i32')], ([x, y]) => void b.op('yield', [t.bin('add', x!, y!)], [], {})),
      ]);
      b.op('num_programs', [], [tile('i32')], { axis: 2 });
      b.op('hint', [r], [r.type], { multipleOf: [4], maxContiguous: [4] });
      const ptrs = t.addptr(t.splat(p, [4]), r);
      const mask = t.cmp('lt', r, t.splat(n, [4]));
      t.load(ptrs, mask, t.const(0, 'f32', [4]));
      b.op('atomic_rmw', [ptrs, t.const(1, 'f32', [4]), mask], [tile('f32', [4])], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: true });
      b.op('atomic_cas', [ptrs, t.const(1, 'f32', [4]), t.const(2, 'f32', [4])], [tile('f32', [4])], { sem: 'acq_rel', scope: 'gpu' });
      b.op('assert', [mask], [], { message: 'in range' });
      t.select(mask, r, r);
    });
    expect(() => verify(f)).not.toThrow();
  });
});

describe('verify rejects invalid IR with a precise message', () => {
  const cases: [string, (t: TB, p: Value, n: Value) => void, RegExp][] = [
    ['binary operands of different types', (t) => {
      t.b.op('binary', [t.const(1, 'f32'), t.const(1, 'f16')], [tile('f32')], { fn: 'add', precise: false });
    }, /op 2 'binary'.*operand #1 must be f32, got f16/],
    ['cmp result not bool', (t, _p, n) => {
      t.b.op('cmp', [n, n], [tile('i32')], { pred: 'lt' });
    }, /op 0 'cmp'.*result must be bool, got i32/],
    ['bitwise op on floats', (t) => {
      const x = t.const(1, 'f32');
      t.bin('xor', x, x);
    }, /binary.xor needs integer or bool operands, got f32/],
    ['float math on ints', (t, _p, n) => void t.unary('exp', n), /unary.exp needs a float operand, got i32/],
    ['addptr shape mismatch', (t, p) => {
      t.b.op('addptr', [t.splat(p, [4]), t.arange(0, 8)], [tile('ptr<f32>', [4])], {});
    }, /pointer ptr<f32>\[4\] and offset i32\[8\] must have the same shape/],
    ['addptr with a float offset', (t, p) => {
      t.b.op('addptr', [p, t.const(1, 'f32')], [p.type], {});
    }, /offset must be an integer tile, got f32/],
    ['load result is not the pointee', (t, p) => {
      t.b.op('load', [p], [tile('f16')], { hasMask: false, hasOther: false, cache: '', eviction: '', volatile: false });
    }, /'load'.*result must be f32, got f16/],
    ['load with a missing mask operand', (t, p) => {
      t.b.op('load', [p], [tile('f32')], { hasMask: true, hasOther: false, cache: '', eviction: '', volatile: false });
    }, /'load'.*expected 2 operand\(s\), got 1/],
    ['load with other but no mask', (t, p) => {
      t.b.op('load', [p, t.const(0, 'f32')], [tile('f32')], { hasMask: false, hasOther: true, cache: '', eviction: '', volatile: false });
    }, /`other` needs a mask/],
    ['load with a store-only cache operator', (t, p) => {
      t.b.op('load', [p], [tile('f32')], { hasMask: false, hasOther: false, cache: 'wb' as never, eviction: '', volatile: false });
    }, /load cache operator must be one of ca, cg, cs, lu, cv, got 'wb'/],
    ['volatile load with a hint', (t, p) => {
      t.b.op('load', [p], [tile('f32')], { hasMask: false, hasOther: false, cache: 'cg', eviction: '', volatile: true });
    }, /a volatile load takes no cache operator or eviction hint/],
    ['store with a load-only cache operator', (t, p) => {
      t.b.op('store', [p, t.const(1, 'f32')], [], { hasMask: false, cache: 'ca' as never, eviction: '' });
    }, /store cache operator must be one of wb, cg, cs, wt, got 'ca'/],
    ['store with an unknown eviction', (t, p) => {
      t.b.op('store', [p, t.const(1, 'f32')], [], { hasMask: false, cache: '', eviction: 'evict_unchanged' as never });
    }, /eviction must be one of evict_first, evict_last, evict_normal, got 'evict_unchanged'/],
    ['store of the wrong dtype', (t, p) => void t.store(p, t.const(1, 'f64')), /stored value must be f32, got f64/],
    ['broadcast of a dim that is not 1', (t) => void t.broadcast(t.arange(0, 4), [8]), /broadcast dim 0 of size 4 to 8: only size-1 dims broadcast/],
    ['reshape changing numel', (t) => {
      t.b.op('reshape', [t.arange(0, 8)], [tile('i32', [4])], { shape: [4], allowReorder: false });
    }, /reshape \[8\] -> \[4\] changes the number of elements/],
    ['trans with a bad perm', (t) => {
      t.b.op('trans', [t.const(0, 'f32', [2, 4])], [tile('f32', [4, 2])], { perm: [1, 1] });
    }, /perm \[1, 1\] is not a permutation of 2 axes/],
    ['dot shapes', (t) => {
      const a = t.const(1, 'f32', [16, 8]), b = t.const(1, 'f32', [16, 16]), c = t.const(0, 'f32', [16, 16]);
      t.b.op('dot', [a, b, c], [c.type], { inputPrecision: 'ieee' });
    }, /dot shapes must be \[M,K\] x \[K,N\] \+ \[M,N\], got \[16, 8\] x \[16, 16\] \+ \[16, 16\]/],
    ['batched dot with two batch sizes', (t) => {
      const a = t.const(1, 'f32', [2, 16, 8]), b = t.const(1, 'f32', [4, 8, 16]), c = t.const(0, 'f32', [2, 16, 16]);
      t.b.op('dot', [a, b, c], [c.type], { inputPrecision: 'ieee' });
    }, /dot shapes must be .*got \[2, 16, 8\] x \[4, 8, 16\] \+ \[2, 16, 16\] \(batched/],
    ['dot of mixed ranks', (t) => {
      const a = t.const(1, 'f32', [2, 16, 8]), b = t.const(1, 'f32', [8, 16]), c = t.const(0, 'f32', [2, 16, 16]);
      t.b.op('dot', [a, b, c], [c.type], { inputPrecision: 'ieee' });
    }, /dot needs 2-D \(or 3-D batched\) operands of one rank/],
    ['reduce result keeps the axis', (t) => {
      const x = t.const(1, 'f32', [4, 8]);
      t.b.op('reduce', [x], [tile('f32', [4, 8])], { axis: 1, kind: 'sum' }, [
        t.b.region([tile('f32'), tile('f32')], ([a, b]) => void t.b.op('yield', [t.bin('add', a!, b!)], [], {})),
      ]);
    }, /'reduce'.*result #0 must be f32\[4\], got f32\[4x8\]/],
    ['reduce combiner yielding the wrong type', (t) => {
      const x = t.const(1, 'f32', [8]);
      t.b.op('reduce', [x], [tile('f32')], { axis: 0, kind: 'sum' }, [
        t.b.region([tile('f32'), tile('f32')], () => void t.b.op('yield', [t.const(0, 'i32')], [], {})),
      ]);
    }, /region 0 yield #0 must be f32, got i32/],
    ['reduce axis out of range', (t) => {
      t.b.op('reduce', [t.const(1, 'f32', [8])], [tile('f32')], { axis: 1, kind: 'sum' }, [
        t.b.region([tile('f32'), tile('f32')], ([a]) => void t.b.op('yield', [a!], [], {})),
      ]);
    }, /axis 1 out of range for rank 1/],
    ['for region args', (t, _p, n) => {
      const init = t.const(0, 'f32');
      const body = t.b.region([tile('i64'), tile('f32')], ([, c]) => void t.b.op('yield', [c!], [], {}));
      t.b.op('for', [n, n, n, init], [tile('f32')], {}, [body]);
    }, /'for'.*region 0 arg #0 must be i32, got i64/],
    ['for yield count', (t, _p, n) => {
      t.for(n, n, n, [t.const(0, 'f32')], () => []);
    }, /region 0 yields 0 value\(s\), expected 1/],
    ['if branches yield different types', (t, _p, n) => {
      t.if(t.cmp('lt', n, n), [tile('i32')], () => [n], () => [t.const(0, 'f32')]);
    }, /'if'.*region 1 yield #0 must be i32, got f32/],
    ['if on a tile condition', (t) => {
      t.if(t.const(true, 'bool', [4]), [], () => [], () => []);
    }, /condition must be bool, got bool\[4\]/],
    ['shapes must be powers of two', (t) => void t.const(0, 'f32', [6]), /shape \[6\] has a dim that is not a power of two/],
    ['arange length must be a power of two', (t) => void t.arange(0, 12), /power of two/],
    ['int constant out of range', (t) => void t.const(300, 'u8'), /constant 300 out of range for u8/],
    ['bool constant must be boolean', (t) => void t.const(1, 'bool'), /bool constant must be true or false/],
    ['operand used before its definition', (t) => {
      const later = t.b.newValue(tile('i32'));
      t.bin('add', later, later);
    }, /operand #0 \(value id \d+\) is not defined before this op/],
    ['value from inside a region used after it', (t, _p, n) => {
      let inner: Value | undefined;
      t.for(n, n, n, [], () => {
        inner = t.bin('add', n, n);
        return [];
      });
      t.bin('mul', inner!, inner!);
    }, /op 1 'binary'.*operand #0 \(value id \d+\) is not defined/],
    ['value defined twice', (t) => {
      const x = t.const(1, 'i32');
      t.b.block.ops.push({ kind: 'const', operands: [], results: [x], attrs: { value: 2 }, regions: [] });
    }, /value id \d+ is defined twice/],
    ['yield outside a region', (t) => void t.b.op('yield', [], [], {}), /'yield' is not allowed here \(expected 'return'\)/],
    ['region without a yield', (t, _p, n) => {
      t.b.op('for', [n, n, n], [], {}, [t.b.region([tile('i32')], () => {})]);
    }, /op 0\/r0 'for': region must end with 'yield'/],
  ];

  test.each(cases)('%s', (_name, fn, pattern) => {
    const e = verifyError(build(fn));
    expect(e.message).toMatch(/^IR verify: func 'k', /);
    expect(e.message).toMatch(pattern);
  });

  test('the message names the source location and the op path inside regions', () => {
    const t = new TB();
    const f = t.func('k', PARAMS, ([, n]) => {
      t.for(n!, n!, n!, [], () => {
        t.b.loc = { file: 'user.ts', line: 12, col: 5 };
        t.b.op('binary', [n!, t.const(1, 'f32')], [tile('i32')], { fn: 'add', precise: false });
        t.b.loc = undefined;
        return [];
      });
    });
    const e = verifyError(f);
    expect(e.path).toBe('0/r0/1');
    expect(e.opKind).toBe('binary');
    expect(e.loc).toEqual({ file: 'user.ts', line: 12, col: 5 });
    expect(e.message).toBe("IR verify: func 'k', op 0/r0/1 'binary' at user.ts:12:5: operand #1 must be i32, got f32");
  });

  test('a body without return and params that do not match the body', () => {
    const f = vectorAdd();
    expect(verifyError({ ...f, body: { args: f.body.args, ops: f.body.ops.slice(0, -1) } }).message).toMatch(/function body must end with 'return'/);
    expect(verifyError({ ...f, params: f.params.slice(1) }).message).toMatch(/3 param\(s\) but 4 body arg\(s\)/);
    const typed = { ...f, params: f.params.map((p, i) => (i === 3 ? { ...p, type: 'i64' as const } : p)) };
    expect(verifyError(typed).message).toMatch(/body arg #3 has type i32, param 'n' is i64/);
  });
});

describe('verify: tensor descriptor ops', () => {
  const desc = (t: TB, p: Value, n: Value, block: number[], over: { offset?: Value; store?: Value; resultShape?: number[] } = {}): void => {
    const b = t.b;
    const ints = block.flatMap(() => [n]);
    const offs = block.map(() => over.offset ?? t.const(0, 'i32'));
    if (over.store) b.op('desc_store', [p, ...ints, ...ints, ...offs, over.store], [], { block });
    else b.op('desc_load', [p, ...ints, ...ints, ...offs], [tile('f32', over.resultShape ?? block)], { block });
  };

  test('accepts a load and a store of the block', () => {
    expect(() => verify(build((t, p, n) => {
      desc(t, p, n, [16, 32]);
      desc(t, p, n, [16, 32], { store: t.const(1, 'f32', [16, 32]) });
    }))).not.toThrow();
  });

  test('rejects a bad block, operand types and result shape, naming them', () => {
    expect(verifyError(build((t, p, n) => desc(t, p, n, [12, 32]))).message).toMatch(/block dim 0 must be a power of two in 1\.\.256/);
    expect(verifyError(build((t, p, n) => desc(t, p, n, [16], { offset: t.const(0, 'i64') }))).message).toMatch(/operand #3 \(offset\) must be i32, got i64/);
    expect(verifyError(build((t, p, n) => desc(t, p, n, [16], { resultShape: [32] }))).message).toMatch(/result must be f32\[16\], got f32\[32\]/);
    expect(verifyError(build((t, p, n) => desc(t, p, n, [16], { store: t.const(1, 'f32', [8]) }))).message).toMatch(/stored value must be f32\[16\]/);
  });
});
