import { describe, expect, test } from 'vitest';
import { dce } from '../../../src/compiler/dce.js';
import { tile } from '../../../src/ir/types.js';
import { TB } from '../../ir/build.js';
import { runPass } from './run.js';

const P = [{ name: 'p', type: 'ptr<f32>' as const }, { name: 'n', type: 'i32' as const }];

describe('dce', () => {
  test('removes unused pure ops, keeps side effects and loads', () => {
    const t = new TB();
    const f = t.func('dead', P, ([p, n]) => {
      const used = t.bin('add', n!, n!);
      t.bin('mul', used, t.const(3, 'i32'));                // dead, and so is its constant
      t.load(p!);                                           // unused load: kept (may fault)
      t.b.op('assert', [t.cmp('lt', used, n!)], [], { message: 'm' });
      t.store(p!, t.cast(used, 'f32'));
    });
    expect(runPass(dce, f)).toBe(`func @dead(p %0: ptr<f32>, n %1: i32) {
  %2 = binary.add %1, %1 : i32
  %3 = load %0 : f32
  %4 = cmp.lt %2, %1 : bool
  assert %4 {message = "m"}
  %5 = cast %2 {to = f32} : f32
  store %0, %5
  return
}
`);
  });

  test('trims unused loop-carried values and if results', () => {
    const t = new TB();
    const f = t.func('loops', P, ([p, n]) => {
      const zero = t.const(0, 'i32'), one = t.const(1, 'i32');
      // a is used after the loop; b only feeds itself (dead); c feeds a (live through the body).
      const [a] = t.for(zero, n!, one, [zero, zero, zero], (iv, [a, b, c]) => [t.bin('add', a!, c!), t.bin('mul', b!, iv), t.bin('add', c!, iv)]);
      const [x] = t.if(t.cmp('lt', a!, n!), [tile('i32'), tile('i32')], () => [a!, t.bin('mul', a!, a!)], () => [n!, t.bin('sub', a!, n!)]);
      t.store(p!, t.cast(x!, 'f32'));
    });
    expect(runPass(dce, f)).toBe(`func @loops(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  %4, %5 = for %2 to %1 step %3 init(%2, %2) : i32, i32 {
  ^(%6: i32, %7: i32, %8: i32):
    %9 = binary.add %7, %8 : i32
    %10 = binary.add %8, %6 : i32
    yield %9, %10
  }
  %11 = cmp.lt %4, %1 : bool
  %12 = if %11 : i32 {
    yield %4
  } else {
    yield %1
  }
  %13 = cast %12 {to = f32} : f32
  store %0, %13
  return
}
`);
  });

  test('removes loops and ifs without side effects or used results; keeps ones with stores', () => {
    const t = new TB();
    const f = t.func('effects', P, ([p, n]) => {
      const zero = t.const(0, 'i32'), one = t.const(1, 'i32');
      t.for(zero, n!, one, [zero], (iv, [a]) => [t.bin('add', a!, iv)]);             // dead
      t.if(t.cmp('lt', n!, zero), [tile('i32')], () => [n!], () => [zero]);          // dead
      t.for(zero, n!, one, [zero], (iv, [a]) => {                                    // store: kept, carried value dropped
        t.store(t.addptr(p!, iv), t.const(1, 'f32'));
        return [t.bin('add', a!, iv)];
      });
    });
    expect(runPass(dce, f)).toBe(`func @effects(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  for %2 to %1 step %3 {
  ^(%4: i32):
    %5 = addptr %0, %4 : ptr<f32>
    %6 = const 1 : f32
    store %5, %6
    yield
  }
  return
}
`);
  });

  test('atomics with unused results, prints and asserts are never removed', () => {
    const t = new TB();
    const f = t.func('effects2', P, ([p, n]) => {
      t.b.op('atomic_rmw', [p!, t.const(1, 'f32')], [tile('f32')], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: false });
      t.b.op('atomic_cas', [p!, t.const(1, 'f32'), t.const(2, 'f32')], [tile('f32')], { sem: 'relaxed', scope: 'gpu' });
      t.b.op('print', [n!], [], { prefix: 'n', hex: false });
    });
    expect(runPass(dce, f)).toBe(`func @effects2(p %0: ptr<f32>, n %1: i32) {
  %2 = const 1 : f32
  %3 = atomic_rmw.add %0, %2 {scope = gpu, sem = relaxed} : f32
  %4 = const 1 : f32
  %5 = const 2 : f32
  %6 = atomic_cas %0, %4, %5 {scope = gpu, sem = relaxed} : f32
  print %1 {prefix = "n"}
  return
}
`);
  });
});
