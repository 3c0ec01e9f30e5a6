// HostArray: a typed host buffer with a dtype and a shape, accepted wherever a kernel takes a
// pointer (copied to the device and back on each launch; DeviceArray, in device_array.ts, stays
// on the device). `data` is the storage form (f16/bf16 as bit patterns in a Uint16Array, f8e4m3/f8e5m2
// as bit patterns in a Uint8Array, bool as 0/1
// bytes, i64 as a BigInt64Array); `toArray()` gives plain JS values back.
import { DTYPES, isDType, numel, type DType } from '../ir/types.js';
import { TesseraError } from '../ir/errors.js';
import { arrayCtorFor, type ElemArray } from '../ir/dtype_arrays.js';
import { bf16Array, bf16Value, f16Array, f16Value } from '../ir/half.js';
import { f8e4m3Array, f8e4m3Value, f8e5m2Array, f8e5m2Value } from '../ir/fp8.js';
import { f4e2m1Array, f4e2m1Value, f8e8m0Array, f8e8m0Value } from '../ir/mx.js';

export type TypedArray = ElemArray;

/** The storage typed array of each dtype. */
export interface ArrayTypes {
  f64: Float64Array; f32: Float32Array; f16: Uint16Array; bf16: Uint16Array;
  f8e4m3: Uint8Array; f8e5m2: Uint8Array; f8e8m0: Uint8Array; f4e2m1: Uint8Array; i64: BigInt64Array;
  i32: Int32Array; i16: Int16Array; i8: Int8Array; u32: Uint32Array; u8: Uint8Array; bool: Uint8Array;
}

/** Which typed array holds each dtype (what `kernel(...).run` accepts for a `ptr(dtype)` param). */
export const ARRAY_FOR_DTYPE: Readonly<Record<DType, string>> = {
  f64: 'Float64Array', f32: 'Float32Array', f16: 'Uint16Array', bf16: 'Uint16Array',
  f8e4m3: 'Uint8Array', f8e5m2: 'Uint8Array', f8e8m0: 'Uint8Array', f4e2m1: 'Uint8Array', i64: 'BigInt64Array',
  i32: 'Int32Array', i16: 'Int16Array', i8: 'Int8Array', u32: 'Uint32Array', u8: 'Uint8Array', bool: 'Uint8Array',
};

/** True when `a` is the typed array kind that stores `d`. */
export const holdsDType = <D extends DType>(a: unknown, d: D): a is ArrayTypes[D] => a instanceof arrayCtorFor(d);

const DECODE: Partial<Record<DType, (bits: number) => number>> = {
  f16: f16Value, bf16: bf16Value, f8e4m3: f8e4m3Value, f8e5m2: f8e5m2Value, f8e8m0: f8e8m0Value, f4e2m1: f4e2m1Value,
};

export class HostArray<D extends DType = DType> {
  readonly shape: number[];
  constructor(readonly dtype: D, shape: readonly number[], readonly data: ArrayTypes[D]) {
    this.shape = [...shape];
    if (!holdsDType(data, dtype)) {
      throw new TesseraError('E_ARG', `HostArray of ${dtype} needs a ${ARRAY_FOR_DTYPE[dtype]}, got ${(data as unknown as { constructor?: { name?: string } })?.constructor?.name ?? typeof data}`);
    }
    if (shape.some((d) => !Number.isInteger(d) || d < 0) || numel(shape) !== data.length) {
      throw new TesseraError('E_ARG', `HostArray shape [${shape.join(', ')}] does not match ${data.length} elements`);
    }
  }

  get size(): number {
    return this.data.length;
  }

  /** The elements as JS values: numbers (f16/bf16/fp8 decoded, bool as 0/1), or bigints for i64. */
  toArray(): number[] | bigint[] {
    if (this.dtype === 'i64') return Array.from(this.data as BigInt64Array);
    const dec = DECODE[this.dtype] ?? ((x: number) => x);
    return Array.from(this.data as Exclude<TypedArray, BigInt64Array>, dec);
  }
}

/**
 * Makes a HostArray of `dtype` from JS values (numbers are rounded to f16/bf16 to nearest even, to
 * fp8 as `cvt.rn.satfinite` does, to f8e8m0 and f4e2m1 as their casts do (src/ir/mx.ts),
 * wrapped to integer widths) or from a typed array of the matching kind (copied).
 */
export function array<D extends DType>(data: ArrayLike<number> | ArrayLike<bigint> | TypedArray, dtype: D, shape?: readonly number[]): HostArray<D> {
  if (!isDType(dtype)) throw new TesseraError('E_ARG', `array(): unknown dtype ${String(dtype)} (one of ${DTYPES.join(' ')})`);
  let storage: TypedArray;
  if (holdsDType(data, dtype)) storage = data.slice();
  else if (dtype === 'f16') storage = f16Array(data as ArrayLike<number>);
  else if (dtype === 'bf16') storage = bf16Array(data as ArrayLike<number>);
  else if (dtype === 'f8e4m3') storage = f8e4m3Array(data as ArrayLike<number>);
  else if (dtype === 'f8e5m2') storage = f8e5m2Array(data as ArrayLike<number>);
  else if (dtype === 'f8e8m0') storage = f8e8m0Array(data as ArrayLike<number>);
  else if (dtype === 'f4e2m1') storage = f4e2m1Array(data as ArrayLike<number>);
  else if (dtype === 'i64') storage = BigInt64Array.from(data as ArrayLike<number | bigint>, (v) => BigInt(v));
  else if (dtype === 'bool') storage = Uint8Array.from(data as ArrayLike<number>, (v) => (v ? 1 : 0));
  else {
    const C = arrayCtorFor(dtype) as unknown as { from(a: ArrayLike<number>, f?: (v: number) => number): TypedArray };
    storage = C.from(data as ArrayLike<number>, (v) => Number(v));
  }
  return new HostArray(dtype, shape ?? [storage.length], storage as ArrayTypes[D]);
}
