// A loop-invariant a operand of a tensor-core dot (Q in attention: loaded before the key loop)
// is staged and read into its mma fragments once, before the loop, instead of in every
// iteration (a staging store, two barriers and the ldmatrix per iteration), as Triton keeps Q in
// its dot-operand layout. The fragments stay in registers across the loop (TM · K/k · 4 of them:
// 16 for attention's 64 x 64 Q on 4 warps); past HOIST_MAX_REGS the dot stages as before.
import type { Op, Value } from '../../ir/ops.js';
import { definedInside } from '../../ir/walk.js';
import { isMmaLayout } from '../../compiler/layout.js';
import { dotInputPrecision, mmaKindOf, type MmaKind } from '../../compiler/mma_kinds.js';
import type { Lowering } from '../context.js';
import { aFragsInRegs, setPreloadedA } from './mma_a_regs.js';
import { aLanes, loadAFrag, storeStaged } from './lower_mma.js';
import { swizzleFor } from '../smem/smem_swizzle.js';

/** Fragment registers a hoisted a may hold across its loop. */
const HOIST_MAX_REGS = 32;

interface Hoist {
  readonly a: Value;
  readonly kind: MmaKind;
  readonly M: number;
  readonly K: number;
  readonly WM: number;
  readonly WN: number;
}

/** Whether dot `op` of `loop`'s body gets its a fragments before the loop (and how). */
function hoistOf(cx: Lowering, op: Op, inside: ReadonlySet<number>): Hoist | undefined {
  if (op.kind !== 'dot') return undefined;
  const [a, b] = op.operands as [Value, Value];
  if (inside.has(a.id) || a.type.shape.length !== 2) return undefined;
  const r = op.results[0]!;
  const L = cx.layoutOf(r);
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const kind = mmaKindOf(a.type.elem, b.type.elem, r.type.elem, dotInputPrecision(op));
  if (!kind || K % kind.k !== 0 || !isMmaLayout(L, M, N, cx.numWarps)) return undefined;
  const [WM, WN] = L.warpsPerCTA as [number, number];
  if (aFragsInRegs(cx, kind, a, WM)) return undefined; // already registers, no staging to save
  if ((M / (16 * WM)) * (K / kind.k) * 4 > HOIST_MAX_REGS) return undefined;
  return { a, kind, M, K, WM, WN };
}

/** Whether `loop`'s body dot `op` reads a from fragments loaded before the loop (no scratch in the loop). */
export const hoistsA = (cx: Lowering, op: Op, loop: Op): boolean => hoistOf(cx, op, definedInside(loop)) !== undefined;

/** Before `loop`: stages each hoistable a once and loads its fragments for the body's dots. */
export function hoistAFragments(cx: Lowering, loop: Op): void {
  const inside = definedInside(loop);
  for (const op of loop.regions[0]!.ops) {
    const h = hoistOf(cx, op, inside);
    if (!h || !cx.has(h.a)) continue;
    const { a, kind, M, K, WM, WN } = h;
    const rowBytes = K * kind.bytes;
    const g = { rows: M, rowBytes, swizzle: swizzleFor(rowBytes) };
    cx.needShared(M * rowBytes);
    const sm = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${sm}, ${cx.smemBase()};`);
    cx.emit(`// a of dot %${op.results[0]!.id}: fragments loaded once, before the loop`);
    cx.barrier();
    storeStaged(cx, a.type.elem, cx.regs(a), cx.layoutOf(a), [M, K], g, sm, 0);
    cx.barrier();
    const at = aLanes(cx, WM, WN, g, undefined, () => sm);
    const frags: string[][][] = [];
    for (let t = 0; t < M / (16 * WM); t++) {
      const row: string[][] = [];
      for (let kk = 0; kk < K / kind.k; kk++) row.push(loadAFrag(cx, kind, at, WM, t, kk));
      frags.push(row);
    }
    setPreloadedA(cx, op, frags);
  }
}
