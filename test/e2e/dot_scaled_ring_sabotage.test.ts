// Sabotage of the cp.async ring that feeds the block-scaled dotScaled (dot_scaled_ring_sm100.test.ts):
// without the cp.async wait (or one group short) the MMAs and the scales' tcgen05.cp read a stage
// whose copies have not landed (the sim lands them only at the covering wait), and the result is
// wrong, which shows the block-scaled MMAs read their operands and scales from the ring's stage.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { makeData, reference, type Case } from './dot_scaled_cases.js';
import { runPtx } from './dot_scaled_native_run.js';
import { ringArgs, ringKernel } from './dot_scaled_ring_cases.js';

const SPEC = Object.fromEntries(['a', 'b', 'as', 'bs', 'c'].map((n) => [n, { divisibleBy16: true }]));

describe('dotScaled on the cp.async ring, broken on purpose', () => {
  for (const [c, S] of [
    [{ fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 384, BM: 128, BN: 128, BK: 128 }, 2],
    [{ fa: 'e2m1', fb: 'e2m1', M: 128, N: 128, K: 512, BM: 128, BN: 128, BK: 128 }, 3],
  ] as [Case, number][]) {
    for (const sabotage of ['no-wait', 'short-wait'] as const) {
      it(`${c.fa} x ${c.fb}, ${S} stages, ${sabotage}: a wrong result`, async () => {
        const d = makeData(c, 7);
        const ref = reference(c, d);
        const opts = { target: 'sm_100a' as const, numWarps: 4, numStages: S, ptxas: true, specialization: SPEC };
        const good = compile(ringKernel(c, `dsr_sab_${c.fa}`).trace({}), opts);
        expect(good.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/scale chunks/);
        expect(Array.from(await runPtx(good, ringArgs(c, d), 4))).toEqual(Array.from(ref.c));
        const bad = compile(ringKernel(c, `dsr_sab_${c.fa}`).trace({}), { ...opts, pipelineSabotage: sabotage });
        let got: Float32Array | undefined;
        try {
          got = await runPtx(bad, ringArgs(c, d), 4);
        } catch (e) {
          expect(String(e)).toMatch(/CUDA_ERROR|fault|uninit/i); // a named fault is a catch too
          return;
        }
        expect(Array.from(got)).not.toEqual(Array.from(ref.c));
      });
    }
  }
});
