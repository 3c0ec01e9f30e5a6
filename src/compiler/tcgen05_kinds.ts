// Which tcgen05.mma form a dot can use on sm_100a (PTX ISA "TensorCore 5th Generation Family
// Instructions"), and the register layout its accumulator comes back to registers in.
//
// The accumulator lives in tensor memory (TMEM): row m of an M = 128 tile is TMEM lane m, column n
// is column n of the allocation. A warp may read only its lane quarter (lanes 32*(w%4) .. +31),
// so the epilogue's `tcgen05.ld.32x32b` gives thread t of warp w row 32*(w%4) + t, and with 8
// warps, warps 4..7 take the second half of the columns. As a blocked layout: spt [1, N/Wn],
// tpw [32, 1], wpc [4, Wn], order [0, 1] (warp bits along M first, so w%4 is the quarter).
// M = 64 (4 warps): row m is TMEM lane 32*(m/16) + m%16, so warp w holds rows 16w..16w+15 and
// reads them with `tcgen05.ld.16x32bx2` (lanes t and t+16 share a row, the second half of the
// columns to t >= 16): spt [1, N/2], tpw [16, 2], wpc [4, 1], order [0, 1].
//
// The forms are mma.sync's (mma_kinds.ts: f16/bf16 k16, tf32 k8, e4m3/e5m2 and s8/u8 k32), with
// 32-bit accumulators (f32; s32 for integers) or f16 ones for f16 and fp8 inputs (D type f16:
// each value in the low 16 bits of its TMEM cell, as the ISA packs matrix D; the MMA rounds to f16
// once per instruction, K 16 or 32 products, as mma.sync does).
// Operands are read from shared memory through sm_100 descriptors like wgmma's, so the same
// staging rule holds for what is stored from registers: only 16-bit operands are stored MN-major
// (transposable). tcgen05 also reads 8-bit stages MN-major (the cp.async ring's: ring_8bit_tcgen05.ts).
import { layoutKey, type BlockedLayout, type Layout } from './layout.js';
import { wgmmaKindOf, type WgmmaKind } from './wgmma_kinds.js';
import { isPow2 } from '../ir/types.js';

/** The instruction's kind qualifier and its A/B type codes in the instruction descriptor. */
export interface Tcgen05Kind extends WgmmaKind {
  readonly kindName: 'f16' | 'tf32' | 'f8f6f4' | 'i8';
}

const KIND_NAME: Readonly<Record<WgmmaKind['input'], Tcgen05Kind['kindName']>> = {
  f16: 'f16', bf16: 'f16', tf32: 'tf32', e4m3: 'f8f6f4', e5m2: 'f8f6f4', s8: 'i8', u8: 'i8',
};

/** The tcgen05 form for a dot, or undefined (then mma.sync or FMA decide). */
export function tcgen05KindOf(ta: string, tb: string, tc: string, inputPrecision: string): Tcgen05Kind | undefined {
  const k = wgmmaKindOf(ta, tb, tc, inputPrecision);
  if (!k) return undefined;
  // 32-bit accumulators, or f16 accumulated in f16 (f16 and fp8 inputs: D type f16, one value a TMEM cell)
  const native = (k.acc === 'f32' && tc === 'f32') || (k.acc === 's32' && (tc === 'i32' || tc === 'u32')) || (k.acc === 'f16' && tc === 'f16');
  if (!native) return undefined;
  return { ...k, kindName: KIND_NAME[k.input] };
}

/** Widest N of one instruction. */
export const TCGEN05_MAX_N = 256;

/** The accumulator's register layout for an [M, N] tile on numWarps warps (undefined: no form). */
export function tcgen05Layout(M: number, N: number, numWarps: number): BlockedLayout | undefined {
  if (M === 64 && numWarps === 4) {
    if (!isPow2(N) || N < 16 || N > TCGEN05_MAX_N) return undefined;
    return { kind: 'blocked', sizePerThread: [1, N / 2], threadsPerWarp: [16, 2], warpsPerCTA: [4, 1], order: [0, 1] };
  }
  if (M !== 128 || (numWarps !== 4 && numWarps !== 8)) return undefined;
  const wn = numWarps / 4;
  // the whole accumulator comes back to registers: at most 128 per thread (N = 256 takes 8 warps)
  if (!isPow2(N) || N < 16 || N > TCGEN05_MAX_N || N / wn > 128) return undefined;
  return { kind: 'blocked', sizePerThread: [1, N / wn], threadsPerWarp: [32, 1], warpsPerCTA: [4, wn], order: [0, 1] };
}

export function isTcgen05Layout(l: Layout, M: number, N: number, numWarps: number): l is BlockedLayout {
  const t = tcgen05Layout(M, N, numWarps);
  return !!t && layoutKey(l) === layoutKey(t);
}

/**
 * The tcgen05 accumulator layout for a dot a[M,K] x b[K,N] -> [M,N], or undefined: no form for
 * the dtypes, K not a multiple of the k-step, M not 128 (or 64 on 4 warps), N not a power of two in 16..256, or
 * operand rows narrower than the 32-byte swizzle (a's K, a 16-bit b's N).
 */
export function tcgen05LayoutForDot(M: number, N: number, K: number, ta: string, tb: string, tc: string, numWarps: number, inputPrecision = 'ieee'): BlockedLayout | undefined {
  const kind = tcgen05KindOf(ta, tb, tc, inputPrecision);
  if (!kind || K % kind.k !== 0) return undefined;
  if ((K * kind.bytes) % 32 !== 0 || (kind.transposable && (N * kind.bytes) % 32 !== 0)) return undefined;
  return tcgen05Layout(M, N, numWarps);
}
