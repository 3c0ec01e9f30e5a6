import { describe, expect, it } from 'vitest';
import { kernel, P } from './dsl.js';
import { count, gate } from './gate.js';

describe('loops, ifs and atomics', () => {
  it('a for-loop carries a tile across iterations', () => {
    const f = kernel('loop_sum', [['x', P('f32')], ['out', P('f32')], ['n', 'i32']], (k, [x, out, n]) => {
      const i = k.arange(256);
      const [acc] = k.for(k.c(0), n!, k.c(256), [k.c(0, 'f32', [256])], (iv, [a]) => {
        const v = k.load(k.addptr(x!, k.bin('add', k.splat(iv, [256]), i)));
        return [k.bin('add', a!, v)];
      });
      k.store(k.addptr(out!, i), acc!);
    });
    const { sm80 } = gate(f);
    expect(sm80.ptx).toMatch(/bra\.uni \$L_for_\d+;/);
    expect(sm80.ptx).toMatch(/setp\.ge\.s32/);
  });
  it('a loop-invariant layout conversion happens once, before the loop', () => {
    const f = kernel('hoist', [['x', P('f32')], ['out', P('f32')], ['n', 'i32']], (k, [x, out, n]) => {
      const rm = k.expand(k.arange(32), 1);
      const cn = k.expand(k.arange(32), 0);
      const offs = k.bin('add', k.broadcast(k.bin('mul', rm, k.c(32, 'i32', [32, 1])), [32, 32]), k.broadcast(cn, [32, 32]));
      const rows = k.reduce(k.load(k.addptr(x!, offs)), 1, 'add'); // a slice layout
      k.for(k.c(0), n!, k.c(1), [], (iv) => {
        const o = k.bin('add', k.arange(32), k.splat(k.bin('mul', iv, k.c(32)), [32]));
        k.store(k.addptr(out!, o), rows); // the 1-D store wants a blocked layout
        return [];
      });
    });
    const ptx = gate(f).sm80.ptx;
    expect(count(ptx, /convert_layout/)).toBe(1);
    expect(ptx.indexOf('convert_layout')).toBeLessThan(ptx.search(/^\$L_for_\d+:/m));
  });
  it('a loop with a runtime step tests its sign', () => {
    const f = kernel('loop_step', [['out', P('i32')], ['lb', 'i32'], ['ub', 'i32'], ['step', 'i32']], (k, [out, lb, ub, step]) => {
      const [cnt, swapA] = k.for(lb!, ub!, step!, [k.c(0), k.c(1)], (_iv, [c, s]) => [k.bin('add', c!, k.c(1)), s!]);
      k.store(out!, k.bin('add', cnt!, swapA!));
    });
    const { sm90 } = gate(f);
    expect(sm90.ptx).toMatch(/setp\.gt\.s32 %p\d+, %r\d+, 0;/);
  });
  it('loop-carried values can be swapped (parallel copy)', () => {
    const f = kernel('loop_swap', [['out', P('f32')], ['n', 'i32']], (k, [out, n]) => {
      const [a, b] = k.for(k.c(0), n!, k.c(1), [k.c(1, 'f32', [128]), k.c(2, 'f32', [128])], (_iv, [x, y]) => [y!, x!]);
      k.store(k.addptr(out!, k.arange(128)), k.bin('sub', a!, b!));
    });
    gate(f);
  });
  it('an if on a scalar condition yields tiles', () => {
    const f = kernel('branch', [['x', P('f32')], ['out', P('f32')], ['flag', 'i32']], (k, [x, out, flag]) => {
      const i = k.arange(128);
      const v = k.load(k.addptr(x!, i));
      const [r] = k.if(k.cmp('gt', flag!, k.c(0)), () => [k.un('exp', v)], () => [k.un('neg', v)]);
      k.store(k.addptr(out!, i), r!);
    });
    const { sm80 } = gate(f);
    expect(sm80.ptx).toMatch(/@!%p\d+ bra\.uni \$L_else_\d+;/);
  });
  it('atomics: tile atomic add with .sem/.scope, scalar CAS through thread 0', () => {
    const f = kernel('atomics', [['x', P('f32')], ['cnt', P('i32')], ['lock', P('i32')]], (k, [x, cnt, lock]) => {
      const i = k.arange(128);
      k.atomic('add', k.addptr(x!, i), k.c(1, 'f32', [128]));
      const old = k.cas(lock!, k.c(0), k.c(1));
      k.atomic('max', cnt!, old);
    });
    const { sm80, sm90 } = gate(f);
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /atom\.acq_rel\.gpu\.global\.add\.f32/)).toBe(1);
      expect(r.ptx).toMatch(/atom\.relaxed\.gpu\.global\.cas\.b32/);
      expect(r.ptx).toMatch(/atom\.acq_rel\.gpu\.global\.max\.s32/);
    }
  });
  it('replicated tile atomics are predicated to one copy', () => {
    const f = kernel('atomic_small', [['x', P('i32')]], (k, [x]) => {
      k.atomic('add', k.addptr(x!, k.arange(16)), k.c(1, 'i32', [16]));
    });
    const { sm80 } = gate(f);
    expect(sm80.ptx).toMatch(/setp\.lt\.u32 %p\d+, %r\d+, 16;/);
    expect(sm80.ptx).toMatch(/@%p\d+ atom\./);
  });
  it.each([
    ['add', 'f32'], ['add', 'f64'], ['add', 'f16'], ['add', 'bf16'], ['add', 'i64'], ['max', 'i32'], ['min', 'u32'],
    ['max', 'i64'], ['and', 'i32'], ['or', 'u32'], ['xor', 'i64'], ['xchg', 'f32'], ['xchg', 'i64'],
  ] as const)('atomic %s on %s assembles', (op, t) => {
    const f = kernel(`atom_${op}_${t}`, [['p', P(t)], ['o', P(t)]], (k, [p, o]) => {
      const i = k.arange(128);
      k.store(k.addptr(o!, i), k.atomic(op, k.addptr(p!, i), k.c(1, t, [128])));
    });
    expect(gate(f).sm90.ptx).toMatch(new RegExp(`atom\\.acq_rel\\.gpu\\.global\\.${op === 'xchg' ? 'exch' : op}\\.`));
  });
  it('unsupported atomics name the op and dtype', () => {
    const f = kernel('atom_bad', [['p', P('f16')]], (k, [p]) => {
      k.atomic('max', k.addptr(p!, k.arange(128)), k.c(1, 'f16', [128]));
    });
    expect(() => gate(f)).toThrow(/atomic 'max' is not supported for f16/);
  });
});
