// The TMA ring of a tcgen05 K loop (sm_100a, codegen/pipeline/tcgen05_ring.ts): descriptor loads
// feed the dot through S stages, each with a FULL mbarrier (TMA's expect_tx) and an EMPTY one the
// stage's MMAs commit to; the MMAs stay in flight across iterations (no wait on an iteration's
// own commit) and the epilogue waits once, on the last commit, before tcgen05.ld. The sim runs as
// a B200 (TESSERA_SIM_ARCH, read at cuInit). Inputs are small integers, so every summation order
// gives the same f32 bits: the sim, the interpreter and the JS reference agree bit for bit.
// Sabotage (string surgery on the PTX, run through the same launch): the refill of a stage
// without waiting for its MMAs, and the epilogue's tcgen05.ld above the final wait, give wrong
// results.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { f8e4m3Bits } from '../../src/ir/fp8.js';
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runOn, simDevice } from './helpers.js';
import { cutEmptyWait, ints, matmulRef, mmDesc, problem, runPtx, sm100, traced } from './desc_matmul_cases.js';

const KERNELS = { f16: mmDesc('f16', 'tc_ring_f16'), bf16: mmDesc('bf16', 'tc_ring_bf16') };

/** The dot's result is read in the loop (acc' = acc + a b + 0.5): not left in flight, the plain TMA ring. */
const mmDescRead = kernel(
  { name: 'tc_ring_read', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! }).add(0.5)]);
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], acc!);
  },
);

/** e4m3 operands through descriptors, b as [K, N]: a rides the ring, b (N-major for an fp8 B) is a TMA load staged from registers. */
const mmDescFp8 = mmDesc('f8e4m3', 'tc_desc_fp8');

/** The ring's loop: from its header comment to the final wait. */
function loopText(ptx: string): string {
  const start = ptx.indexOf('the tcgen05 MMAs stay in flight');
  const end = ptx.indexOf(FINAL_WAIT);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return ptx.slice(start, end);
}

const COMMIT = /tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.shared::cluster\.b64 \[(%r\d+)\]/;

