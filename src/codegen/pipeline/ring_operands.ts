// Which dot operands a TMA ring (lower_tma_ring.ts, and the warp-specialized ring built on it)
// may stage, by element type, and how the dot then reads the stage:
//   f16/bf16   a or b of an mma.sync or wgmma dot, as loaded ([M, K] / [K, N]): wgmma reads a
//              [K, N] b MN-major (imm-trans-b 1); or b loaded [N, K] and transposed in the loop
//              (wgmma, or tcgen05 on sm_100a: attention's K^T): the stage holds it K-major
//              (imm-trans-b 0; tcgen05's B K-major, mma_smem_operand.ts)
//              (and of a tcgen05 dot on sm_100a)
//   8-bit      (f8e4m3, f8e5m2, i8, u8) wgmma and tcgen05 dots only (mma.sync reads 8-bit b by
//              scalar loads from the scratch). The PTX ISA gives wgmma and tcgen05 no transpose
//              for non-16-bit types: A
//              and B are read K-major. a [M, K] as loaded is; b must be loaded as B^T [N, K]
//              (a descriptor on the transposed tensor) and transposed in the loop
//              (`bt.load([n, k]).trans()`): the stage then holds b K-major. A [K, N] 8-bit b
//              loaded row-major is N-major and stays off the ring (the reason says so).
//   f32 (tf32) of wgmma dots with inputPrecision 'tf32' only, K-major as 8-bit (a as loaded, b as
//              B^T [N, K] transposed in the loop). wgmma reads a staged f32 as tf32 by ignoring
//              its low 13 mantissa bits, the reference rounds to nearest (cvt.rna): the consumers
//              round each landed stage in place first (ring_tf32.ts).
import type { Op, Value } from '../../ir/ops.js';
import { isFp8, type DType } from '../../ir/types.js';
import { isMmaLayout, isWgmmaLayout } from '../../compiler/layout.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { wgmmaKindOf } from '../../compiler/wgmma_kinds.js';
import type { Lowering } from '../context.js';
import { isTcgen05Dot } from '../tensor_cores/tmem_alloc.js';
import { tf32Users } from './ring_tf32.js';

/** What the dots read of a ring tile: `value` (the load's, or its transpose), stored transposed or not. */
export interface RingOperand {
  readonly value: Value;
  /** The transpose the ring replaces (b loaded as [N, K]): the stage holds the dots' b transposed. */
  readonly trans?: Op;
}

const is8Bit = (t: DType): boolean => t === 'i8' || t === 'u8' || isFp8(t);

/**
 * Whether `d` runs on wgmma (the accumulator in the wgmma layout and a wgmma kind for its types) or
 * on tcgen05 (sm_100a), which reads non-16-bit operands K-major only as well.
 */
function onWgmma(cx: Lowering, d: Op): boolean {
  const [a, b] = d.operands as [Value, Value];
  const r = d.results[0]!;
  if (isTcgen05Dot(cx, d)) return true;
  return isWgmmaLayout(cx.layoutOf(r), a.type.shape[0]!, cx.numWarps) && !!wgmmaKindOf(a.type.elem, b.type.elem, r.type.elem, dotInputPrecision(d));
}

/**
 * Why the ring cannot stage `value` (a tile of element type `t` loaded in `body`) for its users,
 * or what the dots read. `uses` maps value ids to their users.
 */
export function ringOperand(cx: Lowering, t: DType, value: Value, body: Op['regions'][number], uses: Map<number, Op[]>): string | RingOperand {
  const wide = t === 'f16' || t === 'bf16';
  if (!wide && !is8Bit(t) && t !== 'f32') return `${t} is not a tensor-core operand type the ring stages (16-bit, 8-bit or f32 of a tf32 dot)`;
  const users = uses.get(value.id) ?? [];
  if (t === 'f32') {
    const why = tf32Users(cx, value, users, uses);
    if (why) return why;
  }
  if (!users.length) return 'unused';
  // b loaded as [N, K] and transposed: the transpose's only use is as b of wgmma or tcgen05 dots
  // (16-bit: the K^T of attention's S = Q K^T, bench/fa3_kernels.ts)
  const tr0 = users[0]!;
  if (users.length === 1 && tr0.kind === 'trans' && (tr0 as Op<'trans'>).attrs.perm.join() === '1,0' && body.ops.includes(tr0)) {
    const tr = tr0;
    const tv = tr.results[0]!;
    const tu = uses.get(tv.id) ?? [];
    if (!tu.length) return 'unused';
    for (const u of tu) {
      if (u.kind !== 'dot' || !body.ops.includes(u) || u.operands[1]!.id !== tv.id || u.operands[0]!.id === tv.id) return 'its transpose is used by something other than a dot operand b in the loop';
      if (!onWgmma(cx, u)) return wide ? 'a 16-bit b loaded [N, K] and transposed rides the ring for wgmma and tcgen05 dots only (its dot is neither)' : 'an 8-bit tile feeds wgmma and tcgen05 dots only from the ring (its dot is neither)';
    }
    return { value: tv, trans: tr };
  }
  for (const u of users) {
    if (u.kind !== 'dot' || !body.ops.includes(u) || u.operands[2]!.id === value.id) return 'used by something other than a dot operand a/b in the loop';
    if (wide) {
      const [M, N] = u.results[0]!.type.shape as [number, number];
      const L = cx.layoutOf(u.results[0]!);
      if (!isMmaLayout(L, M, N, cx.numWarps) && !isWgmmaLayout(L, M, cx.numWarps) && !isTcgen05Dot(cx, u)) return 'its dot is not on tensor cores (mma.sync, wgmma or tcgen05)';
      continue;
    }
    if (!onWgmma(cx, u)) return 'an 8-bit tile feeds wgmma and tcgen05 dots only from the ring (its dot is neither)';
    if (u.operands[1]!.id === value.id) return `an 8-bit b loaded [K, N] is N-major, and wgmma and tcgen05 read 8-bit B K-major only: load B^T [N, K] from a descriptor on the transposed tensor and .trans() it`;
  }
  return { value };
}
