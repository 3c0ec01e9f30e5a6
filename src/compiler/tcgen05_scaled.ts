// Which dot_scaled ops sm_100a computes on a block-scaled tcgen05 kind (PTX ISA "Block Scaling"
// of the tcgen05.mma family) instead of the exact emulation (compiler/inline_dot_scaled.ts keeps
// these; codegen/tensor_cores/lower_tcgen05_scaled.ts lowers them).
//
// kind::mxf8f6f4.block_scale.scale_vec::1X: e4m3 / e5m2 operands (one code a byte, K-major in
// swizzled shared tiles, K 32 a step), one ue8m0 scale per 32 of K for each row of A and column of
// B, read from TMEM. The MMA sums each step's 32 scaled products exactly and rounds once to f32,
// then adds them to D (docs/sim-ptx.md): the same f32 value the emulation's dot gives whenever
// its partial sums are exact in f32 (docs/semantics.md "MX formats and dotScaled" bounds the
// difference otherwise).
// kind::mxf4.block_scale.scale_vec::2X: e2m1 x e2m1 packed two a byte along K (dotScaled's u8
// tiles as they are: even element in the low nibble), K 64 a step, two ue8m0 scales a row a step.
// kind::mxf4nvf4.block_scale.scale_vec::4X: nvfp4, the same operands with ue4m3 scales per 16 of
// K (four a row a step; the scale bytes' sign bit cleared, as dotScaled ignores it).
// kind::mxf8f6f4 also takes e2m3 / e3m2 (u8 tiles, one code a byte) and packed e2m1 in any other
// pair (type codes 3, 4, 5): in shared memory they sit in padded 8-bit containers, 16 elements a
// 16-byte chunk (codegen/tensor_cores/tcgen05_padded_operand.ts), K 32 a step as for 8 bits.
// e2m1 in f4e2m1 tiles (one code a byte) goes the same way, e2m1 x e2m1 included (mxf4 reads
// only packed bytes). Not yet native: nvfp4 from f4e2m1 tiles, unscaled bf16/fp16 operands, M
// other than 128.
import type { Block, Op } from '../ir/ops.js';
import { tcgen05Layout } from './tcgen05_kinds.js';

/** The block-scaled kind of a kept dot_scaled, and its operand type codes in the instruction descriptor. */
export interface ScaledKind {
  readonly kindName: 'mxf8f6f4' | 'mxf4' | 'mxf4nvf4';
  /** Scale factors per row per MMA (1X: one per 32 of K; 2X: two, mxf4's K 64; 4X: nvfp4's four per 16). */
  readonly scaleVec: '1X' | '2X' | '4X';
  /** Elements of K one scale covers (32 ue8m0, 16 ue4m3). */
  readonly group: number;
  /** ue4m3 scales (descriptor bit 23 = 0) instead of ue8m0. */
  readonly ue4m3: boolean;
  /** K of one MMA in elements, and in operand bytes (e2m1 packs two a byte). */
  readonly k: number;
  readonly kBytes: number;
  /** Elements a byte of the staged shared tiles (2: mxf4's packed e2m1; 1: mxf8f6f4, padded containers included). */
  readonly perByte: number;
  readonly aCode: number;
  readonly bCode: number;
}

/** f8f6f4 type codes (the A/B type fields of the descriptor). */
const F8F6F4_CODE: Readonly<Record<string, number>> = { e4m3: 0, e5m2: 1, e2m3: 3, e3m2: 4, e2m1: 5 };

/** K of a dot_scaled in elements (a's u8 e2m1 tiles pack two a byte along K). */
export function scaledK(op: Op): number {
  const a = op.operands[0]!;
  return a.type.shape[1]! * ((op as Op<'dot_scaled'>).attrs.aFormat === 'e2m1' && a.type.elem === 'u8' ? 2 : 1);
}

/** The operands of a dot_scaled op: a, its scale, b, its scale, acc (a scale undefined when absent). */
export function scaledOperands(op: Op): { a: Op['operands'][number]; sa: Op['operands'][number] | undefined; b: Op['operands'][number]; sb: Op['operands'][number] | undefined; acc: Op['operands'][number] } {
  const { hasAScale, hasBScale } = (op as Op<'dot_scaled'>).attrs;
  const xs = [...op.operands];
  const a = xs.shift()!, sa = hasAScale ? xs.shift() : undefined;
  const b = xs.shift()!, sb = hasBScale ? xs.shift() : undefined;
  return { a, sa, b, sb, acc: xs[0]! };
}

