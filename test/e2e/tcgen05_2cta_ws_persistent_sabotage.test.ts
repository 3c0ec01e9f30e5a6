// The persistent warp-specialized 2-CTA tcgen05 loop (ws_tcgen05_pair.ts) with the odd CTA's MMA
// warp relaying without waiting for its epilogue to read an accumulator buffer (compile option
// twoCtaSabotage 'relay-skips-acc-empty': the leader hears ACC_PEER, and the next tile's
// stage-fulls, while the odd CTA's epilogue may still be reading the buffer) must not pass on the
// sim: with rank 0 of each cluster running ahead (TESSERA_SIM_CLUSTER_SKEW) the leader's MMAs of
// tile t+2 overwrite the odd CTA's TMEM rows of tile t before its tcgen05.ld, or its ACC_FULL
// phases pass before its epilogue waits: a wrong result or a named fault (a hang at the sim's
// budget). The correct kernel under the same skew stays bit-exact. Its own file: the skew is read
// at cuInit, and a fault ends the context. Sabotage test: excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
process.env['TESSERA_SIM_CLUSTER_SKEW'] = '8';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { expectBitwise, simDevice } from './helpers.js';
import { ints, reference } from './persistent_ws_cases.js';
import { clusterPersistentWsMatmul } from './ws_multicast_persistent_cases.js';

const [M, N, K] = [512, 384, 64]; // 6 pair tiles, one cluster: each buffer used three times
const CLUSTER = [2, 1, 1] as [number, number, number];
const a = ints(M * K, 41), b = ints(K * N, 42);
const want = reference(a, b, M, N, K, 128, 128, Array.from({ length: 12 }, (_, i) => [Math.floor(i / 3), i % 3] as [number, number]));
const build = (sabotage?: 'relay-skips-acc-empty'): CompileResult =>
  compile(clusterPersistentWsMatmul, {
    target: 'sm_100a', numWarps: 4, numStages: 3, ptxas: false, clusterDims: CLUSTER, twoCta: true, ...(sabotage ? { twoCtaSabotage: sabotage } : {}),
    constexprs: { BM: 128, BN: 128, BK: 64, GROUP_M: 2, CX: 2, CY: 1, WS: true },
  });

/** Launches `r` on one [2, 1, 1] cluster: c's f16 bits, or the launch's fault (after which the context is gone). */
function launch(r: CompileResult): Uint16Array | Error {
  const dev = simDevice().native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 2)];
  try {
    dev.upload(ba, a);
    dev.upload(bb, b);
    dev.upload(bc, new Uint16Array(M * N).fill(0x7e00));
    dev.launch(r, [ba, bb, bc, M, N, K], [2, 1, 1], { cluster: CLUSTER });
    dev.synchronize();
    return dev.download(bc, new Uint16Array(M * N));
  } catch (e) {
    return e as Error;
  } finally {
    try {
      for (const p of [ba, bb, bc]) dev.free(p);
    } catch { /* the launch's fault is the one reported */ }
  }
}

describe('persistent warp-specialized 2-CTA tcgen05 with the leader running ahead (sim as sm_100)', () => {
  it('the pair kernel, 6 pair tiles on one cluster: bit-exact', () => {
    const r = build();
    expect(r.ptx).toMatch(/tcgen05\.mma\.cta_group::2/);
    const got = launch(r);
    if (got instanceof Error) throw got;
    expectBitwise(got, want, 'pair under skew vs JS');
  });

  it("the odd CTA's relay not waiting for its epilogue to read a buffer: a wrong result or a named fault", () => {
    const good = build().ptx, r = build('relay-skips-acc-empty');
    expect(r.ptx).toMatch(/tcgen05\.mma\.cta_group::2/);
    // one wait fewer: the relay's ACC_EMPTY wait
    expect(r.ptx.match(/mbarrier\.try_wait/g)!.length).toBe(good.match(/mbarrier\.try_wait/g)!.length - 1);
    const got = launch(r);
    if (got instanceof Error) {
      expect(got.message).toMatch(/tessera-sim: /);
      return;
    }
    expect(got.some((x, i) => x !== want[i]), 'the sabotaged pair kernel gave the right result').toBe(true);
  });
});
