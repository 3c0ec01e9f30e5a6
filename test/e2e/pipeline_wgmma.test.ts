// Software-pipelined matmuls on wgmma (sm_90a): the sim pretends to be an sm_90 (set before the
// sim loads), the runtime compiles for sm_90a. Each case checks the PTX the sim device runs for
// these arguments — pipelined through a cp.async ring of S stages with the wgmma of iteration i
// in flight into i+1 (wgmma.wait_group 1; copies S-1 ahead: cp.async.wait_group S-2; the stage of
// i-1 refilled once that wait completed its wgmma) — then compares with the interpreter and an
// f64 JS reference.
// The nested case reuses the ring after an overlapped loop (the wait after the loop protects it).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { count } from '../codegen/gate.js';
import { expectClose, matmulF64, randF32, runBoth, simPtx } from './helpers.js';
import { dec, enc, twoBlocks as twoBlocksMatmul, type Half } from './pipeline_cases.js';

const mm = (t: Half, masked: boolean) => kernel(
  { name: `mm_wgpipe_${t}${masked ? '_masked' : ''}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const pa = a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0)));
      const pb = b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0)));
      const ta = masked ? load(pa, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 }) : load(pa);
      const tb = masked ? load(pb, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 }) : load(pb);
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

const twoBlocks = twoBlocksMatmul('mm_wgpipe_nested');

/** The sim's PTX is pipelined on wgmma, the dot's wgmma in flight into the next iteration. */
function expectWgmmaPipeline(ptx: string, S: number, loops = 1): void {
  expect(ptx).toMatch(/cp\.async\.cg\.shared\.global/);
  expect(ptx).not.toMatch(/ld\.global|mma\.sync/);
  expect(count(ptx, /wgmma\.mma_async/)).toBeGreaterThan(0);
  expect(ptx).toContain(`// pipelined loop: ${S} stages`);
  expect(ptx).toContain(`cp.async.wait_group ${S - 2};`);
  expect(count(ptx, /wgmma\.wait_group\.sync\.aligned 1;/)).toBe(loops);
  // the wait after the loop
  expect(count(ptx, /wgmma\.wait_group\.sync\.aligned 0;/)).toBe(loops);
  // the refill of the stage the previous wgmma read comes after the dot's wait
  const body = ptx.slice(ptx.indexOf('\n$L_pfor'), ptx.indexOf('\n$L_endpfor'));
  expect(body.indexOf('wgmma.wait_group.sync.aligned 1;')).toBeLessThan(body.lastIndexOf('cp.async.cg'));
}

async function check(k: Kernel, t: Half, M: number, N: number, K: number, cx: { BM: number; BN: number; BK: number }, numWarps: number, S: number, seed: number): Promise<void> {
  const a = enc(t, randF32(M * K, seed)), b = enc(t, randF32(K * N, seed + 1));
  const args = { a, b, c: new Float32Array(M * N), M, N, K, ...cx };
  expectWgmmaPipeline(simPtx(k, args, numWarps, S), S);
  const r = await runBoth(k, args, [Math.ceil(M / cx.BM), Math.ceil(N / cx.BN)], { numWarps, numStages: S });
  expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  expectClose(r.sim.c, matmulF64(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
}

describe('software-pipelined wgmma matmuls on the sim as sm_90', () => {
  it.each([2, 3, 4])('aligned f16 128 x 128 x 256 (BM = BN = 64, BK = 32, 4 warps), numStages %i', async (S) => {
    await check(mm('f16', false), 'f16', 128, 128, 256, { BM: 64, BN: 64, BK: 32 }, 4, S, 41);
  });

  it.each([['f16'], ['bf16']] as const)('masked %s ragged in M, N and K (80 x 48 x 80; BM 64, BN 32, BK 32; 4 warps): zero-filled copies', async (t) => {
    await check(mm(t, true), t, 80, 48, 80, { BM: 64, BN: 32, BK: 32 }, 4, 3, 43);
  });

  it('bf16 on two warpgroups (256 x 64 x 128; BM = 128, BN = 64, BK = 32; 8 warps; 3 stages)', async () => {
    await check(mm('bf16', false), 'bf16', 256, 64, 128, { BM: 128, BN: 64, BK: 32 }, 8, 3, 47);
  });

  it('128-byte rows (BK = 64; 64 x 128 x 192; BN = 128; 4 warps; 3 stages)', async () => {
    await check(mm('f16', false), 'f16', 64, 128, 192, { BM: 64, BN: 128, BK: 64 }, 4, 3, 53);
  });

  it('fewer iterations than stages (K = BK, 4 stages): the prologue and the prefetch skip past the end', async () => {
    await check(mm('f16', false), 'f16', 64, 64, 32, { BM: 64, BN: 64, BK: 32 }, 4, 4, 49);
  });

  it('a pipelined loop inside another loop (the ring reused after an overlapped loop)', async () => {
    const M = 256, N = 64, K = 128, t = 'f16';
    const a = enc(t, randF32(M * K, 57)), b = enc(t, randF32(K * N, 58));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 64, BK: 32 };
    expectWgmmaPipeline(simPtx(twoBlocks, args, 4, 3), 3);
    const r = await runBoth(twoBlocks, args, [M / 128, 1], { numWarps: 4, numStages: 3 });
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
    expectClose(r.sim.c, matmulF64(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
  });
});
