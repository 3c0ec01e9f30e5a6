// End-to-end conformance helpers: run one kernel on the interpreter (which defines the semantics,
// docs/semantics.md) and on the `sim` device (compiled PTX on the CPU PTX simulator), each on its
// own copy of the inputs, then compare the two with each other and with a plain-JS reference.
// A missing sim library makes every test FAIL (getDevice('sim') throws E_DEVICE), never skip.
import { expect } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import type { Func } from '../../src/ir/ops.js';
import type { DType } from '../../src/ir/types.js';
import { getDevice, type Device, type LaunchArg } from '../../src/runtime/device.js';
import { Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { HostArray } from '../../src/runtime/array.js';
import type { ConstexprValue } from '../../src/lang/index.js';
import { gate } from '../codegen/gate.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import '../../src/runtime/index.js'; // registers the native devices (cuda, sim)
import type { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';

// The sim device compiles through the persistent compile cache, keyed by COMPILER_VERSION: a
// compiler change without a bump would run stale PTX from ~/.cache. These tests compile afresh
// (the in-memory cache still applies within a file).
process.env['TESSERA_CACHE'] = '0';

export const DEVICES = ['interpret', 'sim'] as const;
export type E2EDevice = (typeof DEVICES)[number];

/** The sim device; throws (failing the test) when the sim library or the addon is missing. */
export function simDevice(): NativeRuntimeDevice {
  const d = getDevice('sim') as Device;
  expect(d.kind).toBe('sim');
  return d as NativeRuntimeDevice;
}

const cloneArg = <T>(a: T): T => {
  if (a instanceof HostArray) return new HostArray(a.dtype, a.shape, (a.data as unknown as { slice(): never }).slice()) as T;
  if (ArrayBuffer.isView(a)) return (a as unknown as { slice(): T }).slice();
  return a;
};

export interface RunBothOptions {
  readonly numWarps?: number;
  /** Software-pipelining depth on the sim (and for the ptxas gate); default: the target's. */
  readonly numStages?: number;
}

/**
 * Verification rule 1 (DESIGN.md): the PTX the sim ran must also assemble with ptxas for sm_80
 * and sm_90, without spills. A missing ptxas fails the test.
 */
function ptxasGate(k: Kernel | Func, args: RunArgs | readonly LaunchArg[], numWarps: number, numStages?: number): void {
  let f: Func;
  let positional: LaunchArg[];
  if (k instanceof Kernel) {
    const cx: Record<string, ConstexprValue> = {};
    for (const n of k.def.constexprNames) cx[n] = (args as RunArgs)[n] as ConstexprValue;
    f = k.trace(cx);
    positional = k.def.runtimeParams.map((p) => {
      const v = (args as RunArgs)[p.name];
      return (v instanceof HostArray ? v.data : v) as LaunchArg;
    });
  } else {
    f = k;
    positional = [...(args as readonly LaunchArg[])];
  }
  // Both the generic PTX and the specialized PTX the sim device actually ran (aligned pointers,
  // integers divisible by 16 or equal to 1).
  const stages = numStages !== undefined ? { numStages } : {};
  gate(f, { numWarps, ...stages });
  gate(f, { numWarps, ...stages, specialization: launchSpecialization(f, positional) });
}

export interface BothResults<A> {
  readonly interpret: A;
  readonly sim: A;
}

/**
 * Runs `k` (a Kernel with named args, or a raw Func with positional args) on 'interpret' and
 * 'sim', each on fresh copies of `args` (the caller's arrays are not touched); returns both sets.
 */
export async function runBoth<A extends RunArgs | readonly LaunchArg[]>(
  k: Kernel | Func, args: A, grid: number | readonly number[], opts: RunBothOptions = {},
): Promise<BothResults<A>> {
  const out = {} as { interpret: A; sim: A };
  for (const dev of DEVICES) {
    const copy = (Array.isArray(args) ? args.map(cloneArg) : Object.fromEntries(Object.entries(args).map(([n, v]) => [n, cloneArg(v)]))) as A;
    await runOn(dev, k, copy, grid, opts);
    out[dev] = copy;
  }
  ptxasGate(k, args, opts.numWarps ?? 4, opts.numStages);
  return out;
}

/** Runs `k` on one device, updating `args` in place. */
export async function runOn(dev: E2EDevice, k: Kernel | Func, args: RunArgs | readonly LaunchArg[], grid: number | readonly number[], opts: RunBothOptions = {}): Promise<void> {
  const numWarps = opts.numWarps ?? 4;
  const stages = opts.numStages !== undefined ? { numStages: opts.numStages } : {};
  if (k instanceof Kernel) {
    await k.run(args as never, { grid, device: dev, numWarps, ...stages });
    return;
  }
  const g = typeof grid === 'number' ? [grid] : [...grid];
  const device = dev === 'sim' ? simDevice() : getDevice('interpret');
  await device.launch(k, args as readonly LaunchArg[], { grid: [g[0] ?? 1, g[1] ?? 1, g[2] ?? 1], numWarps, ...stages });
}

/**
 * Compiles `func` with explicit options (e.g. pointer specialization, which the runtime device does
 * not apply) and runs it on the sim's NativeDevice directly; returns copies of the array args.
 */
export function runSimCompiled(func: Func, args: readonly LaunchArg[], grid: number, options: Partial<CompileOptions> = {}): LaunchArg[] {
  const rt = simDevice();
  const compiled = compile(func, { target: rt.target, ptxas: false, ...options });
  gate(func, { numWarps: options.numWarps ?? 4, ...(options.specialization ? { specialization: options.specialization } : {}) });
  const dev = rt.native;
  const bufs = args.map((a) => {
    if (!ArrayBuffer.isView(a)) return undefined;
    const b = dev.alloc(Math.max(1, a.byteLength));
    dev.upload(b, a);
    return b;
  });
  try {
    dev.launch(compiled, args.map((a, i) => bufs[i] ?? a), grid);
    dev.synchronize();
    return args.map((a, i) => {
      const b = bufs[i];
      if (!b || !ArrayBuffer.isView(a)) return a;
      return dev.download(b, cloneArg(a));
    });
  } finally {
    for (const b of bufs) if (b) dev.free(b);
  }
}

/** The PTX the sim device compiles for these arguments (its own specialization: the same cached result it launches). */
export function simPtx(k: Kernel, args: RunArgs, numWarps: number, numStages: number): string {
  const cx: Record<string, number | boolean> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number | boolean;
  const positional = k.def.runtimeParams.map((p) => {
    const v = args[p.name];
    return (v instanceof HostArray ? v.data : v) as LaunchArg;
  });
  return simDevice().compile(k.trace(cx), numWarps, positional, numStages).ptx;
}

// ---- data -------------------------------------------------------------------------------------

/** A small LCG so inputs are deterministic without hard-coding them. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

export const randF32 = (n: number, seed: number, lo = -2, hi = 2): Float32Array => {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * r());
};

/** C = A B in f64, A [M, K] and B [K, N] row-major: the reference of the matmul tests. */
export function matmulF64(a: ArrayLike<number>, b: ArrayLike<number>, M: number, N: number, K: number): Float64Array {
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * N + j]!;
    c[i * N + j] = s;
  }
  return c;
}

