// fp8 dots with the sm_89+ fp8 mma.sync (m16n8k32 .e4m3/.e5m2): the sim pretends to be an sm_90
// (TESSERA_SIM_ARCH=sm_90, read at cuInit, so it is set before this file opens the sim); the
// runtime then compiles for sm_90a, and runSimCompiled runs the sm_89 and sm_90 PTX too. Results
// are checked against the exact JS reference within the bound of docs/semantics.md, and against
// the interpreter; inputs whose sums are exact must agree bit for bit.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import type { Fp8 } from '../ir/fp8_ref.js';
import { expectSame, randF32, runBoth, runSimCompiled, simDevice } from './helpers.js';
import { type Acc, cdiv, expectWithin, fp8Codes, fp8Matmul, reference, traceMatmul, U_F16, U_F32 } from './fp8_matmul_cases.js';

const PAIRS: [Fp8, Fp8][] = [['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e5m2'], ['f8e4m3', 'f8e5m2'], ['f8e5m2', 'f8e4m3']];

/** The kernel compiled for `target`, run on the sim; returns c. */
function onTarget(target: Target, ta: Fp8, tb: Fp8, tc: Acc, a: Uint8Array, b: Uint8Array, c: Float32Array | Uint16Array, M: number, N: number, K: number, BM: number, BN: number, BK: number) {
  const GN = cdiv(N, BN);
  const out = runSimCompiled(traceMatmul(ta, tb, tc, BM, BN, BK), [a, b, c.slice(), M, N, K, GN], cdiv(M, BM) * GN, { target, numWarps: 4 });
  return out[2] as Float32Array | Uint16Array;
}

describe('fp8 dots on the fp8 mma.sync (the sim as sm_90)', () => {
  it('the sim pretends to be an sm_90 (the runtime compiles for sm_90a)', () => {
    expect(simDevice().target).toBe('sm_90a');
  });

  describe.each(PAIRS)('%s x %s, f32 accumulator', (ta, tb) => {
    it('masked (72 x 40 x 56) on sm_90a (runtime), sm_89 and sm_90: within the f32 bound of the exact sum; interpreter too', async () => {
      const M = 72, N = 40, K = 56, BM = 64, BN = 32, BK = 32;
      const a = fp8Codes(ta, M * K, 71), b = fp8Codes(tb, K * N, 72), c = randF32(M * N, 73);
      const GN = cdiv(N, BN);
      const r = await runBoth(fp8Matmul(ta, tb, 'f32'), { a, b, c: c.slice(), M, N, K, GN, BM, BN, BK }, cdiv(M, BM) * GN);
      const ref = reference(ta, tb, a, b, c, M, N, K);
      expectWithin(r.sim.c as Float32Array, ref, K, U_F32, 'sim (sm_90a) vs JS');
      expectWithin(r.interpret.c as Float32Array, ref, K, U_F32, 'interpreter vs JS');
      for (const target of ['sm_89', 'sm_90'] as const) {
        const got = onTarget(target, ta, tb, 'f32', a, b, c, M, N, K, BM, BN, BK) as Float32Array;
        expectWithin(got, ref, K, U_F32, `sim (${target}) vs JS`);
        expectSame('f32', got, r.sim.c as Float32Array, `${target} vs sm_90a`);
      }
    });
  });

  it('aligned (64 x 64 x 64) e4m3 x e5m2 with exact sums and NaN codes: sm_89, sm_90a and the interpreter equal JS bit for bit (any NaN for a NaN)', async () => {
    const M = 64, N = 64, K = 64;
    // |x| in [0.5, 3.75] (e4m3 exponent field 6..8, e5m2 14..15): products and sums of 64 are exact in f32
    const a = fp8Codes('f8e4m3', M * K, 81).map((x) => (x & 0x87) | ((6 + (x % 3)) << 3));
    const b = fp8Codes('f8e5m2', K * N, 82).map((x) => (x & 0x83) | ((14 + (x % 2)) << 2));
    a[5 * K + 7] = 0xff; // e4m3 -NaN in row 5 of a
    b[9 * N + 3] = 0x7e; // e5m2 NaN in column 3 of b
    const c = Float32Array.from({ length: M * N }, (_, i) => (i % 17) - 8);
    const ref = Float32Array.from(reference('f8e4m3', 'f8e5m2', a, b, c, M, N, K).value);
    const r = await runBoth(fp8Matmul('f8e4m3', 'f8e5m2', 'f32'), { a, b, c: c.slice(), M, N, K, GN: 1, BM: 64, BN: 64, BK: 32 }, 1);
    expectSame('f32', r.sim.c as Float32Array, ref, 'sim (sm_90a) vs JS');
    expectSame('f32', r.interpret.c as Float32Array, ref, 'interpreter vs JS');
    expectSame('f32', onTarget('sm_89', 'f8e4m3', 'f8e5m2', 'f32', a, b, c, M, N, K, 64, 64, 32), ref, 'sim (sm_89) vs JS');
    expect(Number.isNaN(ref[5 * N]!) && Number.isNaN(ref[3]!) && !Number.isNaN(ref[0]!)).toBe(true);
  });

  it.each([['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e4m3']] as const)('every %s code times a %s identity on sm_89 and sm_90a: the exact JS products bit for bit (any NaN for a NaN)', async (ta, tb) => {
    const M = 64, N = 32, K = 32;
    const a = Uint8Array.from({ length: M * K }, (_, i) => i % 256);
    const b = Uint8Array.from({ length: K * N }, (_, i) => (Math.floor(i / N) === i % N ? (tb === 'f8e4m3' ? 0x38 : 0x3c) : 0));
    const c = new Float32Array(M * N);
    const ref = Float32Array.from(reference(ta, tb, a, b, c, M, N, K).value);
    const r = await runBoth(fp8Matmul(ta, tb, 'f32'), { a, b, c, M, N, K, GN: 1, BM: 64, BN: 32, BK: 32 }, 1);
    expectSame('f32', r.sim.c as Float32Array, ref, 'sim (sm_90a) vs JS');
    expectSame('f32', onTarget('sm_89', ta, tb, 'f32', a, b, c, M, N, K, 64, 32, 32), ref, 'sim (sm_89) vs JS');
  });

  it.each([['f8e4m3'], ['f8e5m2']] as const)('%s into an f16 accumulator (the .f16 form), 64 x 64 x 64: within the f16 bound', async (t) => {
    const M = 64, N = 64, K = 64;
    const a = fp8Codes(t, M * K, 91), b = fp8Codes(t, K * N, 92), c = f16Array(randF32(M * N, 93));
    const r = await runBoth(fp8Matmul(t, t, 'f16'), { a, b, c: c.slice(), M, N, K, GN: 1, BM: 64, BN: 64, BK: 32 }, 1);
    const ref = reference(t, t, a, b, f16ToFloat32(c), M, N, K);
    expectWithin(f16ToFloat32(r.sim.c as Uint16Array), ref, K, U_F16, 'sim (sm_90a) vs JS');
    expectWithin(f16ToFloat32(r.interpret.c as Uint16Array), ref, K, U_F16, 'interpreter vs JS');
    expectWithin(f16ToFloat32(onTarget('sm_89', t, t, 'f16', a, b, c, M, N, K, 64, 64, 32) as Uint16Array), ref, K, U_F16, 'sim (sm_89) vs JS');
  });
});
