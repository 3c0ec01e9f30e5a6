// exitIf and assume: front-end errors, the verifier's placement rule, the interpreter (a program
// that leaves writes nothing after; a false assume is E_ASSUME), the passes keep both, and
// AxisInfo reads `assume(x.rem(n).eq(0))`. (Sim runs: test/e2e/exit_assume_sm80/sm90.test.ts.)
import { describe, expect, test } from 'vitest';
import { analyzeAxisInfo } from '../../src/compiler/axis_info.js';
import { runIRPasses } from '../../src/compiler/ir_passes.js';
import { IRBuilder } from '../../src/ir/builder.js';
import type { Func } from '../../src/ir/ops.js';
import { tile } from '../../src/ir/types.js';
import { verify } from '../../src/ir/verify.js';
import { HostMemory, interpret } from '../../src/interpret/index.js';
import {
  arange, assume, defineKernel, exitIf, forLoop, ifThenElse, load, programId, ptr, store, whileLoop, zeros,
} from '../../src/lang/index.js';

function run(f: Func, out: Int32Array, scalars: number[], grid: number[]): Int32Array {
  const mem = new HostMemory();
  const a = mem.upload(out);
  interpret(f, [a, ...scalars], mem, { grid, onPrint: () => {} });
  const got = new Int32Array(out.length);
  mem.download(a, got);
  return got;
}

describe('exitIf', () => {
  const k = defineKernel({ name: 'ex', params: { o: ptr('i32'), n: 'i32' } }, ({ o, n }) => {
    const pid = programId(0);
    store(o.add(pid), 1);
    exitIf(pid.ge(n));
    store(o.add(pid), 2);
  });
  test('programs where the condition holds stop there, the others go on', () => {
    expect([...run(k.trace({}), new Int32Array(6), [4], [6])]).toEqual([2, 2, 2, 2, 1, 1]);
  });
  test('the passes keep it where it is (it is not pure)', () => {
    const f = runIRPasses(k.trace({}));
    expect(f.body.ops.map((op) => op.kind).filter((x) => x === 'store' || x === 'exit_if')).toEqual(['store', 'exit_if', 'store']);
    expect([...run(f, new Int32Array(6), [4], [6])]).toEqual([2, 2, 2, 2, 1, 1]);
  });
  test('a JS boolean decides at trace time', () => {
    const j = defineKernel({ name: 'exj', params: { o: ptr('i32') } }, ({ o }) => {
      exitIf(false);
      store(o, 5);
      exitIf(true);
      store(o, 6);
    });
    expect(run(j.trace({}), new Int32Array(1), [], [1])[0]).toBe(5);
  });
  test.each([
    ['a tile condition', () => exitIf(arange(0, 16).lt(3)), /bool scalar condition.*got bool\[16\].*reduce it first/],
    ['an i32 condition', () => exitIf(programId(0)), /bool scalar condition.*got i32/],
    ['a number', () => exitIf(1 as never), /bool scalar condition, got/],
    ['inside a for loop', () => forLoop(0, 4, 1, [], () => exitIf(programId(0).eq(0))), /top level of the kernel or inside ifs there, not inside a loop/],
    ['inside a while loop', () => whileLoop([0], (i) => i.lt(2), (i) => { exitIf(i.eq(1)); return [i.add(1)]; }), /top level/],
    ['inside an if inside a loop', () => forLoop(0, 4, 1, [], () => { ifThenElse(programId(0).eq(0), () => exitIf(true)); }), /top level of the kernel or inside ifs there, not inside a loop/],
  ])('rejects %s', (_, body, msg) => {
    const bad = defineKernel({ name: 'bad', params: { o: ptr('i32') } }, () => void body());
    expect(() => bad.trace({})).toThrow(msg);
  });
  test('the verifier allows exit_if in the function body and in ifs there, not in a loop', () => {
    const build = (inLoop: boolean) => {
      const b = new IRBuilder();
      return b.func('v', [{ name: 'n', type: 'i32' }], {}, ([n]) => {
        const c = b.op('cmp', [n!, n!], [tile('bool')], { pred: 'eq' }).results[0]!;
        const ifOp = () => {
          const then = b.region([], () => { b.op('exit_if', [c], [], {}); b.op('yield', [], [], {}); });
          const els = b.region([], () => void b.op('yield', [], [], {}));
          b.op('if', [c], [], {}, [then, els]);
        };
        if (!inLoop) return ifOp();
        const body = b.region([tile('i32')], () => { ifOp(); b.op('yield', [], [], {}); });
        b.op('for', [n!, n!, n!], [], {}, [body]);
      });
    };
    expect(() => verify(build(false))).not.toThrow();
    expect(() => verify(build(true))).toThrow(/'exit_if' is only allowed in the function body or in 'if' regions there, not inside a for/);
  });
});

describe('assume', () => {
  const k = defineKernel({ name: 'as', params: { o: ptr('i32'), n: 'i32' } }, ({ o, n }) => {
    assume(n.rem(16).eq(0));
    assume(arange(0, 16).add(n).ge(n));
    store(o, n.mul(2));
  });
  test('a true assume changes nothing', () => expect(run(k.trace({}), new Int32Array(1), [32], [1])[0]).toBe(64));
  test('a false assume is an error on the interpreter, naming the program and lane', () => {
    expect(() => run(k.trace({}), new Int32Array(1), [8], [1])).toThrow(/assume failed in program \(0, 0, 0\), lane 0/);
    try {
      run(k.trace({}), new Int32Array(1), [8], [1]);
    } catch (e) {
      expect((e as { code: string }).code).toBe('E_ASSUME');
    }
  });
  test('the passes keep it (the interpreter checks it after optimization too)', () => {
    expect(() => run(runIRPasses(k.trace({})), new Int32Array(1), [8], [1])).toThrow(/assume failed/);
  });
  test.each([
    ['an i32 condition', () => assume(programId(0)), /assume needs a bool condition, got i32/],
    ['false at trace time', () => assume(false), /assume\(false\)/],
  ])('rejects %s', (_, body, msg) => {
    const bad = defineKernel({ name: 'bad', params: { o: ptr('i32') } }, () => void body());
    expect(() => bad.trace({})).toThrow(msg);
  });

  const divOf = (withAssume: boolean, exitFirst = false): number => {
    const d = defineKernel({ name: 'ad', params: { p: ptr('i32'), o: ptr('i32') } }, ({ p, o }) => {
      const s = load(p);
      if (exitFirst) exitIf(s.lt(0));
      if (withAssume) assume(s.rem(24).eq(0));
      store(o.add(arange(0, 16)), zeros([16], 'i32').add(s));
    });
    const f = runIRPasses(d.trace({}));
    const s = f.body.ops.find((op) => op.kind === 'load')!.results[0]!;
    return analyzeAxisInfo(f).get(s).divisibility[0]!;
  };
  test('AxisInfo reads assume(x % n == 0) as x divisible by the power of two in n', () => {
    expect(divOf(false)).toBe(1);
    expect(divOf(true)).toBe(8);
  });
  test('but not after an exitIf (the promise does not hold where the program left)', () => expect(divOf(true, true)).toBe(1));
});
