// cast_diff.test.ts for sm_90's PTX (which has more cvt forms: to bf16 from f64 and integers), on
// the sim pretending to be an sm_90 (TESSERA_SIM_ARCH, read at cuInit, so set before the sim opens).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, it } from 'vitest';
import { CAST_DTYPES, checkCasts, checkMath } from './cast_diff_cases.js';

describe('casts on sm_90: interpreter == sim', () => {
  it.each(CAST_DTYPES)('from %s to every dtype (and bitcasts)', async (from) => checkCasts(from, 'sm_90'));
});

describe('math on sm_90: interpreter == sim', () => {
  it.each(['f16', 'bf16', 'f64'] as const)('%s: unary, binary and fma', async (t) => checkMath(t, 'sm_90'));
});
