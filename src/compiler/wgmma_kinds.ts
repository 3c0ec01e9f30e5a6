// Which wgmma.mma_async form a dot can use on sm_90a (PTX ISA "Asynchronous Warpgroup Level
// Matrix Multiply-Accumulate"), as data beside mma_kinds.ts: the same input/accumulator pairs as
// mma.sync (f16/bf16 k16, tf32 k8, s8/u8 k32; f16, f32 or s32 accumulators), an instruction N chosen
// per tile, and whether B may be read MN-major (imm-trans-b exists for 16-bit inputs only: tf32 and
// 8-bit B must sit K-major in shared memory, i.e. staged as [N, K]).
import { mmaKindOf, type MmaKind } from './mma_kinds.js';

export interface WgmmaKind extends MmaKind {
  /** B (and A) may be read MN-major through imm-trans (16-bit inputs only). */
  readonly transposable: boolean;
}

/** The wgmma form for a dot, or undefined when it has none (then mma.sync or FMA decide). */
export function wgmmaKindOf(ta: string, tb: string, tc: string, inputPrecision: string): WgmmaKind | undefined {
  const k = mmaKindOf(ta, tb, tc, inputPrecision);
  return k ? { ...k, transposable: k.bytes === 2 } : undefined;
}

/** Widest N of one instruction (the ISA's m64nNk* shapes go up to n256). */
export const WGMMA_MAX_N = 256;

/**
 * The instruction N for a tile N wide: the whole tile when it fits, else N split in equal
 * instructions of at most 256 columns. Undefined when no shape fits: N must be a multiple of 8
 * (8-bit inputs: of 16 above 32, the ISA's list).
 */
export function wgmmaN(N: number, kind: MmaKind): number | undefined {
  let n = N;
  while (n > WGMMA_MAX_N && n % 2 === 0) n /= 2;
  if (n > WGMMA_MAX_N || n < 8 || n % 8 !== 0) return undefined;
  if (kind.bytes === 1 && n > 32 && n % 16 !== 0) return undefined;
  return n;
}
