// Block pointers on the interpreter and on the sim as an sm_80, against plain-JS references (block_ptr_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { runBpMatmul, runCopyBlocks, runDescNaN } from './block_ptr_cases.js';

describe('block pointers on the sim as sm_80', () => {
  it('the sim device compiles for sm_80', () => expect(simDevice().target).toBe('sm_80'));
  it.each(['zero', 'nan'] as const)('partial blocks: boundaryCheck, paddingOption %s', runCopyBlocks);
  it.each(['f32', 'f16'] as const)('tensor descriptor loads with paddingOption nan (%s)', (t) => runDescNaN(t, false));
  it.each(['for', 'while'] as const)('a matmul advancing block pointers carried by a %s loop', runBpMatmul);
});
