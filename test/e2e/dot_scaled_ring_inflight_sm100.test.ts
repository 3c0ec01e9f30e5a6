// dotScaled on the block-scaled tcgen05 kinds (sm_100a) on the cp.async ring with its MMAs in flight
// across K iterations (codegen/pipeline/lower_pipeline.ts, tensor_cores/tcgen05_inflight.ts,
// lower_tcgen05_scaled.ts), as the plain dot's ring keeps them: iteration i's MMAs (and scale
// copies) commit to stage i%S's EMPTY mbarrier and nothing waits for them in i; the ring waits
// for the commit of i-1 before refilling its stage, and once after the loop. Iteration i copies
// its scales with tcgen05.cp into TMEM column set i%2 (and, for scales from registers, stores them
// into scratch set i%2), so the next copy never writes what an MMA still in flight reads; the TMEM
// allocation counts both sets. The ring holds numStages-1 stages, as Triton's for tl.dot_scaled
// (lower_pipeline.ts stagesOf), so in flight takes numStages >= 3. mxfp8, mxfp4, nvfp4, ragged
// M/N/K, K loops of 1-5 steps, numStages 3 and 4 (2 and 3 ring stages), 4 and 8 warps, N 256;
// each bit for bit against the JS reference, the interpreter and the waiting kernel (option
// scaledInflight: false) on the sim.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { count } from '../codegen/gate.js';
import { runOn, simDevice } from './helpers.js';
import { makeData, reference, type Case, type DataOptions } from './dot_scaled_cases.js';
import { runPtx } from './dot_scaled_native_run.js';
import { ringArgs, ringKernel } from './dot_scaled_ring_cases.js';

interface FlightCase extends Case {
  readonly numWarps?: number;
  readonly stages: number;
  readonly data?: DataOptions;
}

export const CASES: FlightCase[] = [
  // mxfp8, one K step, scales staged
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 128, BM: 128, BN: 128, BK: 128, stages: 3 },
  // mxfp8 ragged M/N/K, acc, 5 K steps of 2 groups: scales from registers (two scratch sets)
  { fa: 'e5m2', fb: 'e4m3', M: 100, N: 70, K: 288, BM: 128, BN: 128, BK: 64, stages: 4, acc: true },
  // mxfp8 ragged, 3 K steps, scales staged (masked rows zero-filled)
  { fa: 'e4m3', fb: 'e5m2', M: 77, N: 100, K: 384, BM: 128, BN: 128, BK: 128, stages: 4, acc: true },
  // mxfp4, 4 K steps, acc
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 128, K: 512, BM: 128, BN: 128, BK: 128, stages: 4, acc: true },
  // mxfp4 ragged, 3 K steps, 2 stages, scale extremes
  { fa: 'e2m1', fb: 'e2m1', M: 90, N: 120, K: 384, BM: 128, BN: 128, BK: 128, stages: 3, data: { aScales: [0, 1, 2], bScales: [252, 253, 254], lo: 0.5, hi: 2 } },
  // nvfp4: ue4m3 scales (sign bits set) from registers, 2 K steps
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 256, BM: 128, BN: 64, BK: 128, nvfp4: true, stages: 4, acc: true, data: { aScales: [0x38, 0xb8, 0x30], bScales: [0x40, 0xc0, 0x38] } },
  // nvfp4, 32 groups a step: 64 scale columns a set, so the two sets need 256 TMEM columns (one: 128)
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 1024, BM: 128, BN: 64, BK: 512, nvfp4: true, stages: 3, data: { aScales: [0x38, 0x30], bScales: [0x38, 0x40], lo: 0.5, hi: 1.5 } },
  // 8 warps, N 256 (b's scales in two 128-row blocks of each chunk), 2 K steps
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 256, K: 256, BM: 128, BN: 256, BK: 128, numWarps: 8, stages: 3 },
  // 8 warps, N 256 ragged, mxfp4, 5 K steps, 3 stages, acc
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 200, K: 640, BM: 128, BN: 256, BK: 128, numWarps: 8, stages: 4, acc: true },
];

const SPEC = Object.fromEntries(['a', 'b', 'as', 'bs', 'c'].map((n) => [n, { divisibleBy16: true }]));
const compileRing = (c: FlightCase, name: string, scaledInflight: boolean): CompileResult =>
  compile(ringKernel(c, name).trace({}), { target: 'sm_100a', numWarps: c.numWarps ?? 4, numStages: c.stages, ptxas: true, specialization: SPEC, scaledInflight });

/** The PTX of the pipelined loop (the prologue's copies are before it, the final wait after). */
const loopOf = (ptx: string): string => {
  const from = ptx.indexOf('// pipelined loop:');
  const to = ptx.search(/\$L_endpfor_\d+:/);
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return ptx.slice(from, to);
};

