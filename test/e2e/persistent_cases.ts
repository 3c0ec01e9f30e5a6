// The persistent matmul of test/e2e/persistent_matmul.test.ts and epilogue_sabotage.test.ts, and
// exact small-integer data for it.
import { cdiv, constexpr, dot, forLoop, groupedTile, makeTensorDescriptor, persistentTiles, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { lcg } from './helpers.js';

/** Triton's persistent tensor-descriptor matmul, in Tessera: c = a @ b, f16 in, f32 accumulate, f16 out. */
export const persistentMatmul = kernel(
  {
    name: 'persistent_tma_matmul',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), GROUP_M: constexpr() },
  },
  ({ a, b, c, M, N, K, BM, BN, BK, GROUP_M }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const tilesM = cdiv(M, bm), tilesN = cdiv(N, bn);
    persistentTiles(tilesM.mul(tilesN), (tile) => {
      const [pm, pn] = groupedTile(tile, tilesM, tilesN, GROUP_M as number);
      const om = pm.mul(bm), on = pn.mul(bn);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })]);
      dc.store([om, on], acc!.to('f16'));
    });
  },
);

/** Small integers in [-3, 3] as f16 bits (exact), and their values. */
export function ints(n: number, seed: number): { bits: Uint16Array; vals: Float32Array } {
  const r = lcg(seed);
  const vals = new Float32Array(n).map(() => Math.floor(r() * 7) - 3);
  return { bits: f16Array(vals), vals };
}

export function reference(a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float32Array {
  const c = new Float32Array(M * N);
  for (let i = 0; i < M; i++)
    for (let k = 0; k < K; k++) {
      const x = a[i * K + k]!;
      if (x) for (let j = 0; j < N; j++) c[i * N + j] += x * b[k * N + j]!;
    }
  return c;
}

