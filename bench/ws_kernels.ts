// The warp-specialized descriptor matmul (sm_90a) of the bench and the e2e tests: C = A B in f32
// from f16 A [M, K] and B [K, N], one BM x BN tile per program, the k loop marked
// `warpSpecialize: WS` (src/codegen/pipeline/lower_warp_specialize.ts); WS false is the plain TMA ring.
// It lives under bench/ because the published package ships the bench, not the tests.
import { cdiv, constexpr, dot, forLoop, groupedTile, makeTensorDescriptor, persistentTiles, programId, ptr, zeros } from '../src/lang/index.js';
import { kernel } from '../src/runtime/kernel.js';

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
 * The persistent warp-specialized matmul: Triton's persistent tensor-descriptor matmul (tutorial
 * 09) in Tessera, c = a @ b with f16 in and out (the epilogue: stmatrix, then a TMA store), tiles in
 * grouped order over a grid of at most one program per SM, the K loop `warpSpecialize: WS`. The
 * producer runs the tile loop too and loads the next tile while the consumers store this one
 * (src/codegen/pipeline/ws_tiles.ts).
 */
export const persistentWsMatmul = kernel(
  {
    name: 'persistent_ws_matmul',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), GROUP_M: constexpr(), WS: constexpr() },
  },
  ({ a, b, c, M, N, K, BM, BN, BK, GROUP_M, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const tilesM = cdiv(M, bm), tilesN = cdiv(N, bn);
    persistentTiles(tilesM.mul(tilesN), (tile) => {
      const [pm, pn] = groupedTile(tile, tilesM, tilesN, GROUP_M as number);
      const om = pm.mul(bm), on = pn.mul(bn);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
      dc.store([om, on], acc!.to('f16'));
    });
  },
);

/**
 * The 8-bit descriptor matmul: C (f32) = A [M, K] @ B with B given as bt [N, K] (a descriptor on
 * the transposed tensor), transposed in the loop, so a ring stage holds it K-major, as wgmma and
 * tcgen05 read 8-bit operands (src/codegen/pipeline/ring_operands.ts). `WS` as in wsMatmul.
 */
export const wsMatmulBT8 = kernel(
  { name: 'ws_matmul_bt_e4m3', params: { a: ptr('f8e4m3'), bt: ptr('f8e4m3'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, bt, c, M, N, K, BM, BN, BK, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(bt, [N, K], [K, 1], [bn, bk]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([on, k]).trans(), { acc: acc! })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([om, on], acc!);
  },
);

/**
 * The persistent warp-specialized fp8 matmul: persistentWsMatmul on e4m3 operands, B given as
 * bt [N, K] and transposed in the loop (K-major stages, as wgmma reads 8-bit operands), f16 out.
 */
export const persistentWsMatmulBT8 = kernel(
  {
    name: 'persistent_ws_matmul_e4m3',
    params: { a: ptr('f8e4m3'), bt: ptr('f8e4m3'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), GROUP_M: constexpr(), WS: constexpr() },
  },
  ({ a, bt, c, M, N, K, BM, BN, BK, GROUP_M, WS }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(bt, [N, K], [K, 1], [bn, bk]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const tilesM = cdiv(M, bm), tilesN = cdiv(N, bn);
    persistentTiles(tilesM.mul(tilesN), (tile) => {
      const [pm, pn] = groupedTile(tile, tilesM, tilesN, GROUP_M as number);
      const om = pm.mul(bm), on = pn.mul(bn);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([on, k]).trans(), { acc: acc! })], { warpSpecialize: Boolean(WS) });
      dc.store([om, on], acc!.to('f16'));
    });
  },
);
