import { describe, expect, it } from 'vitest';
import { analyzeAxisInfo, pow2Divisor, MAX_DIV } from '../../src/compiler/axis_info.js';
import { kernel, P } from '../codegen/dsl.js';
import type { Value } from '../../src/ir/ops.js';

/** Builds a kernel, returns the AxisInfo of the values `body` hands back. */
function infoOf(params: [string, import('../../src/ir/types.js').ElemType][], body: (k: import('../codegen/dsl.js').K, a: Value[]) => Value[], spec?: Parameters<typeof analyzeAxisInfo>[1]) {
  let vals: Value[] = [];
  const f = kernel('t', params, (k, a) => {
    vals = body(k, a);
  });
  const m = analyzeAxisInfo(f, spec);
  return vals.map((v) => m.get(v));
}

describe('AxisInfo', () => {
  it('pow2Divisor', () => {
    expect(pow2Divisor(48)).toBe(16);
    expect(pow2Divisor(7)).toBe(1);
    expect(pow2Divisor(0)).toBe(MAX_DIV);
    expect(pow2Divisor(-1024)).toBe(1024);
  });
  it('pid * BLOCK + arange is contiguous and BLOCK-aligned', () => {
    const [offs] = infoOf([], (k) => {
      const s = k.splat(k.bin('mul', k.pid(), k.c(256)), [256]);
      return [k.bin('add', s, k.arange(256))];
    });
    expect(offs!.contiguity).toEqual([256]);
    expect(offs!.divisibility).toEqual([256]);
    expect(offs!.constancy).toEqual([1]);
  });
  it('pointer divisibility is in bytes and comes from the specialization', () => {
    const params: [string, import('../../src/ir/types.js').ElemType][] = [['x', P('f32')]];
    const body = (k: import('../codegen/dsl.js').K, [x]: Value[]) => [k.addptr(x!, k.arange(128))];
    expect(infoOf(params, body, { x: { divisibleBy16: true } })[0]!.divisibility).toEqual([16]);
    expect(infoOf(params, body)[0]!.divisibility).toEqual([1]);
    expect(infoOf(params, body, [{ divisibleBy16: true }])[0]!.contiguity).toEqual([128]);
  });
  it('a mask offs < n is constant over blocks of gcd(contiguity, divisibility of n)', () => {
    const mk = (spec?: Parameters<typeof analyzeAxisInfo>[1]) =>
      infoOf([['n', 'i32']], (k, [n]) => [k.cmp('lt', k.arange(1024), k.splat(n!, [1024]))], spec)[0]!;
    expect(mk({ n: { divisibleBy16: true } }).constancy).toEqual([16]);
    expect(mk().constancy).toEqual([1]);
  });
  it('an integer specialized to 1 is the constant 1 and keeps contiguity through mul', () => {
    const [a, b] = infoOf([['stride', 'i32']], (k, [s]) => {
      const prod = k.bin('mul', k.arange(64), k.splat(s!, [64]));
      return [s!, prod];
    }, { stride: { equalsOne: true } });
    expect(a!.constant).toBe(1);
    expect(b!.contiguity).toEqual([64]);
  });
  it('2-D: row offsets * ld + column arange are contiguous along dim 1 only', () => {
    const [o] = infoOf([], (k) => {
      const rm = k.expand(k.arange(16), 1);
      const cn = k.expand(k.arange(32), 0);
      const rows = k.broadcast(k.bin('mul', rm, k.c(64, 'i32', [16, 1])), [16, 32]);
      return [k.bin('add', rows, k.broadcast(cn, [16, 32]))];
    });
    expect(o!.contiguity).toEqual([1, 32]);
    expect(o!.divisibility[1]).toBe(64);
    expect(o!.constancy).toEqual([1, 1]);
  });
  it('hints override divisibility and contiguity', () => {
    const [h] = infoOf([['x', P('f32')]], (k, [x]) => {
      const p = k.addptr(x!, k.arange(64));
      k.line++;
      const r = k.b.op('hint', [p], [p.type], { multipleOf: [4], maxContiguous: [8] }).results[0]!;
      return [r];
    });
    expect(h!.divisibility).toEqual([16]); // 4 elements of 4 bytes
    expect(h!.contiguity).toEqual([8]);
  });
  it('k // 2 and k >> 1 of an integer divisible by 16 are divisible by 8; an aligned run // 2 is not', () => {
    const [d, s, run] = infoOf([['k', 'i32']], (k, [n]) => [
      k.bin('floordiv', n!, k.c(2)),
      k.bin('shr', n!, k.c(1)),
      k.bin('floordiv', k.arange(64), k.c(2, 'i32', [64])),
    ], { k: { divisibleBy16: true } });
    expect(d!.divisibility).toEqual([8]);
    expect(s!.divisibility).toEqual([8]);
    // 0, 0, 1, 1, ...: the run's first element is a multiple of 64, the others are not
    expect(run!.divisibility).toEqual([1]);
    expect(infoOf([['k', 'i32']], (k, [n]) => [k.bin('floordiv', n!, k.c(3))], { k: { divisibleBy16: true } })[0]!.divisibility).toEqual([1]);
  });
  it('x >> 2 over an aligned run is constant over blocks of 4', () => {
    const [r] = infoOf([], (k) => [k.bin('shr', k.arange(128), k.c(2, 'i32', [128]))]);
    expect(r!.constancy).toEqual([4]);
  });
});
