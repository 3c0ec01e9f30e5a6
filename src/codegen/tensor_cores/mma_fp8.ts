// fp8 dots on tensor cores (lower_mma.ts). Operands are staged and read as bytes exactly like
// s8/u8 (ldmatrix.x4 for a, byte loads + prmt for b), giving the m16n8k32 fragments. Then:
// - sm_89+: one mma.sync.m16n8k32.row.col.<acc>.<e4m3|e5m2>.<e4m3|e5m2>.<acc> per k32 step;
// - sm_80 (no fp8 mma): each fragment word (4 fp8 values) is widened to two f16x2 words (exact:
//   every e4m3/e5m2 value is an f16 value) and the step runs as two m16n8k16 f16 mmas.
//
// Why two f16 mmas are the same dot: in the k32 fragments lane 4g+t holds k = 4t..4t+3 (and
// 16+4t..) of its a row and b column; in the k16 f16 fragments it holds k = 2t, 2t+1 (register 0)
// and 2t+8, 2t+9 (register 1 of b, 2/3 of a). Feeding the low pair of each 4-byte group as the
// f16 k = 2t, 2t+1 and the high pair as k = 2t+8, 2t+9 — in a and in b alike — renumbers k by
// one bijection on both sides, and a dot product does not depend on the numbering of k.
import type { MmaKind } from '../../compiler/mma_kinds.js';
import { TARGET_SM, type Lowering } from '../context.js';

/** Whether mma.sync has fp8 forms on this target (sm_89+, PTX ISA 8.4; f16 accumulators 8.7). */
export const hasFp8Mma = (cx: Lowering): boolean => TARGET_SM[cx.target] >= 89;
export const isFp8Kind = (kind: MmaKind): boolean => kind.input === 'e4m3' || kind.input === 'e5m2';

/** The fp8 mma.sync instruction (sm_89+), noting the PTX ISA version it needs. */
export function fp8MmaInstr(cx: Lowering, kind: MmaKind): string {
  cx.requirePtxVersion(kind.acc === 'f16' ? 8.7 : 8.4);
  return `mma.sync.aligned.m16n8k32.row.col.${kind.acc}.${kind.input}.${kind.inputB ?? kind.input}.${kind.acc}`;
}

/**
 * Four fp8 values packed in a b32 word (first in the low byte) as two f16x2 words: values 0, 1
 * and values 2, 3. e5m2 is the top byte of an f16, so a byte permute is all it takes. e4m3 is
 * rebiased: (|x| << 7) read as an f16 is x·2^-8 (e4m3's bias is 7, f16's 15; e4m3 subnormals land
 * on f16 subnormals), the sign moves over, and one exact mul.rn.f16x2 by 256 restores the value;
 * the NaN code S.1111.111 (magnitude byte 0x7f) gets the f16 exponent's top bit too, so it stays NaN.
 */
export function fp8WordToF16x2(cx: Lowering, fmt: 'e4m3' | 'e5m2', w: string): [string, string] {
  const zero = constReg(cx, 'zero', 0);
  return ([0x1404, 0x3424] as const).map((sel) => {
    const h = cx.reg('b32');
    cx.emit(`prmt.b32 ${h}, ${w}, ${zero}, 0x${sel.toString(16)};`); // [0, x_i, 0, x_i+1]: x << 8 per half
    if (fmt === 'e5m2') return h;
    const sign = cx.reg('b32'), mag = cx.reg('b32'), nan = cx.reg('b32'), out = cx.reg('b32');
    cx.emit(`and.b32 ${sign}, ${h}, 0x80008000;`);
    cx.emit(`and.b32 ${mag}, ${h}, 0x7f007f00;`);
    cx.emit(`add.u32 ${nan}, ${mag}, 0x01000100;`); // bit 15 of a half set only for magnitude 0x7f
    cx.emit(`and.b32 ${nan}, ${nan}, 0x80008000;`);
    cx.emit(`shr.u32 ${mag}, ${mag}, 1;`);
    cx.emit(`shr.u32 ${nan}, ${nan}, 1;`);
    cx.emit(`or.b32 ${out}, ${sign}, ${mag};`);
    cx.emit(`or.b32 ${out}, ${out}, ${nan};`);
    cx.emit(`mul.rn.f16x2 ${out}, ${out}, ${constReg(cx, 'f16x2_256', 0x5c005c00)};`);
    return out;
  }) as [string, string];
}

const consts = new WeakMap<Lowering, Map<string, string>>();
/** A b32 register holding `value`, set once in the prologue. */
function constReg(cx: Lowering, name: string, value: number): string {
  let m = consts.get(cx);
  if (!m) consts.set(cx, (m = new Map()));
  let r = m.get(name);
  if (!r) {
    r = cx.reg('b32');
    cx.e.emitPrologue(`mov.b32 ${r}, 0x${value.toString(16)};`);
    m.set(name, r);
  }
  return r;
}

/**
 * The k32 step of an fp8 dot on sm_80 as two f16 mma operand sets: a (4 words: rows g, g+8 at
 * k 4t.., then at 16+4t..) and b (2 words: k 4t.. and 16+4t..) give, for the k16 halves
 * h = 0, 1, the f16 a fragment [lo(a_2h), lo(a_2h+1), hi(a_2h), hi(a_2h+1)] and b [lo(b_h), hi(b_h)].
 */
export function fp8StepAsF16(a: readonly (readonly [string, string])[], b: readonly (readonly [string, string])[]): { a: string[]; b: string[] }[] {
  return [0, 1].map((h) => ({
    a: [a[2 * h]![0], a[2 * h + 1]![0], a[2 * h]![1], a[2 * h + 1]![1]],
    b: [b[h]![0], b[h]![1]],
  }));
}
