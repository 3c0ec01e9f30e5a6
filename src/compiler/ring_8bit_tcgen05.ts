// 1-byte operands (fp8 e4m3/e5m2, s8/u8) on the cp.async ring, for tcgen05 dots only (sm_100a).
//
// The pipeliner (pipeline.ts) stages 2-byte tiles for every tensor-core dot. A 1-byte tile is
// staged only where its dot runs on tcgen05: tcgen05.mma reads 8-bit operands through the same
// swizzled descriptors as 16-bit ones, K-major or MN-major (the PTX ISA's table of valid type
// size, major-ness and swizzling lists MN-major for 8-, 16- and 32-bit types; the sim checks
// it), so a b loaded [K, N] may stay [K, N] in its stage. mma.sync reads 8-bit fragments as
// scalars from padded rows and wgmma reads 8-bit B K-major only (no imm-trans): those dots keep
// their register staging.
import type { Op, Value } from '../ir/ops.js';
import { dotInputPrecision } from './mma_kinds.js';
import { tcgen05KindOf, tcgen05LayoutForDot, type Tcgen05Kind } from './tcgen05_kinds.js';

/** Whether tcgen05 reads operands of `kind` MN-major: 16-bit (as wgmma) and 8-bit (tcgen05 only); tf32 needs 128B_base32b, which we do not stage. */
export const tcgen05ReadsMnMajor = (kind: Tcgen05Kind): boolean => kind.transposable || kind.bytes === 1;

/** Why a 1-byte tile feeding `dot` stays off the ring (undefined: the dot runs on tcgen05 and may read its stage). */
export function oneByteDotWhyNot(dot: Op, numWarps: number): string | undefined {
  const [a, b] = dot.operands as [Value, Value];
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const tc = dot.results[0]!.type.elem;
  const p = dotInputPrecision(dot);
  if (!tcgen05KindOf(a.type.elem, b.type.elem, tc, p) || !tcgen05LayoutForDot(M, N, K, a.type.elem, b.type.elem, tc, numWarps, p)) {
    return `a 1-byte operand of a dot that is not on tcgen05 (${a.type.elem} x ${b.type.elem} -> ${tc}, ${M}x${N}x${K} on ${numWarps} warps): mma.sync and wgmma stage 8-bit tiles from registers`;
  }
  return undefined;
}

/**
 * Why a 1-byte tile of `shape` cannot be a ring stage the MMA reads (undefined: it can): the
 * stored rows ([R, C], or [C, R] when staged transposed) must fill the 32-byte swizzle at least.
 */
export function oneByteStageWhyNot(shape: readonly number[], transposed: boolean): string | undefined {
  const rowBytes = transposed ? shape[0]! : shape[1]!;
  return rowBytes % 32 === 0 ? undefined : `its staged rows of ${rowBytes} bytes are not a multiple of the 32-byte swizzle tcgen05 reads`;
}
