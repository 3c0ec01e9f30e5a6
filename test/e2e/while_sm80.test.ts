// whileLoop on the interpreter and on the sim as an sm_80, against plain-JS references (while_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { runCollatz, runNested, runSentinel, runTileGrow, runTileGrowSanitized, runWhileMatmul } from './while_cases.js';

describe('whileLoop on the sim as sm_80', () => {
  it('the sim device compiles for sm_80', () => expect(simDevice().target).toBe('sm_80'));
  it('scalar carried values, a different trip count per program (Collatz)', runCollatz);
  it.each([[16, 32, 1], [32, 64, 4], [8, 128, 8]])('a carried %ix%i i32 tile, reductions in the condition and the body (%i warps)', (R, C, w) => runTileGrow(R, C, 400000, w));
  it('zero iterations: the inits come out', () => runTileGrow(8, 32, -1, 4));
  it('a condition that loads, an if in the condition, a for in the body', runSentinel);
  it('a while in a for', runNested);
  it('racecheck, synccheck and initcheck find nothing in a loop with barriers', runTileGrowSanitized);
  it('a matmul whose k loop is a while (tensor cores inside it)', runWhileMatmul);
});
