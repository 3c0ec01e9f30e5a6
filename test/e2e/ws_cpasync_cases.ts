// Warp-specialized matmuls whose tiles are pointer loads (sm_90a): Triton's `ptrs += BK` form,
// masked on every edge, for the cp.async producer (codegen/pipeline/ws_cpasync.ts). WS: the loop
// option on or off (the same kernel without it is the plain cp.async ring).
import { arange, cdiv, constexpr, dot, forLoop, groupedTile, load, makeTensorDescriptor, persistentTiles, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { Tile } from '../../src/lang/tile.js';

export const wsPtrMatmul = kernel(
  { name: 'ws_ptr_matmul', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK, WS }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
    const pb0 = b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32'), pa0, pb0], (k, acc, pa, pb) => {
      const ka = k.add(rk);
      const ta = load(pa!, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(pb!, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! }), pa!.add(BK), pb!.add(N.mul(BK))];
    }, WS ? { warpSpecialize: true } : undefined);
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

/** The same with b stored as B^T [N, K] and loaded as [BK, BN] tiles contiguous along k: the ring stages it transposed. */
export const wsPtrMatmulBT = kernel(
  { name: 'ws_ptr_matmul_bt', params: { a: ptr('f16'), bt: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } },
  ({ a, bt, c, M, N, K, BM, BN, BK, WS }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
    const pb0 = bt.add(rn.expandDims(0).mul(K).add(rk.expandDims(1)));
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32'), pa0, pb0], (k, acc, pa, pb) => {
      const ka = k.add(rk);
      const ta = load(pa!, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(pb!, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! }), pa!.add(BK), pb!.add(BK)];
    }, WS ? { warpSpecialize: true } : undefined);
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

/**
 * The persistent form (persistentTiles, grouped order): each program walks output tiles; the
 * K loop inside is the `ptrs += BK` pointer form with masks on every edge, the epilogue a
 * masked pointer store (c f32, or f16 in wsPtrPersistent16). With WS the cp.async producer walks
 * the tiles too (ws_tiles.ts).
 */
const persistentBody = (out: 'f32' | 'f16' | 'tma') => ({ a, b, c, M, N, K, BM, BN, BK, WS }: Record<'a' | 'b' | 'c' | 'M' | 'N' | 'K', Tile> & Record<'BM' | 'BN' | 'BK' | 'WS', unknown>): void => {
  const [bm, bn, bk] = [BM as number, BN as number, BK as number];
  const tilesM = cdiv(M, bm), tilesN = cdiv(N, bn);
  const rk = arange(0, bk);
  persistentTiles(tilesM.mul(tilesN), (tile) => {
    const [pm, pn] = groupedTile(tile, tilesM, tilesN, 2);
    const rm = pm.mul(bm).add(arange(0, bm));
    const rn = pn.mul(bn).add(arange(0, bn));
    const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
    const pb0 = b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32'), pa0, pb0], (k, acc, pa, pb) => {
      const ka = k.add(rk);
      const ta = load(pa!, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(pb!, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! }), pa!.add(bk), pb!.add(N.mul(bk))];
    }, WS ? { warpSpecialize: true } : undefined);
    if (out === 'tma') makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]).store([pm.mul(bm), pn.mul(bn)], acc!.to('f16'));
    else store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), out === 'f16' ? acc!.to('f16') : acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  });
};
const params = (out: 'f32' | 'f16') => ({ a: ptr('f16'), b: ptr('f16'), c: ptr(out), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), WS: constexpr() } as const);
export const wsPtrPersistent = kernel({ name: 'ws_ptr_persistent', params: params('f32') }, persistentBody('f32'));
/** The same storing f16 (c may then be passed as a's own buffer: program order across tiles). */
export const wsPtrPersistent16 = kernel({ name: 'ws_ptr_persistent16', params: params('f16') }, persistentBody('f16'));
/** The same storing f16 by a descriptor (TMA) store: pointer loads, a descriptor store in one tile loop. */
export const wsPtrPersistentTma = kernel({ name: 'ws_ptr_persistent_tma', params: params('f16') }, persistentBody('tma'));
