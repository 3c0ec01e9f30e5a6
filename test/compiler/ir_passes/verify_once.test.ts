// runIRPasses verifies the input and the final IR only; when something fails it re-runs the
// pipeline verifying after each pass, so errors still name the pass that broke the IR.
import { describe, expect, test } from 'vitest';
import { IR_PASSES, runIRPasses, type IRPass } from '../../../src/compiler/ir_passes.js';
import { cse } from '../../../src/compiler/cse.js';
import type { Func } from '../../../src/ir/ops.js';
import { printFunc } from '../../../src/ir/print.js';
import { vectorAdd } from '../../ir/build.js';

/** Drops the first op of the body (program_id): later ops then use an undefined value. */
const breakIR: IRPass = (f) => ({ ...f, body: { args: f.body.args, ops: f.body.ops.slice(1) } });
/** A pass that crashes on any IR it is given after `breakIR` ran. */
const crashOnBroken: IRPass = (f) => {
  if (f.body.ops[0]?.kind !== 'program_id') throw new TypeError('crashed on broken IR');
  return f;
};

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

describe('runIRPasses verification', () => {
  test('a pass that breaks the IR is named, and stages before it are dumped', () => {
    const stages: string[] = [];
    const e = thrown(() => runIRPasses(vectorAdd(), { passes: [['cse', cse], ['bad', breakIR], ['cse2', cse]], dump: (s) => void stages.push(s) }));
    expect(e.code).toBe('E_IR_VERIFY');
    expect(e.message).toMatch(/^after IR pass 'bad': /);
    expect(stages).toEqual(['input', 'cse']);
  });

  test('a later pass crashing on broken IR still reports the pass that broke it', () => {
    const e = thrown(() => runIRPasses(vectorAdd(), { passes: [['bad', breakIR], ['crash', crashOnBroken]] }));
    expect(e.code).toBe('E_IR_VERIFY');
    expect(e.message).toMatch(/^after IR pass 'bad': /);
  });

  test('an error thrown by a pass on valid IR is rethrown as is', () => {
    const boom: IRPass = () => {
      throw new RangeError('boom');
    };
    const e = thrown(() => runIRPasses(vectorAdd(), { passes: [['cse', cse], ['boom', boom]] }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('boom');
  });

  test('dumps every stage in order after a successful run, with the IR each pass produced', () => {
    const seen: [string, string][] = [];
    const f = vectorAdd();
    const out = runIRPasses(f, { dump: (s, g: Func) => void seen.push([s, printFunc(g)]) });
    expect(seen.map(([s]) => s)).toEqual(['input', ...IR_PASSES.map(([s]) => s)]);
    expect(seen.at(-1)![1]).toBe(printFunc(out));
    // Each dumped stage is that pass applied to the previous stage's IR.
    let cur = f;
    IR_PASSES.forEach(([, pass], i) => {
      cur = pass(cur);
      expect(printFunc(cur)).toBe(seen[i + 1]![1]);
    });
  });
});
