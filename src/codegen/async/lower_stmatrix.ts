// A descriptor store's registers -> its swizzled shared tile with stmatrix (sm_90, PTX ISA
// "stmatrix"), when the value is 16-bit and in an accumulator layout (compiler/stmatrix.ts):
// register pair p of every lane is one 8x8 matrix of the tile whose top-left corner is the
// warp's base plus the pair's offset, lane L holding row L/4, columns 2(L%4)..+1, which is the
// stmatrix fragment. Four matrices go per stmatrix.x4 (two, one for the rest): lane L gives the
// address of row L%8 of matrix L/8 of the group. A row of a matrix is 16 contiguous bytes, an
// aligned swizzle chunk, so the TMA swizzle (smem_swizzle.ts) moves it whole.
import type { Value } from '../../ir/ops.js';
import type { BlockedLayout } from '../../compiler/layout.js';
import type { Lowering } from '../context.js';
import { bodySink, emitSwizzledOffset } from '../smem/swizzle_addr.js';
import type { TileGeometry } from './tensor_map.js';

/** Stores `regs` (value `v` in layout `l`, 16-bit) into the swizzled tile at `tile`. */
export function storeByStmatrix(cx: Lowering, v: Value, l: BlockedLayout, regs: readonly string[], g: TileGeometry, tile: string): void {
  const slots = cx.slots(v, l);
  const [WM, WN] = l.warpsPerCTA as [number, number];
  const rowsPerWarp = 8 * (l.laneRepeat?.[0] ?? 1);
  const { lane, warp } = cx.thread();
  // the warp's top-left corner, plus this lane's row within a matrix (L % 8) and matrix index (L / 8)
  const P = (s: string): void => cx.e.emitPrologue(s);
  const wr = cx.reg('b32'), wc = cx.reg('b32'), m = cx.reg('b32'), r8 = cx.reg('b32'), rowB = cx.reg('b32');
  P(`shr.u32 ${wr}, ${warp}, ${Math.log2(WN)};`);
  P(`and.b32 ${wr}, ${wr}, ${WM - 1};`);
  P(`and.b32 ${wc}, ${warp}, ${WN - 1};`);
  P(`shl.b32 ${wc}, ${wc}, 3;`);
  P(`and.b32 ${r8}, ${lane}, 7;`);
  P(`mad.lo.u32 ${rowB}, ${wr}, ${rowsPerWarp}, ${r8};`);
  P(`shr.u32 ${m}, ${lane}, 3;`);
  const pairs = slots.length / 2;
  const off = (p: number): readonly number[] => slots[2 * p]!.off;
  const words: string[] = [];
  for (let p = 0; p < pairs; p++) {
    const w = cx.reg('b32');
    cx.emit(`mov.b32 ${w}, {${regs[2 * p]}, ${regs[2 * p + 1]}};`);
    words.push(w);
  }
  const sink = bodySink(cx);
  const geom = { rows: g.rows, rowBytes: g.rowBytes, swizzle: g.swizzle };
  for (let p = 0; p < pairs; ) {
    // the largest group (4, 2, 1) whose matrices step by one constant offset (lane L/8 picks one)
    let n = 4;
    while (n > 1 && !affine(off, p, Math.min(n, pairs - p) === n ? n : 0)) n /= 2;
    const [d0, d1] = n > 1 ? [off(p + 1)[0]! - off(p)[0]!, off(p + 1)[1]! - off(p)[1]!] : [0, 0];
    const row = cx.reg('b32'), col = cx.reg('b32');
    // row = warp row + L%8 + off0 + (L/8)*d0; byte column = 2 * (warp column + off1 + (L/8)*d1)
    cx.emit(d0 ? `mad.lo.u32 ${row}, ${m}, ${d0}, ${rowB};` : `mov.u32 ${row}, ${rowB};`);
    if (off(p)[0]) cx.emit(`add.u32 ${row}, ${row}, ${off(p)[0]};`);
    cx.emit(d1 ? `mad.lo.u32 ${col}, ${m}, ${d1}, ${wc};` : `mov.u32 ${col}, ${wc};`);
    cx.emit(`add.u32 ${col}, ${col}, ${off(p)[1]};`);
    cx.emit(`shl.b32 ${col}, ${col}, 1;`);
    const addr = emitSwizzledOffset(sink, geom, row, col, tile);
    cx.emit(`stmatrix.sync.aligned.m8n8.x${n}.shared.b16 [${addr}], {${words.slice(p, p + n).join(', ')}};`);
    p += n;
  }
}

/** Matrices p .. p+n-1 sit at off(p) + i*delta for one delta (n = 0: no such group). */
function affine(off: (p: number) => readonly number[], p: number, n: number): boolean {
  if (n === 0) return false;
  const d = [off(p + 1)[0]! - off(p)[0]!, off(p + 1)[1]! - off(p)[1]!];
  for (let i = 2; i < n; i++) if (off(p + i)[0] !== off(p)[0]! + i * d[0]! || off(p + i)[1] !== off(p)[1]! + i * d[1]!) return false;
  return true;
}
