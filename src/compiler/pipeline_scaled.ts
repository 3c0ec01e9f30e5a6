// The loads of a native dot_scaled (compiler/tcgen05_scaled.ts keeps it; every dot_scaled left in
// the IR when the pipeline is planned is one) that the cp.async ring may stage, so its operands
// reach shared memory without registers (codegen/tensor_cores/lower_tcgen05_scaled.ts reads the
// stage as it reads its own staging):
//   a      [M, K] bytes contiguous along K (dim 1): staged as loaded, K-major
//   b      [K, N] bytes contiguous along K (dim 0: b stored [N, K], the MX weight layout): staged
//          transposed, [N, K] K-major. A b contiguous along N stays in registers: the block-scaled
//          kinds read 8-bit (and packed 4-bit) operands K-major only, which no copy can give it
//   scales ue8m0 [R, G] contiguous along G, 4 groups a copy (one 4-byte cp.async a row a chunk),
//          G a multiple of 4 and R of 128: the stage holds them in the ((32,4),4) chunks
//          tcgen05.cp reads (pipeline/ring_scales.ts), every byte written. ue4m3 (nvfp4) scales
//          stay in registers: the MMA needs their sign bit cleared, which a copy cannot do
//   6-/4-bit operands of kind::mxf8f6f4 (e2m3, e3m2, e2m1 beside an 8-bit format) stay in registers:
//          they are repacked into the padded containers the MMA reads
import type { Op } from '../ir/ops.js';
import { byteSize, pointee, type PtrType } from '../ir/types.js';
import { scaledKindOf } from './tcgen05_scaled.js';

/** What a staged load is to its dot_scaled. */
export type ScaledRole = 'a' | 'b' | 'scales';

/** The operand indices of a dot_scaled's a, b and scales. */
function roles(op: Op): Map<number, ScaledRole> {
  const { hasAScale, hasBScale } = (op as Op<'dot_scaled'>).attrs;
  const m = new Map<number, ScaledRole>([[0, 'a']]);
  let i = 1;
  if (hasAScale) m.set(i++, 'scales');
  m.set(i++, 'b');
  if (hasBScale) m.set(i++, 'scales');
  return m;
}

/**
 * The role of `load` (users `uses`) for the dot_scaled ops of the loop body that read it, undefined
 * when no dot_scaled reads it, or why the ring cannot stage it.
 */
export function scaledRole(load: Op, uses: readonly { op: Op; index: number }[], bodyOps: readonly Op[]): { role: ScaledRole } | string | undefined {
  if (!uses.some((u) => u.op.kind === 'dot_scaled')) return undefined;
  let role: ScaledRole | undefined;
  for (const u of uses) {
    const r = u.op.kind === 'dot_scaled' ? roles(u.op).get(u.index) : undefined;
    if (!r || !bodyOps.includes(u.op)) return `used by ${u.op.kind} (operand ${u.index}), not only as a dot_scaled operand or scale in the loop body`;
    if (role && role !== r) return 'read by dot_scaled ops as different operands';
    role = r;
  }
  const t = pointee(load.operands[0]!.type.elem as PtrType);
  if (byteSize(t) !== 1) return `${t} is not a 1-byte dot_scaled operand`;
  if (role === 'scales' && t === 'f8e4m3') return 'ue4m3 (nvfp4) scales: the MMA needs their sign bit cleared, so they go through registers';
  if (role !== 'scales') {
    for (const u of uses) {
      const { aFormat, bFormat } = (u.op as Op<'dot_scaled'>).attrs;
      const f = role === 'a' ? aFormat : bFormat;
      if (scaledKindOf(u.op).kindName === 'mxf8f6f4' && f !== 'e4m3' && f !== 'e5m2') return `an ${f} operand of kind::mxf8f6f4 is repacked into padded 8-bit containers through registers (codegen/tensor_cores/tcgen05_padded_operand.ts), which a byte copy cannot do`;
    }
  }
  return { role: role! };
}

/**
 * The copy width (elements) and staging of a dot_scaled load given the widest aligned copy along
 * each dim (`along`: copyVec of compiler/pipeline.ts), or why there is none.
 */
export function scaledCopy(role: ScaledRole, shape: readonly number[], along: (dim: 0 | 1) => number | string): { vec: number; transposed: boolean } | string {
  if (role === 'b') {
    const v = along(0);
    return typeof v === 'number' ? { vec: v, transposed: true } : `an 8-bit dot_scaled b is staged K-major only (b stored [N, K]): ${v}`;
  }
  const v = along(1);
  if (typeof v === 'string') return v;
  if (role === 'a') return { vec: v, transposed: false };
  const [R, G] = shape as [number, number];
  if (G % 4 !== 0 || R % 128 !== 0) return `a scale tile [${R}, ${G}] does not fill whole tcgen05.cp chunks (rows a multiple of 128, groups of 4)`;
  if (v < 4) return 'its scales are not in aligned runs of 4 groups';
  return { vec: 4, transposed: false };
}
