// Abstract values: what abstract evaluation works on (jax's ShapedArray): a shape and a dtype.
import { isDType, numel, type DType } from '../ir/types.js';
import { PrimitiveError } from './errors.js';

export interface ShapedArray {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

export const shaped = (shape: readonly number[], dtype: DType): ShapedArray => ({ shape: Object.freeze([...shape]), dtype });
export const describeAval = (a: ShapedArray): string => `${a.dtype}[${a.shape.join(', ')}]`;
export const sizeOf = (a: ShapedArray): number => numel(a.shape);
export const sameAval = (a: ShapedArray, b: ShapedArray): boolean =>
  a.dtype === b.dtype && a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i]);

/** Checks a user-given abstract value (shape of non-negative integers, a known dtype). */
export function checkAval(a: unknown, prim: string, what: string): ShapedArray {
  const v = a as ShapedArray;
  if (typeof v !== 'object' || v === null || !Array.isArray(v.shape) || v.shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new PrimitiveError('E_ARG', prim, `${what} must be { shape: number[], dtype }, got ${JSON.stringify(a)}`);
  }
  if (!isDType(v.dtype)) throw new PrimitiveError('E_TYPE', prim, `${what} has unknown dtype ${String(v.dtype)}`);
  return shaped(v.shape, v.dtype);
}
