// 2-CTA tcgen05 MMA on the warp-specialized sm_100a loop (compile option `twoCta` on a loop with
// `warpSpecialize: true`: pipeline/ws_tcgen05.ts with pipeline/ws_tcgen05_pair.ts) on the sim as a
// B200: programs 2p and 2p+1 along M run as a [2, 1, 1] cluster; in each CTA a load warp fills the
// ring with its own A rows and half of B's columns; the even CTA's MMA warp issues one 256-row
// tcgen05.mma.cta_group::2 per k-step once its own stage and the odd CTA's have landed (the odd
// CTA's MMA warp relays its stage-full to the leader's PEER barrier), and commits each stage to
// both CTAs' empty barriers and the last one to both CTAs' ACC_FULL. Inputs are small integers
// (every summation order gives the same f32 bits), so the pair kernel, the same warp-specialized
// kernel on cta_group::1, the interpreter and JS agree bit for bit. The sabotage (the leader not
// waiting for the peer's half of a stage) is tcgen05_2cta_ws_sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { ACC_FULL_WAIT, WS_MMA, WS_PARTITIONS } from '../../src/codegen/pipeline/ws_tcgen05.js';
import { PAIR_RELAY } from '../../src/codegen/pipeline/ws_tcgen05_pair.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { build, checkPairCase, CLUSTER, mmDesc, PAIR_CASES, pipelineNote, problem, runPtx, type Half, type Problem } from './tcgen05_2cta_cases.js';

const KERNELS = { f16: mmDesc('f16', true), bf16: mmDesc('bf16', true) };

