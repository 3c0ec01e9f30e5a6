// The 2-CTA tcgen05 ring (codegen/pipeline/tcgen05_pair.ts) with the leader's PEER wait cut out
// (compile option twoCtaSabotage 'no-peer-wait': the even CTA issues the pair MMA as soon as its
// own half of the stage has landed, not the odd CTA's half) must not pass on the sim: with rank 0
// of each cluster running ahead (TESSERA_SIM_CLUSTER_SKEW) the MMA reads the odd CTA's A rows and
// B columns before its TMA copies land, a wrong result (or a named fault). The correct kernel
// under the same skew stays bit-exact. Its own file: the skew is read at cuInit, and a fault
// ends the context. Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { expectBitwise } from './helpers.js';
import { build, expectWrongOrFault, mmDesc, problem, runPtx, SKEW_PROBLEM } from './tcgen05_2cta_cases.js';

const k = mmDesc('f16');
const p = SKEW_PROBLEM;
const { args, want, grid } = problem('f16', p, 3);

describe('2-CTA tcgen05 with the leader running ahead (sim as sm_100)', () => {
  it('the pair kernel: bit-exact', () => {
    expectBitwise(runPtx(k, args, grid, build(k, args, 4, true)), want, 'pair under skew vs JS');
  });

  it('the pair kernel, K loop of 7 on 3 stages (the leader held back by its PEER and EMPTY waits): bit-exact', () => {
    const q = problem('f16', { ...p, K: 448 }, 5);
    expectBitwise(runPtx(k, q.args, q.grid, build(k, q.args, 4, true)), q.want, 'pair under skew vs JS');
  });

  it("without the leader's wait for the peer's half of the stage: a wrong result or a named fault", () => {
    const r = build(k, args, 4, true, { twoCtaSabotage: 'no-peer-wait' });
    expect(r.ptx).not.toMatch(/try_wait\.parity\.acquire\.cluster/);
    expectWrongOrFault(k, args, grid, r, want);
  });
});
