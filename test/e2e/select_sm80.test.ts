// Selection ops on the sim as sm_80 (and the interpreter), against plain-JS references (select_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { describe, it } from 'vitest';
import { checkGather, checkHistogram, checkMaxMin, checkSort, checkSortSanitized, GATHER_CASES, HIST_CASES, SORT_CASES } from './select_cases.js';

describe('max/min with returnIndices on the sim as sm_80 and the interpreter', () => {
  for (const which of ['max', 'min'] as const) {
    for (const dt of ['f32', 'i32'] as const) {
      it(`${which} ${dt}, ties to the left`, () => checkMaxMin(which, dt, true));
      it(`${which} ${dt}, tieBreakLeft: false (any tied index)`, () => checkMaxMin(which, dt, false));
    }
  }
});

describe('sort and topk on the sim and the interpreter', () => {
  for (const c of SORT_CASES) it(c.name, () => checkSort(c));
});

describe('the shared-memory paths run clean under racecheck, synccheck and initcheck', () => {
  for (const c of SORT_CASES.filter((s) => s.k !== undefined || s.dim0)) it(c.name, () => checkSortSanitized(c));
  for (const c of GATHER_CASES.filter((g) => /shared memory/.test(g.name))) it(`gather: ${c.name}`, () => checkGather(c, true));
  for (const c of HIST_CASES) it(`histogram: ${c.name}`, () => checkHistogram(c, true));
});

describe('gather on the sim and the interpreter', () => {
  for (const c of GATHER_CASES) it(c.name, () => checkGather(c));
});

describe('histogram on the sim and the interpreter', () => {
  for (const c of HIST_CASES) it(c.name, () => checkHistogram(c));
});
