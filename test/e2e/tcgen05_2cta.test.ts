// 2-CTA tcgen05 MMA (compile option `twoCta`, codegen/pipeline/tcgen05_pair.ts) on the sim as a
// B200: the descriptor matmul's 128-row tiles, programs 2p and 2p+1 along M launched as a [2, 1, 1]
// cluster, run their K loop as one 256-row tcgen05.mma.cta_group::2 per k-step issued by the
// even CTA, each CTA loading its own A rows and half of B's columns. Inputs are small integers
// (every summation order gives the same f32 bits), so the pair kernel, the same kernel on
// cta_group::1, the interpreter and JS agree bit for bit. The sabotage (the leader not waiting for
// the peer's half of a stage) is tcgen05_2cta_sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile } from '../../src/compile/compile.js';
import { autotune, TuningStore } from '../../src/runtime/index.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { build, checkPairCase, CLUSTER, mmDesc, PAIR_CASES, pipelineNote, problem, runPtx, traced, type Half, type Problem } from './tcgen05_2cta_cases.js';

const KERNELS = { f16: mmDesc('f16'), bf16: mmDesc('bf16') };

/** The pair ring in the PTX: ::2 everywhere, the leader's PEER wait, B's half per CTA, the multicast commit. */
function expectPair(ptx: string, p: Problem, S: number): void {
  expect(count(ptx, /tcgen05\.[a-z_]+\.cta_group::1/)).toBe(0);
  expect(count(ptx, /tcgen05\.alloc\.cta_group::2\.sync\.aligned/)).toBe(1);
  expect(count(ptx, /tcgen05\.dealloc\.cta_group::2\.sync\.aligned/)).toBeGreaterThan(0);
  // one MMA per k-step (BK 64 / k16), M 256 in the instruction descriptor (bits 24-28: 256 >> 4)
  expect(count(ptx, /tcgen05\.mma\.cta_group::2\.kind::f16 /)).toBe(p.BK / 16);
  const idesc = Number.parseInt(/mov\.b32 %r\d+, 0x([0-9a-f]+);\n(?:.*\n){0,6}?.*tcgen05\.mma/.exec(ptx)![1]!, 16);
  expect((idesc >>> 24) & 0x1f).toBe(16);
  expect((idesc >>> 17) & 0x3f).toBe(p.BN >> 3);
  // the MMAs and the commit by the leader's thread 0 only; the commit arrives on both CTAs' EMPTY
  const issuer = /@(%p\d+) tcgen05\.mma\.cta_group::2/.exec(ptx)![1]!;
  expect(ptx).toMatch(new RegExp(`and\\.pred ${issuer}, %p\\d+, %p\\d+;`));
  expect(count(ptx, new RegExp(`@${issuer} tcgen05\\.commit\\.cta_group::2\\.mbarrier::arrive::one\\.shared::cluster\\.multicast::cluster\\.b64 \\[%r\\d+\\], %h\\d+;`))).toBe(1);
  expect(count(ptx, /tcgen05\.commit/)).toBe(1);
  // per issue: A's one box, then B's boxes split: half under the even CTA's predicate, half under the odd's
  const bBoxes = (2 * p.BN) / 128;
  expect(count(ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe((1 + bBoxes) * S);
  expect(count(ptx, /mbarrier\.init/)).toBe(3 * S); // FULL, EMPTY and PEER per stage
  // each CTA's FULL expects its own bytes: A's tile and half of B's
  expect(count(ptx, new RegExp(`mbarrier\\.arrive\\.expect_tx\\.shared::cta\\.b64 _, \\[%r\\d+\\], ${128 * p.BK * 2 + (p.BK * p.BN * 2) / 2};`))).toBe(S);
  // the loop: FULL wait, the odd CTA's remote arrival, the leader's PEER wait (cluster acquire), the MMAs
  const loop = ptx.slice(ptx.indexOf('the tcgen05 MMAs stay in flight'), ptx.indexOf(FINAL_WAIT));
  const full = loop.search(/mbarrier\.try_wait\.parity\.shared::cta/);
  const remote = loop.search(/mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _, \[%r\d+\]/);
  const peer = loop.search(/mbarrier\.try_wait\.parity\.acquire\.cluster\.shared::cta/);
  const mma = loop.search(/tcgen05\.mma/);
  expect(full).toBeGreaterThan(0);
  expect([full < remote, remote < peer, peer < mma]).toEqual([true, true, true]);
  expect(loop.indexOf(EMPTY_WAIT)).toBeGreaterThan(mma);
  // a cluster barrier opens the ring, another precedes the dealloc
  expect(count(ptx, /barrier\.cluster\.arrive\.release\.aligned;/)).toBeGreaterThanOrEqual(2);
}

describe.each(['f16', 'bf16'] as const)('2-CTA tcgen05 matmul, %s (bit-exact)', (t: Half) => {
  it.each(PAIR_CASES)('%s', (_name, p) => checkPairCase(KERNELS[t], t, p, 11 + p.K + p.N + p.M, {
    pair: (r) => {
      expect(pipelineNote(r)).toContain('twoCta: the K loop runs as one 256-row tcgen05.mma.cta_group::2');
      expectPair(r.ptx, p, 3);
    },
    vsJs: 'pair kernel on the sim vs JS',
    // the same kernel on cta_group::1 (each CTA its own 128-row MMA), in the same clusters
    vsOne: 'pair vs cta_group::1',
  }));
});

describe("2-CTA: each CTA's stage holds A and only its half of B", () => {
  // The pair MMA reads a K x N/2 B from each CTA's shared memory at the descriptor's address
  // (docs/sim-ptx.md), so B's slot in a stage is N/2 wide: with 3 stages a 256 x BN x 64 pair
  // kernel's ring is 3 x (A 16 KB + BN x 64 B), where cta_group::1's is 3 x (16 KB + BN x 128 B).
  it.each([
    // the ring is the largest use of shared memory; then the 9 mbarriers (FULL, EMPTY, PEER), 8 bytes each
    ['256x128x64 (N per CTA 64), the ring the largest (72 KB, was 96 KB)', { M: 256, N: 128, K: 64, BN: 128, BK: 64, numWarps: 4 }, 73800],
    // the ring (96 KB, was 144 KB) sets the total: the epilogue stores C from the accumulator
    // layout through two 32 KB staging buffers (tma_store_subtiled.ts; its conversion took 130 KB)
    ['256x256x64 (N per CTA 128), the ring the largest (96 KB, was 144 KB)', { M: 256, N: 256, K: 64, BN: 256, BK: 64, numWarps: 8 }, 98376],
  ] as const)('%s', (_name, p, shared) => {
    const { args, want, grid } = problem('f16', p, 81 + p.N);
    const pair = build(KERNELS.f16, args, p.numWarps, true);
    const one = build(KERNELS.f16, args, p.numWarps, false);
    const aBytes = 128 * p.BK * 2, bBytes = p.BK * p.BN * 2, box = p.BK * 128;
    expect(pair.ptx).toContain(`TMA ring: 3 stages of ${aBytes + bBytes / 2} bytes`);
    expect(one.ptx).toContain(`TMA ring: 3 stages of ${aBytes + bBytes} bytes`);
    expect(pair.metadata.sharedBytes).toBe(shared);
    expect(pair.metadata.sharedBytes).toBeLessThan(3 * (aBytes + bBytes));
    // every B copy (the even CTA's boxes and the odd one's) lands in the stage's half-width slot after A
    const bDst = [...pair.ptx.matchAll(/cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\S* \[%r\d+\+(\d+)\], \[%rd\d+, \{%r\d+, %r\d+\}\]/g)].map((m) => Number(m[1]));
    expect(new Set(bDst)).toEqual(new Set(Array.from({ length: p.BN / 128 }, (_, j) => aBytes + j * box)));
    expectBitwise(runPtx(KERNELS.f16, args, grid, pair), want, 'pair with half-width B slots vs JS');
  });
});

describe('2-CTA: numStages and the fallbacks', () => {
  it.each([2, 4])('numStages %i (K loop of 7): bit-exact', (S) => {
    const p = { M: 256, N: 128, K: 448, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem('f16', p, 41 + S);
    const r = build(KERNELS.f16, args, 4, true, { numStages: S });
    expectPair(r.ptx, p, S);
    expectBitwise(runPtx(KERNELS.f16, args, grid, r), want, `pair at ${S} stages vs JS`);
  });

  it('a kernel the pair cannot take keeps cta_group::1 and says why: N 64 (one B box), still bit-exact in clusters', () => {
    const p = { M: 256, N: 64, K: 128, BN: 64, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem('f16', p, 61);
    const r = build(KERNELS.f16, args, 4, true);
    expect(pipelineNote(r)).toMatch(/twoCta: kept cta_group::1: B's 1 TMA box\(es\) do not split/);
    expect(r.ptx).not.toMatch(/cta_group::2/);
    expectBitwise(runPtx(KERNELS.f16, args, grid, r), want, 'fallback vs JS');
  });

  it('no TMA ring (numStages 1): kept cta_group::1, said', () => {
    const { args } = problem('f16', { M: 256, N: 128, K: 128, BN: 128, BK: 64, numWarps: 4 }, 62);
    const r = build(KERNELS.f16, args, 4, true, { numStages: 1 });
    expect(pipelineNote(r)).toMatch(/twoCta: kept cta_group::1: the K loop has no TMA ring/);
    expect(r.ptx).not.toMatch(/cta_group::2/);
  });

  it('bad options are named before anything compiles', () => {
    const { f } = traced(KERNELS.f16, problem('f16', { M: 256, N: 128, K: 64, BN: 128, BK: 64, numWarps: 4 }, 63).args);
    expect(() => compile(f, { target: 'sm_90a', twoCta: true, clusterDims: CLUSTER, ptxas: false })).toThrow(/option 'twoCta' \(tcgen05\.mma\.cta_group::2\) needs target sm_100a, got sm_90a/);
    expect(() => compile(f, { target: 'sm_100a', twoCta: true, ptxas: false })).toThrow(/option 'twoCta' needs clusterDims \[2, 1, 1\].*got none/);
    expect(() => compile(f, { target: 'sm_100a', twoCta: true, clusterDims: [1, 2, 1], ptxas: false })).toThrow(/got \[1, 2, 1\]/);
    expect(() => compile(f, { target: 'sm_100a', twoCta: 'yes' as never, clusterDims: CLUSTER, ptxas: false })).toThrow(/option 'twoCta' must be a boolean/);
  });
});

describe('2-CTA through kernel.run and the autotuner (sim)', () => {
  const p = { M: 256, N: 256, K: 192, BN: 128, BK: 64, numWarps: 4 };

  it('kernel.run({ twoCta: true, clusterDims: [2, 1, 1] }): bit-exact; twoCta without the cluster is named', async () => {
    const { args, want, grid } = problem('f16', p, 71);
    await KERNELS.f16.run(args, { grid: [...grid], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1], twoCta: true });
    expectBitwise(args.c, want, 'kernel.run twoCta vs JS');
    await expect(KERNELS.f16.run(args, { grid: [...grid], device: 'sim', twoCta: true })).rejects.toThrow(/option 'twoCta' needs clusterDims \[2, 1, 1\]/);
  });

  it('the sim sanitizers find no hazard in the pair ring (racecheck, synccheck, initcheck)', async () => {
    const { args, want, grid } = problem('f16', { ...p, K: 320 }, 73);
    await KERNELS.f16.run(args, { grid: [...grid], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1], twoCta: true, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(args.c, want, 'sanitized pair vs JS');
  });

  it('the autotuner times a 2-CTA config beside a cta_group::1 one and runs the chosen one correctly', async () => {
    const { args, want, grid } = problem('f16', p, 72);
    const { BM: _m, BN: _n, BK: _k, ...rest } = args;
    const store = new TuningStore(mkdtempSync(join(tmpdir(), 'tessera-tune-2cta-')), true);
    const tuned = autotune({
      configs: [
        { constexprs: { BM: 128, BN: 128, BK: 64 }, numWarps: 4, numStages: 3, clusterDims: [2, 1, 1], twoCta: true },
        { constexprs: { BM: 128, BN: 128, BK: 64 }, numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] },
      ],
      key: ['M', 'N', 'K'], store, device: 'sim', warmup: 0, rep: 1, maxReps: 2,
    }, KERNELS.f16);
    const t = await tuned.run(rest as never, { grid: () => [...grid] });
    expect(t.trials).toHaveLength(2);
    for (const r of t.trials) expect(r.ms, r.skipped).toBeGreaterThanOrEqual(0);
    expect(t.trials.map((r) => !!r.config.twoCta)).toEqual([true, false]);
    expectBitwise(args.c, want, 'autotuned vs JS');
  });
});
