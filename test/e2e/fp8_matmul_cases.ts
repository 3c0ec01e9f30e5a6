// fp8 matmul kernels and data shared by the e2e tests (sm_80 and the sim as sm_90): c = c + a @ b
// with a [M,K] and b [K,N] fp8 (the same format or e4m3 x e5m2), c f32 or f16, masked tiles and a
// k-loop, on a 1-D grid (program p covers tile (p / GN, p % GN)) so the same Func also runs through
// runSimCompiled for an explicit target. Expected values: exact f64 sums of the products of the
// decoded inputs (test/ir/fp8_ref.ts decodes from the format definitions, not from src/ir/fp8.ts).
import { expect } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/index.js';
import type { Func } from '../../src/ir/ops.js';
import { refDecode, type Fp8 } from '../ir/fp8_ref.js';
import { lcg } from './helpers.js';

export type Acc = 'f32' | 'f16';

export function fp8Matmul(ta: Fp8, tb: Fp8, tc: Acc): Kernel {
  return kernel(
    { name: `mm_${ta}_${tb}_${tc}`, params: { a: ptr(ta), b: ptr(tb), c: ptr(tc), M: 'i32', N: 'i32', K: 'i32', GN: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
    ({ a, b, c, M, N, K, GN, BM, BN, BK }) => {
      const pid = programId(0);
      const rm = pid.floordiv(GN).mul(BM).add(arange(0, BM));
      const rn = pid.rem(GN).mul(BN).add(arange(0, BN));
      const rk = arange(0, BK);
      const cMask = rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N));
      const pc = c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
      const [acc] = forLoop(0, K, BK, [load(pc, { mask: cMask, other: 0 })], (k, acc) => {
        const ka = k.add(rk);
        const x = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
        const y = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
        return [dot(x, y, { acc: acc! })];
      });
      store(pc, acc!, { mask: cMask });
    },
  ) as unknown as Kernel;
}

export const traceMatmul = (ta: Fp8, tb: Fp8, tc: Acc, BM: number, BN: number, BK: number): Func => fp8Matmul(ta, tb, tc).trace({ BM, BN, BK });

/**
 * Random fp8 codes, no NaN, exponents limited so the products stay in f32's normal range and sums
 * of ~100 products are far from f16's limit (e4m3: |x| in [2^-4, 15]; e5m2: [2^-6, 14]); code 0 and
 * a few zeros sit at the start.
 */
export function fp8Codes(d: Fp8, n: number, seed: number): Uint8Array {
  const r = lcg(seed), out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = r() < 0.5 ? 0x80 : 0;
    out[i] = d === 'f8e4m3' ? s | ((3 + Math.floor(r() * 8)) << 3) | Math.floor(r() * 8) : s | ((9 + Math.floor(r() * 9)) << 2) | Math.floor(r() * 4);
  }
  out[0] = 0;
  out[1] = 0x80;
  return out;
}

export interface Ref { value: Float64Array; mag: Float64Array }
/** Exact c + sum_k a*b (f64: products of fp8 values are exact, the sums are for these ranges) and sum |terms|. */
export function reference(ta: Fp8, tb: Fp8, a: Uint8Array, b: Uint8Array, c: ArrayLike<number>, M: number, N: number, K: number): Ref {
  const A = Float64Array.from(a, (x) => refDecode(ta, x)), B = Float64Array.from(b, (x) => refDecode(tb, x));
  const value = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = c[i * N + j]!, m = Math.abs(s);
    for (let k = 0; k < K; k++) {
      const p = A[i * K + k]! * B[k * N + j]!;
      s += p;
      m += Math.abs(p);
    }
    value[i * N + j] = s;
    mag[i * N + j] = m;
  }
  return { value, mag };
}

/**
 * |got - want| <= (K + 1) * u * mag per element: every partial sum is rounded at most once per
 * product (the interpreter after each, the mma after each 16 or 32), each rounding within u of
 * a partial sum bounded by mag (docs/semantics.md). NaN where want is NaN.
 */
export function expectWithin(got: ArrayLike<number>, r: Ref, K: number, u: number, what: string): void {
  expect(got.length, what).toBe(r.value.length);
  for (let i = 0; i < r.value.length; i++) {
    const want = r.value[i]!, err = Math.abs(got[i]! - want);
    if (Number.isNaN(want) ? !Number.isNaN(got[i]!) : !(err <= (K + 1) * u * r.mag[i]!)) {
      expect.fail(`${what}: element ${i}: got ${got[i]}, want ${want} (bound ${(K + 1) * u * r.mag[i]!})`);
    }
  }
}

export const U_F32 = 2 ** -24;
export const U_F16 = 2 ** -11;
export const cdiv = (a: number, b: number): number => Math.ceil(a / b);
