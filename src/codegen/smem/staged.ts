// Dot operands that are already in shared memory: a ring that copies loads into shared memory
// (the cp.async ring of lower_pipeline.ts; on sm_90a a TMA ring) registers the tile a load's
// value sits in, and the tensor-core dot (lower_mma.ts, wgmma) reads it from there instead of
// storing registers first. The tile is in the swizzled layout of smem_swizzle.ts; the dot reads
// only these fields, never the ring's internals.
import type { Value } from '../../ir/ops.js';
import type { Lowering } from '../context.js';
import type { SwizzleBytes } from './smem_swizzle.js';

export interface StagedTile {
  /** A b32 register holding the shared-memory address of the tile (1024-aligned when swizzled). */
  readonly base: string;
  /** Rows of the stored tile and bytes per row (elements packed, no padding). */
  readonly rows: number;
  readonly rowBytes: number;
  /** Swizzle width (smem_swizzle.ts); 0: plain rows of rowBytes (rows narrower than 32 bytes). */
  readonly swizzle: SwizzleBytes;
  /** Stored as the transpose of the IR value (e.g. [N, K] for a [K, N] b). */
  readonly transposed: boolean;
  /**
   * Called by a reader once its reads of the tile are done (ldmatrix results are in registers;
   * for an asynchronous reader such as wgmma, once its wait_group covers them), before it
   * computes with them: the ring may then overwrite the stage (after a barrier), so the next
   * copies overlap the reader's math. Each (op, operand) that reads a ring tile calls it at
   * most once; a reader that never calls it leaves the ring to do that at the end of the loop
   * body: later, never wrong.
   */
  readonly release?: () => void;
}

const tiles = new WeakMap<Lowering, Map<number, StagedTile>>();

export function setStaged(cx: Lowering, v: Value, t: StagedTile | undefined): void {
  let m = tiles.get(cx);
  if (!m) tiles.set(cx, (m = new Map()));
  if (t) m.set(v.id, t);
  else m.delete(v.id);
}
export const stagedTile = (cx: Lowering, v: Value): StagedTile | undefined => tiles.get(cx)?.get(v.id);
