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
import { f16Array } from '../../src/ir/half.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { matmulAligned } from '../../bench/kernels.js';
import { count, gateTargets } from '../codegen/gate.js';
import { expectBitwise, lcg, runOn, simDevice } from './helpers.js';

const K5 = new Kernel(matmulAligned.f16);

function ints(n: number, seed: number): Float32Array {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => Math.floor(r() * 9) - 4);
}
function problem(M: number, N: number, K: number, BM: number, BN: number, BK: number, seed: number) {
  const af = ints(M * K, seed), bf = ints(K * N, seed + 1);
  const want = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += af[i * K + k]! * bf[k * N + j]!;
    want[i * N + j] = s;
  }
  return { args: { a: f16Array(af), b: f16Array(bf), c: new Float32Array(M * N), M, N, K, BM, BN, BK }, want, grid: [Math.ceil(M / BM), Math.ceil(N / BN), 1] as const };
}
function compiled(args: Record<string, unknown>, numWarps: number, numStages: number): { r: CompileResult; f: Func; positional: LaunchArg[] } {
  const cx: Record<string, number> = {};
  for (const n of K5.def.constexprNames) cx[n] = args[n] as number;
  const f = K5.trace(cx);
  const positional = K5.def.runtimeParams.map((p) => args[p.name] as LaunchArg);
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
    const { r, positional } = compiled(args, 4, 3);
    const run = (ptx: string): Float32Array | Error => {
      const dev = simDevice().native;
      const bufs = positional.map((a) => {
        if (!ArrayBuffer.isView(a)) return undefined;
        const b = dev.alloc(Math.max(1, a.byteLength));
        dev.upload(b, a);
        return b;
      });
      try {
        dev.launch({ ...r, ptx }, positional.map((a, i) => bufs[i] ?? a), grid);
        dev.synchronize();
        return dev.download(bufs[2]!, new Float32Array(want.length));
      } catch (e) {
        return e as Error;
      } finally {
        bufs.forEach((b) => b && dev.free(b));
      }
    };
    expectBitwise(run(r.ptx) as Float32Array, want, 'intact');
    const lines = r.ptx.split('\n');
    const at = lines.findIndex((l) => l.includes(EMPTY_WAIT));
    const skip = lines.findIndex((l, i) => i > at && /^\$L_mma_none_\d+:/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(skip).toBeGreaterThan(at);
    const removed = lines.splice(at + 1, skip - at - 1);
    expect(removed.join('\n')).toMatch(/mbarrier\.try_wait\.parity/);
    const got = run(lines.join('\n'));
    if (got instanceof Error) expect(got.message).toMatch(/tcgen05|mbarrier|shared|race/i);
    else expect(Array.from(got).filter((x, i) => x !== want[i]).length, 'elements that differ').toBeGreaterThan(0);
  });
});
