// The A operand of a 16-bit tensor-core dot straight from registers, when it is already held in
// an mma accumulator layout (typically the cast of a previous dot's accumulator: P in attention,
// FlashAttention-2's trick), so it needs no shared-memory round trip.
//
// PTX ISA fragments of mma.m16n8k16 (lane = 4g + t): the C/D tile m16n8 gives the lane (c0,c1) =
// row g, columns 2t, 2t+1 and (c2,c3) = row g+8, same columns; the A tile m16k16 (.f16x2/.bf16x2)
// gives a0 = row g, k 2t..2t+1, a1 = row g+8, k 2t..2t+1, a2 = row g, k 8+2t..9+2t, a3 = row g+8,
// k 8+2t..9+2t. So the A fragment of k-step kk is the C fragments of the two n8 tiles 2kk and
// 2kk+1, each pair packed into one b32. That holds when the warp owns whole rows of the operand
// (warp grid WM x 1, the same WM as the dot: then m16 tile t of both covers the same rows, local
// offsets 16*WM*t and 16*WM*t + 8*WM) - compiler/mma_warps.ts puts chained dots' warps along M.
import type { Op, Value } from '../../ir/ops.js';
import type { MmaKind } from '../../compiler/mma_kinds.js';
import { isMmaLayout, regSlots } from '../../compiler/layout.js';
import type { Lowering } from '../context.js';

/**
 * The A fragments (4 b32 registers of m16 tile t at k-step kk) read from `a`'s registers, or
 * undefined when a is not in an mma layout with warps [WM, 1] (the caller stages it instead).
 */
export function aFragsInRegs(cx: Lowering, kind: MmaKind, a: Value, WM: number): ((t: number, kk: number) => string[]) | undefined {
  const [M, K] = a.type.shape as [number, number];
  const L = cx.layoutOf(a);
  if (kind.bytes !== 2 || kind.k !== 16 || !isMmaLayout(L, M, K, cx.numWarps) || L.warpsPerCTA[0] !== WM || L.warpsPerCTA[1] !== 1) return undefined;
  const regs = cx.regs(a);
  const reg = (i: number): string => regs[regs.length === 1 ? 0 : i]!; // a splat holds one register
  const at = new Map(regSlots(L, [M, K]).map((s, i) => [`${s.off[0]},${s.off[1]}`, i]));
  // columns c, c+1 of local row r, packed (first in the low half); sizePerThread [1, 2] keeps both in the thread
  const pack = (r: number, c: number): string => {
    const lo = reg(at.get(`${r},${c}`)!), hi = reg(at.get(`${r},${c + 1}`)!);
    // a pair converted together (lower_cast.ts castPairs) is already that word
    const had = cx.wordOf(lo, hi);
    if (had) return had;
    const w = cx.reg('b32');
    cx.emit(`mov.b32 ${w}, {${lo}, ${hi}};`);
    return w;
  };
  return (t, kk) => {
    const r0 = 2 * t * 8 * WM, r1 = (2 * t + 1) * 8 * WM;
    return [pack(r0, 16 * kk), pack(r1, 16 * kk), pack(r0, 16 * kk + 8), pack(r1, 16 * kk + 8)];
  };
}

const preloaded = new WeakMap<Lowering, Map<Op, string[][][]>>();
/** Records a dot's a fragments, loaded before its loop (mma_a_hoist.ts): frags[t][kk]. */
export function setPreloadedA(cx: Lowering, op: Op, frags: string[][][]): void {
  let m = preloaded.get(cx);
  if (!m) preloaded.set(cx, (m = new Map()));
  m.set(op, frags);
}
/** The a fragments of `op` loaded before its loop, if any, as aFragsInRegs gives them. */
export function preloadedA(cx: Lowering, op: Op): ((t: number, kk: number) => string[]) | undefined {
  const f = preloaded.get(cx)?.get(op);
  return f ? (t, kk) => f[t]![kk]! : undefined;
}
