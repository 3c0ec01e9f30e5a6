// Accumulator side of the tensor-core dot (lower_mma.ts): the mma instruction for a kind and the
// C/D fragment registers in the instruction's type.
// - f32: one f32 register per element (f16/bf16 dot accumulators are widened here and rounded
//   once at the end of the dot);
// - f16 (f16 inputs, f16 accumulator): the real .f16.f16.f16.f16 form, whose C/D fragments are
//   f16x2 pairs: (c0,c1) = row g, columns 2t, 2t+1 and (c2,c3) = row g+8 (first element in the low
//   half). The pairs stay packed through the k-loop, rounded to f16 after every mma;
// - s32 (i8/u8 inputs; i32 or u32 accumulator, the same bits): one b32 register per element.
import type { ElemType } from '../../ir/types.js';
import type { MmaKind } from '../../compiler/mma_kinds.js';
import type { RegSlot } from '../../compiler/layout.js';
import type { Lowering } from '../context.js';
import { fromF32, toF32 } from '../lower_elementwise.js';
import { isHalf, regKind } from '../ptx_types.js';

/** The mma.sync instruction (without operands) for `kind`. */
export const mmaInstr = (kind: MmaKind): string =>
  `mma.sync.aligned.m16n8k${kind.k}.row.col.${kind.acc}.${kind.input}.${kind.input}.${kind.acc}`;

export interface MmaAccum {
  /**
   * The D and C operand lists of the next mma on the m16n8 tile with fragment rows r0 (g) and
   * r1 (g+8), columns c, c+1: the same registers, but a tile's first mma may read C from the
   * accumulator's input directly (a zero tile's one register), saving a copy per element.
   */
  frag(r0: number, r1: number, c: number): { readonly d: string; readonly c: string };
  /** The dot's result registers (dtype tc), one per slot. */
  result(): string[];
}

/**
 * `inPlace`: the dot may overwrite accIn's registers (mayClobber); where they already hold the
 * instruction's type (f32 or s32 accumulating into f32 or 32-bit integer tiles) the mma then
 * reads and writes them directly.
 */
export function mmaAccum(cx: Lowering, kind: MmaKind, tc: ElemType, slots: readonly RegSlot[], accIn: string[], inPlace = false): MmaAccum {
  const src = (i: number): string => accIn[accIn.length === 1 ? 0 : i]!;
  const at = new Map(slots.map((s, i) => [`${s.off[0]},${s.off[1]}`, i]));
  const idx = (row: number, col: number): number => at.get(`${row},${col}`)!;
  if (kind.acc === 'f16') {
    // pack (col, col+1) pairs; the mma layout's sizePerThread [1,2] puts both in the same thread
    const packed = new Map<number, string>();
    slots.forEach((s, i) => {
      if (s.off[1]! % 2 !== 0) return;
      const p = cx.reg('b32');
      cx.emit(`mov.b32 ${p}, {${src(i)}, ${src(idx(s.off[0]!, s.off[1]! + 1))}};`);
      packed.set(i, p);
    });
    return {
      frag: (r0, r1, c) => {
        const d = `${packed.get(idx(r0, c))}, ${packed.get(idx(r1, c))}`;
        return { d, c: d };
      },
      result: () => {
        const out = cx.newRegs(tc, slots.length);
        packed.forEach((p, i) => {
          const s = slots[i]!;
          cx.emit(`mov.b32 {${out[i]}, ${out[idx(s.off[0]!, s.off[1]! + 1)]}}, ${p};`);
        });
        return out;
      },
    };
  }
  const f32 = kind.acc === 'f32';
  const same = f32 ? tc === 'f32' : regKind(tc) === 'b32';
  if (inPlace && same && accIn.length === slots.length && new Set(accIn).size === accIn.length) {
    return {
      frag: (r0, r1, c) => {
        const d = [accIn[idx(r0, c)], accIn[idx(r0, c + 1)], accIn[idx(r1, c)], accIn[idx(r1, c + 1)]].join(', ');
        return { d, c: d };
      },
      result: () => accIn,
    };
  }
  // fresh D registers; a tile's first mma reads C from the input (widened once if half)
  const acc = slots.map(() => cx.reg(f32 ? 'f32' : 'b32'));
  const cIn = slots.map((_, i) => (f32 && isHalf(tc) ? toF32(cx, tc, src(i)) : src(i)));
  const written = new Set<number>();
  return {
    frag: (r0, r1, c) => {
      const ids = [idx(r0, c), idx(r0, c + 1), idx(r1, c), idx(r1, c + 1)];
      const cs = ids.map((i) => (written.has(i) ? acc[i] : cIn[i])).join(', ');
      ids.forEach((i) => written.add(i));
      return { d: ids.map((i) => acc[i]).join(', '), c: cs };
    },
    result: () => {
      if (!isHalf(tc)) return acc;
      const out = cx.newRegs(tc, acc.length);
      acc.forEach((f, i) => fromF32(cx, tc, f, out[i]!));
      return out;
    },
  };
}
