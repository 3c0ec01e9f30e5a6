// tf32 descriptor matmuls for the ring tests (ring_tf32.test.ts): A [M, K] f32, B given as
// bt [N, K] and transposed in the loop (wgmma reads tf32 K-major only), inputPrecision 'tf32'.
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

export const tf32MatmulBT = kernel(
  { name: 'tf32_matmul_bt', params: { a: ptr('f32'), bt: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, bt, c, M, N, K, BM, BN, BK, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(bt, [N, K], [K, 1], [bn, bk]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [r] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, r) => [dot(da.load([om, k]), db.load([on, k]).trans(), { acc: r!, inputPrecision: 'tf32' })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], r!);
  },
);
