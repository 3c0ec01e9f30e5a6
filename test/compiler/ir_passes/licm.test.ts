import { describe, expect, test } from 'vitest';
import { licm } from '../../../src/compiler/licm.js';
import { tile } from '../../../src/ir/types.js';
import { TB } from '../../ir/build.js';
import { runPass } from './run.js';

const P = [{ name: 'p', type: 'ptr<f32>' as const }, { name: 'n', type: 'i32' as const }];

describe('licm', () => {
  test('hoists invariant pure ops, keeps variant ops, loads, stores and integer division', () => {
    const t = new TB();
    const f = t.func('hoist', P, ([p, n]) => {
      const [r] = t.for(t.const(0, 'i32'), n!, t.const(1, 'i32'), [t.const(0, 'f32', [16])], (iv, [acc]) => {
        const base = t.splat(p!, [16]);                            // invariant
        const offs = t.bin('mul', t.arange(0, 16), t.splat(n!, [16])); // invariant chain
        const q = t.bin('div', n!, t.const(2, 'i32'));               // may trap: stays
        const x = t.load(t.addptr(base, t.bin('add', offs, t.splat(iv, [16]))));
        return [t.bin('add', acc!, t.bin('mul', x, t.splat(t.cast(q, 'f32'), [16])))];
      });
      t.store(t.splat(p!, [16]), r!);
    });
    expect(runPass(licm, f)).toBe(`func @hoist(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  %4 = const 0 : f32[16]
  %5 = splat %0 : ptr<f32>[16]
  %6 = arange {end = 16, start = 0} : i32[16]
  %7 = splat %1 : i32[16]
  %8 = binary.mul %6, %7 : i32[16]
  %9 = const 2 : i32
  %10 = for %2 to %1 step %3 init(%4) : f32[16] {
  ^(%11: i32, %12: f32[16]):
    %13 = binary.div %1, %9 : i32
    %14 = splat %11 : i32[16]
    %15 = binary.add %8, %14 : i32[16]
    %16 = addptr %5, %15 : ptr<f32>[16]
    %17 = load %16 : f32[16]
    %18 = cast %13 {to = f32} : f32
    %19 = splat %18 : f32[16]
    %20 = binary.mul %17, %19 : f32[16]
    %21 = binary.add %12, %20 : f32[16]
    yield %21
  }
  %22 = splat %0 : ptr<f32>[16]
  store %22, %10
  return
}
`);
  });

  test('ops climb out of nested loops as far as their operands allow; if branches stay', () => {
    const t = new TB();
    const f = t.func('nested', P, ([p, n]) => {
      const zero = t.const(0, 'i32'), one = t.const(1, 'i32');
      t.for(zero, n!, one, [], (i) => {
        t.for(zero, n!, one, [], (j) => {
          const nn = t.bin('mul', n!, n!);       // invariant in both loops
          const ii = t.bin('mul', i, n!);        // invariant in the inner loop only
          const [v] = t.if(t.cmp('lt', j, nn), [tile('i32')], () => [t.bin('add', n!, one)], () => [ii]);
          t.store(t.addptr(p!, t.bin('add', v!, j)), t.const(1, 'f32'));
          return [];
        });
        return [];
      });
    });
    expect(runPass(licm, f)).toBe(`func @nested(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  %4 = binary.mul %1, %1 : i32
  %5 = const 1 : f32
  for %2 to %1 step %3 {
  ^(%6: i32):
    %7 = binary.mul %6, %1 : i32
    for %2 to %1 step %3 {
    ^(%8: i32):
      %9 = cmp.lt %8, %4 : bool
      %10 = if %9 : i32 {
        %11 = binary.add %1, %3 : i32
        yield %11
      } else {
        yield %7
      }
      %12 = binary.add %10, %8 : i32
      %13 = addptr %0, %12 : ptr<f32>
      store %13, %5
      yield
    }
    yield
  }
  return
}
`);
  });
});
