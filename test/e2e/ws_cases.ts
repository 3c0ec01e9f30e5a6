// Warp-specialized descriptor matmuls (sm_90a), shared by the e2e tests and the bench: C = A B in
// f32 from f16 A [M, K] and B [K, N], one BM x BN tile per program, the k loop marked
// `warpSpecialize: WS` (lower_warp_specialize.ts); WS false is the plain TMA ring, for comparison.
import { arange, constexpr, dot, forLoop, load, makeTensorDescriptor, programId, ptr, sum, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

export const wsMatmul = kernel(
  { name: 'ws_matmul', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], acc!);
  },
);

/**
 * The same with a reduction before the loop (it goes through the shared scratch while the
 * producer already fills the ring): C = A B + sum(x), x of 1024 f32, on a 128x128x64 tile.
 */
export const wsMatmulBias = kernel(
  { name: 'ws_matmul_bias', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), x: ptr('f32'), M: 'i32', N: 'i32', K: 'i32' } },
  ({ a, b, c, x, M, N, K }) => {
    const bias = sum(load(x.add(arange(0, 1024))), 0);
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [128, 64]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [64, 128]);
    const om = programId(0).mul(128), on = programId(1).mul(128);
    const [acc] = forLoop(0, K, 64, [zeros([128, 128], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], { warpSpecialize: true });
    makeTensorDescriptor(c, [M, N], [N, 1], [128, 128]).store([om, on], acc!.add(bias));
  },
);
