// Descriptor matmuls on 8-bit, f32 (tf32) operands for the warp-specialization dtype tests
// (warp_specialize_dtypes.test.ts). wgmma reads non-16-bit operands K-major only, so the 8-bit
// kernel loads B^T [N, K] through a descriptor on the transposed tensor and transposes the tile
// in the loop (what pipeline/ring_operands.ts stages K-major); `wsMatmulKN` loads B as [K, N]
// (N-major: it stays off the ring, with the reason), and `wsMatmulTf32` is the f32 one.
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import type { DType } from '../../src/ir/types.js';
import { kernel } from '../../src/runtime/kernel.js';

/** C [M, N] (acc) = A [M, K] @ B, B given transposed as bt [N, K]; `WS` marks the k loop warp-specialized. */
export const wsMatmulBT = (ta: DType, tb: DType, acc: 'f32' | 'i32') => kernel(
  { name: `ws_matmul_bt_${ta}_${tb}`, params: { a: ptr(ta), bt: ptr(tb), c: ptr(acc), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, bt, c, M, N, K, BM, BN, BK, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(bt, [N, K], [K, 1], [bn, bk]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [r] = forLoop(0, K, bk, [zeros([bm, bn], acc)], (k, r) => [dot(da.load([om, k]), db.load([on, k]).trans(), { acc: r! })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], r!);
  },
);

/** The same with B loaded as [K, N] (row-major, N-major for wgmma). */
export const wsMatmulKN = (t: DType, acc: 'f32' | 'i32', inputPrecision?: 'tf32') => kernel(
  { name: `ws_matmul_kn_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr(acc), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [r] = forLoop(0, K, bk, [zeros([bm, bn], acc)], (k, r) => [dot(da.load([om, k]), db.load([k, on]), { acc: r!, ...(inputPrecision ? { inputPrecision } : {}) })], { warpSpecialize: true });
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], r!);
  },
);
