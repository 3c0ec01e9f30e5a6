// Type promotion rules (Triton's), as pure functions over element types. docs/type-promotion.md
// states them for users. A "weak" operand is a JS literal (number/bigint/boolean) written in a
// kernel: it takes the tile's dtype unless it is of a higher kind (bool < unsigned < signed < float).
import type { DType, ElemType } from '../ir/types.js';
import { bitWidth, isBool, isFloat, isPtr, isSigned, isUnsigned } from '../ir/types.js';

/** Kind rank used for weak (literal) operands: bool < unsigned < signed < float. */
export function kindRank(t: ElemType): number {
  if (isBool(t)) return 0;
  if (isUnsigned(t)) return 1;
  if (isSigned(t)) return 2;
  if (isFloat(t)) return 3;
  return 4; // pointers never take part in promotion
}

/** dtype of a JS literal on its own: booleans -> bool; integers -> i32, u32 in [2^31, 2^32), else i64; other numbers -> f32. */
export function literalDType(v: number | bigint | boolean): DType {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return v >= -(2n ** 31n) && v < 2n ** 31n ? 'i32' : v >= 0n && v < 2n ** 32n ? 'u32' : 'i64';
  if (Number.isInteger(v)) return v >= -(2 ** 31) && v < 2 ** 31 ? 'i32' : v >= 0 && v < 2 ** 32 ? 'u32' : 'i64';
  return 'f32';
}

export type PromoteResult = { ok: true; dtype: DType } | { ok: false; reason: string };

/** Integer promotion: same signedness -> wider; mixed -> unsigned unless the signed one is wider. */
export function promoteInts(a: DType, b: DType): DType {
  if (a === b) return a;
  if (isBool(a)) return b;
  if (isBool(b)) return a;
  const wa = bitWidth(a), wb = bitWidth(b);
  if (isSigned(a) === isSigned(b)) return wa >= wb ? a : b;
  const [s, u] = isSigned(a) ? [a, b] : [b, a];
  return bitWidth(s) > bitWidth(u) ? s : u;
}

/**
 * The computation dtype of a binary arithmetic op (Triton's computation_type_impl).
 * `divOrMod`: true for `/`, `//`, `%` (f16/bf16 compute in f32 there; mixed signedness is an error).
 */
export function computationType(a: DType, aWeak: boolean, b: DType, bWeak: boolean, divOrMod: boolean): PromoteResult {
  if (aWeak !== bWeak) {
    const [lit, tileT] = aWeak ? [a, b] : [b, a];
    if (kindRank(lit) <= kindRank(tileT)) {
      if (divOrMod && (tileT === 'f16' || tileT === 'bf16')) return { ok: true, dtype: 'f32' };
      return { ok: true, dtype: tileT };
    }
  }
  if (a === 'f64' || b === 'f64') return { ok: true, dtype: 'f64' };
  if (a === 'f32' || b === 'f32') return { ok: true, dtype: 'f32' };
  const half = (t: DType) => t === 'f16' || t === 'bf16';
  if (half(a) || half(b)) {
    if (divOrMod) return { ok: true, dtype: 'f32' };
    if (half(a) && half(b) && a !== b) return { ok: true, dtype: 'f32' };
    return { ok: true, dtype: half(a) ? a : b };
  }
  if (divOrMod && !isBool(a) && !isBool(b) && isSigned(a) !== isSigned(b)) {
    return { ok: false, reason: `cannot use /, // or % on ${a} and ${b} (different signedness); cast one of them first` };
  }
  return { ok: true, dtype: promoteInts(a, b) };
}

/** Whether an element type is a plain number type usable in arithmetic. */
export const isNumeric = (t: ElemType): t is DType => !isPtr(t);
