import { describe, expect, it } from 'vitest';
import { kernel, P } from './dsl.js';
import { count, gate } from './gate.js';

const tile2d = (k: import('./dsl.js').K, M: number, N: number, ld: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(ld, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};

describe('data movement, scans and dot', () => {
  it('trans goes through shared memory once', () => {
    const f = kernel('transpose', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
      const v = k.load(k.addptr(x!, tile2d(k, 32, 64, 64)));
      k.store(k.addptr(out!, tile2d(k, 64, 32, 32)), k.trans(v));
    });
    const { sm80 } = gate(f, { specialization: { x: { divisibleBy16: true }, out: { divisibleBy16: true } } });
    expect(count(sm80.ptx, /bar\.sync/)).toBe(2);
    expect(sm80.ptx).toMatch(/ld\.global\.v4\.f32/);
  });
  it('trans itself is free: a permuted layout keeps every element in its thread', () => {
    const f = kernel('trans_twice', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
      const o = tile2d(k, 32, 64, 64);
      const t = k.trans(k.load(k.addptr(x!, o)));
      const back = k.trans(k.bin('mul', t, k.c(2, 'f32', [64, 32])));
      k.store(k.addptr(out!, o), back);
    });
    const { sm80 } = gate(f, { specialization: { x: { divisibleBy16: true }, out: { divisibleBy16: true } } });
    expect(sm80.ptx).not.toMatch(/bar\.sync|st\.shared/);
    expect(count(sm80.ptx, /st\.global\.v4\.f32/)).toBe(4);
  });
  it('scratch above 48 KiB becomes dynamic shared memory', () => {
    const f = kernel('big_trans', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
      const v = k.load(k.addptr(x!, tile2d(k, 128, 128, 128)));
      k.store(k.addptr(out!, tile2d(k, 128, 128, 128)), k.trans(v));
    });
    const { sm80, sm90 } = gate(f, { numWarps: 8 });
    for (const r of [sm80, sm90]) {
      // 1024-aligned, as swizzled tiles need (smem_swizzle.ts): one declaration for every kernel
      expect(r.ptx).toMatch(/\.extern \.shared \.align 1024 \.b8 tessera_smem\[\];/);
      expect(r.metadata.dynamicShared).toBe(true);
      // 128 x 128 f32, rows padded against bank conflicts (convert_plan.ts planConversion): 129 words
      expect(r.metadata.sharedBytes).toBe(128 * 129 * 4);
    }
    const small = gate(kernel('small_trans', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
      k.store(k.addptr(out!, tile2d(k, 16, 16, 16)), k.trans(k.load(k.addptr(x!, tile2d(k, 16, 16, 16)))));
    })).sm80;
    expect(small.ptx).toMatch(new RegExp(`\\t\\.shared \\.align 1024 \\.b8 tessera_smem\\[${small.metadata.sharedBytes}\\];`));
    expect(small.metadata.sharedBytes).toBeLessThan(48 * 1024);
    expect(small.metadata.dynamicShared).toBe(false);
  });
  it('join, split and reshape', () => {
    const f = kernel('join_split', [['x', P('f16')], ['out', P('f16')]], (k, [x, out]) => {
      const i = k.arange(128);
      const a = k.load(k.addptr(x!, i));
      const b = k.un('neg', a);
      const j = k.join(a, b);
      const [lo, hi] = k.split(j);
      const flat = k.reshape(j, [256]);
      k.store(k.addptr(out!, k.arange(256)), flat);
      k.store(k.addptr(out!, i), k.bin('add', lo, hi));
    });
    gate(f);
  });
  it('cumsum: log2(n) Hillis-Steele steps', () => {
    const f = kernel('cumsum', [['x', P('i32')], ['out', P('i32')]], (k, [x, out]) => {
      const i = k.arange(1024);
      k.store(k.addptr(out!, i), k.cumsum(k.load(k.addptr(x!, i)), 0));
    });
    const { sm90 } = gate(f);
    expect(count(sm90.ptx, /bar\.sync/)).toBe(2 * 10);
  });
  it('reverse scan along dim 1 of a 2-D tile', () => {
    const f = kernel('rcumsum', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
      const o = tile2d(k, 16, 64, 64);
      k.store(k.addptr(out!, o), k.cumsum(k.load(k.addptr(x!, o)), 1, true));
    });
    gate(f);
  });
  it.each(['f32', 'f16', 'i32', 'f64'] as const)('dot with FMA for %s', (t) => {
    const acc = t === 'f16' ? 'f32' : t;
    const f = kernel(`matmul_${t}`, [['a', P(t)], ['b', P(t)], ['c', P(acc)], ['K', 'i32']], (k, [a, b, c, K]) => {
      const M = 32, N = 32, BK = 16;
      const [res] = k.for(k.c(0), K!, k.c(BK), [k.c(0, acc, [M, N])], (kk, [accv]) => {
        const av = k.load(k.addptr(a!, k.bin('add', tile2d(k, M, BK, 64), k.splat(kk, [M, BK]))));
        const bv = k.load(k.addptr(b!, k.bin('add', tile2d(k, BK, N, N), k.bin('mul', k.splat(kk, [BK, N]), k.c(N, 'i32', [BK, N])))));
        return [k.dot(av, bv, accv!)];
      });
      k.store(k.addptr(c!, tile2d(k, M, N, N)), res!);
    });
    const { sm80 } = gate(f, { dot: 'fma' }); // f16 would go to tensor cores (test/codegen/mma.test.ts)
    expect(sm80.ptx).toMatch(t === 'i32' ? /mad\.lo\.s32/ : /fma\.rn\.f(32|64)/);
  });
});