/** The warp-specialized pair in the PTX: ::2 everywhere, the load warp's half of B, the leader's PEER wait, the multicast commits. */
function expectWsPair(ptx: string, p: Problem, S: number): void {
  expect(count(ptx, /tcgen05\.[a-z_]+\.cta_group::1/)).toBe(0);
  expect(count(ptx, /tcgen05\.alloc\.cta_group::2\.sync\.aligned/)).toBe(1);
  expect(count(ptx, /tcgen05\.dealloc\.cta_group::2\.sync\.aligned/)).toBeGreaterThan(0);
  expect(count(ptx, /mbarrier\.init/)).toBe(3 * S + 1); // full, empty, PEER per stage; ACC_FULL
  // the cluster barrier opens the kernel before the partitions part (mbarriers and TMEM ready in both CTAs)
  const open = ptx.indexOf('barrier.cluster.arrive.release.aligned;');
  expect(open).toBeGreaterThan(0);
  expect(open).toBeLessThan(ptx.indexOf(`bra.uni ${WS_PARTITIONS};`));
  const epilogue = ptx.slice(0, ptx.indexOf(`${WS_PARTITIONS}:`));
  const load = ptx.slice(ptx.indexOf(`${WS_PARTITIONS}:`), ptx.indexOf(`${WS_MMA}:`));
  const mma = ptx.slice(ptx.indexOf(`${WS_MMA}:`), ptx.indexOf(`${PAIR_RELAY}:`));
  const relay = ptx.slice(ptx.indexOf(`${PAIR_RELAY}:`));
  expect(count(epilogue, /tcgen05\.mma|tcgen05\.commit|cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(0);
  // the load warp: expect_tx of A's tile and half of B's; A's box, B's boxes split by the CTA's parity
  expect(count(load, new RegExp(`mbarrier\\.arrive\\.expect_tx\\.shared::cta\\.b64 _, \\[%r\\d+\\], ${128 * p.BK * 2 + (p.BK * p.BN * 2) / 2};`))).toBe(1);
  const bBoxes = (2 * p.BN) / 128;
  expect(count(load, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(1 + bBoxes);
  expect(count(load, /tcgen05/)).toBe(0);
  // the leader's MMA warp: full wait, the PEER wait (cluster acquire), one M 256 MMA per k-step, commits multicast
  expect(count(mma, /tcgen05\.mma\.cta_group::2\.kind::f16 /)).toBe(p.BK / 16);
  const idesc = Number.parseInt(/mov\.b32 %r\d+, 0x([0-9a-f]+);\n(?:.*\n){0,6}?.*tcgen05\.mma/.exec(mma)![1]!, 16);
  expect((idesc >>> 24) & 0x1f).toBe(16); // M 256
  expect((idesc >>> 17) & 0x3f).toBe(p.BN >> 3);
  expect(count(mma, /tcgen05\.commit\.cta_group::2\.mbarrier::arrive::one\.shared::cluster\.multicast::cluster\.b64 \[%r\d+\], %h\d+;/)).toBe(2);
  expect(count(mma, /tcgen05\.commit/)).toBe(2);
  const full = mma.search(/mbarrier\.try_wait\.parity\.shared::cta/);
  const peer = mma.search(/mbarrier\.try_wait\.parity\.acquire\.cluster\.shared::cta/);
  expect([full > 0, full < peer, peer < mma.search(/tcgen05\.mma\.cta_group/)]).toEqual([true, true, true]);
  // the odd CTA's MMA warp: its full wait, then the remote arrival on the leader's PEER barrier
  expect(relay.search(/mbarrier\.try_wait\.parity\.shared::cta/)).toBeGreaterThan(0);
  expect(relay.search(/mapa\.shared::cluster\.u32/)).toBeGreaterThan(relay.search(/mbarrier\.try_wait/));
  expect(count(relay, /mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _, \[%r\d+\]/)).toBe(1);
  expect(count(relay, /tcgen05/)).toBe(0);
  // each epilogue waits its own ACC_FULL before it reads its TMEM half
  const tail = epilogue.slice(epilogue.indexOf(ACC_FULL_WAIT));
  expect(tail.search(/mbarrier\.try_wait/)).toBeLessThan(tail.search(/tcgen05\.ld\.sync/));
}

describe.each(['f16', 'bf16'] as const)('2-CTA warp-specialized tcgen05 matmul, %s (bit-exact)', (t: Half) => {
  it.each(PAIR_CASES)('%s', (_name, p) => checkPairCase(KERNELS[t], t, p, 17 + p.K + p.N + p.M, {
    pair: (r) => {
      expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
      expect(pipelineNote(r)).toMatch(/warp-specialized \(tcgen05\): a load warp/);
      expect(pipelineNote(r)).toContain('twoCta: the warp-specialized K loop runs as one 256-row tcgen05.mma.cta_group::2 per k-step');
      expectWsPair(r.ptx, p, 3);
    },
    // the same warp-specialized kernel on cta_group::1 (each CTA its own 128-row MMAs), in the same clusters
    one: (r) => expect(r.ptx).toContain(`${WS_MMA}:`),
    vsJs: 'warp-specialized pair on the sim vs JS',
    vsOne: 'pair vs the cta_group::1 warp-specialized kernel',
  }));
});

describe('2-CTA warp-specialized: stages, kernel.run and the sanitizers', () => {
  it.each([2, 4])('numStages %i (K loop of 7): bit-exact', (S) => {
    const p = { M: 256, N: 128, K: 448, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem('f16', p, 43 + S);
    const r = build(KERNELS.f16, args, 4, true, { numStages: S });
    expectWsPair(r.ptx, p, S);
    expect(pipelineNote(r)).toContain(`${S} stages of ${128 * 64 * 2 + (64 * 128 * 2) / 2} bytes (A and half of B: 2-CTA)`);
    expectBitwise(runPtx(KERNELS.f16, args, grid, r), want, `pair at ${S} stages vs JS`);
  });

  it('kernel.run with the sim sanitizers (racecheck, synccheck, initcheck): clean and bit-exact', async () => {
    const { args, want, grid } = problem('f16', { M: 256, N: 256, K: 320, BN: 128, BK: 64, numWarps: 4 }, 75);
    await KERNELS.f16.run(args, { grid: [...grid], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [...CLUSTER], twoCta: true, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(args.c, want, 'sanitized warp-specialized pair vs JS');
  });
});

describe('2-CTA warp-specialized: the forms it does not take keep cta_group::1 and say why', () => {
  it('N 64 (one B box): the warp-specialized kernel on cta_group::1, still bit-exact in clusters', () => {
    const p = { M: 256, N: 64, K: 128, BN: 64, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem('f16', p, 65);
    const r = build(KERNELS.f16, args, 4, true);
    expect(pipelineNote(r)).toMatch(/twoCta: kept cta_group::1: B's 1 TMA box\(es\) do not split/);
    expect(r.ptx).not.toMatch(/cta_group::2/);
    expect(r.ptx).toContain(`${WS_MMA}:`);
    expectBitwise(runPtx(KERNELS.f16, args, grid, r), want, 'fallback vs JS');
  });

});
