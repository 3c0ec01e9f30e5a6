// Warp-specialized descriptor matmuls (sm_90a) for the e2e tests; wsMatmul itself is the bench's
// (bench/ws_kernels.ts).
import { arange, constexpr, dot, forLoop, load, makeTensorDescriptor, programId, ptr, sum, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

export { wsMatmul } from '../../bench/ws_kernels.js';

/**
 * wsMatmul with a reduction before the loop (it goes through the shared scratch while the
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
