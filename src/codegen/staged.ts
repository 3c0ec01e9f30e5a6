// Dot operands that are already in shared memory in the dot's staged layout (row-major, rows
// padded to lower_mma's `paddedPitch`): the pipeliner's cp.async ring (lower_pipeline.ts) registers the
// stage a load's tile sits in, and the tensor-core dot (lower_mma.ts) reads it from there
// instead of storing registers first.
import type { Value } from '../ir/ops.js';
import type { Lowering } from './context.js';

export interface StagedTile {
  /** A b32 register holding the shared-memory address of the tile's first row. */
  readonly base: string;
}

const tiles = new WeakMap<Lowering, Map<number, StagedTile>>();

export function setStaged(cx: Lowering, v: Value, t: StagedTile | undefined): void {
  let m = tiles.get(cx);
  if (!m) tiles.set(cx, (m = new Map()));
  if (t) m.set(v.id, t);
  else m.delete(v.id);
}
export const stagedTile = (cx: Lowering, v: Value): StagedTile | undefined => tiles.get(cx)?.get(v.id);
