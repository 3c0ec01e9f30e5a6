// A persistent, warp-specialized matmul as a Triton user writes it (Triton's tutorial 09 with
// `warp_specialize=True`), line for line:
//
//   @triton.jit
//   def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
//       da = tl.make_tensor_descriptor(a, [M, K], [K, 1], [BM, BK])
//       db = tl.make_tensor_descriptor(b, [K, N], [N, 1], [BK, BN])
//       dc = tl.make_tensor_descriptor(c, [M, N], [N, 1], [BM, BN])
//       tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
//       for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=True):
//           pm, pn = grouped(tile, tiles_m, tiles_n, GROUP_M)   # a helper of ~6 lines in the tutorial
//           acc = tl.zeros((BM, BN), tl.float32)
//           for k in tl.range(0, K, BK, warp_specialize=True):
//               acc = tl.dot(da.load([pm * BM, k]), db.load([k, pn * BN]), acc)
//           dc.store([pm * BM, pn * BN], acc.to(tl.float16))
//   matmul[(NUM_SMS,)](a, b, c, M, N, K, 128, 128, 64, 8, NUM_SMS, num_warps=4)
//
// On sm_90a the K loop gets a TMA producer warpgroup and the kernel's warps consume (setmaxnreg,
// full/empty mbarrier rings), and the producer walks the tile loop too, so the next tile's loads
// overlap this tile's epilogue; on sm_100a a load warp and an MMA warp (tcgen05) with the
// accumulator double-buffered in tensor memory; elsewhere the plain pipeline (docs/compiler.md).
import { cdiv, constexpr, dot, forLoop, groupedTile, kernel, makeTensorDescriptor, persistentTiles, ptr, zeros } from '../src/index.js';

export const persistentMatmul = kernel(
  { name: 'persistent_ws_matmul', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), GROUP_M: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK, GROUP_M }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const tilesM = cdiv(M, bm), tilesN = cdiv(N, bn);
    persistentTiles(tilesM.mul(tilesN), (tile) => {
      const [pm, pn] = groupedTile(tile, tilesM, tilesN, GROUP_M as number);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')],
        (k, acc) => [dot(da.load([pm.mul(bm), k]), db.load([k, pn.mul(bn)]), { acc: acc! })],
        { warpSpecialize: true });
      dc.store([pm.mul(bm), pn.mul(bn)], acc!.to('f16'));
    });
  },
);

/** c = a @ b for f16 bits a [M, K], b [K, N], one program per SM (128x128x64 tiles on 4 warps). */
export async function matmulF16(a: Uint16Array, b: Uint16Array, M: number, N: number, K: number): Promise<Uint16Array> {
  const c = new Uint16Array(M * N);
  await persistentMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 8 }, { grid: 'sms', numWarps: 4 });
  return c;
}
