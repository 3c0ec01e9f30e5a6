// Where a dot_scaled's ue8m0 scale tile lands in a cp.async ring stage (compiler/pipeline_scaled.ts
// stages it): not as rows but in the ((32,4),4) chunks tcgen05.cp.32x128b.warpx4 reads, as
// lower_tcgen05_scaled.ts stores them from registers. Scale s[r][g] (row r of a / column r of b, K
// group g) is byte ((g/4)*nb + r/128)*512 + (r%32)*16 + ((r/32)%4)*4 + g%4 of the tile, nb = R/128;
// a copy moves the 4 groups g..g+3 (g%4 = 0) of one row, which are 4 consecutive bytes there too.
// R is a multiple of 128 and G of 4 (the planner's rule), so the copies write every byte of the
// chunks, and the tile is R*G bytes, as a plain tile of rows.
import type { Layout } from '../../compiler/layout.js';
import { regSlots } from '../../compiler/layout.js';
import type { Lowering, SmemAddr } from '../context.js';

/** Byte offsets from the scale tile's start of each register slot of layout `l` (computed here, before the loop). */
export function scaleSlotOffsets(cx: Lowering, l: Layout, shape: readonly [number, number]): (i: number) => SmemAddr {
  const slots = regSlots(l, shape);
  const nb = shape[0] / 128;
  return (i) => {
    const s = slots[i]!;
    const r = cx.coordReg(l, shape, s, 0), g = cx.coordReg(l, shape, s, 1);
    const a = cx.reg('b32'), t = cx.reg('b32');
    cx.emit(`shr.u32 ${a}, ${g}, 2;`);
    cx.emit(`shr.u32 ${t}, ${r}, 7;`);
    cx.emit(`mad.lo.u32 ${a}, ${a}, ${nb}, ${t};`);
    cx.emit(`shl.b32 ${a}, ${a}, 9;`); // * 512
    cx.emit(`and.b32 ${t}, ${r}, 31;`);
    cx.emit(`mad.lo.u32 ${a}, ${t}, 16, ${a};`);
    cx.emit(`bfe.u32 ${t}, ${r}, 5, 2;`);
    cx.emit(`mad.lo.u32 ${a}, ${t}, 4, ${a};`);
    return { reg: a, imm: 0 };
  };
}
