// What wgmma (sm_90a) and tcgen05.mma (sm_100a) share about their operands: both read A and B
// from swizzled shared tiles through descriptors, and both skip a +0 accumulator.
import type { Op, Value } from '../../ir/ops.js';
import type { Lowering } from '../context.js';
import { defsOf } from '../remat.js';
import type { StagedTile } from '../smem/staged.js';
import type { SwizzledTile } from './wgmma_desc.js';

/** A shared-memory operand: the tile, where it is (b32 shared address) and its major-ness. */
export interface SmemOperand {
  readonly tile: SwizzledTile & { readonly base: string };
  /** Stored MN-major ([K, MN]). */
  readonly mnMajor: boolean;
}

const defs = new WeakMap<Lowering, Map<number, Op>>();
/** Whether `v` is a constant +0 tile (zeros(...)): its value never needs to be materialised. */
export function zeroConst(cx: Lowering, v: Value): boolean {
  let m = defs.get(cx);
  if (!m) defs.set(cx, (m = defsOf(cx.func)));
  const d = m.get(v.id);
  if (d?.kind !== 'const') return false;
  const x = (d as Op<'const'>).attrs.value;
  return (x === 0 && !Object.is(x, -0)) || x === 0n;
}

/**
 * A staged tile (the pipeliner's ring) as the MMA `inst` reads it: A ([M, K] as loaded) is K-major
 * unless stored transposed; B ([K, N] as loaded) is MN-major unless stored transposed ([N, K]).
 */
export function stagedOperand(cx: Lowering, inst: string, t: StagedTile, isA: boolean, shape: readonly [number, number], eb: number): SmemOperand {
  if (!t.swizzle) cx.fail(`${inst} reads swizzled tiles only; the staged tile's ${t.rowBytes}-byte rows are not`);
  const [R, C] = t.transposed ? [shape[1], shape[0]] : shape;
  if (t.rows !== R || t.rowBytes !== C * eb) cx.fail(`${inst}: operand ${isA ? 'a' : 'b'} staged as ${t.rows} rows of ${t.rowBytes} bytes, expected [${R}, ${C}] of ${eb}-byte elements`);
  return { tile: { rows: t.rows, rowBytes: t.rowBytes, swizzle: t.swizzle, base: t.base }, mnMajor: isA ? t.transposed : !t.transposed };
}
