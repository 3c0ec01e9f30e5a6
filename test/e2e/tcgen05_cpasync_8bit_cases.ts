// Pointer-load matmuls for the cp.async ring of tcgen05 dots with 1-byte and masked operands
// (compiler/ring_8bit_tcgen05.ts; tcgen05_cpasync_8bit.test.ts).
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import type { DType } from '../../src/ir/types.js';
import { kernel } from '../../src/runtime/kernel.js';

/**
 * C [M, N] (acc) = A [M, K] @ B, every access masked (MASKED 1) or none. B is b [K, N] row-major
 * (BT 0: its tile runs along N, staged [K, N] MN-major) or bt [N, K] row-major read as the
 * [K, N] tile (BT 1: the tile runs along K, staged transposed, K-major).
 */
export const ptrMatmul = (ta: DType, tb: DType, acc: 'f32' | 'i32') => kernel(
  { name: `ptr_matmul_${ta}_${tb}_${acc}`, params: { a: ptr(ta), b: ptr(tb), c: ptr(acc), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), BT: constexpr(), MASKED: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK, BT, MASKED }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const masked = Boolean(MASKED);
    const [r] = forLoop(0, K, BK, [zeros([BM as number, BN as number], acc)], (k, r) => {
      const ka = k.add(rk);
      const pa = a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0)));
      const pb = BT ? b.add(rn.expandDims(0).mul(K).add(ka.expandDims(1))) : b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0)));
      const x = masked ? load(pa, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 }) : load(pa);
      const y = masked ? load(pb, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 }) : load(pb);
      return [dot(x, y, { acc: r! })];
    });
    const pc = c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
    if (masked) store(pc, r!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
    else store(pc, r!);
  },
);
