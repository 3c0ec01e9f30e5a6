// Shared by the software-pipelining tests (pipeline.test.ts on the cp.async ring, pipeline_wgmma.test.ts
// on wgmma): f16/bf16 encoding of the inputs and back, and the matmul whose pipelined K loop runs
// inside an outer loop (two row blocks per program), so its ring is reused.
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';

export type Half = 'f16' | 'bf16';
export const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));
export const dec = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));

/** Two row blocks per program, named `name`: the pipelined K loop runs inside an outer loop, so its ring is reused. */
export const twoBlocks = (name: string): Kernel => kernel(
  { name, params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    forLoop(0, 2, 1, [], (t) => {
      const rm = programId(0).mul(2).add(t).mul(BM).add(arange(0, BM));
      const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
        const ka = k.add(rk);
        const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
        const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
        return [dot(ta, tb, { acc: acc! })];
      });
      store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
      return [];
    });
  },
);
