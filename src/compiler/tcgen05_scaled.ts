// Which dot_scaled ops sm_100a computes on a block-scaled tcgen05 kind (PTX ISA "Block Scaling"
// of the tcgen05.mma family) instead of the exact emulation (compiler/inline_dot_scaled.ts keeps
// these; codegen/tensor_cores/lower_tcgen05_scaled.ts lowers them).
//
// kind::mxf8f6f4.block_scale.scale_vec::1X: e4m3 / e5m2 operands (one code a byte, K-major in
// swizzled shared tiles, K 32 a step), one ue8m0 scale per 32 of K for each row of A and column of
// B, read from TMEM. The MMA sums each step's 32 scaled products exactly and rounds once to f32,
// then adds them to D (docs/sim-ptx.md): the same f32 value the emulation's dot gives whenever
// its partial sums are exact in f32 (docs/semantics.md "MX formats and dotScaled" bounds the
// difference otherwise). Not yet native: e2m1 (mxf4 / mxf4nvf4: packed operands), e2m3/e3m2
// (mxf8f6f4 with the padded 6-bit layout), unscaled bf16/fp16 operands, M other than 128.
import type { Op } from '../ir/ops.js';
import { tcgen05Layout } from './tcgen05_kinds.js';

/** The block-scaled kind of a kept dot_scaled, and its operand type codes in the instruction descriptor. */
export interface ScaledKind {
  readonly kindName: 'mxf8f6f4';
  readonly scaleVec: '1X';
  /** K of one MMA (elements). */
  readonly k: number;
  readonly aCode: number;
  readonly bCode: number;
}

/** f8f6f4 type codes (the A/B type fields of the descriptor). */
const F8F6F4_CODE: Readonly<Record<string, number>> = { e4m3: 0, e5m2: 1 };

/** The operands of a dot_scaled op: a, its scale, b, its scale, acc (a scale undefined when absent). */
export function scaledOperands(op: Op): { a: Op['operands'][number]; sa: Op['operands'][number] | undefined; b: Op['operands'][number]; sb: Op['operands'][number] | undefined; acc: Op['operands'][number] } {
  const { hasAScale, hasBScale } = (op as Op<'dot_scaled'>).attrs;
  const xs = [...op.operands];
  const a = xs.shift()!, sa = hasAScale ? xs.shift() : undefined;
  const b = xs.shift()!, sb = hasBScale ? xs.shift() : undefined;
  return { a, sa, b, sb, acc: xs[0]! };
}

/** Why `op` (a dot_scaled) is not computed on a block-scaled tcgen05 kind, or undefined: it is. */
export function nativeScaledWhyNot(op: Op, numWarps: number): string | undefined {
  const { aFormat, bFormat } = (op as Op<'dot_scaled'>).attrs;
  const { a, sa, b, sb } = scaledOperands(op);
  if (F8F6F4_CODE[aFormat] === undefined || F8F6F4_CODE[bFormat] === undefined) return `formats ${aFormat} x ${bFormat}: only e4m3/e5m2 pairs are native so far (mxf8f6f4)`;
  if (!sa || !sb) return 'both operands need scales';
  for (const s of [sa, sb]) if (s.type.elem !== 'u8' && s.type.elem !== 'f8e8m0') return `scales of ${s.type.elem}: the mxf8f6f4 kind takes ue8m0`;
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  if (M !== 128) return `M = ${M}: the block-scaled kinds take M = 128 per CTA`;
  if (K % 32 !== 0) return `K = ${K} is not a multiple of the kind's K step 32`;
  if (!tcgen05Layout(M, N, numWarps)) return `N = ${N} on ${numWarps} warps has no tcgen05 accumulator layout (a power of two 16..256; 4 or 8 warps)`;
  return undefined;
}

/** The kind of a dot_scaled that nativeScaledWhyNot accepts. */
export function scaledKindOf(op: Op): ScaledKind {
  const { aFormat, bFormat } = (op as Op<'dot_scaled'>).attrs;
  return { kindName: 'mxf8f6f4', scaleVec: '1X', k: 32, aCode: F8F6F4_CODE[aFormat]!, bCode: F8F6F4_CODE[bFormat]! };
}

/** TMEM columns the scales of one kept dot_scaled take beside its N accumulator columns. */
export function scaleColumns(op: Op): number {
  const { a, b } = scaledOperands(op);
  const K = a.type.shape[1]!, N = b.type.shape[1]!;
  const chunks = Math.ceil(K / 32 / 4); // 4 scale factors (bytes) a cell
  return chunks * (4 + 4 * Math.ceil(N / 128));
}
