import { describe, expect, test } from 'vitest';
import { cse } from '../../../src/compiler/cse.js';
import { tile } from '../../../src/ir/types.js';
import { TB } from '../../ir/build.js';
import { runPass } from './run.js';

const P = [{ name: 'p', type: 'ptr<f32>' as const }, { name: 'n', type: 'i32' as const }];

describe('cse', () => {
  test('merges equal pure ops (commutative operands too), never loads or stores', () => {
    const t = new TB();
    const f = t.func('dups', P, ([p, n]) => {
      const a = t.bin('mul', t.pid(0), t.const(64, 'i32'));
      const b = t.bin('mul', t.const(64, 'i32'), t.pid(0)); // same as a after merging operands
      const c = t.bin('sub', a, n!);
      const d = t.bin('sub', n!, b);                         // not commutative: stays
      const x = t.load(p!), y = t.load(p!);                  // loads stay
      const f64 = t.const(64, 'f32');                        // other type: stays
      t.b.op('print', [a, b, c, d, x, y, f64], [], { prefix: '', hex: false });
      t.store(p!, x);
    });
    expect(runPass(cse, f)).toBe(`func @dups(p %0: ptr<f32>, n %1: i32) {
  %2 = program_id {axis = 0} : i32
  %3 = const 64 : i32
  %4 = binary.mul %2, %3 : i32
  %5 = binary.sub %4, %1 : i32
  %6 = binary.sub %1, %4 : i32
  %7 = load %0 : f32
  %8 = load %0 : f32
  %9 = const 64 : f32
  print %4, %4, %5, %6, %7, %8, %9
  store %0, %7
  return
}
`);
  });

  test('regions reuse enclosing values but never leak their own', () => {
    const t = new TB();
    const f = t.func('scopes', P, ([p, n]) => {
      const outer = t.bin('add', n!, n!);
      const [r] = t.for(t.const(0, 'i32'), n!, t.const(1, 'i32'), [outer], (iv, [acc]) => {
        const again = t.bin('add', n!, n!);                 // reuses `outer`
        const inner = t.bin('mul', iv, again);
        return [t.bin('add', acc!, inner)];
      });
      const [s] = t.if(t.cmp('lt', r!, n!), [tile('i32')], () => [t.bin('mul', n!, n!)], () => [t.bin('mul', n!, n!)]);
      const after = t.bin('mul', n!, n!);                   // the branches' copies are not visible here
      t.store(p!, t.cast(t.bin('add', s!, after), 'f32'));
    });
    expect(runPass(cse, f)).toBe(`func @scopes(p %0: ptr<f32>, n %1: i32) {
  %2 = binary.add %1, %1 : i32
  %3 = const 0 : i32
  %4 = const 1 : i32
  %5 = for %3 to %1 step %4 init(%2) : i32 {
  ^(%6: i32, %7: i32):
    %8 = binary.mul %6, %2 : i32
    %9 = binary.add %7, %8 : i32
    yield %9
  }
  %10 = cmp.lt %5, %1 : bool
  %11 = if %10 : i32 {
    %12 = binary.mul %1, %1 : i32
    yield %12
  } else {
    %13 = binary.mul %1, %1 : i32
    yield %13
  }
  %14 = binary.mul %1, %1 : i32
  %15 = binary.add %11, %14 : i32
  %16 = cast %15 {to = f32} : f32
  store %0, %16
  return
}
`);
  });

  test('attributes and constant values are part of the key', () => {
    const t = new TB();
    const f = t.func('attrs', P, ([p]) => {
      const vals = [t.pid(0), t.pid(1), t.pid(0), t.const(-0, 'f32'), t.const(0, 'f32'), t.const(-0, 'f32')];
      t.b.op('print', vals, [], { prefix: '', hex: false });
      t.store(p!, vals[3]!);
    });
    expect(runPass(cse, f)).toBe(`func @attrs(p %0: ptr<f32>, n %1: i32) {
  %2 = program_id {axis = 0} : i32
  %3 = program_id {axis = 1} : i32
  %4 = const -0 : f32
  %5 = const 0 : f32
  print %2, %3, %2, %4, %5, %4
  store %0, %4
  return
}
`);
  });
});