/** Why `op` (a dot_scaled) is not computed on a block-scaled tcgen05 kind, or undefined: it is. */
export function nativeScaledWhyNot(op: Op, numWarps: number, kernelHasDot = false): string | undefined {
  const { aFormat, bFormat } = (op as Op<'dot_scaled'>).attrs;
  const { a, sa, b, sb } = scaledOperands(op);
  // packed e2m1 pairs: mxf4 / mxf4nvf4 (K 64); e2m1 from an f4e2m1 tile: mxf8f6f4's containers
  const fp4 = aFormat === 'e2m1' && bFormat === 'e2m1' && a.type.elem === 'u8' && b.type.elem === 'u8';
  if (F8F6F4_CODE[aFormat] === undefined || F8F6F4_CODE[bFormat] === undefined) return `formats ${aFormat} x ${bFormat}: bf16/fp16 operands are not block-scaled (the MX formats e4m3, e5m2, e2m3, e3m2, e2m1 are native)`;
  if (!sa || !sb) return 'both operands need scales';
  const ue4m3 = [sa, sb].filter((s) => s.type.elem === 'f8e4m3').length;
  if (ue4m3 === 1) return 'one ue4m3 (nvfp4) and one ue8m0 scale: a block-scaled MMA takes one scale type';
  if (!fp4 && sa.type.elem === 'f8e4m3') return 'nvfp4 (ue4m3 scales) from f4e2m1 tiles: mxf4nvf4 reads e2m1 packed two a byte (u8 tiles), mxf8f6f4 takes ue8m0 scales only';
  const M = a.type.shape[0]!, N = b.type.shape[1]!;
  const K = scaledK(op), step = fp4 ? 64 : 32;
  // its TMEM columns would be a resident or in-flight tcgen05 dot's (tmem_alloc.ts shares them)
  if (kernelHasDot) return 'the kernel also has a dot: block-scaled and plain tcgen05 dots do not share tensor memory yet';
  if (M !== 128) return `M = ${M}: the block-scaled kinds take M = 128 per CTA`;
  if (K % step !== 0) return `K = ${K} is not a multiple of the kind's K step ${step}`;
  if (!tcgen05Layout(M, N, numWarps)) return `N = ${N} on ${numWarps} warps has no tcgen05 accumulator layout (a power of two 16..256; 4 or 8 warps)`;
  return undefined;
}

/** The kind of a dot_scaled that nativeScaledWhyNot accepts. */
export function scaledKindOf(op: Op): ScaledKind {
  const { aFormat, bFormat } = (op as Op<'dot_scaled'>).attrs;
  const fp4 = { k: 64, kBytes: 32, perByte: 2, aCode: 1, bCode: 1 };
  const both = aFormat === 'e2m1' && bFormat === 'e2m1' && op.operands[0]!.type.elem === 'u8' && scaledOperands(op).b.type.elem === 'u8';
  if (both && scaledOperands(op).sa!.type.elem === 'f8e4m3') return { kindName: 'mxf4nvf4', scaleVec: '4X', group: 16, ue4m3: true, ...fp4 };
  if (both) return { kindName: 'mxf4', scaleVec: '2X', group: 32, ue4m3: false, ...fp4 };
  return { kindName: 'mxf8f6f4', scaleVec: '1X', group: 32, ue4m3: false, k: 32, kBytes: 32, perByte: 1, aCode: F8F6F4_CODE[aFormat]!, bCode: F8F6F4_CODE[bFormat]! };
}

/** TMEM columns the scales of one kept dot_scaled take beside its N accumulator columns. */
export function scaleColumns(op: Op): number {
  const { b } = scaledOperands(op);
  const kind = scaledKindOf(op);
  const K = scaledK(op), N = b.type.shape[1]!;
  const chunks = Math.ceil(K / kind.group / 4); // 4 scale factors (bytes) a cell
  return chunks * (4 + 4 * Math.ceil(N / 128));
}

/** Whether `f` has a dot (outside dot_scaled definitions). */
export function hasDot(b: Block): boolean {
  return b.ops.some((o) => o.kind === 'dot' || (o.kind !== 'dot_scaled' && o.regions.some(hasDot)));
}
