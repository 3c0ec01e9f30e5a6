// Integer ops Triton users port code with: `umulhi` (triton.language.umulhi) and C-style division
// (Triton's integer `//` and `%` truncate toward zero; our `floordiv` rounds toward -inf).
import { binaryIn, promoteOperands, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api } from './trace.js';

/**
 * The high half of the double-width product (Triton's `umulhi`): the operands' bit patterns are
 * multiplied as unsigned integers whatever their dtype's sign (`mul.hi.u32` / `mul.hi.u64`, as
 * Triton's NVIDIA lowering does). i32, u32 and i64 only.
 */
export const umulhi = (a: TileLike, b: TileLike): Tile =>
  api('umulhi', (t) => {
    const { tiles, dtype, shape } = promoteOperands(t, [a, b], 'umulhi');
    if (dtype !== 'i32' && dtype !== 'u32' && dtype !== 'i64') {
      return t.fail('E_TYPE', `umulhi needs i32, u32 or i64 operands, got ${dtype}${dtype === 'i8' || dtype === 'i16' || dtype === 'u8' ? ' (widen to i32 first)' : ''}`);
    }
    return t.emit('binary', tiles, { elem: dtype, shape }, { fn: 'umulhi', precise: false });
  });

/**
 * Integer division truncating toward zero (C `/`; Triton's `//` on integers). Integers only; the
 * same mixed-signedness rule as `floordiv`. `truncDiv(x, 0)` is -1 (docs/semantics.md).
 */
export const truncDiv = (a: TileLike, b: TileLike): Tile =>
  api('truncDiv', (t) => binaryIn(t, 'div', a, b, { check: 'int', divOrMod: true, name: 'truncDiv' }));

/**
 * Integer remainder with the dividend's sign (C `%`; Triton's `%` on integers), so that
 * `truncDiv(a, b) * b + truncRem(a, b) == a`. Integers only (`rem` also takes floats: fmod).
 */
export const truncRem = (a: TileLike, b: TileLike): Tile =>
  api('truncRem', (t) => binaryIn(t, 'rem', a, b, { check: 'int', divOrMod: true, name: 'truncRem' }));