/**
 * Why the loop waits for its own iteration's MMAs, or undefined: it commits them once, to the
 * stage's EMPTY barrier, and its only mbarrier wait is the EMPTY wait for the previous iteration's
 * commit, after that commit (the ring's refill), with the scales in this iteration's column set.
 */
export function waitsForOwnMmas(loop: string): string | undefined {
  const commits = [...loop.matchAll(/tcgen05\.commit[^\n]*/g)].map((m) => m[0]);
  if (commits.length !== 1 || !/the stage's empty barrier/.test(commits[0]!)) return `commits: ${JSON.stringify(commits)}`;
  if (/mma_scaled_wait/.test(loop)) return 'a wait for the kernel\'s MMA barrier in the loop';
  const waits = count(loop, /mbarrier\.try_wait/);
  if (waits !== 1) return `${waits} mbarrier waits in the loop`;
  const at = loop.indexOf(EMPTY_WAIT);
  if (at < 0 || at < loop.indexOf('tcgen05.commit') || loop.indexOf('mbarrier.try_wait') < at) return 'the wait is not the EMPTY wait after the commit';
  if (!/this iteration's scale-column set/.test(loop)) return 'one scale-column set';
  return undefined;
}

/** The columns of the kernel's tcgen05.alloc. */
const allocCols = (ptx: string): number => Number(/tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], (\d+);/.exec(ptx)![1]);
/** TMEM columns of the case: N and the scale columns (4 a chunk for a, 4 per 128 rows of b) of `sets` sets. */
const wantCols = (c: FlightCase, sets: number): number => {
  const chunks = Math.ceil(c.BK / (c.nvfp4 ? 16 : 32) / 4);
  return Math.max(32, 2 ** Math.ceil(Math.log2(c.BN + sets * chunks * (4 + 4 * Math.ceil(c.BN / 128)))));
};

describe('dotScaled on the cp.async ring with its MMAs in flight across iterations (sm_100a)', () => {
  for (const [i, c] of CASES.entries()) {
    const nw = c.numWarps ?? 4;
    const steps = Math.ceil(c.K / c.BK);
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''} ${c.M}x${c.N}x${c.K} (tile ${c.BM}x${c.BN}x${c.BK}, ${steps} K step(s)${c.acc ? ', acc' : ''}, ${nw} warps, ${c.stages} stages): committed to the stage, two scale-column sets, bit for bit with the waiting kernel`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 240 + i, c.data);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      const fly = compileRing(c, `dsf_${i}`, true);
      const wait = compileRing(c, `dsf_${i}`, false);
      expect(fly.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/native/);
      // the codegen: the in-flight loop never waits for its own MMAs; the waiting one does
      const loop = loopOf(fly.ptx);
      expect(loop).toMatch(/the tcgen05 MMAs stay in flight/);
      expect(waitsForOwnMmas(loop)).toBeUndefined();
      expect(waitsForOwnMmas(loopOf(wait.ptx))).toBeDefined();
      expect(fly.ptx).toContain(FINAL_WAIT);
      // both sets counted by the allocation
      expect(allocCols(fly.ptx)).toBe(wantCols(c, 2));
      expect(allocCols(wait.ptx)).toBe(wantCols(c, 1));
      expect(fly.metadata.spills).toBe(0);
      expect(Array.from(await runPtx(fly, ringArgs(c, d), nw)), 'sim, MMAs in flight').toEqual(Array.from(ref.c));
      expect(Array.from(await runPtx(wait, ringArgs(c, d), nw)), 'sim, waiting').toEqual(Array.from(ref.c));
      const args = ringArgs(c, d);
      await runOn('interpret', ringKernel(c, `dsf_${i}`), args, 1, { numWarps: nw });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }

  it('a 6-/4-bit operand of kind::mxf8f6f4 (stored from registers each iteration) keeps the waiting form', () => {
    const c: FlightCase = { fa: 'e4m3', fb: 'e2m1', M: 100, N: 128, K: 256, BM: 128, BN: 128, BK: 128, stages: 3, acc: true };
    const loop = loopOf(compileRing(c, 'dsf_pad', true).ptx);
    expect(loop).not.toMatch(/the tcgen05 MMAs stay in flight/);
    expect(loop).toMatch(/mma_scaled_wait/);
  });

  it('option scaledInflight must be a boolean', () => {
    const c = CASES[0]!;
    expect(() => compile(ringKernel(c, 'dsf_opt').trace({}), { target: 'sm_100a', numStages: 2, scaledInflight: 'no' as unknown as boolean })).toThrow(/option 'scaledInflight' must be a boolean, got "no"/);
  });
});
