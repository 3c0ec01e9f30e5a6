// ops.pagedAttention and appendKV's sm_90a code on the sim as sm_90, against the f64 reference
// (the cases of paged_attention_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, it } from 'vitest';
import { CASES, check } from './paged_attention_cases.js';

describe('ops.pagedAttention on the sim as sm_90 vs an f64 reference', () => {
  for (const c of CASES) it(`lens ${c.lens.join(',')} Hq=${c.Hq} Hkv=${c.Hkv} Dh=${c.Dh} ${c.dtype}`, () => check('sim:0', c));
});
