// The swizzled shared-memory tile: the one layout every operand staged for a tensor core uses
// (ldmatrix on sm_80, wgmma descriptors and TMA boxes on sm_90a), so a tile written by cp.async,
// st.shared or TMA reads the same through any of them. It is the hardware's pattern (PTX ISA,
// "tensor copy swizzling modes" and the wgmma canonical layouts), written once here.
//
// A tile [R, C] of `eb`-byte elements, C contiguous (rowBytes = C * eb), is cut into column
// blocks S bytes wide (S = 128, 64 or 32: swizzleFor). Block b holds bytes [b*S, (b+1)*S) of
// every row and sits at b * R * S; inside a block row r starts at r * S. A logical offset o in
// a block is stored at o ^ (((o >> 7) & (S/16 - 1)) << 4): the 16-byte chunk index is XORed
// with the row's position in its 8-row (1024/512/256-byte) repeat, so the 8 rows an ldmatrix
// phase or a wgmma core matrix reads fall in 8 different bank groups.
//
//   S = 128:  row 0 | c0 c1 c2 c3 c4 c5 c6 c7 |      one TMA box per block (box inner = S bytes),
//             row 1 | c1 c0 c3 c2 c5 c4 c7 c6 |      the same bytes CU_TENSOR_MAP_SWIZZLE_128B
//             row 2 | c2 c3 c0 c1 c6 c7 c4 c5 |      writes; a K-major wgmma descriptor reads it
//             ...                                     with SBO = 8 * S (one 8-row group)
//
// Tiles start 1024-byte aligned and R is a multiple of 8, so every block is whole repeats.

/** Swizzle width in bytes (0: none, rows too narrow to swizzle). */
export type SwizzleBytes = 0 | 32 | 64 | 128;

/** Base alignment of a swizzled tile in shared memory (the 128-byte pattern's repeat). */
export const SWIZZLE_ALIGN = 1024;

/** The widest swizzle whose width divides a row of `rowBytes` bytes. */
export function swizzleFor(rowBytes: number): SwizzleBytes {
  for (const s of [128, 64, 32] as const) if (rowBytes % s === 0) return s;
  return 0;
}

/** XOR mask applied to 16-byte chunk indices for swizzle width `s` (the rows of one repeat). */
export const chunkMask = (s: SwizzleBytes): number => (s === 0 ? 0 : s / 16 - 1);

/** Physical byte offset inside a block of the logical block offset `o` (S-byte rows). */
export const swizzleInBlock = (o: number, s: SwizzleBytes): number => o ^ (((o >> 7) & chunkMask(s)) << 4);

/**
 * Byte offset from the tile base of element byte `cByte` of row `r`, for a tile of `rows` rows
 * swizzled `s` bytes wide (s = 0: plain row-major with `rowBytes`-byte rows).
 */
export function swizzledOffset(r: number, cByte: number, rows: number, rowBytes: number, s: SwizzleBytes): number {
  if (s === 0) return r * rowBytes + cByte;
  const b = Math.floor(cByte / s);
  return b * rows * s + swizzleInBlock(r * s + (cByte % s), s);
}

/** Bytes a swizzled tile occupies (no padding: R * rowBytes). */
export const swizzledTileBytes = (rows: number, rowBytes: number): number => rows * rowBytes;
