// Software-pipelined matmuls (numStages, cp.async ring; docs/compiler.md "Software pipelining")
// on the sim, against the interpreter and an f64 JS reference from the same half inputs. Each
// case first checks that the PTX the sim device runs for these arguments really is pipelined
// (cp.async + wait_group numStages-2) or, for numStages 1, really is not; runBoth assembles the
// generic and the specialized PTX with ptxas for sm_80 and sm_90.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { expectClose, matmulF64, randF32, runBoth, simPtx } from './helpers.js';
import { dec, enc, twoBlocks as twoBlocksMatmul, type Half } from './pipeline_cases.js';

const aligned = (t: Half) => kernel(
  { name: `mm_pipe_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

const masked = (t: Half) => kernel(
  { name: `mm_pipe_masked_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

const twoBlocks = twoBlocksMatmul('mm_pipe_nested');

function expectPipelined(ptx: string, numStages: number, copies: RegExp): void {
  if (numStages === 1) {
    expect(ptx).not.toMatch(/cp\.async/);
    return;
  }
  expect(ptx).toMatch(copies);
  expect(ptx).toMatch(/cp\.async\.commit_group/);
  expect(ptx).toContain(`cp.async.wait_group ${numStages - 2};`);
  expect(ptx).not.toMatch(/ld\.global/); // both tiles travel by cp.async; nothing else is loaded
}

async function check(k: Kernel, t: Half, M: number, N: number, K: number, cx: { BM: number; BN: number; BK: number }, numWarps: number, numStages: number, seed: number): Promise<void> {
  const a = enc(t, randF32(M * K, seed)), b = enc(t, randF32(K * N, seed + 1));
  const args = { a, b, c: new Float32Array(M * N), M, N, K, ...cx };
  expectPipelined(simPtx(k, args, numWarps, numStages), numStages, k.name.includes('masked') ? /cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16, %r\d+;/ : /cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16;/);
  const r = await runBoth(k, args, [Math.ceil(M / cx.BM), Math.ceil(N / cx.BN)], { numWarps, numStages });
  // products of half inputs are exact in f32; the sums (K up to 256) differ only in order
  expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  expectClose(r.sim.c, matmulF64(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
}

describe('software-pipelined tensor-core matmuls on the sim', () => {
  it.each([1, 2, 3, 4])('aligned f16 matmul 128 x 128 x 256 (BM = BN = 64, BK = 32, 4 warps), numStages %i', async (s) => {
    await check(aligned('f16'), 'f16', 128, 128, 256, { BM: 64, BN: 64, BK: 32 }, 4, s, 41);
  });

  it.each([
    ['f16', 4], ['bf16', 4], ['f16', 8], ['bf16', 8],
  ] as const)('masked %s matmul ragged in M, N and K (80 x 48 x 80; BM 64, BN 32, BK 32; %i warps): zero-filled copies', async (t, w) => {
    await check(masked(t), t, 80, 48, 80, { BM: 64, BN: 32, BK: 32 }, w, 3, 43);
  });

  it.each([2, 3])('bf16 aligned matmul with 8 warps (256 x 64 x 128; BM = 128, BN = 64, BK = 32), numStages %i', async (s) => {
    await check(aligned('bf16'), 'bf16', 256, 64, 128, { BM: 128, BN: 64, BK: 32 }, 8, s, 47);
  });

  it('f16 with 128-byte rows (BK = 64; 64 x 64 x 192; 8 warps; copies spread over two warp columns)', async () => {
    await check(aligned('f16'), 'f16', 64, 64, 192, { BM: 64, BN: 64, BK: 64 }, 8, 3, 53);
  });

  it('a pipelined loop inside another loop (two row blocks per program: the ring is reused, a barrier before each prologue)', async () => {
    const M = 128, N = 64, K = 96, t = 'f16';
    const a = enc(t, randF32(M * K, 57)), b = enc(t, randF32(K * N, 58));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 32, BN: 64, BK: 32 };
    expectPipelined(simPtx(twoBlocks, args, 4, 3), 3, /cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16;/);
    const r = await runBoth(twoBlocks, args, [M / 64, 1], { numWarps: 4, numStages: 3 });
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
    expectClose(r.sim.c, matmulF64(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
  });

  it('fewer iterations than stages (K = BK): the prologue and the prefetch skip past the end', async () => {
    await check(aligned('f16'), 'f16', 64, 64, 32, { BM: 64, BN: 64, BK: 32 }, 4, 4, 49);
  });
});
