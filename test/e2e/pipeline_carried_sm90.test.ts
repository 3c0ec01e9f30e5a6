// Tutorial-style matmuls (pointers advanced by the loop) on wgmma: the sim pretends to be an
// sm_90, the runtime compiles for sm_90a. The walked pointers are read as closed forms of the
// induction variable (compiler/carried_induction.ts), so the loads go through the cp.async ring
// with the wgmma in flight into the next iteration, as for induction-variable indexing
// (test/e2e/pipeline_wgmma.test.ts); numStages 1 is not pipelined. Against the interpreter and
// an f64 JS reference, whole and ragged (masked) shapes. Tensor descriptors whose K offset is a
// loop-carried integer advanced by BK ride the TMA ring the same way.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { constexpr, dot, forLoop, full, makeTensorDescriptor, programId, ptr, store, arange, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectClose, randF32, runBoth } from './helpers.js';
import { cpAsyncCount, matmulRef, simPtx, walkedMatmul } from './carried_matmul.js';

type Half = 'f16' | 'bf16';
const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));
const dec = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));
const TILE = { BM: 64, BN: 64, BK: 32 };

describe('tutorial-style matmul on the sim as sm_90 (wgmma)', () => {
  it.each([
    ['f16', false, 64, 128, 96, 1], ['bf16', false, 128, 64, 128, 2], ['f16', false, 64, 64, 160, 3], ['bf16', false, 64, 64, 64, 4],
    ['f16', true, 100, 80, 80, 1], ['bf16', true, 70, 96, 48, 2], ['f16', true, 100, 80, 80, 3], ['bf16', true, 33, 112, 112, 4],
  ] as const)('%s masked=%s %i x %i x %i, numStages %i', async (t, masked, M, N, K, S) => {
    const a = enc(t, randF32(M * K, M + 2 * K)), b = enc(t, randF32(K * N, N + 3 * K));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, ...TILE };
    const k = walkedMatmul(t, masked);
    const { ptx, pipeline } = simPtx(k, args, 4, S);
    expect(count(ptx, /wgmma\.mma_async/)).toBeGreaterThan(0);
    if (S === 1) expect(cpAsyncCount(ptx)).toBe(0);
    else {
      expect(ptx).toContain(`// pipelined loop: ${S} stages`);
      expect(ptx).toContain(`cp.async.wait_group ${S - 2};`);
      expect(ptx).not.toMatch(/ld\.global\.[^\n]*b16|ld\.global\.v4/);
      expect(count(ptx, /wgmma\.wait_group\.sync\.aligned 1;/)).toBe(1);
      expect(pipeline.match(/ {4}load %\d+: \w+\[\d+x\d+\] cp\.async 16 bytes/g)?.length).toBe(2);
    }
    const r = await runBoth(k, args, [Math.ceil(M / TILE.BM), Math.ceil(N / TILE.BN)], { numWarps: 4, numStages: S });
    expectClose(r.interpret.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  });
});

describe('tensor descriptors with a loop-carried K offset (ko += BK) on sm_90a', () => {
  const tma = kernel(
    { name: 'mm_desc_koff', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
    ({ a, b, c, M, N, K, BM, BN, BK }) => {
      const [bm, bn, bk] = [BM as number, BN as number, BK as number];
      const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
      const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
      const om = programId(0).mul(bm), on = programId(1).mul(bn);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32'), full([], 0, 'i32')], (_k, acc, ko) =>
        [dot(da.load([om, ko!]), db.load([ko!, on]), { acc: acc! }), ko!.add(bk)]);
      const rm = om.add(arange(0, bm)), rn = on.add(arange(0, bn));
      store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
    },
  );
  it.each([2, 3])('rides the TMA ring (numStages %i), right result', async (S) => {
    const [M, N, K] = [64, 128, 96];
    const a = f16Array(randF32(M * K, 11)), b = f16Array(randF32(K * N, 12));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, ...TILE };
    const { ptx } = simPtx(tma, args, 4, S);
    expect(ptx).toMatch(/cp\.async\.bulk\.tensor/);
    expect(ptx).toMatch(/TMA ring/);
    const r = await runBoth(tma, args, [M / TILE.BM, N / TILE.BN], { numWarps: 4, numStages: S });
    expectClose(r.interpret.c, matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
  });
});
