import { describe, expect, test } from 'vitest';
import { printFunc } from '../../src/ir/print.js';
import { tile } from '../../src/ir/types.js';
import { loopsKernel, TB, vectorAdd } from './build.js';

describe('printFunc', () => {
  test('vector add (golden)', () => {
    expect(printFunc(vectorAdd(128))).toBe(`func @add(x %0: ptr<f32>, y %1: ptr<f32>, out %2: ptr<f32>, n %3: i32) constexprs(BLOCK = 128) {
  %4 = program_id {axis = 0} : i32
  %5 = const 128 : i32
  %6 = binary.mul %4, %5 : i32
  %7 = splat %6 : i32[128]
  %8 = arange {end = 128, start = 0} : i32[128]
  %9 = binary.add %7, %8 : i32[128]
  %10 = splat %3 : i32[128]
  %11 = cmp.lt %9, %10 : bool[128]
  %12 = splat %0 : ptr<f32>[128]
  %13 = addptr %12, %9 : ptr<f32>[128]
  %14 = load %13, %11 {hasMask} : f32[128]
  %15 = splat %1 : ptr<f32>[128]
  %16 = addptr %15, %9 : ptr<f32>[128]
  %17 = load %16, %11 {hasMask} : f32[128]
  %18 = splat %2 : ptr<f32>[128]
  %19 = addptr %18, %9 : ptr<f32>[128]
  %20 = binary.add %14, %17 : f32[128]
  store %19, %20, %11 {hasMask}
  return
}
`);
  });

  test('regions: for, reduce and if (golden)', () => {
    expect(printFunc(loopsKernel())).toBe(`func @loops(p %0: ptr<f32>, n %1: i32) {
  %2 = const 0 : i32
  %3 = const 1 : i32
  %4 = const 0 : f32[16]
  %5 = for %2 to %1 step %3 init(%4) : f32[16] {
  ^(%6: i32, %7: f32[16]):
    %8 = splat %0 : ptr<f32>[16]
    %9 = splat %6 : i32[16]
    %10 = addptr %8, %9 : ptr<f32>[16]
    %11 = load %10 : f32[16]
    %12 = binary.add %7, %11 : f32[16]
    yield %12
  }
  %13 = reduce %5 {axis = 0, kind = sum} : f32 {
  ^(%14: f32, %15: f32):
    %16 = binary.add %14, %15 : f32
    yield %16
  }
  %17 = const 0 : f32
  %18 = cmp.gt %13, %17 : bool
  %19 = if %18 : f32 {
    yield %13
  } else {
    %20 = unary.neg %13 : f32
    yield %20
  }
  store %0, %19
  return
}
`);
  });

  test('output does not depend on builder ids', () => {
    expect(printFunc(vectorAdd(64, 17))).toBe(printFunc(vectorAdd(64)));
    expect(printFunc(loopsKernel({ skipIds: 5 }))).toBe(printFunc(loopsKernel()));
  });

  test('locations are printed only when asked', () => {
    const f = loopsKernel({ loc: true });
    expect(printFunc(f)).not.toContain('loc(');
    const lines = printFunc(f, { locs: true }).split('\n');
    expect(lines[1]).toBe('  %2 = const 0 : i32 loc(k.ts:3:7)');
    expect(lines[4]).toBe('  %5 = for %2 to %1 step %3 init(%4) : f32[16] loc(k.ts:3:7) {');
  });

  test('constants, multi-result ops and quoted string attributes', () => {
    const t = new TB();
    const f = t.func('consts', [], () => {
      t.const(NaN, 'f32');
      t.const(-0, 'f32');
      t.const(-Infinity, 'f16', [2]);
      t.const(1.5e-7, 'f64');
      t.const(-(2n ** 63n), 'i64');
      t.const(true, 'bool');
      const j = t.b.op('join', [t.const(1, 'i8', [4]), t.const(2, 'i8', [4])], [tile('i8', [4, 2])], {}).results[0]!;
      t.b.op('split', [j], [tile('i8', [4]), tile('i8', [4])], {});
      t.b.op('print', [j], [], { prefix: 'j = ', hex: false });
    }, { NAME: 'k v', ON: true, BLOCK: 16 });
    expect(printFunc(f)).toBe(`func @consts() constexprs(BLOCK = 16, NAME = "k v", ON = true) {
  %0 = const nan : f32
  %1 = const -0 : f32
  %2 = const -inf : f16[2]
  %3 = const 1.5e-7 : f64
  %4 = const -9223372036854775808 : i64
  %5 = const true : bool
  %6 = const 1 : i8[4]
  %7 = const 2 : i8[4]
  %8 = join %6, %7 : i8[4x2]
  %9, %10 = split %8 : i8[4], i8[4]
  print %8 {prefix = "j = "}
  return
}
`);
  });
});
