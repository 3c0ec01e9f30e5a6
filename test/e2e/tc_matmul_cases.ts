// Pieces the tensor-core matmul tests share (matmul_tc, matmul_tc_types, matmul_wgmma,
// matmul_tcgen05): f16/bf16 inputs, f64 references (the attention one also serves the tcgen05 A
// tests, the FA3 cases and codegen/mma_warps), the accumulating matmul kernel (c = c + a @ b), an
// element-wise rounding bound, 8-bit integer inputs, and the PTX the sim device compiles for a
// launch (generic and specialized, both through ptxas).
import { expect } from 'vitest';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import type { Func } from '../../src/ir/ops.js';
import type { DType } from '../../src/ir/types.js';
import type { KernelDef } from '../../src/lang/index.js';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store } from '../../src/lang/index.js';
import type { Half } from '../../bench/kernels.js';
import { HostArray } from '../../src/runtime/array.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { gateTargets } from '../codegen/gate.js';
import { lcg } from './helpers.js';

export const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));
export const dec = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));

/** `batch` products c + a[M,K] @ b[K,N] in f64 (c absent: 0), row-major and back to back. */
export function matmulRef(a: ArrayLike<number>, b: ArrayLike<number>, M: number, N: number, K: number, batch = 1, c?: ArrayLike<number>): Float64Array {
  const out = new Float64Array(batch * M * N);
  for (let z = 0; z < batch; z++) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = c ? c[z * M * N + i * N + j]! : 0;
    for (let k = 0; k < K; k++) s += a[z * M * K + i * K + k]! * b[z * K * N + k * N + j]!;
    out[z * M * N + i * N + j] = s;
  }
  return out;
}

/**
 * softmax(q k^T * scale) v in f64, one head, q, k, v [L, D]; `causal`: query i sees keys 0..i;
 * `rows`: only the first `rows` queries (the output is [rows, D]).
 */
export function attentionRef(q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, L: number, D: number, scale: number, causal = false, rows = L): Float64Array {
  const o = new Float64Array(rows * D);
  for (let i = 0; i < rows; i++) {
    const s = Array.from({ length: causal ? i + 1 : L }, (_, j) => {
      let d = 0;
      for (let x = 0; x < D; x++) d += q[i * D + x]! * k[j * D + x]!;
      return d * scale;
    });
    const mx = Math.max(...s);
    const e = s.map((x) => Math.exp(x - mx));
    const sum = e.reduce((x, y) => x + y, 0);
    for (let x = 0; x < D; x++) o[i * D + x] = e.reduce((acc, p, j) => acc + p * v[j * D + x]!, 0) / sum;
  }
  return o;
}

export type Prec = 'ieee' | 'tf32' | undefined;
/** c[M,N] = c + a[M,K] @ b[K,N] (masked tiles, k-loop); c is both the initial accumulator and the output. */
export const accMatmul = (name: string, ta: DType, tc: DType, prec: Prec = undefined) => kernel(
  { name, params: { a: ptr(ta), b: ptr(ta), c: ptr(tc), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const cMask = rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N));
    const pc = c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
    const [acc] = forLoop(0, K, BK, [load(pc, { mask: cMask, other: 0 })], (k, acc) => {
      const ka = k.add(rk);
      const ta_ = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta_, tb, prec === undefined ? { acc: acc! } : { acc: acc!, inputPrecision: prec })];
    });
    store(pc, acc!, { mask: cMask });
  },
);

/** |got - want| <= tol * mag, element by element (a rounding-error bound, not a fudge factor). */
export function expectWithin(got: ArrayLike<number>, want: ArrayLike<number>, mag: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!);
    if (!(err <= tol * mag[i]!)) expect.fail(`${what}: element ${i}: got ${got[i]}, want ${want[i]} (bound ${tol * mag[i]!})`);
  }
}
/** c + a @ b over magnitudes: the scale of each element's rounding error. */
export const magnitude = (a: ArrayLike<number>, b: ArrayLike<number>, c: ArrayLike<number>, M: number, N: number, K: number): Float64Array =>
  matmulRef(Array.from(a, Math.abs), Array.from(b, Math.abs), M, N, K, 1, Array.from(c, Math.abs));

/** n random i8 (-128..127) or u8 (0..255) values. */
export const ints = (t: 'i8' | 'u8', n: number, seed: number): Int8Array | Uint8Array => {
  const r = lcg(seed);
  const out = t === 'i8' ? new Int8Array(n) : new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 256) - (t === 'i8' ? 128 : 0);
  return out;
};
/** An i32 accumulator whose even elements sit near 2^31 - 1, so that the sums wrap. */
export const cInit = (n: number): Int32Array => {
  const r = lcg(7), c = new Int32Array(n);
  for (let i = 0; i < n; i++) c[i] = i % 2 === 0 ? 2 ** 31 - 1 - Math.floor(r() * 1000) : Math.floor(r() * 2000) - 1000;
  return c;
};

/** The PTX of `def` for `target` specialized for `args` as the sim device compiles it, assembled by ptxas (gateTargets). */
export function specializedPtx(def: KernelDef, args: RunArgs, target: 'sm_90a' | 'sm_100a', opts: { numWarps: number; numStages: number }): string {
  return specialize(def, args, target, opts, traceAt(def, args));
}

/** `def` traced at the constexprs in `args`. */
function traceAt(def: KernelDef, args: RunArgs): Func {
  const cx: Record<string, number> = {};
  for (const n of def.constexprNames) cx[n] = args[n] as number;
  return def.trace(cx);
}

/** The specialized PTX of `f` (`def` traced) through the ptxas gate. */
function specialize(def: KernelDef, args: RunArgs, target: 'sm_90a' | 'sm_100a', o: { numWarps: number; numStages: number }, f: Func): string {
  const positional = def.runtimeParams.map((p) => {
    const v = args[p.name];
    return (v instanceof HostArray ? v.data : v) as LaunchArg;
  });
  return gateTargets(f, [target], { ...o, specialization: launchSpecialization(f, positional) })[target]!.ptx;
}

/**
 * The PTX of `def` for `target`, generic and specialized for `args` as the sim device compiles it,
 * both assembled by ptxas (gateTargets); returns the specialized PTX.
 */
export function launchPtx(def: KernelDef, args: RunArgs, target: 'sm_90a' | 'sm_100a', opts: { numWarps?: number; numStages?: number } = {}): string {
  const f = traceAt(def, args);
  const o = { numWarps: opts.numWarps ?? 4, numStages: opts.numStages ?? 1 };
  gateTargets(f, [target], o);
  return specialize(def, args, target, o, f);
}