export type Buf = ArrayBufferView & { readonly length: number; readonly byteLength: number };

export const CTOR: Record<DType, new (n: number) => Buf> = {
  f32: Float32Array, f64: Float64Array, i32: Int32Array, u32: Uint32Array, i8: Int8Array, u8: Uint8Array,
  i16: Int16Array, i64: BigInt64Array, f16: Uint16Array, bf16: Uint16Array, bool: Uint8Array,
  f8e4m3: Uint8Array, f8e5m2: Uint8Array,
} as unknown as Record<DType, new (n: number) => Buf>;

/**
 * Values that exercise each dtype's edges: wide float magnitudes (incl. 1e10), integers near the
 * 32-bit limits, zero and -1 (division edge cases), halves around 1.0.
 */
export function fill(t: DType, n: number, seed: number): Buf {
  const a = new CTOR[t](n) as unknown as Record<number, number | bigint>;
  const r = lcg(seed);
  for (let i = 0; i < n; i++) {
    const u = r();
    const k = Math.floor(u * 2 ** 31);
    if (t === 'f32' || t === 'f64') a[i] = i % 7 === 0 ? (u * 2 - 1) * 1e10 : u * 20 - 10;
    else if (t === 'i64') a[i] = BigInt(k - 2 ** 30) * 3n;
    else if (t === 'f16') a[i] = 0x3c00 + (k % 2000) - 1000;
    else if (t === 'bf16') a[i] = 0x3f80 + (k % 2000) - 1000;
    else if (t === 'bool') a[i] = k & 1;
    else a[i] = (k % 2000000) - 1000000 + (i % 5 === 0 ? 2147483000 : 0); // wraps per the array type
  }
  if (t === 'i32' || t === 'i8' || t === 'i16') { a[1] = 0; a[2] = -1; }
  if ((t === 'f32' || t === 'f64') && n >= 16) {
    // NaN, infinities, signed zero, a subnormal, and the edges of the i32 range
    [NaN, Infinity, -Infinity, -0, 1e-40, 2 ** 31, -(2 ** 31) - 1, 0.5, -2.5].forEach((v, j) => (a[3 + j] = v));
  }
  return a as unknown as Buf;
}

