// Loops that walk their pointers (Triton's tutorial 03: `pa += BK`, `pb += BK * N`) are software
// pipelined like loops that index with the induction variable: the 'carried' IR pass
// (compiler/carried_induction.ts) reads a pointer advanced by a loop-invariant amount as its
// closed form. On the sim (sm_80: cp.async ring + mma.sync) against the interpreter and an f64 JS
// reference, for numStages 1..4, whole and ragged (masked) shapes; a loop-carried integer offset
// too. A pointer advanced by an amount that varies with the iteration stays loop-carried (not
// pipelined) and is still computed right.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth } from './helpers.js';
import { cpAsyncCount, matmulRef, simPtx, walkedMatmul } from './carried_matmul.js';

type Half = 'f16' | 'bf16';
const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));
const dec = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));
const TILE = { BM: 64, BN: 64, BK: 32 };

describe('tutorial-style matmul (pointers advanced by the loop) on the sim, sm_80', () => {
  it.each([
    ['f16', false, 64, 128, 96, 1], ['f16', false, 64, 128, 96, 2], ['bf16', false, 128, 64, 128, 3], ['f16', false, 64, 64, 160, 4],
    ['f16', true, 100, 80, 80, 1], ['bf16', true, 100, 80, 80, 2], ['f16', true, 70, 96, 48, 3], ['bf16', true, 33, 112, 112, 4],
  ] as const)('%s masked=%s %i x %i x %i, numStages %i', async (t, masked, M, N, K, S) => {
    const a = enc(t, randF32(M * K, M + K)), b = enc(t, randF32(K * N, N + K));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, ...TILE };
    const k = walkedMatmul(t, masked);
    const { ptx, pipeline } = simPtx(k, args, 4, S);
    if (S === 1) expect(cpAsyncCount(ptx)).toBe(0);
    else {
      // (64x32 + 32x64) halves = 4 chunks of 16 bytes a thread per issue: S issues (S-1 ahead, 1 in the loop)
      expect(cpAsyncCount(ptx)).toBe(4 * S);
      expect(ptx).toContain(`cp.async.wait_group ${S - 2};`);
      expect(pipeline.match(/ {4}load %\d+: \w+\[\d+x\d+\] cp\.async 16 bytes/g)?.length).toBe(2);
      expect(pipeline).not.toMatch(/loop-carried/);
    }
    const r = await runBoth(k, args, [Math.ceil(M / TILE.BM), Math.ceil(N / TILE.BN)], { numWarps: 4, numStages: S });
    const want = matmulRef(dec(t, a), dec(t, b), M, N, K);
    expectClose(r.interpret.c, want, 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  });

  it('a loop-carried integer K offset (ko += BK), masked by ko + rk < K, is pipelined too', async () => {
    const k = kernel(
      { name: 'mm_koff', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
      ({ a, b, c, M, N, K, BM, BN, BK }) => {
        const rm = programId(0).mul(BM).add(arange(0, BM as number));
        const rn = programId(1).mul(BN).add(arange(0, BN as number));
        const rk = arange(0, BK as number);
        const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32'), rk], (_k, acc, ko) => {
          const ta = load(a.add(rm.expandDims(1).mul(K).add(ko!.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ko!.expandDims(0).lt(K)), other: 0 });
          const tb = load(b.add(ko!.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ko!.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
          return [dot(ta, tb, { acc: acc! }), ko!.add(BK)];
        });
        store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
      },
    );
    const [M, N, K] = [100, 80, 80];
    const a = f16Array(randF32(M * K, 5)), b = f16Array(randF32(K * N, 6));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, ...TILE };
    const { ptx, pipeline } = simPtx(k, args, 4, 3);
    expect(cpAsyncCount(ptx)).toBe(12);
    expect(pipeline).not.toMatch(/loop-carried/);
    const r = await runBoth(k, args, [2, 2], { numWarps: 4, numStages: 3 });
    expectClose(r.interpret.c, matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  });

  it('a pointer advanced by an amount that varies with the iteration (k + BK) stays loop-carried, and is right', async () => {
    // offsets along K: 0, BK, BK + 2 BK = 3 BK (the amount after iteration j is (j + 1) BK)
    const k = kernel(
      { name: 'mm_variant_step', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), N: 'i32', K: 'i32', L: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
      ({ a, b, c, N, K, L, BM, BN, BK }) => {
        const rm = programId(0).mul(BM).add(arange(0, BM as number));
        const rn = programId(1).mul(BN).add(arange(0, BN as number));
        const rk = arange(0, BK as number);
        const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
        const pb0 = b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
        const [acc] = forLoop(0, L, BK as number, [zeros([BM as number, BN as number], 'f32'), pa0, pb0], (kk, acc, pa, pb) =>
          [dot(load(pa!), load(pb!), { acc: acc! }), pa!.add(kk.add(BK)), pb!.add(kk.add(BK).mul(N))]);
        store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
      },
    );
    const [M, N, K, BK] = [64, 64, 128, 32];
    const a = f16Array(randF32(M * K, 7)), b = f16Array(randF32(K * N, 8));
    const args = { a, b, c: new Float32Array(M * N), N, K, L: 3 * BK, ...TILE };
    const { ptx, pipeline } = simPtx(k, args, 4, 3);
    expect(cpAsyncCount(ptx)).toBe(0);
    expect(pipeline).toMatch(/not pipelined: its address or mask depends on a loop-carried value/);
    const r = await runBoth(k, args, [1, 1], { numWarps: 4, numStages: 3 });
    const af = f16ToFloat32(a), bf = f16ToFloat32(b);
    const want = new Float64Array(M * N);
    for (const off of [0, BK, 3 * BK]) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let q = off; q < off + BK; q++) s += af[i * K + q]! * bf[q * N + j]!;
      want[i * N + j] += s;
    }
    expectClose(r.interpret.c, want, 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  });
});
