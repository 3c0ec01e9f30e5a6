// Element types and tile types of the tile IR.
// A tile is (element type, static shape). Shape [] is a scalar.

export const DTYPES = ['f64', 'f32', 'f16', 'bf16', 'f8e4m3', 'f8e5m2', 'f8e8m0', 'f4e2m1', 'i64', 'i32', 'i16', 'i8', 'u32', 'u8', 'bool'] as const;
export type DType = (typeof DTYPES)[number];

/** Pointer to global memory holding elements of `DType`. Spelled `ptr<f32>` in the printer. */
export type PtrType = `ptr<${DType}>`;
export type ElemType = DType | PtrType;

export interface TileType {
  readonly elem: ElemType;
  readonly shape: readonly number[];
}

export const isDType = (s: unknown): s is DType => typeof s === 'string' && (DTYPES as readonly string[]).includes(s);
export const isPtr = (t: ElemType): t is PtrType => t.startsWith('ptr<');
export const ptrOf = (d: DType): PtrType => `ptr<${d}>`;
export const pointee = (t: PtrType): DType => t.slice(4, -1) as DType;

export const isFloat = (t: ElemType): boolean => t === 'f64' || t === 'f32' || t === 'f16' || t === 'bf16' || isMiniFloat(t);
/**
 * The fp8 dtypes (OCP FP8 E4M3 and E5M2, src/ir/fp8.ts). They are storage types: loads, stores,
 * casts to and from f32/f16/bf16 and bitcasts to 8-bit integers; no arithmetic.
 */
export const isFp8 = (t: ElemType): t is 'f8e4m3' | 'f8e5m2' => t === 'f8e4m3' || t === 'f8e5m2';
/**
 * The OCP MX storage dtypes (src/ir/mx.ts): f8e8m0 (the MX scale: a power of two 2^(e-127), 0xFF
 * NaN) and f4e2m1 (the fp4 element, one code per byte in the low nibble). Storage types like fp8,
 * and not tensor-core operands (`dotScaled` takes their codes as u8 tiles).
 */
export const isMxDType = (t: ElemType): t is 'f8e8m0' | 'f4e2m1' => t === 'f8e8m0' || t === 'f4e2m1';
/** The storage-only floats (fp8 and the MX dtypes): one byte in memory, no arithmetic. */
export const isMiniFloat = (t: ElemType): t is 'f8e4m3' | 'f8e5m2' | 'f8e8m0' | 'f4e2m1' => isFp8(t) || isMxDType(t);
export const isInt = (t: ElemType): boolean =>
  t === 'i64' || t === 'i32' || t === 'i16' || t === 'i8' || t === 'u32' || t === 'u8';
export const isSigned = (t: ElemType): boolean => t === 'i64' || t === 'i32' || t === 'i16' || t === 'i8';
export const isUnsigned = (t: ElemType): boolean => t === 'u32' || t === 'u8';
export const isBool = (t: ElemType): boolean => t === 'bool';

/** Width in bits of one element; pointers are 64-bit. */
export function bitWidth(t: ElemType): number {
  if (isPtr(t)) return 64;
  switch (t) {
    case 'f64': case 'i64': return 64;
    case 'f32': case 'i32': case 'u32': return 32;
    case 'f16': case 'bf16': case 'i16': return 16;
    case 'i8': case 'u8': case 'f8e4m3': case 'f8e5m2': case 'f8e8m0': case 'f4e2m1': return 8; // f4e2m1: one code per byte
    case 'bool': return 1;
  }
  throw new Error(`unknown element type ${String(t)}`);
}

/** Whether a cast may round toward zero (`rounding: 'rtz'`): a float to a narrower float, the storage floats excepted. */
export const isRtzCast = (from: ElemType, to: ElemType): boolean =>
  isFloat(from) && isFloat(to) && !isMiniFloat(from) && !isMiniFloat(to) && bitWidth(to) < bitWidth(from);

/** Bytes one element occupies in memory (bool is stored as one byte). */
export const byteSize = (t: ElemType): number => Math.max(1, bitWidth(t) / 8);

export const tile = (elem: ElemType, shape: readonly number[] = []): TileType => ({ elem, shape: [...shape] });
export const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
export const sameShape = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((d, i) => d === b[i]);
export const sameType = (a: TileType, b: TileType): boolean => a.elem === b.elem && sameShape(a.shape, b.shape);
export const typeToString = (t: TileType): string => (t.shape.length ? `${t.elem}[${t.shape.join('x')}]` : t.elem);
export const isPow2 = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
