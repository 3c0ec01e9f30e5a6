// wgmma matrix descriptors (PTX ISA, "Matrix Descriptor Format"): a 64-bit value naming a tile
// of a wgmma operand in shared memory. Bits 0-13: start address >> 4; 16-29: leading-dimension
// byte offset (LBO) >> 4; 32-45: stride-dimension byte offset (SBO) >> 4; 49-51: base offset
// (0: our tiles are 1024-byte aligned); 62-63: swizzle mode (1: 128B, 2: 64B, 3: 32B).
//
// Our tiles are smem_swizzle.ts's: [R, C] with C contiguous, column blocks S bytes wide at
// b*R*S, row r of a block at r*S (16-byte chunks XORed with r % 8). For an operand of the
// instruction (its MN rows and K columns):
//   K-major  (tile [MN, K]: A, or B staged as [N, K]): 8-row core-matrix groups along MN are
//            SBO = 8*S apart; a k-slice of the instruction (32 bytes) stays inside one column
//            block, so LBO is not used (set to 1, as CUTLASS does). Element (mn, k) of a
//            slice starting at (mn0, k0) sits at blk(k0)*R*S + mn0*S + k0*eb%S + ...
//   MN-major (tile [K, MN]: a 16-bit B as loaded, [K, N]; imm-trans 1): 8-row groups along K
//            are SBO = 8*S apart, column blocks along MN LBO = R*S apart.
// A k-step or an m/n block is the same descriptor plus a constant (start address >> 4): every
// offset is a multiple of 16 bytes and stays below the 14-bit field, so a 64-bit add moves it.
import type { Lowering } from '../context.js';
import type { SwizzleBytes } from '../smem/smem_swizzle.js';

/** The descriptor's swizzle-mode field for a swizzle width (0: interleaved, no swizzle). */
export const swizzleMode = (s: SwizzleBytes): number => (s === 128 ? 1 : s === 64 ? 2 : s === 32 ? 3 : 0);

/** A tile in shared memory as wgmma reads it (the StagedTile fields it needs). */
export interface SwizzledTile {
  readonly rows: number;
  readonly rowBytes: number;
  readonly swizzle: SwizzleBytes;
}

/** LBO and SBO (bytes) of a tile read K-major (`mnMajor` false) or MN-major. */
export function strideBytes(t: SwizzledTile, mnMajor: boolean): { lbo: number; sbo: number } {
  return mnMajor ? { lbo: t.rows * t.swizzle, sbo: 8 * t.swizzle } : { lbo: 16, sbo: 8 * t.swizzle };
}

/** The descriptor of a tile at shared address `addr` (a number: for tests and constants). */
export function encodeDesc(addr: number, lbo: number, sbo: number, s: SwizzleBytes): bigint {
  const f = (x: number): bigint => BigInt((x >> 4) & 0x3fff);
  return f(addr) | (f(lbo) << 16n) | (f(sbo) << 32n) | (BigInt(swizzleMode(s)) << 62n);
}

/**
 * Byte offset, from the tile base, of the slice whose first element is (mn0, k0) (element
 * indices of the operand: rows of A / columns of B, and k). mn0 of an MN-major slice and k0 of a
 * K-major one start a 16-byte chunk (instruction blocks and k-steps are aligned so).
 */
export function sliceOffset(t: SwizzledTile, mnMajor: boolean, mn0: number, k0: number, eb: number): number {
  const [r, cb] = mnMajor ? [k0, mn0 * eb] : [mn0, k0 * eb];
  const S = t.swizzle;
  return Math.floor(cb / S) * t.rows * S + r * S + (cb % S);
}

/** Emits a b64 register with the descriptor of the tile at b32 shared address `addr`. */
export function emitDesc(cx: Lowering, addr: string, t: SwizzledTile, mnMajor: boolean, emit: (s: string) => void = (s) => cx.emit(s)): string {
  const { lbo, sbo } = strideBytes(t, mnMajor);
  const lo = cx.reg('b32'), hi = cx.reg('b32'), d = cx.reg('b64');
  emit(`bfe.u32 ${lo}, ${addr}, 4, 14;`);
  emit(`or.b32 ${lo}, ${lo}, ${(lbo >> 4) << 16};`);
  emit(`mov.u32 ${hi}, 0x${(((sbo >> 4) | (swizzleMode(t.swizzle) << 30)) >>> 0).toString(16)};`);
  emit(`mov.b64 ${d}, {${lo}, ${hi}};`);
  return d;
}

/** `desc` moved by `bytes` (a multiple of 16): a new register, or desc itself for 0. */
export function descPlus(cx: Lowering, desc: string, bytes: number): string {
  if (bytes === 0) return desc;
  const d = cx.reg('b64');
  cx.emit(`add.s64 ${d}, ${desc}, ${bytes >> 4};`);
  return d;
}
