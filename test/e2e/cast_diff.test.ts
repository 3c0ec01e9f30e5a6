// Every cast pair (dtype x dtype x special values) and the elementwise math on f16/bf16/f64: the
// interpreter and sm_80's PTX on the sim agree (cast_diff_cases.ts says how exactly). The same
// check for sm_90's PTX runs in cast_diff_sm90.test.ts, on the sim pretending to be an sm_90.
import { describe, it } from 'vitest';
import { CAST_DTYPES, checkCasts, checkMath } from './cast_diff_cases.js';

describe('casts on sm_80: interpreter == sim', () => {
  it.each(CAST_DTYPES)('from %s to every dtype (and bitcasts)', async (from) => checkCasts(from, 'sm_80'));
});

describe('math on sm_80: interpreter == sim', () => {
  it.each(['f16', 'bf16', 'f64'] as const)('%s: unary, binary and fma', async (t) => checkMath(t, 'sm_80'));
});
