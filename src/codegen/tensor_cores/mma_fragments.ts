// Per-dtype pieces of the tensor-core dot (lower_mma.ts): shared-memory pitches of the staged
// operands, tf32 rounding of fragments (shared memory holds raw f32), and the b fragment loads.
//
// a is the same for every kind: staged row-major [M, K], an m16 x (32 bytes of k) fragment is one
// ldmatrix.x4 (b16 view). The PTX ISA fragments of f16 (k16), tf32 (k8) and s8/u8 (k32) all give
// lane 4g+t the 4 bytes at byte column 4t of rows g and g+8, then the same at byte column 16+4t,
// which is exactly what the four 8x8 b16 matrices of ldmatrix deliver (lane l gets row l>>2,
// bytes 4(l&3)..+3). So the address math is shared and a k-step always reads 32 bytes of a row.
//
// b needs, per lane 4g+t, consecutive k for one column n = g: a k-major fragment.
// - 16-bit: ldmatrix.x4.trans on row-major [K, N] (two n8 tiles per instruction).
// - tf32: b0 = B[t][g], b1 = B[t+4][g]: scalar ld.shared.f32 from row-major [K, N]. ldmatrix
//   .trans would transpose 16-bit halves of the 32-bit elements, so it cannot be used (Triton
//   also loads 32-bit transposed operands element by element). With a row pitch of P words,
//   P % 32 in {8, 24}, the 32 lanes hit banks 8t+g (or 24t+g): all distinct, no conflicts.
// - s8/u8: register r byte e = B[4t+e+16r][g]: ld.shared.u8 + prmt packing. Four lanes with
//   the same t read one word (g = 0..3 or 4..7), so a warp touches 8 words at t*P + {0,1}
//   (P in bytes); P % 32 in {8, 24} keeps them in 8 distinct banks.
// Staging b row-major keeps its stores vectorized along n (st.shared.v4/v2.b32).
import { isFp8, type ElemType } from '../../ir/types.js';
import type { MmaKind } from '../../compiler/mma_kinds.js';
import { addrStr, type Lowering } from '../context.js';

/** Bytes of an element staged for the mma (packed: 1 for i8/u8/fp8, 2 for f16/bf16, 4 for tf32). */
export const stagedBytes = (t: ElemType): number => (t === 'i8' || t === 'u8' || isFp8(t) ? 1 : t === 'f32' ? 4 : 2);

/** Smallest pitch >= `bytes` whose value mod 32 `unit`s is 8 or 24 (see the header). */
function scalarPitch(bytes: number, unit: number): number {
  let p = Math.ceil(bytes / unit);
  while (p % 32 !== 8 && p % 32 !== 24) p++;
  return p * unit;
}

/** Row pitch in bytes of the b [K, N] staged for scalar loads (tf32, s8/u8): plain padded rows. */
export const scalarBPitch = (kind: MmaKind, N: number): number => (kind.bytes === 4 ? scalarPitch(N * 4, 4) : scalarPitch(N, 1));

/** f32 registers rounded to tf32 (cvt.rna: to nearest, ties away from zero; low 13 bits zero). */
export function tf32Regs(cx: Lowering, regs: string[]): string[] {
  return regs.map((r) => {
    const d = cx.reg('b32');
    cx.emit(`cvt.rna.tf32.f32 ${d}, ${r};`);
    return d;
  });
}

/** Per-lane base address of the scalar b loads: bOff + rowsPerT*t*P + (8*wn + g)*bytes. */
export function bScalarLane(cx: Lowering, kind: MmaKind, lane: string, wn: string, pitch: number, bOff: string): string {
  const P = (s: string): void => cx.e.emitPrologue(s);
  const t = cx.reg('b32'), g = cx.reg('b32'), a = cx.reg('b32');
  P(`and.b32 ${t}, ${lane}, 3;`);
  P(`shr.u32 ${g}, ${lane}, 2;`);
  P(`mad.lo.u32 ${g}, ${wn}, 8, ${g};`);
  P(`mul.lo.u32 ${a}, ${g}, ${kind.bytes};`);
  P(`mad.lo.u32 ${a}, ${t}, ${(kind.bytes === 1 ? 4 : 1) * pitch}, ${a};`);
  P(`add.u32 ${a}, ${a}, ${bOff};`);
  return a;
}

/**
 * b fragment registers of n8 tile j (columns 8*wn + 8*WN*j) at k-step kk, for the scalar kinds
 * (tf32: 2 words, rounded from the staged f32; s8/u8: 2 words of 4 packed bytes). `lane` is
 * bScalarLane's address.
 */
export function loadScalarB(cx: Lowering, kind: MmaKind, lane: string, pitch: number, kk: number, j: number, WN: number): string[] {
  const col = j * 8 * WN * kind.bytes;
  if (kind.bytes === 4) {
    const raw = [0, 4].map((dk) => {
      const r = cx.reg('f32');
      cx.emit(`ld.shared.f32 ${r}, ${addrStr({ reg: lane, imm: (kk * 8 + dk) * pitch + col })};`);
      return r;
    });
    return tf32Regs(cx, raw);
  }
  return [0, 16].map((dk) => {
    const bytes = [0, 1, 2, 3].map((e) => {
      const r = cx.reg('b32');
      cx.emit(`ld.shared.u8 ${r}, ${addrStr({ reg: lane, imm: (kk * 32 + dk + e) * pitch + col })};`);
      return r;
    });
    return packBytes(cx, bytes);
  });
}

/** One b32 from the low bytes of four registers (first register in the lowest byte). */
export function packBytes(cx: Lowering, b: string[]): string {
  const lo = cx.reg('b32'), hi = cx.reg('b32'), w = cx.reg('b32');
  cx.emit(`prmt.b32 ${lo}, ${b[0]}, ${b[1]}, 0x0040;`);
  cx.emit(`prmt.b32 ${hi}, ${b[2]}, ${b[3]}, 0x0040;`);
  cx.emit(`prmt.b32 ${w}, ${lo}, ${hi}, 0x5410;`);
  return w;
}
