// A block-scaled dotScaled broken on purpose (sm_100a): the PTX with the tcgen05.cp of the scales
// moved after the MMAs that read them (before their commit), so the MMAs read TMEM columns no copy
// has written: a wrong result or a named fault. Excluded from the sanitized suite
// (test/sanitize/suite.test.ts): under initcheck the stale read is a report, which is the point.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { deviceArgs, makeData, reference, type Case } from './dot_scaled_cases.js';
import { compileCase, runPtx } from './dot_scaled_native_run.js';

/** The PTX with every tcgen05.cp moved after the last block-scaled MMA (before its commit). */
function copiesAfterMmas(ptx: string): string {
  const lines = ptx.split('\n');
  const cps = lines.filter((l) => /tcgen05\.cp\./.test(l));
  expect(cps.length).toBeGreaterThan(0);
  const rest = lines.filter((l) => !/tcgen05\.cp\./.test(l));
  const commit = rest.findIndex((l) => /tcgen05\.commit/.test(l));
  const lastMma = rest.reduce((at, l, i) => (/block_scale/.test(l) ? i : at), -1);
  expect(commit).toBeGreaterThan(lastMma);
  rest.splice(commit, 0, ...cps);
  return rest.join('\n');
}

describe('dotScaled block-scaled sabotage (sm_100a)', () => {
  it('the MMAs issued before the tcgen05.cp of their scales: a wrong result or a named fault', async () => {
    const c: Case = { fa: 'e4m3', fb: 'e4m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 };
    const d = makeData(c, 90);
    const ref = reference(c, d);
    const r = compileCase(c, 'dsn_sab', 4);
    expect(Array.from(await runPtx(r, deviceArgs(c, d), 4)), 'intact').toEqual(Array.from(ref.c));
    let got: Float32Array | undefined;
    let err: Error | undefined;
    try {
      got = await runPtx({ ...r, ptx: copiesAfterMmas(r.ptx) }, deviceArgs(c, d), 4);
    } catch (e) {
      err = e as Error;
    }
    if (err) expect(err.message).toMatch(/tcgen05|tensor memory|scale/i);
    else {
      const off = Array.from(got!).filter((x, i) => !Object.is(x, ref.c[i])).length;
      expect(off, 'elements that differ from the product').toBeGreaterThan((c.M * c.N) / 2);
    }
  });
});
