// dotScaled compiled for sm_100a (the sim pretends to be a B200): the emulation's bf16/tf32 dots
// take the tcgen05 path (the PTX has tcgen05.mma of kind::tf32 / f16, no block-scaled kind, with
// blockScaled: false), bit for bit against the JS reference of the MX formats (dot_scaled_cases.ts)
// and the interpreter. The sim runs what the device compiles by default: the first case (packed
// e2m1 pairs) on kind::mxf4.block_scale (test/e2e/dot_scaled_native_sm100.test.ts), the second (e4m3 x
// packed e2m1) on kind::mxf8f6f4.block_scale (dot_scaled_native_padded_sm100.test.ts), nvfp4 on kind::mxf4nvf4.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { runOn, simDevice } from './helpers.js';
import { deviceArgs, makeData, reference, scaledKernel, type Case } from './dot_scaled_cases.js';

describe('dotScaled on sm_100a', () => {
  const cases: Case[] = [
    { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 128, BM: 128, BN: 64, BK: 64, acc: true },
    { fa: 'e4m3', fb: 'e2m1', M: 100, N: 64, K: 64, BM: 128, BN: 64, BK: 64 },
    { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64, nvfp4: true },
  ];
  for (const [i, c] of cases.entries()) {
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''} ${c.M}x${c.N}x${c.K}: tcgen05, exact`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 40 + i);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      const k = scaledKernel(c, `ds100_${i}`);
      const ptx = compile(k.trace({}), { target: 'sm_100a', numWarps: 4, ptxas: true, blockScaled: false }).ptx;
      expect(ptx).toMatch(/tcgen05\.mma\.cta_group::1\.kind::tf32|tcgen05\.mma\.cta_group::1\.kind::f16/);
      expect(ptx).not.toMatch(/block_scale/);
      for (const where of ['interpret', 'sim'] as const) {
        const args = deviceArgs(c, d);
        await runOn(where, k, args, 1, { numWarps: 4 });
        expect(Array.from(args['c'] as Float32Array), where).toEqual(Array.from(ref.c));
      }
    });
  }
});
