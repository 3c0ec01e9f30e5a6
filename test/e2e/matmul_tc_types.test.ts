// Tensor-core dots beyond f16/bf16 with an f32 accumulator: tf32 (the default for f32 inputs),
// 'ieee' f32 (exact FMA), i8/u8 with an i32 accumulator (exact, wrapping) and f16 inputs with a
// real f16 accumulator. Each kernel runs on the interpreter and the sim (runBoth also assembles it
// with ptxas for sm_80 and sm_90) and is compared with a plain-JS reference; tolerances are error
// bounds computed per element from the inputs (docs/semantics.md). test/codegen/mma.test.ts
// checks which instructions these dots lower to.
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { expectBitwise, lcg, randF32, runBoth } from './helpers.js';
import { accMatmul, expectWithin, type Prec } from './tc_matmul_cases.js';

/** c[M,N] = c + a[M,K] @ b[K,N] (masked tiles, k-loop); c is both the initial accumulator and the output. */
const matmul = (ta: DType, tc: DType, prec: Prec) => accMatmul(`mm_${ta}_${tc}_${prec ?? 'default'}`, ta, tc, prec);

interface Ref { value: Float64Array; mag: Float64Array }
/** Exact sums c + sum_k a*b in f64 (exact for these magnitudes) and sum_k |a*b| per element. */
function reference(a: ArrayLike<number>, b: ArrayLike<number>, c: ArrayLike<number>, M: number, N: number, K: number): Ref {
  const value = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = c[i * N + j]!, m = Math.abs(s);
    for (let k = 0; k < K; k++) {
      const p = a[i * K + k]! * b[k * N + j]!;
      s += p;
      m += Math.abs(p);
    }
    value[i * N + j] = s;
    mag[i * N + j] = m;
  }
  return { value, mag };
}


/** f32 inputs with some exact tf32 ties (the low 13 bits 0x1000): rounding away from zero shows. */
function tf32Inputs(n: number, seed: number): Float32Array {
  const x = randF32(n, seed);
  const u = new Uint32Array(x.buffer);
  for (let i = 0; i < n; i += 5) u[i] = (u[i]! & 0xffffe000) | 0x1000;
  return x;
}

const U32 = 2 ** -24; // unit roundoff of f32

describe('tf32 dots (inputPrecision default for f32)', () => {
  // 72 x 40 x 56 is ragged in M, N and K; the 64 x 32 tile tiles for mma (K step 32 % 8 == 0)
  const M = 72, N = 40, K = 56;
  const a = tf32Inputs(M * K, 41), b = tf32Inputs(K * N, 42), c0 = randF32(M * N, 43);
  const args = { a, b, M, N, K, BM: 64, BN: 32, BK: 32 };
  // both sides sum the same exact products (tf32 x tf32 fits in f32) in f32, in different orders
  const bound = 2 * (K + 1) * U32;

  it('default (tf32) on tensor cores: sim = interpreter = JS on tf32-rounded inputs, within the f32 summation bound', async () => {
    const r = await runBoth(matmul('f32', 'f32', undefined), { ...args, c: c0.slice() }, [2, 2]);
    const ref = reference(a.map(roundTF32), b.map(roundTF32), c0, M, N, K);
    expectWithin(r.sim.c, ref.value, ref.mag, bound, 'sim vs JS (tf32 inputs)');
    expectWithin(r.interpret.c, ref.value, ref.mag, bound, 'interpreter vs JS (tf32 inputs)');
    // and the rounding really happened: against the exact f32 inputs the error is tf32-sized
    const exact = reference(a, b, c0, M, N, K);
    let beyond = 0;
    for (let i = 0; i < M * N; i++) if (Math.abs(r.sim.c[i]! - exact.value[i]!) > bound * exact.mag[i]!) beyond++;
    expect(beyond).toBeGreaterThan((M * N) / 2);
    expectWithin(r.sim.c, exact.value, exact.mag, 2 * 2 ** -11 + bound, 'sim vs JS (exact f32 inputs, tf32 bound)');
  });

  it("'ieee' stays on FMA and is exact: sim and interpreter bit for bit", async () => {
    const r = await runBoth(matmul('f32', 'f32', 'ieee'), { ...args, c: c0.slice() }, [2, 2]);
    expectBitwise(r.sim.c, r.interpret.c, 'sim vs interpreter');
    const exact = reference(a, b, c0, M, N, K);
    expectWithin(r.sim.c, exact.value, exact.mag, (K + 1) * U32, 'sim vs JS (exact f32 inputs)');
  });

  it('tf32 on a shape that does not tile (BM 8): FMA on the same rounded inputs, sim = interpreter bit for bit', async () => {
    // plus the largest f32, which rounds past the largest tf32 to Inf (row 0 of c becomes +-Inf)
    const big = a.slice();
    big[3] = 3.4028234663852886e38;
    const r = await runBoth(matmul('f32', 'f32', 'tf32'), { ...args, a: big, c: c0.slice(), BM: 8 }, [M / 8, 2]);
    // the FMA fallback rounds with cvt.rna.tf32.f32 and sums in k order, exactly like the interpreter
    expectBitwise(r.sim.c, r.interpret.c, 'sim vs interpreter');
    expect(Array.from(r.sim.c.subarray(0, N), Math.abs)).toEqual(new Array(N).fill(Infinity));
  });
});

