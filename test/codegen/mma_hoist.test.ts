// A loop-invariant a operand of a tensor-core dot (codegen/tensor_cores/mma_a_hoist.ts): its fragments are
// loaded once, before the loop, and every iteration's dot reads them from registers; past the
// register budget the dot stages a in the loop as before. Checked on the PTX and on the sim
// (sim and interpreter against a JS reference), for f16 and tf32 (fragments rounded as loaded).
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { defineKernel } from '../../src/lang/index.js';
import { compile } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth } from '../e2e/helpers.js';
import { count, gate } from './gate.js';

/** c = sum over the n column blocks j of a @ b_j: a [BM, BK] is loaded once, b_j [BK, BN] per iteration. */
const sumOfProducts = (t: 'f16' | 'f32') => defineKernel(
  { name: `sum_ab_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), NB: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, NB, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rk = arange(0, BK);
    const rn = arange(0, BN);
    const ta = load(a.add(rm.expandDims(1).mul(BK).add(rk.expandDims(0))));
    const [acc] = forLoop(0, NB, 1, [zeros([BM as number, BN as number], 'f32')], (j, acc) => {
      const tb = load(b.add(j.mul(BK * (BN as number)).add(rk.expandDims(1).mul(BN).add(rn.expandDims(0)))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(BN).add(rn.expandDims(0))), acc!);
  },
);

const loopBody = (ptx: string): string => ptx.slice(ptx.indexOf('$L_for_0:'), ptx.indexOf('$L_endfor_1:'));

describe('a loop-invariant a: fragments loaded once, before the loop', () => {
  it.each([
    ['f16', 4, 2 * 2], // 64 x 32 f16 on 2 x 2 warps: 2 m16 tiles x 2 k-steps, one ldmatrix.x4 each
    ['f32', 4, 2 * 4], // tf32: 2 m16 tiles x 4 k8-steps, each fragment rounded (cvt.rna) as loaded
  ] as const)('%s a, %i warps: %i ldmatrix of a, all before the loop; the loop stages b only; right on the sim', async (t, numWarps, aLoads) => {
    const tile = { BM: 64, BN: 64, BK: 32 };
    const f = sumOfProducts(t).trace(tile);
    const { sm80 } = gate(f, { numWarps });
    const body = loopBody(sm80.ptx);
    expect(body.length).toBeGreaterThan(100);
    // a's ldmatrix (non-trans, x4) are all outside the loop; the loop's are b's (.trans for f16)
    expect(count(sm80.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(aLoads);
    expect(count(body, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(0);
    if (t === 'f32') {
      // in the loop b's only: 2 per n8 tile (4 a warp) and k-step (4); a's 4 per fragment before it
      expect(count(body, /cvt\.rna\.tf32\.f32/)).toBe(2 * 4 * 4);
      expect(count(sm80.ptx, /cvt\.rna\.tf32\.f32/)).toBe(2 * 4 * 4 + aLoads * 4);
    }
    // one barrier pair per iteration (b's staging), none for a
    expect(count(body, /bar\.sync/)).toBe(2);
    const NB = 3;
    const a = randF32(tile.BM * tile.BK, 81), b = randF32(NB * tile.BK * tile.BN, 82);
    const [ah, bh] = t === 'f16' ? [f16Array(a), f16Array(b)] : [a, b];
    const r = await runBoth(f, [ah, bh, new Float32Array(tile.BM * tile.BN), NB], 1, { numWarps });
    const af = t === 'f16' ? f16ToFloat32(ah as Uint16Array) : a, bf = t === 'f16' ? f16ToFloat32(bh as Uint16Array) : b;
    const want = new Float64Array(tile.BM * tile.BN);
    for (let j = 0; j < NB; j++) for (let i = 0; i < tile.BM; i++) for (let k = 0; k < tile.BK; k++) {
      for (let n = 0; n < tile.BN; n++) want[i * tile.BN + n]! += af[i * tile.BK + k]! * bf[j * tile.BK * tile.BN + k * tile.BN + n]!;
    }
    // tf32 rounds the inputs (10-bit mantissa): relative error up to ~2^-11 per product
    const tol = t === 'f16' ? 1e-4 : 0.1;
    expectClose(r.sim[2] as Float32Array, want, tol, 'sim vs JS');
    expectClose(r.sim[2] as Float32Array, r.interpret[2] as Float32Array, t === 'f16' ? 1e-4 : 1e-3, 'sim vs interpreter');
  });

  it('past 32 fragment registers a stays staged in the loop (a 128 x 128 f16 a on 4 warps: 64 fragment registers)', () => {
    const big = compile(sumOfProducts('f16').trace({ BM: 128, BN: 32, BK: 128 }), { target: 'sm_80', numWarps: 4, ptxas: false });
    expect(count(loopBody(big.ptx), /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBeGreaterThan(0);
  });
});
