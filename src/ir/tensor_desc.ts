// Tensor descriptors (Triton's `tl.make_tensor_descriptor`): the operand order of `desc_load` and
// `desc_store`, and the rules a block shape must follow. Shared by the language (checks at trace
// time), the verifier, the interpreter and the compiler, so every stage reads the ops one way.
import type { Op, Value } from './ops.js';

/** Largest block dimension: a TMA box dimension is at most 256 elements. */
export const MAX_DESC_BLOCK_DIM = 256;
/** Ranks a descriptor may have (TMA tensor maps are 1-D to 5-D). */
export const MAX_DESC_RANK = 5;

/** The operands of a desc_load / desc_store, by role. */
export interface DescOperands {
  readonly base: Value;
  readonly shape: readonly Value[];
  readonly strides: readonly Value[];
  readonly offsets: readonly Value[];
  /** desc_store only. */
  readonly value?: Value;
}

/** Splits a desc op's operands: base, rank shapes, rank strides, rank offsets (then the stored value). */
export function descOperands(op: Op<'desc_load'> | Op<'desc_store'>): DescOperands {
  const r = op.attrs.block.length;
  const o = op.operands;
  return {
    base: o[0]!,
    shape: o.slice(1, 1 + r),
    strides: o.slice(1 + r, 1 + 2 * r),
    offsets: o.slice(1 + 2 * r, 1 + 3 * r),
    ...(op.kind === 'desc_store' ? { value: o[1 + 3 * r]! } : {}),
  };
}

/** Why `block` is not a valid descriptor block shape, or undefined when it is. */
export function badDescBlock(block: readonly number[]): string | undefined {
  if (block.length < 1 || block.length > MAX_DESC_RANK) return `a descriptor has rank 1..${MAX_DESC_RANK}, got block shape [${block.join(', ')}]`;
  for (const [i, b] of block.entries()) {
    if (!Number.isInteger(b) || b < 1 || (b & (b - 1)) !== 0 || b > MAX_DESC_BLOCK_DIM) {
      return `block dim ${i} must be a power of two in 1..${MAX_DESC_BLOCK_DIM} (a TMA box dimension), got ${String(b)}`;
    }
  }
  return undefined;
}
