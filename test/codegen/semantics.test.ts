// Golden checks that the emitted PTX implements the corner cases docs/semantics.md defines.
import { describe, expect, it } from 'vitest';
import type { BinaryFn } from '../../src/ir/ops.js';
import { tile, type DType } from '../../src/ir/types.js';
import { kernel, P } from './dsl.js';
import { count, gate } from './gate.js';

const binK = (t: DType, fn: BinaryFn) =>
  kernel(`b_${fn}_${t}`, [['x', P(t)], ['y', P(t)], ['o', P(t)]], (k, [x, y, o]) => {
    const i = k.arange(128);
    k.store(k.addptr(o!, i), k.bin(fn, k.load(k.addptr(x!, i)), k.load(k.addptr(y!, i))));
  });

describe('integer and float corner cases in PTX', () => {
  it('division by zero: div/floordiv give -1, rem gives the dividend', () => {
    for (const t of ['i32', 'u32', 'i8', 'i64'] as const) {
      const div = gate(binK(t, 'div')).sm80.ptx;
      expect(div).toMatch(/setp\.eq\.[su](32|64) %p\d+, %r[d]?\d+, 0;/);
      expect(div).toMatch(/selp\.b(32|64) %r[d]?\d+, -1, /);
      const rem = gate(binK(t, 'rem')).sm80.ptx;
      expect(rem).toMatch(/selp\.b(32|64) (%rd?\d+), %rd?\d+, \2, %p\d+;/);
    }
    const fd = gate(binK('i32', 'floordiv')).sm90.ptx;
    expect(fd).toMatch(/@%p\d+ sub\.s32/);
  });
  it('narrow integers wrap: i8 arithmetic is re-sign-extended, u8 masked', () => {
    expect(count(gate(binK('i8', 'add')).sm80.ptx, /cvt\.s32\.s8/)).toBe(1);
    expect(gate(binK('u8', 'mul')).sm80.ptx).toMatch(/and\.b32 %r\d+, %r\d+, 255;/);
  });
  it('float -> narrow int saturates in one cvt', () => {
    const f = kernel('f2i8', [['x', P('f32')], ['o', P('i8')]], (k, [x, o]) => {
      const i = k.arange(128);
      k.store(k.addptr(o!, i), k.cast(k.load(k.addptr(x!, i)), 'i8'));
    });
    expect(gate(f).sm80.ptx).toMatch(/cvt\.rzi\.s8\.f32/);
  });
  it('f32 add/mul are .rn (no contraction into fma); min/max propagate NaN', () => {
    expect(gate(binK('f32', 'add')).sm80.ptx).toMatch(/add\.rn\.f32/);
    expect(gate(binK('f32', 'max')).sm80.ptx).toMatch(/max\.NaN\.f32/);
    expect(gate(binK('f64', 'min')).sm80.ptx).toMatch(/setp\.nan\.f64/);
  });
  it('f16/bf16 compute in f32 and round with cvt.rn', () => {
    for (const t of ['f16', 'bf16'] as const) {
      const ptx = gate(binK(t, 'mul')).sm80.ptx;
      expect(ptx).toMatch(new RegExp(`cvt\\.f32\\.${t}`));
      expect(ptx).toMatch(new RegExp(`cvt\\.rn\\.${t}\\.f32`));
    }
  });
  it('casts round once and bitcasts move bits (cast_diff.test.ts runs them)', () => {
    const one = (from: DType, to: DType, kind: 'cast' | 'bitcast' = 'cast') =>
      kernel(`${kind}_${from}_${to}`, [['x', P(from)], ['o', P(to)]], (k, [x, o]) => {
        const i = k.arange(128);
        const v = k.load(k.addptr(x!, i));
        k.store(k.addptr(o!, i), k.b.op(kind, [v], [tile(to, [128])], { to } as never).results[0]!);
      });
    // f16 <-> i16 bitcasts: no value conversion
    const h2i = gate(one('f16', 'i16', 'bitcast')).sm80.ptx;
    expect(h2i).toMatch(/cvt\.s32\.s16 %r\d+, %h\d+;/);
    expect(h2i).not.toMatch(/cvt\.(rzi|f32)/);
    expect(gate(one('i16', 'bf16', 'bitcast')).sm80.ptx).not.toMatch(/cvt\.rn/);
    // to bf16 from f64 and wide integers: sm_90's direct cvt; sm_80 rounds to odd in f32 first
    for (const [from, src] of [['f64', 'f64'], ['i32', 's32'], ['u32', 'u32'], ['i64', 's64']] as const) {
      const { sm80, sm90 } = gate(one(from, 'bf16'));
      expect(sm90.ptx).toMatch(new RegExp(`cvt\\.rn\\.bf16\\.${src} `));
      expect(sm80.ptx).toMatch(new RegExp(`cvt\\.rz\\.f32\\.${src} `));
      expect(sm80.ptx).toMatch(/or\.b32 %r\d+, %r\d+, 1;/);
      expect(sm80.ptx).not.toMatch(/cvt\.rn\.f32\./);
    }
  });
  it('fma on f16 is one fma.rn.f16; on bf16 never fma.rn.f32 then cvt', () => {
    const fmaK = (t: DType) =>
      kernel(`fma_${t}`, [['x', P(t)], ['o', P(t)]], (k, [x, o]) => {
        const i = k.arange(128);
        const v = k.load(k.addptr(x!, i));
        k.store(k.addptr(o!, i), k.b.op('fma', [v, v, v], [tile(t, [128])], {} as never).results[0]!);
      });
    expect(gate(fmaK('f16')).sm80.ptx).toMatch(/fma\.rn\.f16 %h\d+, %h\d+, %h\d+, %h\d+;/);
    const bf = gate(fmaK('bf16')).sm80.ptx;
    expect(bf).not.toMatch(/fma\.rn\.f32/);
    expect(bf).toMatch(/add\.rz\.f64/);
  });
  it('replicated tile elements are stored once', () => {
    // 32 elements over 128 threads: 4 copies of each; the store is predicated to the first
    const f = kernel('small_store', [['o', P('f32')]], (k, [o]) => {
      k.store(k.addptr(o!, k.arange(32)), k.c(1, 'f32', [32]));
    });
    expect(gate(f).sm80.ptx).toMatch(/@%p\d+ st\.global\.f32/);
    const g = kernel('full_store', [['o', P('f32')]], (k, [o]) => {
      k.store(k.addptr(o!, k.arange(128)), k.c(1, 'f32', [128]));
    });
    expect(gate(g).sm80.ptx).toMatch(/\tst\.global\.f32/);
  });
  it('a loop with a runtime step traps on step 0', () => {
    const f = kernel('loop0', [['o', P('i32')], ['st', 'i32']], (k, [o, st]) => {
      const [c] = k.for(k.c(0), k.c(10), st!, [k.c(0)], (_iv, [c]) => [k.bin('add', c!, k.c(1))]);
      k.store(o!, c!);
    });
    expect(gate(f).sm80.ptx).toMatch(/@%p\d+ trap;/);
  });
  it('nested loops with a reduction inside and a result-less if', () => {
    const f = kernel('nested', [['x', P('f32')], ['o', P('f32')], ['s', P('i32')], ['n', 'i32']], (k, [x, o, s, n]) => {
      const i = k.arange(128);
      const sc = k.load(s!);
      const [tot] = k.for(k.c(0), n!, k.c(1), [k.c(0, 'f32')], (iv, [acc]) => {
        const [inner] = k.for(k.c(0), k.c(2), k.c(1), [acc!], (jv, [a2]) => {
          const off = k.bin('add', k.splat(k.bin('mul', k.bin('add', k.bin('mul', iv, k.c(2)), jv), k.c(128)), [128]), i);
          return [k.bin('add', a2!, k.reduce(k.load(k.addptr(x!, off)), 0, 'add'))];
        });
        return [inner!];
      });
      k.if(k.cmp('gt', sc, k.c(0)), () => { k.store(o!, tot!); return []; }, () => { k.store(o!, k.c(-1, 'f32')); return []; });
    });
    const { sm90 } = gate(f);
    expect(count(sm90.ptx, /^\$L_for_\d+:/)).toBe(2);
  });
});

describe('tiny and degenerate shapes', () => {
  it.each([1, 2, 8])('tiles of %i elements with 1 and 8 warps', (n) => {
    const f = kernel(`tiny_${n}`, [['x', P('f32')], ['o', P('f32')]], (k, [x, o]) => {
      const i = k.arange(n);
      const v = k.load(k.addptr(x!, i));
      const m = k.expand(v, 1);
      const s = k.reduce(m, 1, 'add'); // reduce over a size-1 axis
      const c = k.cumsum(s, 0);
      k.store(k.addptr(o!, i), c);
      k.store(o!, k.reduce(c, 0, 'max'));
    });
    gate(f, { numWarps: 1 });
    gate(f, { numWarps: 8 });
  });
});
