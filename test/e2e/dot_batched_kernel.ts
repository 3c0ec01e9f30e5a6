// The batched matmul kernel of dot_batched.test.ts (shared with its sanitizer runs).
import type { DType } from '../../src/ir/types.js';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

export interface Case { ta: DType; tc: DType; prec?: 'ieee' | 'tf32' }

/**
 * c[b,m,n] += sum_k a[b,m,k] * b[b,k,n] over a batch of Bt matrices (M x K by K x N), masked
 * tiles BB x BM x BN with a k-loop of BK, one program per BB batch entries.
 */
export const bmmKernel = ({ ta, tc, prec }: Case) => kernel(
  { name: `bmm_${ta}_${tc}_${prec ?? 'd'}`, params: { a: ptr(ta), b: ptr(ta), c: ptr(tc), Bt: 'i32', M: 'i32', N: 'i32', K: 'i32', BB: constexpr(), BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, Bt, M, N, K, BB, BM, BN, BK }) => {
    const rb = programId(0).mul(BB).add(arange(0, BB)).expandDims(1).expandDims(2); // [BB,1,1]
    const rm = arange(0, BM).expandDims(0).expandDims(2); // [1,BM,1]
    const rn = arange(0, BN).expandDims(0).expandDims(0); // [1,1,BN]
    const rkRow = arange(0, BK).expandDims(0).expandDims(0); // [1,1,BK]: a's k
    const rkCol = arange(0, BK).expandDims(0).expandDims(2); // [1,BK,1]: b's k
    const cMask = rb.lt(Bt).logicalAnd(rm.lt(M)).logicalAnd(rn.lt(N));
    const pc = c.add(rb.mul(M).add(rm).mul(N).add(rn));
    const [acc] = forLoop(0, K, BK, [load(pc, { mask: cMask, other: 0 })], (k, acc) => {
      const ka = k.add(rkRow), kb = k.add(rkCol);
      const ta_ = load(a.add(rb.mul(M).add(rm).mul(K).add(ka)), { mask: rb.lt(Bt).logicalAnd(rm.lt(M)).logicalAnd(ka.lt(K)), other: 0 });
      const tb = load(b.add(rb.mul(K).add(kb).mul(N).add(rn)), { mask: rb.lt(Bt).logicalAnd(kb.lt(K)).logicalAnd(rn.lt(N)), other: 0 });
      return [dot(ta_, tb, prec === undefined ? { acc: acc! } : { acc: acc!, inputPrecision: prec })];
    });
    store(pc, acc!, { mask: cMask });
  },
);

