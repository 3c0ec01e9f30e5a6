// Ring tiles whose stage slot holds half of their TMA boxes: B of a 2-CTA pair (tcgen05_pair.ts).
// Each CTA of the pair loads N/2 of B's columns into the first half of B's box slots, and the pair
// MMA reads a K x N/2 matrix at the B descriptor's address in each CTA, so the other half of the
// slot is never written nor read: the stage gives B half its bytes (planTmaRings lays out the
// tiles after it from there). Decided (tcgen05_pair.ts planTwoCta) before any ring is planned.
import type { Op } from '../../ir/ops.js';
import type { Lowering } from '../context.js';
import type { TileGeometry } from '../async/tensor_map.js';

const halved = new WeakMap<Lowering, Set<Op>>();

/** From now on, `load`'s slot in its ring's stages holds half of its boxes (an even count). */
export function halveSlot(cx: Lowering, load: Op): void {
  if (!halved.has(cx)) halved.set(cx, new Set());
  halved.get(cx)!.add(load);
}

/** The bytes `load` (geometry `g`) takes in a stage. */
export const slotBytes = (cx: Lowering, load: Op, g: TileGeometry): number => (halved.get(cx)?.has(load) ? g.bytes / 2 : g.bytes);
