// The clustered persistent warp-specialized matmul (sm_90a) of the bench and the e2e tests: the
// persistent matmul of ws_kernels.ts, its tile loop walking cluster tiles so that TMA multicast
// can share loads within a thread block cluster (src/codegen/pipeline/ws_multicast.ts).
//
// Launched on a grid [CX, CY, n] in clusters [CX, CY, 1]: the CTAs of a cluster share
// programId(2), so they walk the same cluster tiles (programId(2) stepping by numPrograms(2)), the
// same number of them; a cluster tile is CX x CY output tiles in grouped order, the CTA at (x, y)
// of the cluster taking output tile (CX gm + x, CY gn + y). The CTAs along x then load the same B
// columns (B is multicast along x), those along y the same A rows (A along y). A CTA whose tile lies
// past M or N (tilesM not a multiple of CX) still runs it with its peers: its loads are zero-filled
// and its TMA store writes nothing.
import { cdiv, constexpr, dot, forLoop, groupedTile, makeTensorDescriptor, persistentTiles, programId, ptr, zeros } from '../src/lang/index.js';
import { kernel } from '../src/runtime/kernel.js';

export const clusterPersistentWsMatmul = kernel(
  {
    name: 'cluster_persistent_ws_matmul',
    params: {
      a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32',
      BM: constexpr(), BN: constexpr(), BK: constexpr(), GROUP_M: constexpr(), CX: constexpr(), CY: constexpr(), WS: constexpr(),
    },
  },
  ({ a, b, c, M, N, K, BM, BN, BK, GROUP_M, CX, CY, WS }) => {
    const [bm, bn, bk, cxn, cyn] = [BM as number, BN as number, BK as number, CX as number, CY as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const ctM = cdiv(cdiv(M, bm), cxn), ctN = cdiv(cdiv(N, bn), cyn);
    persistentTiles(ctM.mul(ctN), (ct) => {
      const [gm, gn] = groupedTile(ct, ctM, ctN, GROUP_M as number);
      const om = gm.mul(cxn).add(programId(0)).mul(bm), on = gn.mul(cyn).add(programId(1)).mul(bn);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
      dc.store([om, on], acc!.to('f16'));
    }, 2);
  },
);

/**
 * The grid of one program per SM for clusterPersistentWsMatmul in clusters [CX, CY, 1]: [CX, CY, n]
 * with n = floor(sms / (CX CY)) whole clusters (at least one), so every axis divides by the cluster
 * (`grid: 'sms'` is [sms, 1, 1], for tile loops over programId(0)).
 */
export const clusterTileGrid = (sms: number, cluster: readonly [number, number, number]): [number, number, number] =>
  [cluster[0], cluster[1], Math.max(1, Math.floor(sms / (cluster[0] * cluster[1])))];
