// fp8 dots on sm_80 (the sim's default GPU): no fp8 mma there, so the codegen widens the m16n8k32
// byte fragments to f16 (exact) and runs two m16n8k16 f16 mmas per k32 step (codegen/tensor_cores/mma_fp8.ts).
// Each kernel runs on the interpreter and the sim (runBoth also assembles it with ptxas for sm_80
// and sm_90) against an exact JS reference, within the rounding bound of docs/semantics.md.
// test/e2e/matmul_fp8_sm90.test.ts runs the same kernels with the sm_89+ fp8 mma.sync.
import { describe, expect, it } from 'vitest';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { simDevice, expectBitwise, expectSame, randF32, runBoth } from './helpers.js';
import { cdiv, expectWithin, fp8Codes, fp8Matmul, reference, U_F16, U_F32 } from './fp8_matmul_cases.js';
import { refDecode, type Fp8 } from '../ir/fp8_ref.js';

const PAIRS: [Fp8, Fp8][] = [['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e5m2'], ['f8e4m3', 'f8e5m2'], ['f8e5m2', 'f8e4m3']];

describe('fp8 dots on sm_80 (f16 mma on widened fragments)', () => {
  it('the sim is an sm_80', () => {
    expect(simDevice().target).toBe('sm_80');
  });

  // 72 x 40 x 56: ragged in M, N and K; the 64 x 32 x 32 tile is on tensor cores (K step 32)
  describe.each(PAIRS)('%s x %s, f32 accumulator', (ta, tb) => {
    it('masked (72 x 40 x 56): sim and interpreter within the f32 bound of the exact sum', async () => {
      const M = 72, N = 40, K = 56, BM = 64, BN = 32;
      const a = fp8Codes(ta, M * K, 11), b = fp8Codes(tb, K * N, 12), c = randF32(M * N, 13);
      const GN = cdiv(N, BN);
      const r = await runBoth(fp8Matmul(ta, tb, 'f32'), { a, b, c: c.slice(), M, N, K, GN, BM, BN, BK: 32 }, cdiv(M, BM) * GN);
      const ref = reference(ta, tb, a, b, c, M, N, K);
      expectWithin(r.sim.c as Float32Array, ref, K, U_F32, 'sim vs JS');
      expectWithin(r.interpret.c as Float32Array, ref, K, U_F32, 'interpreter vs JS');
    });
  });

  it('aligned (64 x 64 x 64), e4m3 with NaN codes: small dyadic inputs make every sum exact, so sim = interpreter = JS bit for bit (any NaN for a NaN), and NaN rows and columns stay NaN', async () => {
    const M = 64, N = 64, K = 64;
    // e4m3 codes with exponent field 6..8 (|x| in [0.5, 3.75]): products and sums of 64 are exact in f32
    const a = fp8Codes('f8e4m3', M * K, 21).map((x) => (x & 0x87) | ((6 + (x % 3)) << 3));
    const b = fp8Codes('f8e4m3', K * N, 22).map((x) => (x & 0x87) | ((6 + (x % 3)) << 3));
    a[5 * K + 7] = 0x7f; // NaN in row 5 of a
    b[9 * N + 3] = 0xff; // -NaN in column 3 of b
    const c = Float32Array.from({ length: M * N }, (_, i) => (i % 17) - 8);
    const r = await runBoth(fp8Matmul('f8e4m3', 'f8e4m3', 'f32'), { a, b, c: c.slice(), M, N, K, GN: 1, BM: 64, BN: 64, BK: 32 }, 1);
    const ref = reference('f8e4m3', 'f8e4m3', a, b, c, M, N, K);
    expectSame('f32', r.sim.c as Float32Array, Float32Array.from(ref.value), 'sim vs JS');
    expectSame('f32', r.interpret.c as Float32Array, Float32Array.from(ref.value), 'interpreter vs JS');
    const sim = r.sim.c as Float32Array;
    for (let j = 0; j < N; j++) expect(Number.isNaN(sim[5 * N + j]!), `row 5, column ${j}`).toBe(true);
    for (let i = 0; i < M; i++) expect(Number.isNaN(sim[i * N + 3]!), `row ${i}, column 3`).toBe(true);
    expect(Number.isNaN(sim[0]!)).toBe(false);
  });

  it.each([['f8e4m3'], ['f8e5m2']] as const)('%s into an f16 accumulator (64 x 64 x 64): within the f16 bound', async (t) => {
    const M = 64, N = 64, K = 64;
    const a = fp8Codes(t, M * K, 31), b = fp8Codes(t, K * N, 32), c = f16Array(randF32(M * N, 33));
    const r = await runBoth(fp8Matmul(t, t, 'f16'), { a, b, c: c.slice(), M, N, K, GN: 1, BM: 64, BN: 64, BK: 32 }, 1);
    const ref = reference(t, t, a, b, f16ToFloat32(c), M, N, K);
    expectWithin(f16ToFloat32(r.sim.c as Uint16Array), ref, K, U_F16, 'sim vs JS');
    expectWithin(f16ToFloat32(r.interpret.c as Uint16Array), ref, K, U_F16, 'interpreter vs JS');
  });

  it.each([['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e5m2'], ['f8e5m2', 'f8e4m3']] as const)('every %s code survives the widening exactly (a = all 256 codes, b = %s identity): sim = interpreter = JS', async (ta, tb) => {
    // subnormals, the largest finite values, signed zeros, infinities and NaNs all go through the
    // e4m3 rebias / e5m2 byte move; with b = I each output is one exact product plus zeros
    const M = 64, N = 32, K = 32;
    const a = Uint8Array.from({ length: M * K }, (_, i) => i % 256);
    const one = tb === 'f8e4m3' ? 0x38 : 0x3c;
    const b = Uint8Array.from({ length: K * N }, (_, i) => (Math.floor(i / N) === i % N ? one : 0));
    const c = new Float32Array(M * N);
    const r = await runBoth(fp8Matmul(ta, tb, 'f32'), { a, b, c, M, N, K, GN: 1, BM: 64, BN: 32, BK: 32 }, 1);
    const ref = Float32Array.from(reference(ta, tb, a, b, c, M, N, K).value);
    expectSame('f32', r.sim.c as Float32Array, ref, 'sim vs JS');
    expectSame('f32', r.interpret.c as Float32Array, ref, 'interpreter vs JS');
    // the diagonal-adjacent outputs are the codes themselves: a[m, n] * 1
    const sim = r.sim.c as Float32Array;
    for (let m = 0; m < 8; m++) for (let n = 0; n < N; n++) {
      const x = refDecode(ta, (m * K + n) % 256);
      if (Number.isFinite(x) && (a.subarray(m * K, m * K + K).every((q) => Number.isFinite(refDecode(ta, q))))) expect(sim[m * N + n], `code ${(m * K + n) % 256}`).toBe(x === 0 ? 0 : x);
    }
  });

  it('BK 16 (not a multiple of 32) stays on FMA: products exact, summed in k order like the interpreter, bit for bit', async () => {
    const M = 72, N = 40, K = 56, BM = 64, BN = 32;
    const a = fp8Codes('f8e5m2', M * K, 41), b = fp8Codes('f8e4m3', K * N, 42), c = randF32(M * N, 43);
    const GN = cdiv(N, BN);
    const r = await runBoth(fp8Matmul('f8e5m2', 'f8e4m3', 'f32'), { a, b, c: c.slice(), M, N, K, GN, BM, BN, BK: 16 }, cdiv(M, BM) * GN);
    expectBitwise(r.sim.c as Float32Array, r.interpret.c as Float32Array, 'sim vs interpreter');
    expectWithin(r.sim.c as Float32Array, reference('f8e5m2', 'f8e4m3', a, b, c, M, N, K), K, U_F32, 'sim vs JS');
  });
});
