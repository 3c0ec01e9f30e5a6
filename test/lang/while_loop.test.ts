// whileLoop's front end, IR and passes: errors name what is wrong; the verifier checks both
// regions; the printer shows it; the passes never delete, merge or hoist a while loop (it may
// never end); the pipeliner does not treat a for around a while as innermost. (Results on the
// interpreter and the sim: test/e2e/while_sm80.test.ts, while_sm90.test.ts.)
import { describe, expect, test } from 'vitest';
import { runIRPasses } from '../../src/compiler/ir_passes.js';
import { IRBuilder } from '../../src/ir/builder.js';
import type { Func } from '../../src/ir/ops.js';
import { printFunc } from '../../src/ir/print.js';
import { tile } from '../../src/ir/types.js';
import { verify } from '../../src/ir/verify.js';
import { walkOps } from '../../src/ir/walk.js';
import { HostMemory, interpret } from '../../src/interpret/index.js';
import { arange, defineKernel, forLoop, load, ptr, store, sum, whileLoop, zeros } from '../../src/lang/index.js';

const kindsIn = (f: Func): string[] => {
  const out: string[] = [];
  walkOps(f.body, (op, path) => out.push(`${path.length}:${op.kind}`));
  return out;
};

describe('whileLoop tracing', () => {
  test('emits a while op with a before and a body region over the carried values', () => {
    const k = defineKernel({ name: 'w', params: { o: ptr('i32'), n: 'i32' } }, ({ o, n }) => {
      const [i, s] = whileLoop([0, 0], (i) => i.lt(n), (i, s) => [i.add(1), s!.add(i)]);
      store(o, i!.add(s!));
    });
    const f = k.trace({});
    verify(f);
    const text = printFunc(f);
    expect(text).toMatch(/= while %\d+, %\d+ : i32, i32 \{\n\s+\^\(%\d+: i32, %\d+: i32\):\n\s+%\d+ = cmp.lt [\s\S]*\} do \{\n\s+\^\(%\d+: i32, %\d+: i32\):/);
    const w = f.body.ops.find((op) => op.kind === 'while')!;
    expect(w.regions.map((r) => r.ops.at(-1)!.operands.length)).toEqual([1, 2]);
  });

  test.each([
    ['a condition that is not bool', () => whileLoop([0], (i) => i.add(1), (i) => [i]), /condition must return a bool scalar, got i32/],
    ['a condition that is a tile', () => whileLoop([zeros([16], 'i32')], (t) => t.lt(3), (t) => [t]), /bool scalar, got bool\[16\].*reduce a tile first/],
    ['a body that changes a type', () => whileLoop([0], (i) => i.lt(3), (i) => [i.to('f32')]), /body value 0 changes type from i32 to f32/],
    ['a body that returns too few values', () => whileLoop([0, 1], (i) => i.lt(3), (i) => [i]), /body must return 2 value\(s\), got 1/],
    ['no functions', () => whileLoop([0], 1 as never, 2 as never), /needs a condition and a body function/],
    ['inits that are not an array', () => whileLoop(3 as never, (i) => i.lt(3), (i) => [i]), /inits must be an array/],
    ['a tile from the body used after the loop', () => {
      let leak: unknown;
      whileLoop([0], (i) => i.lt(3), (i) => { leak = i.add(1); return [leak as never]; });
      return (leak as ReturnType<typeof arange>).add(1);
    }, /created inside a loop or if body was used outside/],
  ])('rejects %s', (_, body, msg) => {
    const k = defineKernel({ name: 'bad', params: { o: ptr('i32') } }, () => void body());
    expect(() => k.trace({})).toThrow(msg);
  });

  test('a JS boolean condition is allowed (false: the loop never runs)', () => {
    const k = defineKernel({ name: 'wf', params: { o: ptr('i32') } }, ({ o }) => {
      const [i] = whileLoop([7], () => false, (i) => [i.add(1)]);
      store(o, i!);
    });
    const mem = new HostMemory();
    const out = new Int32Array(1);
    const a = mem.upload(out);
    interpret(k.trace({}), [a], mem, { grid: [1] });
    mem.download(a, out);
    expect(out[0]).toBe(7);
  });
});

describe('the verifier checks while loops', () => {
  const build = (beforeYield: 'bool' | 'i32', bodyYields: number): Func => {
    const b = new IRBuilder();
    return b.func('v', [{ name: 'n', type: 'i32' }], {}, ([n]) => {
      const t = tile('i32');
      const before = b.region([t], ([c]) => {
        const r = beforeYield === 'bool' ? b.op('cmp', [c!, n!], [tile('bool')], { pred: 'lt' }).results[0]! : c!;
        b.op('yield', [r], [], {});
      });
      const body = b.region([t], ([c]) => void b.op('yield', Array(bodyYields).fill(c!), [], {}));
      b.op('while', [n!], [t], {}, [before, body]);
    });
  };
  test('accepts a valid loop', () => expect(() => verify(build('bool', 1))).not.toThrow());
  test('rejects a before region that yields an i32', () => expect(() => verify(build('i32', 1))).toThrow(/op 0 'while': region 0 yield #0 must be bool, got i32/));
  test('rejects a body that yields the wrong count', () => expect(() => verify(build('bool', 2))).toThrow(/while.*region 1 yields 2 value\(s\), expected 1/));
});

describe('passes treat a while loop as an op that may never end', () => {
  test('LICM keeps an invariant while in its for loop, DCE keeps an unused one, CSE merges none', () => {
    const k = defineKernel({ name: 'keep', params: { o: ptr('i32'), n: 'i32', m: 'i32' } }, ({ o, n, m }) => {
      // invariant in the for: hoisting it would run it when n <= 0, and it never ends for odd m
      const [s] = forLoop(0, n, 1, [0], (i, s) => {
        const [r] = whileLoop([m], (c) => c.ne(0), (c) => [c.sub(2)]);
        return [s!.add(r!).add(i)];
      });
      whileLoop([m], (c) => c.ne(0), (c) => [c.sub(2)]); // unused
      whileLoop([m], (c) => c.ne(0), (c) => [c.sub(2)]); // unused, equal to the one before
      store(o, s!);
    });
    const f = runIRPasses(k.trace({}));
    const kinds = kindsIn(f);
    expect(kinds.filter((x) => x === '3:while')).toHaveLength(1); // inside the for's body
    expect(kinds.filter((x) => x === '1:while')).toHaveLength(2);
    // n = 0, m = 3: the loop body never runs, so nothing hangs
    const mem = new HostMemory();
    const out = new Int32Array(1).fill(-1);
    const a = mem.upload(out);
    const g = runIRPasses(defineKernel({ name: 'keep2', params: { o: ptr('i32'), n: 'i32', m: 'i32' } }, ({ o, n, m }) => {
      const [s] = forLoop(0, n, 1, [0], (_, s) => [s!.add(whileLoop([m], (c) => c.ne(0), (c) => [c.sub(2)])[0]!)]);
      store(o, s!);
    }).trace({}));
    interpret(g, [a, 0, 3], mem, { grid: [1] });
    mem.download(a, out);
    expect(out[0]).toBe(0);
  });

  test('the pipeliner does not take a for around a while as innermost', async () => {
    const { analyzeAxisInfo } = await import('../../src/compiler/axis_info.js');
    const { planPipelines } = await import('../../src/compiler/pipeline.js');
    const { dot } = await import('../../src/lang/index.js');
    const k = defineKernel({ name: 'pipe', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32', m: 'i32' } }, ({ a, b, c, K, m }) => {
      const r = arange(0, 32);
      const offs = r.expandDims(1).mul(32).add(r.expandDims(0));
      const [acc] = forLoop(0, K, 32, [zeros([32, 32], 'f32')], (k, acc) => {
        const ta = load(a.add(offs).add(k));
        const tb = load(b.add(offs).add(k.mul(32)));
        const [w] = whileLoop([acc!], (t) => sum(sum(t!, 1), 0).lt(m.to('f32')), (t) => [t!.add(1)]);
        return [dot(ta, tb, { acc: w! })];
      });
      store(c.add(offs), acc!);
    });
    const f = runIRPasses(k.trace({}));
    const plan = planPipelines(f, analyzeAxisInfo(f), { numWarps: 4, numStages: 3, dot: 'mma' });
    expect(plan.loops.size).toBe(0);
    expect(plan.notes.join('\n')).toMatch(/not innermost/);
  });
});

