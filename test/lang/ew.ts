// An elementwise kernel factory for semantic tests: out[i] = fn(a0[i], a1[i], ...) for i < n,
// masked, over a ragged grid; plus JS references in the typed-array world.
import type { DType } from '../../src/ir/types.js';
import { arange, constexpr, defineKernel, load, programId, ptr, store, type KernelParamSpec, type Tile } from '../../src/lang/index.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { rng, runKernel } from './run.js';

export const N = 1000;
export const BLOCK = 128;
const PAD = 24;
export const SENTINEL = 77;

type AnyArray = Float64Array | Float32Array | Uint16Array | BigInt64Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint8Array;

export function arrayFor(d: DType, n: number): AnyArray {
  switch (d) {
    case 'f64': return new Float64Array(n);
    case 'f32': return new Float32Array(n);
    case 'f16': case 'bf16': return new Uint16Array(n);
    case 'i64': return new BigInt64Array(n);
    case 'i32': return new Int32Array(n);
    case 'i16': return new Int16Array(n);
    case 'i8': return new Int8Array(n);
    case 'u32': return new Uint32Array(n);
    case 'u8': case 'bool': case 'f8e4m3': case 'f8e5m2': case 'f8e8m0': case 'f4e2m1': return new Uint8Array(n);
  }
}

/** Random inputs of a dtype as JS numbers (ints in [lo, hi], floats in [lo, hi)). */
export function randomValues(d: DType, n: number, seed: number, lo = -8, hi = 8): number[] {
  const r = rng(seed);
  let v: number[];
  if (d === 'bool') v = Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
  else if (d === 'f32' || d === 'f64' || d === 'f16' || d === 'bf16') v = Array.from({ length: n }, () => lo + (hi - lo) * r());
  else v = Array.from({ length: n }, () => Math.floor(lo + (hi - lo + 1) * r()));
  return unpack(d, pack(d, v)); // exactly representable in d
}

/** Stores JS numbers into a typed array of dtype d (f16 rounds, ints wrap). */
export function pack(d: DType, values: number[]): AnyArray {
  if (d === 'f16') return f16Array(values);
  const a = arrayFor(d, values.length);
  values.forEach((v, i) => {
    if (a instanceof BigInt64Array) a[i] = BigInt(Math.trunc(v));
    else a[i] = d === 'bool' ? (v ? 1 : 0) : v;
  });
  return a;
}

export function unpack(d: DType, a: ArrayBufferView): number[] {
  if (d === 'f16') return Array.from(f16ToFloat32(a as Uint16Array));
  return Array.from(a as unknown as ArrayLike<number | bigint>, (v) => Number(v));
}

/**
 * Runs out = fn(...inputs) elementwise on the interpreter (N elements, ragged last block).
 * Returns the first N outputs as numbers, and checks the padding after N was not written.
 */
export function runElementwise(ins: { dtype: DType; values: number[] }[], out: DType, fn: (...xs: Tile[]) => Tile, name = 'ew'): number[] {
  const params: Record<string, KernelParamSpec> = {};
  ins.forEach((v, i) => { params[`a${i}`] = ptr(v.dtype); });
  Object.assign(params, { out: ptr(out), n: 'i32', BLOCK: constexpr() });
  const k = defineKernel({ name, params }, (a) => {
    const B = a.BLOCK as number;
    const offs = programId(0).mul(B).add(arange(0, B));
    const mask = offs.lt(a.n as Tile);
    const xs = ins.map((_, i) => load((a[`a${i}`] as Tile).add(offs), { mask }));
    store((a.out as Tile).add(offs), fn(...xs), { mask });
  });
  const outArr = pack(out, Array<number>(N + PAD).fill(SENTINEL));
  const res = runKernel(k, { BLOCK }, [...ins.map((v) => pack(v.dtype, v.values)), outArr, N], [Math.ceil(N / BLOCK)]);
  const got = unpack(out, res[ins.length]!);
  const untouched = unpack(out, pack(out, [SENTINEL]))[0];
  for (let i = N; i < N + PAD; i++) {
    if (got[i] !== untouched) throw new Error(`element ${i} beyond n was written (${got[i]})`);
  }
  return got.slice(0, N);
}

/** Reference results as the output dtype stores them. */
export function reference(out: DType, ins: number[][], fn: (...xs: number[]) => number): number[] {
  return unpack(out, pack(out, ins[0]!.map((_, i) => fn(...ins.map((v) => v[i]!)))));
}
