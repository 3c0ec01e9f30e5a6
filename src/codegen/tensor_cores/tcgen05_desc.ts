// The two descriptors of tcgen05.mma (PTX ISA, "Shared Memory Descriptor" and "Instruction
// descriptor" of the tcgen05 family).
//
// Shared-memory descriptor (64 bits): the wgmma matrix descriptor's fields (wgmma_desc.ts: start
// address, LBO, SBO, all >> 4, over the same swizzled tiles) plus a fixed version 0b001 in bits
// 46-48; base offset (49-51) 0 as our tiles are 1024-aligned; the leading-dimension mode (52) 0
// (relative offsets); the swizzle in bits 61-63 (0 none, 2 128B, 4 64B, 6 32B) - wgmma's 2-bit
// code in 62-63 shifted one place, so the same bits land where sm_100 reads them.
//
// Instruction descriptor (32 bits, kinds f16/tf32/f8f6f4/i8): sparsity 0-2 (dense: 0), saturate
// 3, D type 4-5 (0 f16, 1 f32, 2 s32), A type 7-9, B type 10-12, negate A/B 13-14, A/B MN-major 15-16,
// N >> 3 in 17-22, M >> 4 in 24-28.
import type { Tcgen05Kind } from '../../compiler/tcgen05_kinds.js';
import type { Lowering } from '../context.js';
import { strideBytes, swizzleMode, type SwizzledTile } from './wgmma_desc.js';

/** Bit 46 of the descriptor as a bit of its high word: the fixed sm_100 version 0b001. */
const VERSION_HI = 1 << 14;

/** Emits a b64 register with the sm_100 descriptor of the tile at b32 shared address `addr`. */
export function emitTcgen05Desc(cx: Lowering, addr: string, t: SwizzledTile, mnMajor: boolean): string {
  const { lbo, sbo } = strideBytes(t, mnMajor);
  const lo = cx.reg('b32'), d = cx.reg('b64');
  cx.emit(`bfe.u32 ${lo}, ${addr}, 4, 14;`);
  cx.emit(`or.b32 ${lo}, ${lo}, ${(lbo >> 4) << 16};`);
  const hi = ((sbo >> 4) | VERSION_HI | (swizzleMode(t.swizzle) << 30)) >>> 0;
  cx.emit(`mov.b64 ${d}, {${lo}, 0x${hi.toString(16)}};`);
  return d;
}

/** The A/B type code of an operand type in its kind. */
const TYPE_CODE: Readonly<Record<Tcgen05Kind['input'], number>> = { f16: 0, bf16: 1, tf32: 2, e4m3: 0, e5m2: 1, u8: 0, s8: 1 };

/** The instruction descriptor of an M x N tcgen05.mma of `kind`, A/B K-major unless said. */
export function instrDesc(kind: Tcgen05Kind, M: number, N: number, aMnMajor: boolean, bMnMajor: boolean): number {
  const d = kind.acc === 's32' ? 2 : kind.acc === 'f16' ? 0 : 1;
  const a = TYPE_CODE[kind.input], b = TYPE_CODE[kind.inputB ?? kind.input];
  return ((d << 4) | (a << 7) | (b << 10) | (Number(aMnMajor) << 15) | (Number(bMnMajor) << 16) | ((N >> 3) << 17) | ((M >> 4) << 24)) >>> 0;
}
