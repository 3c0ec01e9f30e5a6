// A subtiled TMA store of a tcgen05 accumulator (sm_100a): the descriptor store's value is in the
// layout tcgen05.ld reads tensor memory back in (compiler/tcgen05_epilogue.ts: thread t holds
// columns c0 .. c0+spt-1 of one row), so instead of staging the whole [R, C] tile, each step
// stages one swizzle-wide column slice of every thread's run (one TMA box per column group of
// the layout) in one of two small buffers and TMA-stores it, reusing a buffer once its previous
// box has been read (cp.async.bulk.wait_group.read 1), as Triton's epilogue subtiling does:
//
//   step j:  (j >= 2: thread 0 waits until at most 1 group is pending: step j-2's; bar.sync)
//            every thread: st.shared.v4 of its 16-byte chunks of slice j into buffer j % 2
//            fence.proxy.async.shared::cta; bar.sync
//            thread 0: cp.async.bulk.tensor of box (q, j) for each column group q; commit_group
//
// The staging holds 2 x Q boxes (Q column groups: 8 warps or M = 64 give 2) instead of the whole
// tile (a 128 x 256 f32 C: 64 KB instead of 128 KB). Taken where the tile has more than two boxes
// per column group (else the whole tile is no larger) and a register group is one 16-byte chunk.
import type { BlockedLayout } from '../../compiler/layout.js';
import { isTcgen05Layout } from '../../compiler/tcgen05_kinds.js';
import type { Lowering } from '../context.js';
import type { TileGeometry } from './tensor_map.js';

/** What a subtiled store of a value in layout `l` needs: the layout's column groups and slices, else undefined. */
export function subtilePlan(cx: Lowering, l: BlockedLayout, g: TileGeometry, vec: number): { groups: number; steps: number; spt: number } | undefined {
  if (g.block.length !== 2 || !g.swizzle || cx.target !== 'sm_100a') return undefined;
  const [R, C] = g.block as [number, number];
  if (!isTcgen05Layout(l, R, C, cx.plan.numWarps) || vec * g.eb !== 16) return undefined;
  const spt = l.sizePerThread[1]!;
  const bw = g.swizzle / g.eb; // columns of one box
  if (spt % bw !== 0 || g.box[0] !== bw || g.box[1] !== R) return undefined;
  const steps = spt / bw;
  if (steps <= 2) return undefined;
  return { groups: C / spt, steps, spt };
}

/**
 * Stages and TMA-stores `regs` (in layout `l`) slice by slice through two buffers at the
 * scratch start; `move` writes one 16-byte group. Leaves the last commit_group pending (the
 * caller waits as for a whole-tile store).
 */
export function storeSubtiled(
  cx: Lowering, l: BlockedLayout, regs: readonly string[], g: TileGeometry, vec: number,
  plan: { groups: number; steps: number; spt: number }, map: string, elected: string,
  move: (at: { reg: string; imm: number }, regs: string[]) => void, coords: (box: number) => string,
): void {
  const S = g.swizzle, R = g.rows, box = R * S;
  const bufBytes = plan.groups * box;
  cx.emit(`// epilogue subtiled: ${plan.steps} steps of ${plan.groups} box(es), 2 staging buffers of ${bufBytes} bytes`);
  const tile = cx.reg('b32');
  cx.emit(`mov.u32 ${tile}, ${cx.smemBase(2 * bufBytes)};`);
  // the thread's row and column group: chunk k of a slice is at row*S + (16k ^ 16*(row's place in the swizzle repeat)), as TMA reads it
  const [row, col0] = cx.base(l) as [string, string];
  const q = cx.reg('b32'), x = cx.reg('b32'), rb = cx.reg('b32');
  cx.emit(`shr.u32 ${q}, ${col0}, ${Math.log2(plan.spt)};`);
  cx.emit(`mad.lo.u32 ${rb}, ${q}, ${box}, ${tile};`);
  cx.emit(`mad.lo.u32 ${rb}, ${row}, ${S}, ${rb};`);
  cx.emit(`bfe.u32 ${x}, ${row}, ${Math.log2(128 / S)}, ${Math.log2(S / 16)};`);
  cx.emit(`shl.b32 ${x}, ${x}, 4;`);
  // rb is a multiple of S (a 1024-aligned tile, whole rows) and x, 16k < S: rb + (x ^ 16k) = (rb + x) ^ 16k,
  // so one register and an xor per chunk (8 live address registers cost ptxas 11 more registers)
  const chunks = S / 16;
  const a0 = cx.reg('b32');
  cx.emit(`add.u32 ${a0}, ${rb}, ${x};`);
  const chunkAddr = (k: number): string => {
    if (k === 0) return a0;
    const a = cx.reg('b32');
    cx.emit(`xor.b32 ${a}, ${a0}, ${16 * k};`);
    return a;
  };
  const per = S / g.eb; // registers of one slice
  for (let j = 0; j < plan.steps; j++) {
    if (j >= 2) {
      // buffer j % 2 held step j-2's boxes: their bulk reads are done once at most one group is pending
      cx.emit(`@${elected} cp.async.bulk.wait_group.read 1;`);
      cx.barrier();
    }
    const off = (j % 2) * bufBytes;
    for (let k = 0; k < chunks; k++) move({ reg: chunkAddr(k), imm: off }, regs.slice(j * per + k * vec, j * per + (k + 1) * vec));
    cx.emit('fence.proxy.async.shared::cta;');
    cx.barrier();
    for (let qq = 0; qq < plan.groups; qq++) {
      const src = off + qq * box ? `[${tile}+${off + qq * box}]` : `[${tile}]`;
      cx.emit(`@${elected} cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [${map}, ${coords(qq * (plan.spt / per) + j)}], ${src};`);
    }
    cx.emit(`@${elected} cp.async.bulk.commit_group;`);
  }
}
