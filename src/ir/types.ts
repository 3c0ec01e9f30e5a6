// Element types and tile types of the tile IR.
// A tile is (element type, static shape). Shape [] is a scalar.

export const DTYPES = ['f64', 'f32', 'f16', 'bf16', 'f8e4m3', 'f8e5m2', 'i64', 'i32', 'i16', 'i8', 'u32', 'u8', 'bool'] as const;
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

export const isFloat = (t: ElemType): boolean => t === 'f64' || t === 'f32' || t === 'f16' || t === 'bf16' || isFp8(t);
/**
 * The fp8 dtypes (OCP FP8 E4M3 and E5M2, src/ir/fp8.ts). They are storage types: loads, stores,
 * casts to and from f32/f16/bf16 and bitcasts to 8-bit integers; no arithmetic.
 */
export const isFp8 = (t: ElemType): t is 'f8e4m3' | 'f8e5m2' => t === 'f8e4m3' || t === 'f8e5m2';
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
    case 'i8': case 'u8': case 'f8e4m3': case 'f8e5m2': return 8;
    case 'bool': return 1;
  }
  throw new Error(`unknown element type ${String(t)}`);
}

/** Whether a cast may round toward zero (`rounding: 'rtz'`): a float to a narrower float, fp8 excepted. */
export const isRtzCast = (from: ElemType, to: ElemType): boolean =>
  isFloat(from) && isFloat(to) && !isFp8(from) && !isFp8(to) && bitWidth(to) < bitWidth(from);

/** Bytes one element occupies in memory (bool is stored as one byte). */
export const byteSize = (t: ElemType): number => Math.max(1, bitWidth(t) / 8);

export const tile = (elem: ElemType, shape: readonly number[] = []): TileType => ({ elem, shape: [...shape] });
export const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
export const sameShape = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((d, i) => d === b[i]);
export const sameType = (a: TileType, b: TileType): boolean => a.elem === b.elem && sameShape(a.shape, b.shape);
export const typeToString = (t: TileType): string => (t.shape.length ? `${t.elem}[${t.shape.join('x')}]` : t.elem);
export const isPow2 = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
