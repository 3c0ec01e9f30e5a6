// Type promotion rules (docs/type-promotion.md), as pure functions and as traced result dtypes.
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import * as L from '../../src/lang/index.js';
import { computationType, literalDType, promoteInts } from '../../src/lang/index.js';
import { traceBody } from './helpers.js';

const ct = (a: DType, b: DType, divOrMod = false, aWeak = false, bWeak = false) => {
  const r = computationType(a, aWeak, b, bWeak, divOrMod);
  return r.ok ? r.dtype : 'error';
};

describe('type promotion', () => {
  it('literal dtypes', () => {
    expect([literalDType(1), literalDType(-5), literalDType(2 ** 31), literalDType(2 ** 32), literalDType(1.5), literalDType(true), literalDType(5n)])
      .toEqual(['i32', 'i32', 'u32', 'i64', 'f32', 'bool', 'i32']);
  });
  it('floats: wider wins, f16 with bf16 -> f32, div/mod of halves in f32', () => {
    expect(ct('f16', 'f32')).toBe('f32');
    expect(ct('f64', 'f16')).toBe('f64');
    expect(ct('f16', 'f16')).toBe('f16');
    expect(ct('f16', 'bf16')).toBe('f32');
    expect(ct('bf16', 'i32')).toBe('bf16');
    expect(ct('f16', 'f16', true)).toBe('f32');
    expect(ct('i64', 'f16')).toBe('f16');
  });
  it('integers: wider wins; mixed signedness prefers unsigned unless the signed type is wider', () => {
    expect(promoteInts('i8', 'i32')).toBe('i32');
    expect(promoteInts('u8', 'i32')).toBe('i32');
    expect(promoteInts('u32', 'i32')).toBe('u32');
    expect(promoteInts('u32', 'i64')).toBe('i64');
    expect(promoteInts('bool', 'i16')).toBe('i16');
    expect(ct('u32', 'i32', true)).toBe('error');
  });
  it('weak literals do not promote a tile of the same or higher kind', () => {
    expect(ct('f16', 'f32', false, false, true)).toBe('f16');   // f16 tile * 2.5
    expect(ct('i8', 'i32', false, false, true)).toBe('i8');     // i8 tile + 1
    expect(ct('i32', 'f32', false, false, true)).toBe('f32');   // i32 tile * 0.5
    expect(ct('u8', 'i32', false, true, false)).toBe('i32');    // 200 + u8 tile: int kind > uint kind
    expect(ct('bf16', 'f32', true, false, true)).toBe('f32');   // bf16 tile / 2.0
    expect(ct('bool', 'i32', false, false, true)).toBe('i32');
  });
  it('traced results follow the rules', () => {
    const got: string[] = [];
    traceBody(({ xh, xi, xu8, xi64, xb }) => {
      const o = L.arange(0, 8);
      const h = L.load(xh.add(o)), i = L.load(xi.add(o)), u = L.load(xu8.add(o)), q = L.load(xi64.add(o)), b = L.load(xb.add(o));
      got.push(...[h.mul(2), h.div(2), i.add(h), i.mul(0.5), u.add(1), u.add(u), q.add(i), b.add(1), b.and(b), i.to('i8').add(3)].map((t) => t.dtype));
    });
    expect(got).toEqual(['f16', 'f32', 'f16', 'f32', 'i32', 'u8', 'i64', 'i32', 'bool', 'i8']);
    expect(() => traceBody(({ xb }) => { const b = L.load(xb); b.add(b); })).toThrow(/numeric \(not bool\)/);
  });
});

describe('more IR details', () => {
  it('load options, scalar pointers, tile `other`', () => {
    const f = traceBody(({ xf, n }) => {
      const o = L.arange(0, 8);
      const v = L.load(xf.add(o), { mask: o.lt(n), other: L.full([], -1, 'f32'), cache: 'cg', eviction: 'evict_last' });
      const s = L.load(xf, { volatile: true });
      L.store(xf.add(o), v.add(s), { cache: 'cs', eviction: 'evict_first' });
    });
    const loads = f.body.ops.filter((op) => op.kind === 'load');
    expect(loads[0]!.attrs).toEqual({ hasMask: true, hasOther: true, cache: 'cg', eviction: 'evict_last', volatile: false });
    expect(loads[1]!.attrs).toEqual({ hasMask: false, hasOther: false, cache: '', eviction: '', volatile: true });
    expect(loads[0]!.operands[2]!.type).toEqual({ elem: 'f32', shape: [8] });
    expect(loads[1]!.results[0]!.type).toEqual({ elem: 'f32', shape: [] });
    expect(f.body.ops.find((op) => op.kind === 'store')!.attrs).toEqual({ hasMask: false, cache: 'cs', eviction: 'evict_first' });
  });
  it('i64 loop bounds give an i64 induction variable', () => {
    const f = traceBody(({ xi64 }) => {
      const n = L.load(xi64);
      L.forLoop(0, n, 2, [], () => []);
    });
    const loop = f.body.ops.find((op) => op.kind === 'for')!;
    expect(loop.regions[0]!.args[0]!.type).toEqual({ elem: 'i64', shape: [] });
    expect(loop.operands.map((v) => v.type.elem)).toEqual(['i64', 'i64', 'i64']);
  });
  it('boolean and string constexprs arrive as JS values', () => {
    const k = L.defineKernel({ name: 'cx', params: { x: L.ptr('f32'), RELU: L.constexpr<boolean>(), ACT: L.constexpr<string>() } }, ({ x, RELU, ACT }) => {
      let v = L.load(x.add(L.arange(0, 4)));
      if (RELU) v = v.maximum(0);
      if (ACT === 'exp') v = v.exp();
      L.store(x.add(L.arange(0, 4)), v);
    });
    const count = (relu: boolean, act: string) => k.trace({ RELU: relu, ACT: act }).body.ops.filter((o) => o.kind === 'binary' || o.kind === 'unary').length;
    expect([count(false, 'none'), count(true, 'none'), count(true, 'exp')]).toEqual([0, 1, 2]);
    expect(k.trace({ RELU: true, ACT: 'exp' }).constexprs).toEqual({ RELU: true, ACT: 'exp' });
  });
});
