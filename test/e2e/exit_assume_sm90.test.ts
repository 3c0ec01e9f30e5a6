// exitIf and assume on the interpreter and on the sim as an sm_90, against plain-JS references (exit_assume_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { runAssumeStride, runExitFlag, runExitNested, runExitRows, runExitSanitized } from './exit_assume_cases.js';

describe('exitIf and assume on the sim as sm_90', () => {
  it('the sim device compiles for sm_90', () => expect(simDevice().target).toBe('sm_90a'));
  it.each([1, 4, 8])('programs past the end leave before reductions with barriers (%i warps)', runExitRows);
  it('a data-dependent exit', runExitFlag);
  it.each([1, 4])('exitIf inside nested ifs: the rest of the branch does not run, later barriers do not wait for the programs that left (%i warps)', (w) => runExitNested(w));
  it('exitIf inside ifs under racecheck, synccheck and initcheck', () => runExitNested(4, true));
  it('racecheck, synccheck and initcheck find nothing where programs leave early', runExitSanitized);
  it('assume(stride % 8 == 0) vectorizes the loads and keeps the results', runAssumeStride);
});
