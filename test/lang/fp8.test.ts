// fp8 in the language: a storage type. Loads, stores, casts (fp8 <-> f32/f16/bf16 as one cast op,
// anything else composed through f32), bitcasts to 8-bit integers, and dots of two fp8 tiles into
// f32 or f16; every other arithmetic, comparison, math, reduction, atomic or print on fp8 is an
// E_TYPE error that says to cast first.
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

  it('arithmetic, comparisons, math, reductions, atomics and prints on fp8 are E_TYPE errors', () => {
    const bad: [string, (a: Args) => void][] = [
      ['add', ({ e4 }) => L.load(e4).add(L.load(e4))],
      ['mul with a literal', ({ e4 }) => L.load(e4).mul(2)],
      ['mixed with f32', ({ e4, xf }) => L.load(e4).add(L.load(xf))],
      ['neg', ({ e5 }) => L.neg(L.load(e5))],
      ['exp', ({ e5 }) => L.exp(L.load(e5))],
      ['lt', ({ e4 }) => L.load(e4).lt(0)],
      ['where', ({ e4, xi }) => L.where(L.load(xi).lt(0), L.load(e4), L.load(e4))],
      ['sum', ({ e4 }) => L.sum(L.load(e4.add(L.arange(0, 16))), 0)],
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
    expect(() => verify(f2)).toThrow(/fp8, f8e8m0 and f4e2m1 convert only to and from f32, f16, bf16 and each other/);
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

  describe('dots of fp8 tiles', () => {
    const tile = (p: L.Tile): L.Tile => { const o = L.arange(0, 32); return L.load(p.add(o.reshape([32, 1]).mul(32).add(o.reshape([1, 32])))); };

    it('take two fp8 tiles (same type or e4m3 x e5m2) unconverted, into f32 (default) or f16', () => {
      const f = trace(({ e4, e5, xf, xh }) => {
        const a = tile(e4), b = tile(e5);
        L.store(xf, L.sum(L.sum(L.dot(a, a), 1), 0));
        L.store(xf, L.sum(L.sum(L.dot(a, b), 1), 0));
        L.store(xh, L.sum(L.sum(L.dot(b, a, { outDtype: 'f16' }), 1), 0));
      });
      verify(f);
      expect(opsOf(f, 'dot').map((d) => `${d.operands[0]!.type.elem}x${d.operands[1]!.type.elem}->${d.results[0]!.type.elem}`))
        .toEqual(['f8e4m3xf8e4m3->f32', 'f8e4m3xf8e5m2->f32', 'f8e5m2xf8e4m3->f16']);
      expect(casts(f).filter((c) => c.startsWith('f8'))).toEqual([]);
    });

    it('other combinations are E_TYPE errors naming the dtypes', () => {
      const bad: [string, (a: Args) => void, RegExp][] = [
        ['fp8 x f16', ({ e4, xh }) => L.dot(tile(e4), tile(xh)), /dot of f8e4m3 and f16: an fp8 dot takes two fp8 operands/],
        ['f32 x fp8', ({ e5, xf }) => L.dot(tile(xf), tile(e5)), /dot of f32 and f8e5m2: an fp8 dot takes two fp8 operands/],
        ['bf16 accumulator', ({ e4 }) => L.dot(tile(e4), tile(e4), { outDtype: 'bf16' }), /f8e4m3 x f8e4m3 accumulates in f32 or f16, not bf16/],
        ['f64 accumulator', ({ e4, e5 }) => L.dot(tile(e4), tile(e5), { outDtype: 'f64' }), /accumulates in f32 or f16, not f64/],
        ['i32 accumulator', ({ e4 }) => L.dot(tile(e4), tile(e4), { outDtype: 'i32' }), /cannot accumulate in i32/],
      ];
      for (const [what, body, msg] of bad) {
        let err: unknown;
        try { trace(body); } catch (e) { err = e; }
        expect(err, what).toMatchObject({ code: 'E_TYPE', op: 'dot', message: expect.stringMatching(msg) });
      }
    });

    it('the verifier takes fp8 x fp8 into f32/f16 only', () => {
      const mk = (ta: 'f8e4m3' | 'f8e5m2' | 'f16', tc: 'f32' | 'f16' | 'bf16') => {
        const tb = new TB();
        return tb.func('d', [{ name: 'p', type: 'ptr<f8e4m3>' }, { name: 'q', type: `ptr<${ta}>` }, { name: 'r', type: `ptr<${tc}>` }], ([p, q, r]) => {
          const a = tb.splat(tb.load(p!), [16, 32]), b = tb.splat(tb.load(q!), [32, 8]), c = tb.splat(tb.load(r!), [16, 8]);
          tb.b.op('dot', [a, b, c], [{ elem: tc, shape: [16, 8] }], { inputPrecision: 'ieee' });
        });
      };
      expect(() => verify(mk('f8e5m2', 'f32'))).not.toThrow();
      expect(() => verify(mk('f8e4m3', 'f16'))).not.toThrow();
      expect(() => verify(mk('f16', 'f32'))).toThrow(/dot of f8e4m3 and f16: fp8 operands go with fp8 operands/);
      expect(() => verify(mk('f8e5m2', 'bf16'))).toThrow(/dot of fp8 operands accumulates in f32 or f16, got bf16/);
    });
  });
});
