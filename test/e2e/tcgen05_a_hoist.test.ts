// A loop-invariant A of a tcgen05 dot (sm_100a; codegen/tensor_cores/tcgen05_a_hoist.ts): flash
// attention's Q in S = Q K^T is stored to its swizzled shared tile once, before the key loop, and
// the loop's MMAs read that tile. The PTX is checked to store nothing to shared memory inside the
// loop (K and V arrive by cp.async, P goes to TMEM) while Q's stores sit before it; the results
// are bit for bit those of the same kernel with Q loaded inside the loop (Q staged per iteration,
// the same MMAs on the same bits), and an exact integer kernel agrees bitwise with the interpreter.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import type { KernelDef } from '../../src/lang/index.js';
import { arange, constexpr, defineKernel, dot, exp, forLoop, full, load, max, maximum, programId, ptr, store, sum, zeros } from '../../src/lang/index.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { flashAttention } from '../../bench/kernels.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, lcg, randF32, runBoth, runOn } from './helpers.js';
import { specializedPtx } from './tc_matmul_cases.js';

/** The PTX before the (outermost) loop and the loop itself, by its labels. */
function splitLoop(ptx: string, numStages: number): { before: string; loop: string } {
  const [open, close] = numStages > 1 ? ['\n$L_pfor', '\n$L_endpfor'] : ['\n$L_for', '\n$L_endfor'];
  const start = ptx.indexOf(open), end = ptx.indexOf(close);
  expect(start, `loop label ${open.trim()}`).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return { before: ptx.slice(0, start), loop: ptx.slice(start, end) };
}

/** flash_fwd_f16 of bench/kernels.ts with Q loaded inside the key loop: Q is not loop-invariant. */
const flashQInLoop = defineKernel(
  { name: 'flash_q_in_loop_f16', params: { q: ptr('f16'), k: ptr('f16'), v: ptr('f16'), o: ptr('f32'), L: 'i32', scale: 'f32', BM: constexpr(), BN: constexpr(), D: constexpr() } },
  ({ q, k, v, o, L, scale, BM, BN, D }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN);
    const rd = arange(0, D);
    const init = [full([BM], -Infinity, 'f32'), zeros([BM], 'f32'), zeros([BM, D], 'f32')];
    const [, l, acc] = forLoop(0, L, BN, init, (j, m, l, acc) => {
      const qv = load(q.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))).add(j.mul(0)));
      const kn = j.add(rn);
      const kt = load(k.add(kn.expandDims(0).mul(D).add(rd.expandDims(1))));
      const vv = load(v.add(kn.expandDims(1).mul(D).add(rd.expandDims(0))));
      const s = dot(qv, kt).mul(scale);
      const mNew = maximum(m!, max(s, 1));
      const alpha = exp(m!.sub(mNew));
      const p = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(p, 1)), acc!.mul(alpha.expandDims(1)).add(dot(p.to('f16'), vv))];
    });
    store(o.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)));
  },
);

describe('flash attention on sm_100a: Q stored to shared memory once, before the key loop', () => {
  it.each([
    { BM: 64, BN: 64, D: 64, numWarps: 4, numStages: 3 },
    { BM: 64, BN: 64, D: 64, numWarps: 4, numStages: 1 },
    { BM: 128, BN: 32, D: 128, numWarps: 8, numStages: 1 },
  ])('BM $BM, BN $BN, D $D, $numWarps warps, $numStages stage(s)', async ({ BM, BN, D, numWarps, numStages }) => {
    const L = 2 * Math.max(BM, BN), scale = 1 / Math.sqrt(D);
    const q = f16Array(randF32(L * D, 61)), k = f16Array(randF32(L * D, 62)), v = f16Array(randF32(L * D, 63));
    const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM, BN, D };
    const { before, loop } = splitLoop(specializedPtx(flashAttention.f16 as unknown as KernelDef, args, 'sm_100a', { numWarps, numStages }), numStages);
    // Q's tile in 16-byte stores, one share a thread
    const qStores = (BM * D * 2) / 16 / (32 * numWarps);
    if (numStages > 1) expect(count(loop, /st\.shared/), 'shared stores inside the key loop (K, V by cp.async; P to TMEM)').toBe(0);
    else {
      // at one stage K^T and V are stored from registers in both kernels; Q only where it is loaded in the loop
      const inLoop = splitLoop(specializedPtx(flashQInLoop as unknown as KernelDef, args, 'sm_100a', { numWarps, numStages: 1 }), 1).loop;
      expect(count(loop, /st\.shared/), 'shared stores inside the key loop').toBe(count(inLoop, /st\.shared/) - qStores);
    }
    expect(before).toContain('stored to its shared tile once, before the loop');
    expect(count(before, /st\.shared\.v4\.b32/), 'Q\'s stores before the loop').toBeGreaterThanOrEqual(qStores);
    const got = await runBoth(new Kernel(flashAttention.f16), args, L / BM, { numWarps, numStages });
    // the reference on the sim only, at one stage (its sm_80 / sm_90 mma.sync code spills)
    const ref = { ...args, o: new Float32Array(L * D) };
    await runOn('sim', new Kernel(flashQInLoop), ref, L / BM, { numWarps, numStages: 1 });
    expectBitwise(got.sim.o, ref.o, 'Q hoisted vs Q loaded in the loop (sim)');
  });
});

/** c = sum over j of a (b_j + j): one loop-invariant A against a B per iteration; small integers keep it exact. */
const invariantA = defineKernel(
  { name: 'tc5_invariant_a', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), J: 'i32', M: constexpr(), K: constexpr(), N: constexpr() } },
  ({ a, b, c, J, M, K, N }) => {
    const rm = arange(0, M), rk = arange(0, K), rn = arange(0, N);
    const ta = load(a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0))));
    const [acc] = forLoop(0, J, 1, [zeros([M, N], 'f32')], (j, acc) => {
      const tb = load(b.add(j.mul(K * N)).add(rk.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

describe('an exact loop-invariant A on sm_100a agrees bitwise with the interpreter', () => {
  it.each([{ M: 128, K: 64, N: 64, numStages: 1 }, { M: 128, K: 32, N: 64, numStages: 3 }])('M $M, K $K, N $N, $numStages stage(s)', async ({ M, K, N, numStages }) => {
    const J = 4, r = lcg(71);
    const ints = (n: number): Uint16Array => f16Array(Float32Array.from({ length: n }, () => Math.floor(r() * 9) - 4));
    const args = { a: ints(M * K), b: ints(J * K * N), c: new Float32Array(M * N), J, M, K, N };
    const { before, loop } = splitLoop(specializedPtx(invariantA as unknown as KernelDef, args, 'sm_100a', { numWarps: 4, numStages }), numStages);
    if (numStages > 1) expect(count(loop, /st\.shared/), 'shared stores inside the loop (B by cp.async)').toBe(0);
    expect(before).toContain('stored to its shared tile once, before the loop');
    const got = await runBoth(new Kernel(invariantA), args, 1, { numWarps: 4, numStages });
    expectBitwise(got.sim.c, got.interpret.c, 'sim vs interpreter');
  });
});
