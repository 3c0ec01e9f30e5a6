// Facts about dtypes in memory, shared by every stage that holds data: the typed array that stores
// each dtype (f16/bf16 as 16-bit patterns, f8e4m3/f8e5m2/f8e8m0 as 8-bit patterns, f4e2m1 one code a byte, bool as bytes 0/1, i64 as BigInt64Array) and its width.
import type { DType } from './types.js';

export type ElemArray =
  | Float64Array | Float32Array | Uint16Array | BigInt64Array | Int32Array
  | Int16Array | Int8Array | Uint32Array | Uint8Array;

/** The typed array type that holds one dtype (f16/bf16 as bit patterns, bool as bytes 0/1). */
export function arrayCtorFor(d: DType): { new (n: number): ElemArray; new (b: ArrayBuffer, off: number, n: number): ElemArray } {
  switch (d) {
    case 'f64': return Float64Array;
    case 'f32': return Float32Array;
    case 'f16': case 'bf16': return Uint16Array;
    case 'i64': return BigInt64Array;
    case 'i32': return Int32Array;
    case 'i16': return Int16Array;
    case 'i8': return Int8Array;
    case 'u32': return Uint32Array;
    case 'u8': case 'bool': case 'f8e4m3': case 'f8e5m2': case 'f8e8m0': case 'f4e2m1': return Uint8Array;
  }
}

/** Bytes per element of each dtype in memory. */
export const BYTES: Record<DType, number> = {
  f64: 8, f32: 4, f16: 2, bf16: 2, f8e4m3: 1, f8e5m2: 1, f8e8m0: 1, f4e2m1: 1, i64: 8, i32: 4, i16: 2, i8: 1, u32: 4, u8: 1, bool: 1,
};
