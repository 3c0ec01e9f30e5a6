// The cp.async ring of a pointer-load K loop with its tcgen05 MMAs in flight (sm_100a;
// pipeline/lower_pipeline.ts with tensor_cores/tcgen05_inflight.ts), as the TMA ring of
// tcgen05_ring.ts keeps them: S stages, copies S-1 iterations ahead; iteration i's MMAs commit to
// stage i%S's EMPTY mbarrier without waiting; before the copies of i+S-1 overwrite stage (i-1)%S
// every thread waits for the commit of i-1, and once after the loop for the last one. The stages
// are written by the generic proxy (cp.async), so the dot still fences (fence.proxy.async) before
// its MMAs. Small integer inputs: sim (as a B200) = interpreter = JS bit for bit. Sabotage (string
// surgery on the PTX): the EMPTY wait removed gives a wrong result.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import type { CompileResult } from '../../src/compile/compile.js';
import type { Func } from '../../src/ir/ops.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { matmulAligned } from '../../bench/kernels.js';
import { count, gateTargets } from '../codegen/gate.js';
import { expectBitwise, runOn, simDevice } from './helpers.js';
import * as desc from './desc_matmul_cases.js';

const K5 = new Kernel(matmulAligned.f16);

const problem = (M: number, N: number, K: number, BM: number, BN: number, BK: number, seed: number) => desc.problem('f16', { M, N, K, BM, BN, BK }, seed);
function compiled(args: Record<string, unknown>, numWarps: number, numStages: number): { r: CompileResult; f: Func; positional: LaunchArg[] } {
  const { f, positional } = desc.traced(K5, args);
  const r = gateTargets(f, ['sm_100a'], { numWarps, numStages, specialization: launchSpecialization(f, positional) })['sm_100a']!;
  return { r, f, positional };
}

describe('tcgen05 MMAs in flight on the cp.async ring', () => {
  it('the sim is an sm_100', () => expect(simDevice().target).toBe('sm_100a'));

  it.each([
    [128, 128, 64, 4, 3, 256, 256, 448],
    [128, 256, 64, 8, 3, 128, 256, 256],
    [128, 128, 64, 4, 2, 128, 128, 64],
    [128, 64, 32, 4, 4, 256, 128, 320],
  ])('%dx%dx%d on %d warps, %d stages, M %d N %d K %d: sim = interpreter = JS; committed to the stage, waited once', async (BM, BN, BK, numWarps, S, M, N, K) => {
    const { args, want, grid } = problem(M, N, K, BM, BN, BK, BM + BN + S);
    for (const dev of ['sim', 'interpret'] as const) {
      const mine = { ...args, c: new Float32Array(M * N) };
      await runOn(dev, K5, mine, grid, { numWarps, numStages: S });
      expectBitwise(mine.c, want, `${dev} vs JS`);
    }
    const { r } = compiled(args, numWarps, S);
    expect(r.ptx).toContain('the tcgen05 MMAs stay in flight, committed to an empty mbarrier per stage');
    expect(r.ptx).toContain(EMPTY_WAIT);
    expect(r.ptx).toContain(FINAL_WAIT);
    expect(count(r.ptx, /tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one/)).toBe(1);
    expect(r.ptx).not.toMatch(/\$L_mma_wait_\d+:/); // no per-iteration wait on its own commit
    expect(r.ptx).toContain('fence.proxy.async.shared::cta;'); // cp.async (the generic proxy) wrote the stage the MMAs read
  });

  it('one stage (numStages 1) keeps the per-iteration wait', async () => {
    const { args } = problem(128, 128, 128, 128, 128, 64, 5);
    const { r } = compiled(args, 4, 1);
    expect(r.ptx).not.toContain(EMPTY_WAIT);
  });
});

describe('sabotage: a stage refilled without waiting for the MMAs that read it (the cp.async ring)', () => {
  it('a wrong result (or a named fault), where the intact PTX computes the product', () => {
    const { args, want, grid } = problem(128, 128, 448, 128, 128, 64, 77);
    const { r } = compiled(args, 4, 3);
    const run = (ptx: string): Float32Array | Error => {
      try {
        return desc.runPtx(K5, args, grid, r, ptx);
      } catch (e) {
        return e as Error;
      }
    };
    expectBitwise(run(r.ptx) as Float32Array, want, 'intact');
    const got = run(desc.cutEmptyWait(r.ptx));
    if (got instanceof Error) expect(got.message).toMatch(/tcgen05|mbarrier|shared|race/i);
    else expect(Array.from(got).filter((x, i) => x !== want[i]).length, 'elements that differ').toBeGreaterThan(0);
  });
});
