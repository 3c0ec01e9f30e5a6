// A of a tcgen05 dot read from tensor memory (sm_100a; PTX ISA "tcgen05.mma": `[a-tmem]`), as
// Triton's cc 100 flash-attention kernels read P: where A is a 16-bit register tile already in
// the tcgen05 accumulator layout (compiler/tcgen05_kinds.ts: one row a thread; P = softmax(S)
// with S out of a tcgen05 dot), it is stored to TMEM with tcgen05.st instead of through a
// swizzled shared tile (which cost bank conflicts and more instructions per iteration).
//   columns   A takes K/2 columns right after the dot's N accumulator columns (tmem_alloc.ts sizes
//             the allocation for them): two 16-bit elements a 32-bit cell, element k in the
//             half k % 2 of column k / 2 (low half first), row m in the TMEM lane of D's row m
//             (M = 128: lane m; M = 64, the ISA's layout F: lane 32*(m/16) + m%16)
//   stores    the accumulator's own shapes (lower_tcgen05.ts tmemRows): .32x32b for M = 128
//             (8 warps: warps 4..7 the second half of the columns), .16x32bx2 for M = 64 (lanes
//             t >= 16 the second half), each register a pair of adjacent elements; wait::st
//   MMA       k-step kk reads A at column N + kk*(k/2): one k-step of 16 elements is 8 cells
// The caller's fence::before_thread_sync / bar.sync / fence::after_thread_sync then orders every
// warp's stores before the elected thread's MMAs (the sim runs the MMA on what was stored and
// waited for; a missing wait::st is a wrong result).
import type { Op, Value } from '../../ir/ops.js';
import { isTcgen05Layout } from '../../compiler/tcgen05_kinds.js';
import type { Lowering } from '../context.js';
import { tmemRows } from './lower_tcgen05.js';
import { tmemColumn } from './tcgen05_row_addr.js';

/**
 * The TMEM columns dot `op`'s A takes when it is read from tensor memory, or 0 (A goes through
 * shared memory): 16-bit A and B, M 128 or 64, A in the tcgen05 accumulator layout of [M, K].
 * Whether A is a staged (loaded) tile is the caller's to check: those stay in shared memory.
 */
export function tmemACols(cx: Lowering, op: Op): number {
  if (cx.target !== 'sm_100a' || op.kind !== 'dot') return 0;
  const [a, b] = op.operands as [Value, Value];
  const half = (t: string): boolean => t === 'f16' || t === 'bf16';
  if (!half(a.type.elem) || b.type.elem !== a.type.elem) return 0;
  const [M, K] = a.type.shape as [number, number];
  if (M !== 128 && M !== 64) return 0;
  if (!isTcgen05Layout(cx.layoutOf(a), M, K, cx.numWarps)) return 0;
  return K / 2;
}

/**
 * Stores A's registers (16-bit, the tcgen05 layout of [M, K]) to TMEM at column `col` of the
 * allocation and waits for the stores; returns the MMA's A address of k-step kk (`k` elements).
 */
export function storeATmem(cx: Lowering, a: Value, col: number, k: number): (kk: number) => string {
  const [M, K] = a.type.shape as [number, number];
  const regs = cx.regs(a);
  const reg = (i: number): string => regs[regs.length === 1 ? 0 : i]!; // a splat: one register
  const rows = tmemRows(cx, M, K / 2);
  for (const [c, n] of rows.chunks) {
    const words = Array.from({ length: n }, (_, j) => {
      const [lo, hi] = [reg(2 * (c + j)), reg(2 * (c + j) + 1)];
      // a pair rounded by one cvt.rn.{f16,bf16}x2.f32 (lower_cast.ts castPairs) is stored as its word
      const had = cx.wordOf(lo, hi);
      if (had) return had;
      const w = cx.reg('b32');
      cx.emit(`mov.b32 ${w}, {${lo}, ${hi}};`);
      return w;
    });
    cx.emit(`tcgen05.st.sync.aligned.${rows.shape}.x${n}.b32 [${rows.at(col + c)}]${rows.split ? `, ${rows.split}` : ''}, {${words.join(', ')}};`);
  }
  cx.emit('tcgen05.wait::st.sync.aligned;');
  const base = tmemColumn(cx, col);
  return (kk) => {
    if (kk === 0) return base;
    const t = cx.reg('b32');
    cx.emit(`add.u32 ${t}, ${base}, ${(kk * k) / 2};`);
    return t;
  };
}
