// Tile configs of the attention ops per target (see tuning.ts: first fitting entry wins).
import type { DType } from '../ir/types.js';
import type { TuningTable } from './tuning.js';

export interface AttentionProblem { readonly T: number; readonly Dh: number; readonly dtype: DType }
export type AttentionConstexprs = { BM: number; BN: number };

/**
 * Prefill: BM query rows x BN keys per step. Short prompts take 16-row tiles (fewer masked rows);
 * Dh 128 keeps BN at 32 so S, P and the [BM, Dh] accumulator stay in registers; f32 (exact FMA,
 * no tensor cores) keeps tiles small. sm_90a takes larger tiles where wgmma's 64-row shape fits.
 */
export const ATTENTION_TUNING: TuningTable<AttentionConstexprs, AttentionProblem> = {
  sm_80: [
    { constexprs: { BM: 16, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.T <= 16 },
    { constexprs: { BM: 32, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.dtype === 'f32' || p.T <= 64 },
    { constexprs: { BM: 64, BN: 32 }, numWarps: 4, numStages: 3, fits: (p) => p.Dh > 64 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 4, numStages: 3 },
  ],
  sm_90a: [
    { constexprs: { BM: 16, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.T <= 16 },
    { constexprs: { BM: 32, BN: 32 }, numWarps: 4, numStages: 2, fits: (p) => p.dtype === 'f32' || p.T <= 64 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 4, numStages: 3, fits: (p) => p.Dh > 64 },
    { constexprs: { BM: 128, BN: 64 }, numWarps: 8, numStages: 3, fits: (p) => p.T >= 512 },
    { constexprs: { BM: 64, BN: 64 }, numWarps: 4, numStages: 3 },
  ],
};
