import { describe, expect, test } from 'vitest';
import { canonicalize } from '../../../src/compiler/canonicalize.js';
import { tile } from '../../../src/ir/types.js';
import { TB } from '../../ir/build.js';
import { runPass } from './run.js';

const P = [{ name: 'p', type: 'ptr<f32>' as const }, { name: 'n', type: 'i32' as const }];

describe('canonicalize', () => {
  test('folds integer and float arithmetic with dtype semantics', () => {
    const t = new TB();
    const f = t.func('fold', P, ([p]) => {
      const big = t.bin('add', t.const(2147483647, 'i32'), t.const(1, 'i32'));   // wraps
      const q = t.bin('floordiv', t.const(-7, 'i32'), t.const(2, 'i32'));         // -4
      const d0 = t.bin('div', t.const(1, 'i32'), t.const(0, 'i32'));              // kept: traps
      const h = t.bin('add', t.const(2048, 'f16'), t.const(1, 'f16'));            // 2048 (ties to even)
      const r = t.bin('add', t.const(0.1, 'f32'), t.const(0.2, 'f32'));           // f32 rounding
      const e = t.unary('exp', t.const(1, 'f32'));                                 // kept: approximate
      const c = t.cmp('lt', big, q);
      const x = t.cast(t.const(-2.5, 'f32'), 'i8');
      t.b.op('print', [big, q, d0, h, r, e, c, x], [], { prefix: '', hex: false });
      t.store(p!, r);
    });
    expect(runPass(canonicalize, f)).toBe(`func @fold(p %0: ptr<f32>, n %1: i32) {
  %2 = const 2147483647 : i32
  %3 = const 1 : i32
  %4 = const -2147483648 : i32
  %5 = const -7 : i32
  %6 = const 2 : i32
  %7 = const -4 : i32
  %8 = const 1 : i32
  %9 = const 0 : i32
  %10 = binary.div %8, %9 : i32
  %11 = const 2048 : f16
  %12 = const 1 : f16
  %13 = const 2048 : f16
  %14 = const 0.10000000149011612 : f32
  %15 = const 0.20000000298023224 : f32
  %16 = const ${Math.fround(Math.fround(0.1) + Math.fround(0.2))} : f32
  %17 = const 1 : f32
  %18 = unary.exp %17 : f32
  %19 = const true : bool
  %20 = const -2.5 : f32
  %21 = const -2 : i8
  print %4, %7, %10, %13, %16, %18, %19, %21
  store %0, %16
  return
}
`);
  });

  test('shape ops of constants become constants; identity shape ops disappear', () => {
    const t = new TB();
    const f = t.func('shapes', P, ([p, n]) => {
      const s = t.splat(t.const(3, 'f32'), [8]);
      const e = t.expand(s, 0);
      const bc = t.broadcast(e, [4, 8]);
      const same = t.broadcast(t.expand(t.splat(n!, [8]), 0), [1, 8]);
      const tr = t.b.op('trans', [bc], [tile('f32', [4, 8])], { perm: [0, 1] }).results[0]!;
      t.b.op('print', [tr, same], [], { prefix: '', hex: false });
      t.store(p!, t.const(0, 'f32'));
    });
    expect(runPass(canonicalize, f)).toBe(`func @shapes(p %0: ptr<f32>, n %1: i32) {
  %2 = const 3 : f32
  %3 = const 3 : f32[8]
  %4 = const 3 : f32[1x8]
  %5 = const 3 : f32[4x8]
  %6 = splat %1 : i32[8]
  %7 = expand_dims %6 {axis = 0} : i32[1x8]
  print %5, %7
  %8 = const 0 : f32
  store %0, %8
  return
}
`);
  });

  test('algebraic identities, select and addptr', () => {
    const t = new TB();
    const f = t.func('ids', P, ([p, n]) => {
      const a = t.bin('add', n!, t.const(0, 'i32'));          // n
      const b = t.bin('mul', t.const(1, 'i32'), a);           // n
      const z = t.bin('mul', b, t.const(0, 'i32'));           // 0
      const x = t.load(p!);
      const fx = t.bin('add', x, t.const(0, 'f32'));          // kept: -0 + 0 = +0
      const fy = t.bin('add', x, t.const(-0, 'f32'));         // x
      const fz = t.bin('mul', x, t.const(0, 'f32'));          // kept: NaN * 0
      const fs = t.bin('sub', fy, t.const(0, 'f32'));         // x
      const sel = t.select(t.const(false, 'bool'), fx, fz);   // fz
      const same = t.select(t.cmp('lt', n!, z), fs, fs);      // x
      const q = t.addptr(p!, t.cast(z, 'i64'));               // p
      t.b.op('print', [sel, same], [], { prefix: '', hex: false });
      t.store(q, fs);
    });
    expect(runPass(canonicalize, f)).toBe(`func @ids(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  %4 = const 0 : i32
  %5 = const 0 : i32
  %6 = load %0 : f32
  %7 = const 0 : f32
  %8 = binary.add %6, %7 : f32
  %9 = const -0 : f32
  %10 = const 0 : f32
  %11 = binary.mul %6, %10 : f32
  %12 = const 0 : f32
  %13 = const false : bool
  %14 = cmp.lt %1, %5 : bool
  %15 = const 0 : i64
  print %11, %6
  store %0, %6
  return
}
`);
  });

  test('if with a constant condition is inlined; a zero-trip for yields its inits', () => {
    const t = new TB();
    const f = t.func('ctrl', P, ([p, n]) => {
      const c = t.cmp('lt', t.const(1, 'i32'), t.const(2, 'i32'));
      const [v] = t.if(c, [tile('i32')], () => [t.bin('mul', n!, n!)], () => [n!]);
      const [w] = t.for(t.const(4, 'i32'), t.const(4, 'i32'), t.const(1, 'i32'), [v!], (iv, [acc]) => [t.bin('add', acc!, iv)]);
      const [u] = t.for(t.const(0, 'i32'), n!, t.const(1, 'i32'), [w!], (iv, [acc]) => [t.bin('add', acc!, iv)]);
      t.store(p!, t.cast(u!, 'f32'));
    });
    expect(runPass(canonicalize, f)).toBe(`func @ctrl(p %0: ptr<f32>, n %1: i32) {
  %2 = const 1 : i32
  %3 = const 2 : i32
  %4 = const true : bool
  %5 = binary.mul %1, %1 : i32
  %6 = const 4 : i32
  %7 = const 4 : i32
  %8 = const 1 : i32
  %9 = const 0 : i32
  %10 = const 1 : i32
  %11 = for %9 to %1 step %10 init(%5) : i32 {
  ^(%12: i32, %13: i32):
    %14 = binary.add %13, %12 : i32
    yield %14
  }
  %15 = cast %11 {to = f32} : f32
  store %0, %15
  return
}
`);
  });

  test('approximate float division and sqrt fold only when precise', () => {
    const t = new TB();
    const f = t.func('precise', P, ([p]) => {
      const one = t.const(1, 'f32'), three = t.const(3, 'f32');
      t.b.op('print', [t.bin('div', one, three), t.bin('div', one, three, true), t.unary('sqrt', three), t.unary('sqrt', three, true)], [], { prefix: '', hex: false });
      t.store(p!, one);
    });
    const out = runPass(canonicalize, f);
    expect(out).toContain(`%4 = binary.div %2, %3 : f32`);
    expect(out).toContain(`%5 = const ${Math.fround(1 / 3)} : f32`);
    expect(out).toContain(`%6 = unary.sqrt %3 : f32`);
    expect(out).toContain(`%7 = const ${Math.fround(Math.sqrt(3))} : f32`);
  });
});
