// ops.attention's sm_90a code (the sm_90a tuning table) on the sim as sm_90, against the f64
// reference (the cases of attention_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, it } from 'vitest';
import { CASES, check } from './attention_cases.js';

describe('ops.attention on the sim as sm_90 vs an f64 reference', () => {
  for (const c of CASES) it(`T=${c.T} Hq=${c.Hq} Hkv=${c.Hkv} Dh=${c.Dh} ${c.dtype} ${c.causal ? 'causal' : 'full'}`, () => check('sim:0', c));
});
