// Tutorial-style matmuls (pointers advanced by the loop) on wgmma: the sim pretends to be an
// sm_90, the runtime compiles for sm_90a. The walked pointers are read as closed forms of the
// induction variable (compiler/carried_induction.ts), so the loads go through the cp.async ring
// with the wgmma in flight into the next iteration, as for induction-variable indexing
// (test/e2e/pipeline_wgmma.test.ts); numStages 1 is not pipelined. Against the interpreter and
// an f64 JS reference, whole and ragged (masked) shapes.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
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
