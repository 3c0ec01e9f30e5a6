// fp8 in the language: a storage type. Loads, stores, casts (fp8 <-> f32/f16/bf16 as one cast op,
// anything else composed through f32), bitcasts to 8-bit integers; every arithmetic, comparison,
// math, reduction, dot, atomic or print on fp8 is an E_TYPE error that says to cast first.
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { defineKernel, ptr, type KernelParamSpec } from '../../src/lang/index.js';
import { verify, type Func } from '../../src/ir/index.js';
import { TB } from '../ir/build.js';
import { opsOf } from './helpers.js';

const params = {
  e4: ptr('f8e4m3'), e5: ptr('f8e5m2'), xf: ptr('f32'), xd: ptr('f64'), xi: ptr('i32'), xu8: ptr('u8'), xi8: ptr('i8'), xh: ptr('f16'),
} satisfies Record<string, KernelParamSpec>;
type Args = Parameters<Parameters<typeof defineKernel<typeof params>>[1]>[0];
const trace = (body: (a: Args) => void): Func => defineKernel({ name: 'k', params }, body).trace({});
const casts = (f: Func): string[] => opsOf(f, 'cast').map((o) => `${o.operands[0]!.type.elem}->${o.attrs.to}`);
const CAST_FIRST = /fp8 is a storage type.*cast with \.to\('f16'\) or \.to\('f32'\) first/;

