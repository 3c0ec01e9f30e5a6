// A loop-invariant 16-bit A operand of a wgmma dot (Q in attention: loaded before the key loop)
// is staged once, before the loop, and read into wgmma's register-A fragments there, so the loop
// neither stores it nor synchronizes for it; the dot then uses the register-A form (as Triton
// keeps Q in registers for Hopper's flash attention). The fragment of m64 block i, k-step kk for
// warp w is one ldmatrix.x4 of rows 16*W*i + 16w .. +15 (warpgroup 1 of 8 warps included: its
// rows are 64 further, 16w still) and 32 bytes of k: matrices (rows 0-7, k 0-7), (8-15, 0-7),
// (0-7, 8-15), (8-15, 8-15) = registers a0..a3 of the PTX ISA's register-A fragment. Past
// HOIST_MAX_REGS fragment registers the dot stages A in every iteration as before.
import type { Op, Value } from '../../ir/ops.js';
import { definedInside } from '../../ir/walk.js';
import { isWgmmaLayout } from '../../compiler/layout.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { wgmmaKindOf } from '../../compiler/wgmma_kinds.js';
import { addrStr, type Lowering } from '../context.js';
import { laneCoords, ldmatrixLanes, storeStaged } from './lower_mma.js';
import { swizzleFor } from '../smem/smem_swizzle.js';

/** Fragment registers a hoisted A may hold across its loop. */
const HOIST_MAX_REGS = 32;

const preloaded = new WeakMap<Lowering, Map<Op, string[][][]>>();
/** The register-A fragments [m64 block][k-step] loaded for dot `op` before its loop, if any. */
export const preloadedWgmmaA = (cx: Lowering, op: Op): string[][][] | undefined => preloaded.get(cx)?.get(op);

/** Whether dot `op` of a loop body (values `inside` defined in it) gets its A before the loop. */
function hoistable(cx: Lowering, op: Op, inside: ReadonlySet<number>): boolean {
  if (op.kind !== 'dot' || cx.target !== 'sm_90a') return false;
  const [a, b] = op.operands as [Value, Value];
  if (inside.has(a.id) || a.type.shape.length !== 2) return false;
  const r = op.results[0]!;
  const [M, K] = a.type.shape as [number, number];
  const kind = wgmmaKindOf(a.type.elem, b.type.elem, r.type.elem, dotInputPrecision(op));
  if (!kind || kind.bytes !== 2 || K % kind.k !== 0 || !isWgmmaLayout(cx.layoutOf(r), M, cx.numWarps)) return false;
  if (isWgmmaLayout(cx.layoutOf(a), M, cx.numWarps)) return false; // already registers
  return (M / (16 * cx.numWarps)) * (K / kind.k) * 4 <= HOIST_MAX_REGS;
}

/** Whether `loop`'s body dot `op` reads A from fragments loaded before the loop (no scratch in the loop). */
export const hoistsWgmmaA = (cx: Lowering, op: Op, loop: Op): boolean => hoistable(cx, op, definedInside(loop));

/** Before `loop`: stages each hoistable A once and loads its register-A fragments. */
export function hoistWgmmaA(cx: Lowering, loop: Op): void {
  const inside = definedInside(loop);
  for (const op of loop.regions[0]!.ops) {
    if (!hoistable(cx, op, inside) || !cx.has(op.operands[0]!)) continue;
    const a = op.operands[0]!;
    const [M, K] = a.type.shape as [number, number];
    const W = cx.numWarps;
    const rowBytes = K * 2;
    const g = { rows: M, rowBytes, swizzle: swizzleFor(rowBytes) };
    cx.needShared(M * rowBytes);
    const sm = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${sm}, ${cx.smemBase()};`);
    cx.emit(`// A of wgmma dot %${op.results[0]!.id}: register fragments loaded once, before the loop`);
    cx.barrier();
    storeStaged(cx, a.type.elem, cx.regs(a), cx.layoutOf(a), [M, K], g, sm, 0);
    cx.barrier();
    // lane row 16*warp + (lane&7) + 8*((lane>>3)&1), byte column 16*(lane>>4)
    const { warp } = cx.thread();
    const { rr, t0, t1 } = laneCoords(cx, 1);
    const row = cx.reg('b32'), col = cx.reg('b32');
    cx.e.emitPrologue(`mad.lo.u32 ${row}, ${t0}, 8, ${rr};`);
    cx.e.emitPrologue(`mad.lo.u32 ${row}, ${warp}, 16, ${row};`);
    cx.e.emitPrologue(`shl.b32 ${col}, ${t1}, 4;`);
    const at = ldmatrixLanes(cx, g, row, col, 32, undefined, () => sm);
    const frags: string[][][] = [];
    for (let i = 0; i < M / (16 * W); i++) {
      const ks: string[][] = [];
      for (let kk = 0; kk < K / 16; kk++) {
        const f = [0, 1, 2, 3].map(() => cx.reg('b32'));
        cx.emit(`ldmatrix.sync.aligned.m8n8.x4.shared.b16 {${f.join(', ')}}, ${addrStr(at(i * 16 * W, kk * 32))};`);
        ks.push(f);
      }
      frags.push(ks);
    }
    let m = preloaded.get(cx);
    if (!m) preloaded.set(cx, (m = new Map()));
    m.set(op, frags);
  }
}
