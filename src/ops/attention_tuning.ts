// Tile configs of the attention ops per target (see tuning.ts: the first fitting entry wins).
// Every entry a problem can pick assembles with ptxas for its target without register spills
// (test/ops/attention_ptxas.test.ts); the register figures below are ptxas's, f16, causal.
import type { DType } from '../ir/types.js';
import type { TuningTable } from './tuning.js';

export interface AttentionProblem { readonly T: number; readonly Dh: number; readonly dtype: DType }
export type AttentionConstexprs = { BM: number; BN: number };

/**
 * Prefill: BM query rows x BN keys per step. Short prompts take 16/32-row tiles (fewer masked
 * rows, more programs); f32 (exact FMA, no tensor cores) keeps 32-row tiles; Dh 256 takes 16x16
 * tiles (the [BM, Dh] accumulator and Q tile dominate). Larger tiles need 8 warps to stay in
 * registers: sm_80 Dh 128 at 64x32 (232 regs), Dh 64 at 64x64 (183); sm_90a Dh 128 at 64x64
 * (206), Dh 64 at 64x64 with 4 warps (185) and 128x64 with 8 (187) for long prompts.
 */
export const ATTENTION_TUNING: TuningTable<AttentionConstexprs, AttentionProblem> = {
  sm_80: [
    { constexprs: { BM: 16, BN: 16 }, numWarps: 4, numStages: 2, fits: (p) => p.Dh > 128 },
    { constexprs: { BM: 16, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.T <= 16 },
    { constexprs: { BM: 32, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.dtype === 'f32' || p.T <= 64 },
    { constexprs: { BM: 64, BN: 32 }, numWarps: 8, numStages: 2, fits: (p) => p.Dh > 64 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 8, numStages: 3 },
  ],
  sm_90a: [
    { constexprs: { BM: 16, BN: 16 }, numWarps: 4, numStages: 2, fits: (p) => p.Dh > 128 },
    { constexprs: { BM: 16, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.T <= 16 },
    { constexprs: { BM: 32, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.dtype === 'f32' || p.T <= 64 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 8, numStages: 2, fits: (p) => p.Dh > 64 },
    { constexprs: { BM: 128, BN: 64 }, numWarps: 8, numStages: 3, fits: (p) => p.T >= 512 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 4, numStages: 3 },
  ],
};

export interface DecodeProblem { readonly Dh: number; readonly dtype: DType }

/**
 * Decode (pagedAttention): one program per (sequence, query head) over [blockSize, Dh] page
 * tiles; the warps spread the tile. Spill-free choices per head dim (ptxas, 16-token pages).
 */
export const DECODE_TUNING: TuningTable<Record<string, never>, DecodeProblem> = {
  sm_80: [
    { constexprs: {}, numWarps: 4, fits: (p) => p.Dh <= 64 || p.Dh > 128 },
    { constexprs: {}, numWarps: 8 },
  ],
  sm_90a: [
    { constexprs: {}, numWarps: 4, fits: (p) => p.Dh <= 64 },
    { constexprs: {}, numWarps: 8 },
  ],
};