describe('8-bit integer dots (i32 accumulator, wrapping)', () => {
  const M = 72, N = 40, K = 80;
  const ints = (t: 'i8' | 'u8', n: number, seed: number): Int8Array | Uint8Array => {
    const r = lcg(seed);
    const out = t === 'i8' ? new Int8Array(n) : new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 256) - (t === 'i8' ? 128 : 0);
    out[0] = t === 'i8' ? -128 : 255; // extremes
    out[1] = t === 'i8' ? 127 : 0;
    return out;
  };
  /** Initial accumulators near the i32 limits, so the sums wrap. */
  const cInit = (n: number): Int32Array => {
    const r = lcg(7), c = new Int32Array(n);
    for (let i = 0; i < n; i++) c[i] = i % 3 === 0 ? 2 ** 31 - 1 - Math.floor(r() * 1000) : i % 3 === 1 ? -(2 ** 31) + Math.floor(r() * 1000) : Math.floor(r() * 2000) - 1000;
    return c;
  };
  const jsRef = (a: ArrayLike<number>, b: ArrayLike<number>, c: Int32Array): Int32Array => {
    const out = new Int32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = c[i * N + j]!;
      for (let k = 0; k < K; k++) s = (s + a[i * K + k]! * b[k * N + j]!) | 0;
      out[i * N + j] = s;
    }
    return out;
  };

  it.each([['i8'], ['u8']] as const)('%s inputs -> i32 on tensor cores (m16n8k32): sim, interpreter and JS bit for bit', async (t) => {
    const a = ints(t, M * K, 51), b = ints(t, K * N, 52), c = cInit(M * N);
    const r = await runBoth(matmul(t, 'i32', undefined), { a, b, c: c.slice(), M, N, K, BM: 64, BN: 32, BK: 32 }, [2, 2]);
    const want = jsRef(a, b, c);
    expectBitwise(r.sim.c, want, 'sim vs JS');
    expectBitwise(r.interpret.c, want, 'interpreter vs JS');
  });

  it('i8 with BK 16 (not a multiple of 32) falls back to FMA, still exact', async () => {
    const a = ints('i8', M * K, 53), b = ints('i8', K * N, 54), c = cInit(M * N);
    const r = await runBoth(matmul('i8', 'i32', undefined), { a, b, c: c.slice(), M, N, K, BM: 64, BN: 32, BK: 16 }, [2, 2]);
    expectBitwise(r.sim.c, jsRef(a, b, c), 'sim vs JS');
  });
});

describe('f16 dots with an f16 accumulator', () => {
  it('f16 inputs, f32 accumulator loaded from memory: its conversion to the mma layout does not clobber the staged a, b', async () => {
    // regression: the accumulator used to be converted (through the shared scratch) after a and b
    // were staged there, so ldmatrix read the accumulator's bytes
    const M = 64, N = 64, K = 64;
    const a = f16Array(randF32(M * K, 64, -1, 1)), b = f16Array(randF32(K * N, 65, -1, 1)), c = randF32(M * N, 66);
    const r = await runBoth(matmul('f16', 'f32', undefined), { a, b, c: c.slice(), M, N, K, BM: 64, BN: 64, BK: 32 }, [1, 1]);
    const ref = reference(f16ToFloat32(a), f16ToFloat32(b), c, M, N, K);
    expectWithin(r.sim.c, ref.value, ref.mag, 2 * (K + 1) * U32, 'sim vs JS');
    expectWithin(r.interpret.c, ref.value, ref.mag, 2 * (K + 1) * U32, 'interpreter vs JS');
  });

  it('m16n8k16.f16.f16.f16.f16: sim and interpreter within the f16 rounding bound of the exact sum', async () => {
    const M = 64, N = 64, K = 64;
    const a = f16Array(randF32(M * K, 61, -1, 1)), b = f16Array(randF32(K * N, 62, -1, 1)), c = f16Array(randF32(M * N, 63, -1, 1));
    const r = await runBoth(matmul('f16', 'f16', undefined), { a, b, c: c.slice(), M, N, K, BM: 64, BN: 64, BK: 32 }, [1, 1]);
    const ref = reference(f16ToFloat32(a), f16ToFloat32(b), f16ToFloat32(c), M, N, K);
    // the interpreter rounds to f16 after every product (K roundings), the mma after every 16 and
    // the epilogue once: each rounding is at most 2^-11 of a partial sum bounded by `mag`
    const bound = (K + 1) * 2 ** -11;
    expectWithin(f16ToFloat32(r.sim.c as Uint16Array), ref.value, ref.mag, bound, 'sim vs JS');
    expectWithin(f16ToFloat32(r.interpret.c as Uint16Array), ref.value, ref.mag, bound, 'interpreter vs JS');
  });
});
