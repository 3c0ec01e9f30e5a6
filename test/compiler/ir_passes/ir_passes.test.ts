import { describe, expect, test } from 'vitest';
import { IR_PASSES, runIRPasses } from '../../../src/compiler/ir_passes.js';
import type { Func } from '../../../src/ir/ops.js';
import { printFunc } from '../../../src/ir/print.js';
import { verify } from '../../../src/ir/verify.js';
import { walkOps } from '../../../src/ir/walk.js';
import { loopsKernel, TB, vectorAdd } from '../../ir/build.js';

/** A row-sum kernel written the way a tracer emits it: repeated index math inside the loop. */
function rowSum(): Func {
  const t = new TB();
  const params = [{ name: 'x', type: 'ptr<f32>' as const }, { name: 'out', type: 'ptr<f32>' as const }, { name: 'n', type: 'i32' as const }];
  return t.func('row_sum', params, ([x, out, n]) => {
    const row = t.pid(0);
    const zero = t.const(0, 'i32');
    const [acc] = t.for(zero, n!, t.const(32, 'i32'), [t.const(0, 'f32', [32])], (k, [acc]) => {
      const base = t.bin('mul', t.pid(0), n!);                       // invariant, duplicate of row*n
      const offs = t.bin('add', t.splat(t.bin('add', base, k), [32]), t.arange(0, 32));
      const mask = t.cmp('lt', t.bin('add', t.splat(k, [32]), t.arange(0, 32)), t.splat(n!, [32]));
      const v = t.load(t.addptr(t.splat(x!, [32]), offs), mask, t.const(0, 'f32', [32]));
      const scaled = t.bin('mul', v, t.const(1, 'f32', [32]));      // x*1
      return [t.bin('add', acc!, scaled)];
    });
    const unused = t.bin('mul', row, t.const(7, 'i32'));
    void unused;
    t.store(t.addptr(out!, t.bin('add', row, zero)), t.sum(acc!, 0));
  });
}

describe('runIRPasses', () => {
  test('runs the listed passes in order and dumps each stage', () => {
    const stages: string[] = [];
    runIRPasses(vectorAdd(), { dump: (stage, f) => {
      verify(f);
      stages.push(stage);
    } });
    expect(stages).toEqual(['input', ...IR_PASSES.map(([name]) => name)]);
    expect(IR_PASSES.map(([name]) => name)).toEqual(['canonicalize', 'cse', 'dce', 'licm', 'carried', 'canonicalize2', 'cse2', 'dce2']);
  });

  test('a traced row sum: folded, merged, hoisted and cleaned (golden)', () => {
    const f = rowSum();
    const before = printFunc(f);
    const out = runIRPasses(f);
    expect(printFunc(f)).toBe(before); // input untouched
    expect(printFunc(out)).toBe(`func @row_sum(x %0: ptr<f32>, out %1: ptr<f32>, n %2: i32) {
  %3 = program_id {axis = 0} : i32
  %4 = const 0 : i32
  %5 = const 32 : i32
  %6 = const 0 : f32[32]
  %7 = binary.mul %3, %2 : i32
  %8 = arange {end = 32, start = 0} : i32[32]
  %9 = splat %2 : i32[32]
  %10 = splat %0 : ptr<f32>[32]
  %11 = for %4 to %2 step %5 init(%6) : f32[32] {
  ^(%12: i32, %13: f32[32]):
    %14 = binary.add %7, %12 : i32
    %15 = splat %14 : i32[32]
    %16 = binary.add %15, %8 : i32[32]
    %17 = splat %12 : i32[32]
    %18 = binary.add %17, %8 : i32[32]
    %19 = cmp.lt %18, %9 : bool[32]
    %20 = addptr %10, %16 : ptr<f32>[32]
    %21 = load %20, %19, %6 {hasMask, hasOther} : f32[32]
    %22 = binary.add %13, %21 : f32[32]
    yield %22
  }
  %23 = addptr %1, %3 : ptr<f32>
  %24 = reduce %11 {axis = 0, kind = sum} : f32 {
  ^(%25: f32, %26: f32):
    %27 = binary.add %25, %26 : f32
    yield %27
  }
  store %23, %24
  return
}
`);
  });

  test('the pipeline reaches a fixed point on the test kernels', () => {
    for (const f of [vectorAdd(), loopsKernel(), rowSum()]) {
      const once = runIRPasses(f);
      expect(printFunc(runIRPasses(once))).toBe(printFunc(once));
    }
  });

  test('invalid input is rejected before any pass runs', () => {
    const f = vectorAdd();
    const broken = { ...f, body: { args: f.body.args, ops: f.body.ops.slice(1) } }; // program_id gone
    let dumped = 0;
    expect(() => runIRPasses(broken, { dump: () => void dumped++ })).toThrow(expect.objectContaining({ code: 'E_IR_VERIFY' }));
    expect(dumped).toBe(0);
  });

  test('source locations survive every pass', () => {
    const out = runIRPasses(loopsKernel({ loc: true }));
    let ops = 0;
    walkOps(out.body, (op) => {
      ops++;
      expect(op.loc).toEqual({ file: 'k.ts', line: 3, col: 7 });
    });
    expect(ops).toBeGreaterThan(10);
  });
});
