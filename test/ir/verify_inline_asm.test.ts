// The verifier's inline_asm rule: the same constraint, width, pack and `$n` checks the front end
// makes, for IR built by hand (or by another front end), and one shape for every operand and result.
import { expect, test } from 'vitest';
import type { Func, Param, Value } from '../../src/ir/ops.js';
import { tile, type DType } from '../../src/ir/types.js';
import { verify } from '../../src/ir/verify.js';
import { TB } from './build.js';
import { hashFunc } from '../../src/ir/hash.js';

const PARAMS: Param[] = [{ name: 'p', type: 'ptr<f32>' }];

function asmKernel(asm: string, constraints: string, outs: DType[], pack = 1, argShape = [4]): Func {
  const t = new TB();
  return t.func('k', PARAMS, () => {
    const r = t.arange(0, 4);
    const x: Value = argShape.length === 1 ? r : t.expand(r, 1);
    t.b.op('inline_asm', [x], outs.map((e) => tile(e, [4])), { asm, constraints, pack, isPure: false });
  });
}

test('a well-formed inline_asm verifies', () => {
  expect(() => verify(asmKernel('add.s32 $0, $2, 1; mov.b32 $1, $2;', '=r,=r,r', ['i32', 'u32']))).not.toThrow();
});

test('bad constraints, widths, packs, operand references and shapes are E_IR_VERIFY naming the problem', () => {
  expect(() => verify(asmKernel('mov.b32 $0, $1;', '=r,x', ['i32']))).toThrow(/constraint 1 'x' in "=r,x" is not one of/);
  expect(() => verify(asmKernel('mov.b32 $0, $1;', '=r,r', ['f16']))).toThrow(/output 0 \(f16, pack 1\) needs a 16-bit register/);
  expect(() => verify(asmKernel('mov.b32 $0, $1;', '=r,r', ['i32'], 2))).toThrow(/output 0 \(i32, pack 2\) needs a 64-bit register/);
  expect(() => verify(asmKernel('mov.b32 $0, $3;', '=r,r', ['i32']))).toThrow(/names \$3, but there are only 2 operands/);
  expect(() => verify(asmKernel('mov.b32 $0, $1;', '=r,r', ['i32'], 1, [4, 1]))).toThrow(/value #0 has shape .* expected/);
});

test('the asm text, constraints and pack are part of the IR hash (the compile cache keeps kernels apart)', () => {
  const h = (asm: string, cons = '=r,r', outs: DType[] = ['i32']) => hashFunc(asmKernel(asm, cons, outs));
  expect(h('add.s32 $0, $1, 1;')).not.toBe(h('add.s32 $0, $1, 2;'));
  expect(h('mov.b32 $0, $1;', '=r,r')).not.toBe(h('mov.b32 $0, $1;', '=f,r', ['f32']));
  expect(h('add.s32 $0, $1, 1;')).toBe(h('add.s32 $0, $1, 1;'));
});
