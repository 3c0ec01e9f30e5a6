// How tiles are held while the interpreter runs: one typed array per value, row-major.
//   f64 Float64Array · f32 Float32Array · f16/bf16 Uint16Array (bit patterns) · i64 BigInt64Array ·
//   i32 Int32Array · i16 Int16Array · i8 Int8Array · u32 Uint32Array · u8 Uint8Array ·
//   bool Uint8Array (0/1) · pointers Float64Array (device addresses, exact below 2^53).
// Storing into the typed array does the wraparound of integer results and the f32 rounding.
import { isPtr, type ElemType } from '../ir/types.js';
import { arrayCtorFor, type ElemArray } from '../ir/dtype_arrays.js';

/** Indexable lanes of any tile array (numbers, or bigints for i64). */
export type Lanes = { length: number; [i: number]: any };

export function newArray(t: ElemType, n: number): ElemArray {
  if (isPtr(t)) return new Float64Array(n);
  return new (arrayCtorFor(t))(n);
}

/** An integer view of an f32 array, so copies keep NaN payloads (reading an f32 as a JS number may quiet them). */
export function bitsOf(a: ElemArray): ElemArray {
  if (a instanceof Float32Array) return new Uint32Array(a.buffer, a.byteOffset, a.length);
  return a;
}

/** A new array of type `t` with out[i] = src[idx(i)], copied bit-exactly. */
export function gather(t: ElemType, src: ElemArray, n: number, idx: (i: number) => number): ElemArray {
  const out = newArray(t, n);
  const o: Lanes = bitsOf(out);
  const s: Lanes = bitsOf(src);
  for (let i = 0; i < n; i++) o[i] = s[idx(i)];
  return out;
}

/** Repeats a one-lane array to `n` lanes (for one-lane constants inside vectorised regions). */
export function splatTo(a: ElemArray, n: number): ElemArray {
  if (a.length === n) return a;
  const C = a.constructor as new (n: number) => ElemArray;
  const out = new C(n);
  const o: Lanes = bitsOf(out);
  const v = (bitsOf(a) as Lanes)[0];
  for (let i = 0; i < n; i++) o[i] = v;
  return out;
}

/** Row-major strides of `shape`. */
export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** Multi-index of flat position `i` in `shape`, e.g. "2, 5". */
export function indexString(shape: readonly number[], i: number): string {
  const st = stridesOf(shape);
  return shape.map((_, d) => Math.floor(i / st[d]!) % shape[d]!).join(', ');
}
