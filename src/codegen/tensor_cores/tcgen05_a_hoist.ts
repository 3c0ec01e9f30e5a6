// A loop-invariant A operand of a tcgen05 dot (sm_100a; Q of flash attention's S = Q K^T, loaded
// before the key loop) is stored to its swizzled shared tile once, before the loop, and the dot's
// MMAs in the loop read that tile through their descriptor, instead of storing it again in every
// iteration (as Triton keeps Q in shared memory for Blackwell). The tile's bytes are held
// (Lowering.withPinned) while the loop runs: the scratch of the loop's other users starts past
// them, and they lie past the loop's cp.async ring too. The stores are followed by
// fence.proxy.async (the MMA reads them through the async proxy) and a barrier; the dot's own
// fence and barrier before its MMAs stay as they are. A loop with a loop inside keeps the old
// form: the inner loop's ring would start at byte 0, where the held bytes may lie.
import type { Op, Value } from '../../ir/ops.js';
import { definedInside } from '../../ir/walk.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { tcgen05KindOf } from '../../compiler/tcgen05_kinds.js';
import type { Lowering } from '../context.js';
import { storeStaged } from './lower_mma.js';
import { stagedBytes, tf32Regs } from './mma_fragments.js';
import { swizzleFor } from '../smem/smem_swizzle.js';
import { stagedTile } from '../smem/staged.js';
import { isTcgen05Dot } from './tmem_alloc.js';
import { tmemACols } from './tcgen05_tmem_a.js';
import type { SmemOperand } from './mma_smem_operand.js';

/** The most bytes of shared memory a hoisted A may hold across its loop. */
const HOIST_MAX_BYTES = 32 * 1024;

const hoisted = new WeakMap<Lowering, Map<Op, SmemOperand>>();
/** The shared tile holding dot `op`'s A, stored before its loop, while that loop is lowered. */
export const hoistedTcgen05A = (cx: Lowering, op: Op): SmemOperand | undefined => hoisted.get(cx)?.get(op);

/** The bytes of dot `op`'s A tile when it is stored once before its loop (values `inside` defined in the loop), else 0. */
function hoistBytes(cx: Lowering, op: Op, inside: ReadonlySet<number>): number {
  if (op.kind !== 'dot' || !isTcgen05Dot(cx, op)) return 0;
  const [a, b] = op.operands as [Value, Value];
  if (inside.has(a.id) || a.type.shape.length !== 2 || !cx.has(a) || stagedTile(cx, a) || tmemACols(cx, op) > 0) return 0;
  const [M, K] = a.type.shape as [number, number];
  const kind = tcgen05KindOf(a.type.elem, b.type.elem, op.results[0]!.type.elem, dotInputPrecision(op));
  if (!kind || K % kind.k !== 0 || swizzleFor(K * stagedBytes(a.type.elem)) === 0) return 0;
  const bytes = Math.ceil((M * K * stagedBytes(a.type.elem)) / 1024) * 1024;
  return bytes <= HOIST_MAX_BYTES ? bytes : 0;
}

const hasLoop = (ops: readonly Op[]): boolean => ops.some((o) => o.kind === 'for' || o.kind === 'while' || o.regions.some((r) => hasLoop(r.ops)));

/**
 * Lowers `loop` with `lower`, each hoistable A of its body's tcgen05 dots stored before it into
 * bytes held while it runs, at or past `floor` (the end of a ring sharing the scratch's bytes).
 */
export function withTcgen05AHoist(cx: Lowering, loop: Op, floor: number, lower: () => void): void {
  // a nested loop may place its ring at the start of shared memory, over the held bytes
  if (cx.target !== 'sm_100a' || hasLoop(loop.regions[0]!.ops)) return lower();
  const inside = definedInside(loop);
  const dots = loop.regions[0]!.ops.map((op) => ({ op, bytes: hoistBytes(cx, op, inside) })).filter((d) => d.bytes > 0);
  if (!dots.length) return lower();
  const total = dots.reduce((s, d) => s + d.bytes, 0);
  cx.withPinned(total, floor, (at) => {
    let m = hoisted.get(cx);
    if (!m) hoisted.set(cx, (m = new Map()));
    // earlier scratch users may still read these bytes
    cx.barrier();
    let off = at;
    for (const { op, bytes } of dots) {
      const a = op.operands[0]!;
      const [M, K] = a.type.shape as [number, number];
      const kind = tcgen05KindOf(a.type.elem, op.operands[1]!.type.elem, op.results[0]!.type.elem, dotInputPrecision(op))!;
      const rowBytes = K * stagedBytes(a.type.elem);
      const tile = { rows: M, rowBytes, swizzle: swizzleFor(rowBytes) };
      const base = cx.reg('b32');
      cx.e.emitPrologue(`mov.u32 ${base}, ${cx.smemSymbol()};`);
      cx.e.emitPrologue(`add.u32 ${base}, ${base}, ${off};`);
      cx.emit(`// A of tcgen05 dot %${op.results[0]!.id}: stored to its shared tile once, before the loop (tcgen05_a_hoist.ts)`);
      const regs = kind.input === 'tf32' ? tf32Regs(cx, cx.regs(a)) : cx.regs(a);
      storeStaged(cx, a.type.elem, regs, cx.layoutOf(a), [M, K], tile, base, 0);
      m.set(op, { tile: { ...tile, base }, mnMajor: false });
      off += bytes;
    }
    // the MMAs read the tiles through the async proxy
    cx.emit('fence.proxy.async.shared::cta;');
    cx.barrier();
    try {
      lower();
    } finally {
      for (const { op } of dots) m.delete(op);
    }
  });
}
