// The TMA ring's mbarrier waits are load-bearing on the sim (its own file: the fault ends the
// context). The sim lands TMA bytes only when their mbarrier is tested, so without the waits a
// stage's phase never completes and the next arrive.expect_tx on it, numStages iterations later,
// is an arrive too many: a named launch fault, never a silent pass. (A single load without its
// wait reads stale shared memory instead: test/e2e/tma.test.ts.)
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { mmDesc } from './desc_matmul_cases.js';
import { randF32, simDevice } from './helpers.js';

const mm = mmDesc('f16', 'tma_ring_sabotage');

describe('TMA ring sabotage on the sim as sm_90', () => {
  it('without the mbarrier waits the ring faults, naming the mbarrier', () => {
    const M = 32, N = 32, K = 192; // 6 k-steps: every stage of 3 is reused
    const f = mm.trace({ BM: 32, BN: 32, BK: 32 });
    const bad = compile(f, { target: 'sm_90a', ptxas: false, numStages: 3, tmaSabotage: 'no-wait' });
    expect(bad.ptx).toContain('// TMA ring: 3 stages');
    expect(bad.ptx).not.toContain('mbarrier.try_wait');
    const dev = simDevice().native;
    const a = f16Array(randF32(M * K, 1)), b = f16Array(randF32(K * N, 2));
    const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
    dev.upload(ba, a);
    dev.upload(bb, b);
    let err: unknown;
    try {
      dev.launch(bad, [ba, bb, bc, M, N, K], [1, 1, 1]);
      dev.synchronize();
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'CUDA_ERROR_ILLEGAL_INSTRUCTION', message: expect.stringMatching(/mbarrier arrive of 1 with only 0 arrivals pending/) });
  });
});