describe('fp8 in kernels', () => {
  it('loads, stores and casts to and from f32/f16/bf16 as single cast ops', () => {
    const f = trace(({ e4, e5, xf, xh }) => {
      const a = L.load(e4);
      L.store(xf, a.to('f32'));
      L.store(xh, a.to('f16'));
      L.store(e5, a.to('f8e5m2'));
      L.store(e4, L.load(xf).to('f8e4m3'));
      L.store(e4, L.load(xh).to('bf16').to('f8e4m3'));
    });
    verify(f);
    expect(casts(f)).toEqual(['f8e4m3->f32', 'f8e4m3->f16', 'f8e4m3->f8e5m2', 'f32->f8e4m3', 'f16->bf16', 'bf16->f8e4m3']);
  });

  it('casts to and from integers and bool go through f32 (exact, or saturating either way)', () => {
    const f = trace(({ e4, xi }) => {
      const a = L.load(e4);
      L.store(xi, a.to('i32'));
      L.store(e4, L.load(xi).to('f8e4m3'));
      L.store(xi, a.to('bool').to('i32'));
    });
    verify(f);
    expect(casts(f)).toEqual(['f8e4m3->f32', 'f32->i32', 'i32->f32', 'f32->f8e4m3', 'f8e4m3->f32', 'bool->i32']);
  });

  it('f64 -> fp8 is refused: two roundings; cast to f32 first', () => {
    expect(() => trace(({ xd, e4 }) => L.store(e4, L.load(xd).to('f8e4m3')))).toThrow(/cannot cast f64 to f8e4m3 directly.*\.to\('f32'\) first/);
    expect(() => trace(({ xd, e4 }) => L.store(e4, L.load(xd).to('f32').to('f8e4m3')))).not.toThrow();
  });

  it('bitcasts to and from u8/i8, not to other widths', () => {
    const f = trace(({ e4, xu8, xi8 }) => {
      L.store(xu8, L.load(e4).bitcast('u8'));
      L.store(xi8, L.load(e4).bitcast('i8'));
      L.store(e4, L.load(xu8).bitcast('f8e4m3'));
    });
    verify(f);
    expect(opsOf(f, 'bitcast').map((o) => o.attrs.to)).toEqual(['u8', 'i8', 'f8e4m3']);
    expect(() => trace(({ e4 }) => L.load(e4).bitcast('f16'))).toThrow(/same bit width/);
  });

  it('arithmetic, comparisons, math, reductions, dots, atomics and prints on fp8 are E_TYPE errors', () => {
    const bad: [string, (a: Args) => void][] = [
      ['add', ({ e4 }) => L.load(e4).add(L.load(e4))],
      ['mul with a literal', ({ e4 }) => L.load(e4).mul(2)],
      ['mixed with f32', ({ e4, xf }) => L.load(e4).add(L.load(xf))],
      ['neg', ({ e5 }) => L.neg(L.load(e5))],
      ['exp', ({ e5 }) => L.exp(L.load(e5))],
      ['lt', ({ e4 }) => L.load(e4).lt(0)],
      ['where', ({ e4, xi }) => L.where(L.load(xi).lt(0), L.load(e4), L.load(e4))],
      ['sum', ({ e4 }) => L.sum(L.load(e4.add(L.arange(0, 16))), 0)],
      ['dot', ({ e4 }) => { const o = L.arange(0, 16); const t = L.load(e4.add(o.reshape([16, 1]).mul(16).add(o.reshape([1, 16])))); L.dot(t, t); }],
      ['atomicAdd', ({ e4 }) => L.atomicAdd(e4, 1)],
      ['atomicXchg', ({ e4 }) => L.atomicXchg(e4, 1)],
      ['devicePrint', ({ e4 }) => L.devicePrint('x', L.load(e4))],
    ];
    for (const [what, body] of bad) {
      let err: unknown;
      try { trace(body); } catch (e) { err = e; }
      expect(err, what).toMatchObject({ code: 'E_TYPE', message: expect.stringMatching(CAST_FIRST) });
    }
  });

  it('fp8 scalar parameters are refused (E_TYPE), naming the parameter', () => {
    expect(() => defineKernel({ name: 's', params: { v: 'f8e4m3' } }, () => {})).toThrow(/parameter 'v': f8e4m3 scalar parameters are not supported/);
    expect(() => L.scalar('f8e5m2')).toThrow(expect.objectContaining({ code: 'E_TYPE' }));
    expect(() => defineKernel({ name: 's', params: { v: { kind: 'scalar', dtype: 'f8e5m2' } } }, () => {})).toThrow(/f8e5m2 scalar parameters/);
  });

  it('the verifier refuses fp8 arithmetic and fp8 casts other than to/from f32, f16, bf16, fp8', () => {
    const arith = new TB();
    const f1 = arith.func('v', [{ name: 'p', type: 'ptr<f8e4m3>' }], ([p]) => {
      const x = arith.load(p!);
      arith.store(p!, arith.bin('add', x, x));
    });
    expect(() => verify(f1)).toThrow(/binary.add needs numeric operands, got f8e4m3/);
    const cast = new TB();
    const f2 = cast.func('c', [{ name: 'p', type: 'ptr<f8e5m2>' }, { name: 'n', type: 'i32' }], ([p, n]) => {
      cast.store(p!, cast.cast(n!, 'f8e5m2'));
    });
    expect(() => verify(f2)).toThrow(/fp8 converts only to and from f32, f16, bf16 and fp8/);
    const ok = new TB();
    const f3 = ok.func('o', [{ name: 'p', type: 'ptr<f8e5m2>' }, { name: 'q', type: 'ptr<f32>' }], ([p, q]) => {
      ok.store(p!, ok.cast(ok.cast(ok.load(q!), 'f16'), 'f8e5m2'));
    });
    expect(() => verify(f3)).not.toThrow();
    const pr = new TB();
    const f4 = pr.func('p', [{ name: 'p', type: 'ptr<f8e4m3>' }], ([p]) => {
      pr.b.op('print', [pr.load(p!)], [], { prefix: 'x', hex: false });
    });
    expect(() => verify(f4)).toThrow(/print of f8e4m3 is not allowed/);
    const at = new TB();
    const f5 = at.func('a', [{ name: 'p', type: 'ptr<f8e5m2>' }], ([p]) => {
      at.b.op('atomic_rmw', [p!, at.load(p!)], [{ elem: 'f8e5m2', shape: [] }], { op: 'xchg', hasMask: false, sem: 'relaxed', scope: 'gpu' });
    });
    expect(() => verify(f5)).toThrow(/atomic_rmw on ptr<f8e5m2> is not allowed/);
  });
});