// ---- comparison -------------------------------------------------------------------------------

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Bit-exact equality (integers, bit patterns of halves, results that must not differ at all). */
export function expectBitwise(got: ArrayBufferView, want: ArrayBufferView, what: string): void {
  const g = bytesOf(got), w = bytesOf(want);
  expect(g.length, `${what}: byte length`).toBe(w.length);
  const per = (got as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
  for (let i = 0; i < w.length; i++) {
    if (g[i] !== w[i]) {
      const e = Math.floor(i / per);
      const gv = (got as unknown as ArrayLike<unknown>)[e], wv = (want as unknown as ArrayLike<unknown>)[e];
      expect.fail(`${what}: element ${e} differs: got ${String(gv)}, want ${String(wv)}`);
    }
  }
}

const isNaNBits = (t: DType, v: number): boolean =>
  t === 'f16' ? (v & 0x7c00) === 0x7c00 && (v & 0x3ff) !== 0 : t === 'bf16' ? (v & 0x7f80) === 0x7f80 && (v & 0x7f) !== 0
    : t === 'f8e4m3' ? (v & 0x7f) === 0x7f : t === 'f8e5m2' ? (v & 0x7c) === 0x7c && (v & 0x03) !== 0 : Number.isNaN(v);

/**
 * Exact equality of `t` values, except that any NaN equals any NaN: arithmetic may return any NaN
 * (docs/semantics.md). Non-float dtypes compare bit for bit. f16/bf16/fp8 arrays hold bit patterns.
 */
export function expectSame(t: DType, got: ArrayBufferView, want: ArrayBufferView, what: string): void {
  if (!(t === 'f32' || t === 'f64' || t === 'f16' || t === 'bf16' || t === 'f8e4m3' || t === 'f8e5m2')) return expectBitwise(got, want, what);
  const g = got as unknown as ArrayLike<number>, w = want as unknown as ArrayLike<number>;
  expect(g.length, `${what}: length`).toBe(w.length);
  for (let i = 0; i < w.length; i++) {
    if (isNaNBits(t, w[i]!) && isNaNBits(t, g[i]!)) continue;
    if (Object.is(g[i], w[i])) continue;
    expect.fail(`${what}: element ${i} differs: got ${g[i]}, want ${w[i]}`);
  }
}

/**
 * |got - want| <= tol * (1 + |want|) elementwise (a mixed absolute/relative bound); NaN must match
 * NaN and infinities must match exactly.
 */
export function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= tol * (1 + Math.abs(w))) continue;
    expect.fail(`${what}: element ${i}: got ${g}, want ${w} (tol ${tol})`);
  }
}

/** Float32 view of a result for expectClose. */
export const f32 = (a: unknown): Float32Array => a as Float32Array;
