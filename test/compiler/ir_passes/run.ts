// Runs one pass the way the pipeline does and checks the pass contract on the way: the input
// verifies, the output verifies, and the input is not changed. Returns the printed output.
import { expect } from 'vitest';
import type { Func } from '../../../src/ir/ops.js';
import { printFunc } from '../../../src/ir/print.js';
import { verify } from '../../../src/ir/verify.js';

export function runPass(pass: (f: Func) => Func, f: Func): string {
  verify(f);
  const before = printFunc(f);
  const out = pass(f);
  verify(out);
  expect(printFunc(f)).toBe(before);
  return printFunc(out);
}