/** The ring's shape in the PTX: one commit (to the stage's empty barrier), no wait on it before the next MMA. */
function expectInflight(ptx: string, mmasPerTile: number, S: number, BN: number): void {
  expect(ptx).toContain(`// TMA ring: ${S} stages`);
  // per issue: a's box (64 halves: 128-byte rows) and b's 128-byte column blocks; S-1 prologue issues and the loop's
  expect(count(ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe((1 + (2 * BN) / 128) * S);
  expect(count(ptx, /tcgen05\.mma\.cta_group::1\.kind::f16 /)).toBe(mmasPerTile);
  expect(count(ptx, /tcgen05\.commit/)).toBe(1);
  expect(count(ptx, /mbarrier\.init/)).toBe(2 * S);
  const loop = loopText(ptx);
  const committed = COMMIT.exec(loop)?.[1];
  expect(committed, 'the loop commits its MMAs').toBeDefined();
  // the only mbarrier waits of the loop: the stage's FULL barrier (before the MMAs) and the
  // previous iteration's EMPTY barrier (after this iteration's MMAs are issued): never the
  // barrier this iteration's MMAs commit to
  const waits = [...loop.matchAll(/mbarrier\.try_wait\.parity\.shared::cta\.b64 %p\d+, \[(%r\d+)\]/g)].map((m) => m[1]);
  expect(waits).toHaveLength(2);
  expect(waits).not.toContain(committed);
  expect(loop.indexOf(EMPTY_WAIT)).toBeGreaterThan(loop.search(COMMIT));
  // the epilogue: one wait on the last commit, then tcgen05.ld
  const tail = ptx.slice(ptx.indexOf(FINAL_WAIT));
  expect(tail.search(/mbarrier\.try_wait/)).toBeLessThan(tail.search(/tcgen05\.ld\.sync/));
  expect(ptx).not.toMatch(/mma\.sync|wgmma/);
}

describe('the sim as an sm_100', () => {
  it('compiles for sm_100a (compute 10.0)', () => {
    expect(simDevice().target).toBe('sm_100a');
  });
});

describe.each(['f16', 'bf16'] as const)('tcgen05 K loop on a TMA ring, %s (bit-exact)', (t) => {
  const k = KERNELS[t];
  it.each([
    ['128x128x64 on 4 warps, K loop of 1', { M: 128, N: 128, K: 64, BM: 128, BN: 128, BK: 64, numWarps: 4 }, 4],
    ['128x128x64 on 4 warps, K loop of 7 (> 3 stages)', { M: 128, N: 128, K: 448, BM: 128, BN: 128, BK: 64, numWarps: 4 }, 4],
    ['128x256x64 on 8 warps (TMEM 256 columns), K loop of 5', { M: 128, N: 256, K: 320, BM: 128, BN: 256, BK: 64, numWarps: 8 }, 4],
    ['ragged 200x136x200 over 128x128x64 tiles', { M: 200, N: 136, K: 200, BM: 128, BN: 128, BK: 64, numWarps: 4 }, 4],
  ] as const)('%s', async (_name, p, mmas) => {
    const { args, want, grid } = problem(t, p, 7 + p.K + p.N);
    const r = sm100(k, args, p.numWarps, 3);
    expectInflight(r.ptx, mmas, 3, p.BN);
    if (p.N === 256) expect(r.ptx).toMatch(/tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[%r\d+\], 256;/);
    // runOn, not runBoth: runBoth's gate also assembles the sm_80 / sm_90 code, where a 128 x 128
    // f32 accumulator on mma.sync spills; the sm_100a PTX went through the gate above
    for (const dev of ['sim', 'interpret'] as const) {
      const mine = { ...args, c: new Float32Array(p.M * p.N) };
      await runOn(dev, k, mine, grid, { numWarps: p.numWarps, numStages: 3 });
      expectBitwise(mine.c, want, `${dev} vs JS`);
    }
  });

  it.each([2, 4])('numStages %i (K loop of 7)', (S) => {
    const p = { M: 128, N: 128, K: 448, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem(t, p, 31 + S);
    const { f, positional } = traced(k, args);
    const r = compile(f, { target: 'sm_100a', numWarps: 4, numStages: S, ptxas: false, specialization: launchSpecialization(f, positional) });
    expectInflight(r.ptx, 4, S, p.BN);
    expectBitwise(runPtx(k, args, grid, r, r.ptx), want, `sim at ${S} stages vs JS`);
  });
});

describe('tcgen05 dots on sm_100a descriptors that are not left in flight', () => {
  const p = { M: 128, N: 128, K: 256, BM: 128, BN: 128, BK: 64, numWarps: 4 };
  it('a dot whose result is read in the loop: the plain TMA ring, each iteration waits for its MMAs (bit-exact)', async () => {
    const { args, want, grid } = problem('f16', p, 51);
    const r = sm100(mmDescRead, args, 4, 3);
    expect(r.ptx).toContain('// TMA ring: 3 stages');
    expect(r.ptx).not.toContain('MMAs stay in flight');
    expect(r.ptx).toMatch(/\$L_mma_wait_\d+:/);
    const want5 = want.map((x) => x + 0.5 * (p.K / p.BK));
    for (const dev of ['sim', 'interpret'] as const) {
      const mine = { ...args, c: new Float32Array(p.M * p.N) };
      await runOn(dev, mmDescRead, mine, grid, { numWarps: 4, numStages: 3 });
      expectBitwise(mine.c, want5, `${dev} vs JS`);
    }
  });

  it('e4m3 operands with b [K, N]: a on the ring, b a TMA load outside it, kind::f8f6f4 (bit-exact)', async () => {
    const af = ints(p.M * p.K, 61), bf = ints(p.K * p.N, 62);
    const args = { a: Uint8Array.from(af, f8e4m3Bits), b: Uint8Array.from(bf, f8e4m3Bits), c: new Float32Array(p.M * p.N), M: p.M, N: p.N, K: p.K, BM: p.BM, BN: p.BN, BK: p.BK };
    const r = sm100(mmDescFp8, args, 4, 3);
    // a rides the ring; b [K, N] is N-major (tcgen05 reads 8-bit B K-major only): a TMA load outside it
    expect(r.ptx).toMatch(/\/\/ TMA ring: 3 stages of 8192 bytes, 1 tile\(s\)/);
    expect(r.ptx).not.toContain(EMPTY_WAIT); // b is not staged by the ring: the MMAs are waited for per iteration
    expect(r.ptx).toMatch(/tcgen05\.mma\.cta_group::1\.kind::f8f6f4 /);
    const want = matmulRef(af, bf, p.M, p.N, p.K);
    for (const dev of ['sim', 'interpret'] as const) {
      const mine = { ...args, c: new Float32Array(p.M * p.N) };
      await runOn(dev, mmDescFp8, mine, [1, 1, 1], { numWarps: 4, numStages: 3 });
      expectBitwise(mine.c, want, `${dev} vs JS`);
    }
  });
});

describe('sabotage on the ring (the same launch, the PTX edited)', () => {
  const p = { M: 128, N: 128, K: 448, BM: 128, BN: 128, BK: 64, numWarps: 4 };
  const { args, want, grid } = problem('f16', p, 77);
  const r = sm100(KERNELS.f16, args, 4, 3);
  const run = (ptx: string): Float32Array | Error => {
    try {
      return runPtx(KERNELS.f16, args, grid, r, ptx);
    } catch (e) {
      return e as Error;
    }
  };
  const differs = (got: Float32Array | Error): number => (got instanceof Error ? want.length : Array.from(got).filter((x, i) => x !== want[i]).length);

  it('the intact PTX computes the product', () => {
    expectBitwise(run(r.ptx) as Float32Array, want, 'intact');
  });

  it('a stage refilled without waiting for the MMAs that read it (no wait on its empty barrier): a wrong result or a named fault', () => {
    // drop the wait loop between the marker and the label that skips it
    const got = run(cutEmptyWait(r.ptx));
    console.log(`no empty wait: ${got instanceof Error ? got.message : `${differs(got)} of ${want.length} elements differ`}`);
    if (got instanceof Error) expect(got.message).toMatch(/tcgen05|mbarrier|shared|race/i);
    else expect(differs(got), 'elements that differ from the product').toBeGreaterThan(0);
  });

  it("the epilogue's tcgen05.ld above the final commit's wait: a wrong result or a named fault", () => {
    // the wait (its marker through the label that skips it) moved below the tcgen05.ld and its wait::ld
    const lines = r.ptx.split('\n');
    const at = lines.findIndex((l) => l.includes(FINAL_WAIT));
    const skip = lines.findIndex((l, i) => i > at && /^\$L_mma_none_\d+:/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(skip).toBeGreaterThan(at);
    const block = lines.splice(at, skip - at + 1);
    expect(block.join('\n')).toMatch(/mbarrier\.try_wait\.parity/);
    const ld = lines.findIndex((l, i) => i >= at && /^\s*tcgen05\.ld\.sync/.test(l));
    expect(ld).toBeGreaterThan(0);
    expect(lines[ld + 1]).toMatch(/tcgen05\.wait::ld/);
    lines.splice(ld + 2, 0, ...block);
    const got = run(lines.join('\n'));
    console.log(`ld before the final wait: ${got instanceof Error ? got.message : `${differs(got)} of ${want.length} elements differ`}`);
    if (got instanceof Error) expect(got.message).toMatch(/tcgen05|tensor memory|poison/i);
    else expect(differs(got), 'elements that differ from the product').toBeGreaterThan(want.length / 8);
  });
});

describe('the sanitizers (racecheck, synccheck, initcheck) find nothing in the ring kernel', () => {
  it('128x128x64 tiles, 2 CTAs, K loop of 7 over 3 stages', async () => {
    const p = { M: 256, N: 128, K: 448, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem('f16', p, 91);
    await KERNELS.f16.run(args, { grid, device: 'sim', numWarps: 4, numStages: 3, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(args.c, want, 'under the sanitizers');
  });
});
