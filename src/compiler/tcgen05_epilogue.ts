// The tcgen05 epilogue's stores (sm_100a): store C straight from the layout `tcgen05.ld` reads the
// accumulator back in, instead of converting it through a shared scratch to the store's
// coalesced layout first (what Triton's cc 100 epilogue does too).
//
// In that layout (tcgen05_kinds.ts) every thread holds consecutive columns of one row
// (spt [1, N/Wn]; M = 64: half a row), so where memory is contiguous along the columns:
//  - a pointer store writes each thread's row segment in vectors of the width AxisInfo proved
//    (st.global.v4 of 16 bytes, masked per row and column at ragged edges). From a row per thread
//    a warp's store touches 32 rows, 16 bytes each: a 32-byte sector is written in two halves by
//    two instructions, so a dot only stored that way is read back in the sector layout instead
//    (tcgen05_sector_layout.ts, tcgen05_sector_dots.ts: lanes t and t + 16 hold a sector's two
//    halves), which this anchor takes too. Either way the conversion saved is a st.shared /
//    bar.sync / ld.shared round trip through a BM x BN scratch. Narrower vectors (a mask AxisInfo
//    cannot prove uniform over 16 bytes, unaligned rows) would write 4-8 times the sectors: those
//    stores keep the conversion;
//  - a descriptor (TMA) store writes each row's 16-byte chunks into the swizzled staging tile
//    (codegen/async/lower_tma.ts, generic path): lanes hold 32 consecutive rows, which the 128-byte
//    swizzle spreads over all 8 chunk positions, so a warp's v4 store is 4 wavefronts, the minimum.
// The conversion stays where the store needs another distribution: memory contiguous along the
// rows (a transposed C), pointer stores narrower than 16 bytes, values that are not the
// accumulator (reductions, other layouts).
import type { Op, Value } from '../ir/ops.js';
import { descOperands } from '../ir/tensor_desc.js';
import { byteSize, pointee, type PtrType } from '../ir/types.js';
import { layoutKey, type Layout } from './layout.js';
import { isTcgen05AccLayout } from './tcgen05_sector_layout.js';

/** The value a store writes (pointer or descriptor store), else undefined. */
export function storedValue(op: Op): Value | undefined {
  if (op.kind === 'store') return op.operands[1];
  if (op.kind === 'desc_store') return descOperands(op as Op<'desc_store'>).value;
  return undefined;
}

/**
 * The anchor a store takes instead of `anchor` so that its value, held in a tcgen05 accumulator
 * layout (`valueLayout`), is stored without a conversion; undefined where it keeps `anchor`
 * (already that layout, not such a value, memory not contiguous along the columns, or a pointer
 * store whose `vec` elements are narrower than 16 bytes).
 */
export function tcgen05StoreAnchor(op: Op, valueLayout: Layout, anchor: Layout, vec: number, numWarps: number): Layout | undefined {
  const v = storedValue(op);
  if (!v || v.type.shape.length !== 2) return undefined;
  if (op.kind === 'store' && vec * byteSize(pointee(op.operands[0]!.type.elem as PtrType)) < 16) return undefined;
  const [M, N] = v.type.shape as [number, number];
  if (!isTcgen05AccLayout(valueLayout, M, N, numWarps)) return undefined;
  if (anchor.kind !== 'blocked' || layoutKey(anchor) === layoutKey(valueLayout)) return undefined;
  // the anchor's fastest dim is the pointer's most contiguous one: a thread's columns must be it
  if (anchor.order[0] !== 1) return undefined;
  return valueLayout;
}
