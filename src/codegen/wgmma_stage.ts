// Registers -> a swizzled shared-memory tile (smem_swizzle.ts), for wgmma operands that are not
// already in shared memory (a dot outside a pipelined loop, or an operand the pipeliner left in
// registers). Element (r, c) of the stored [R, C] tile goes to
//   blk(c) * R * S + r * S + ((c * eb) % S ^ (r % 8 << 4 & chunk mask)),
// computed from the thread's row and column registers (once per distinct row or column offset),
// with one st.shared per run of the thread's elements along C inside a 16-byte chunk.
import { isFp8, type ElemType } from '../ir/types.js';
import { regSlots, wraps, type Layout } from '../compiler/layout.js';
import type { Lowering } from './context.js';
import { chunkMask } from './smem_swizzle.js';
import { packBytes, stagedBytes } from './mma_fragments.js';
import type { SwizzledTile } from './wgmma_desc.js';

/**
 * Stores `regs` (layout `l`, shape [R, C] as stored: pass a permuted layout and shape to store a
 * transpose) into the tile at b32 shared address `base`. The caller rounds tf32 inputs first.
 */
export function storeSwizzled(cx: Lowering, t: ElemType, regs: string[], l: Layout, shape: readonly [number, number], tile: SwizzledTile, base: string): void {
  const b = l.kind === 'blocked' ? l : cx.fail(`wgmma operand staging needs a blocked layout, got ${l.kind}`);
  const eb = stagedBytes(t);
  const S = tile.swizzle;
  if (S === 0 || tile.rowBytes !== shape[1] * eb || tile.rows !== shape[0]) cx.fail(`wgmma operand tile [${shape}] does not match its swizzled layout`);
  const slots = regSlots(l, shape);
  // fp8 lives in 16-bit registers: bytes are stored and packed from b32 words
  const wide = isFp8(t) ? regs.map((r) => {
    const w = cx.reg('b32');
    cx.emit(`cvt.u32.u16 ${w}, ${r};`);
    return w;
  }) : regs;
  const reg = (i: number): string => wide[wide.length === 1 ? 0 : i]!;
  const index = new Map(slots.map((s, i) => [`${s.off[0]},${s.off[1]}`, i]));
  // a run along C: consecutive elements of one thread inside a 16-byte chunk, whole b32 words
  let v = 1;
  const run = Math.min(b.sizePerThread[1]!, shape[1]);
  if (b.order[0] === 1) while (v * 2 <= run && v * 2 * eb <= 16) v *= 2;
  if (v * eb < 4) v = 1;
  const replicated = wraps(b, shape, 0) || wraps(b, shape, 1);
  const rowAddr = new Map<number, { addr: string; xor: string }>();
  const colPart = new Map<number, { blk: string; inb: string }>();
  const rowOf = (s: (typeof slots)[number]): { addr: string; xor: string } => {
    let r = rowAddr.get(s.off[0]!);
    if (!r) {
      const row = cx.coordReg(l, shape, s, 0);
      const addr = cx.reg('b32'), xor = cx.reg('b32');
      cx.emit(`mad.lo.u32 ${addr}, ${row}, ${S}, ${base};`);
      // the row's position in its 1024-byte repeat: bits 7.. of the in-block offset row * S
      cx.emit(`bfe.u32 ${xor}, ${row}, ${Math.log2(128 / S)}, ${Math.log2(chunkMask(S) + 1)};`);
      cx.emit(`shl.b32 ${xor}, ${xor}, 4;`);
      rowAddr.set(s.off[0]!, (r = { addr, xor }));
    }
    return r;
  };
  const colOf = (s: (typeof slots)[number]): { blk: string; inb: string } => {
    let c = colPart.get(s.off[1]!);
    if (!c) {
      const col = cx.coordReg(l, shape, s, 1);
      const cb = cx.reg('b32'), blk = cx.reg('b32'), inb = cx.reg('b32');
      cx.emit(`mul.lo.u32 ${cb}, ${col}, ${eb};`);
      cx.emit(`shr.u32 ${blk}, ${cb}, ${Math.log2(S)};`);
      cx.emit(`mul.lo.u32 ${blk}, ${blk}, ${tile.rows * S};`);
      cx.emit(`and.b32 ${inb}, ${cb}, ${S - 1};`);
      colPart.set(s.off[1]!, (c = { blk, inb }));
    }
    return c;
  };
  slots.forEach((s, i) => {
    if (s.off[1]! % v !== 0) return;
    const group = Array.from({ length: v }, (_, k) => index.get(`${s.off[0]},${s.off[1]! + k}`));
    if (group.some((j) => j === undefined)) cx.fail('wgmma operand staging: a vector run is missing an element');
    const r = rowOf(s), c = colOf(s);
    const a = cx.reg('b32');
    cx.emit(`xor.b32 ${a}, ${c.inb}, ${r.xor};`);
    cx.emit(`add.u32 ${a}, ${a}, ${c.blk};`);
    cx.emit(`add.u32 ${a}, ${a}, ${r.addr};`);
    const guard = replicated ? cx.canonical(l, shape, s) : undefined;
    const g = guard ? `@${guard} ` : '';
    if (v === 1) {
      cx.emit(`${g}st.shared.b${8 * eb} [${a}], ${reg(i)};`);
      return;
    }
    const words: string[] = [];
    const per = 4 / eb;
    for (let k = 0; k < v; k += per) {
      const rs = group.slice(k, k + per).map((j) => reg(j!));
      if (per === 1) words.push(rs[0]!);
      else if (per === 4) words.push(packBytes(cx, rs));
      else {
        let w = cx.wordOf(rs[0]!, rs[1]!);
        if (!w) {
          w = cx.reg('b32');
          cx.emit(`mov.b32 ${w}, {${rs[0]}, ${rs[1]}};`);
        }
        words.push(w);
      }
    }
    const st = words.length === 1 ? 'st.shared.b32' : `st.shared.v${words.length}.b32`;
    cx.emit(`${g}${st} [${a}], ${words.length === 1 ? words[0] : `{${words.join(', ')}}`};`);
  });
}
