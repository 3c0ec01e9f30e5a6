// The stmatrix epilogue of a 16-bit descriptor store on sm_90a (codegen/async/lower_stmatrix.ts): the
// accumulator of an mma.sync or wgmma dot, cast to f16/bf16, goes registers -> stmatrix ->
// swizzled shared tile -> TMA store, without a layout conversion. Each tile shape picks another
// stmatrix form (x2, x4; x1 where a thread holds a single matrix); results are bit-exact against a JS reference and the interpreter
// (small-integer inputs: every sum is exact).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { mmDesc } from './desc_matmul_cases.js';
import { expectBitwise, lcg, runBoth } from './helpers.js';

const mm = (t: 'f16' | 'bf16') => mmDesc(t, `stmatrix_mm_${t}`, { out: t, cFirst: true });

const ints = (n: number, seed: number): Float32Array => {
  const r = lcg(seed);
  return new Float32Array(n).map(() => Math.floor(r() * 7) - 3);
};

function reference(a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float32Array {
  const c = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) c[i * N + j] += a[i * K + k]! * b[k * N + j]!;
  return c;
}

describe('stmatrix epilogue (sm_90a descriptor store of a 16-bit accumulator)', () => {
  const cases = [
    { BM: 32, BN: 32, form: 'x2', dot: /mma\.sync/ }, // mma.sync 2x2 warps: matrix offsets not one stride -> x2
    { BM: 64, BN: 64, form: 'x4', dot: /wgmma\.mma_async/ }, // wgmma accumulator
  ] as const;
  for (const t of ['f16', 'bf16'] as const) {
    for (const cfg of cases) {
      it(`${t} ${cfg.BM}x${cfg.BN}: stmatrix.${cfg.form}, equal to the reference and the interpreter`, async () => {
        const M = 2 * cfg.BM - 8, N = 2 * cfg.BN, K = 48; // a ragged row block
        const av = ints(M * K, 3), bv = ints(K * N, 4);
        const enc = t === 'f16' ? f16Array : bf16Array;
        const args = { a: enc(av), b: enc(bv), c: new Uint16Array(M * N), M, N, K, BM: cfg.BM, BN: cfg.BN, BK: 16 };
        const k = mm(t);
        const f = k.trace({ BM: cfg.BM, BN: cfg.BN, BK: 16 });
        const spec = launchSpecialization(f, [args.a, args.b, args.c, M, N, K]);
        const ptx = compile(f, { target: 'sm_90a', specialization: spec, ptxas: true }).ptx;
        expect(ptx).toMatch(cfg.dot);
        expect(ptx).toContain('// epilogue: registers -> stmatrix -> shared -> TMA store');
        expect(count(ptx, new RegExp(`stmatrix\\.sync\\.aligned\\.m8n8\\.${cfg.form}\\.shared\\.b16`))).toBeGreaterThan(0);
        expect(count(ptx, /st\.shared/)).toBe(0);
        const r = await runBoth(k, args, [2, 2]);
        const want = enc(reference(av, bv, M, N, K));
        expectBitwise(r.sim.c, want, 'sim (sm_90a) vs reference');
        expectBitwise(r.interpret.c, want, 'interpreter vs reference');
      });
    }
  }
});
