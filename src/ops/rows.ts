// The launch shape of the row-wise ops (norms, softmax, argmax/sampling): one program per row,
// the row walked in chunks of BLOCK columns (so any row length works with a bounded tile), BLOCK
// and warps from the per-target table by row length.
import type { Device } from '../runtime/device.js';
import { pick, pow2, type TuningTable } from './tuning.js';

export interface RowProblem { readonly cols: number }
type RowConstexprs = { BLOCK: number };

/** Chunk sizes per target: short rows in one chunk of 1-4 warps, long rows in 4096-column chunks of 8 warps. */
export const ROW_TUNING: TuningTable<RowConstexprs, RowProblem> = {
  sm_80: [
    { constexprs: { BLOCK: 256 }, numWarps: 1, fits: (p) => p.cols <= 256 },
    { constexprs: { BLOCK: 1024 }, numWarps: 4, fits: (p) => p.cols <= 1024 },
    { constexprs: { BLOCK: 2048 }, numWarps: 8, fits: (p) => p.cols <= 2048 },
    { constexprs: { BLOCK: 4096 }, numWarps: 8 },
  ],
  sm_90a: [
    { constexprs: { BLOCK: 256 }, numWarps: 1, fits: (p) => p.cols <= 256 },
    { constexprs: { BLOCK: 1024 }, numWarps: 4, fits: (p) => p.cols <= 1024 },
    { constexprs: { BLOCK: 4096 }, numWarps: 8, fits: (p) => p.cols <= 4096 },
    { constexprs: { BLOCK: 8192 }, numWarps: 16 },
  ],
};

/** The row config, with BLOCK shrunk to the row's power of two when the row is shorter (no idle lanes). */
export function rowConfig(device: Device, cols: number): { BLOCK: number; numWarps: number } {
  const c = pick(ROW_TUNING, device, { cols });
  const BLOCK = Math.max(16, Math.min(c.constexprs.BLOCK, pow2(cols)));
  return { BLOCK, numWarps: Math.max(1, Math.min(c.numWarps, BLOCK / 128)) };
}
