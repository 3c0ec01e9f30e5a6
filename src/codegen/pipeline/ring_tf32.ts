// f32 operands of tf32 wgmma dots on the sm_90a TMA rings (plain and warp-specialized). wgmma
// reads a staged f32 as tf32 by ignoring its low 13 mantissa bits (truncation), while the
// reference semantics (the interpreter, and the registers-to-scratch path: cvt.rna) round to
// nearest, ties away. So once a stage has landed, the consumers round its f32 tiles in place with
// cvt.rna.tf32.f32 (each thread 16-byte chunks: the op is elementwise, the swizzle does not
// matter), make the generic writes visible to the async proxy wgmma reads through
// (fence.proxy.async.shared::cta) and meet at a barrier; then the dots read the stage. wgmma's
// truncation of a value whose low 13 bits are zero is the value itself: bit for bit the
// unpipelined kernel and the interpreter. Like 8-bit tiles, tf32 tiles are read K-major only
// (no transpose for non-16-bit wgmma): b comes as B^T [N, K] transposed in the loop.
import type { Op, Value } from '../../ir/ops.js';
import { isWgmmaLayout } from '../../compiler/layout.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import type { Lowering } from '../context.js';
import { isTcgen05Dot } from '../tensor_cores/tmem_alloc.js';

/** Why an f32 ring tile `value` (users `users`) cannot ride the ring, or undefined: every dot it feeds is a tf32 wgmma. */
export function tf32Users(cx: Lowering, value: Value, users: readonly Op[], uses: Map<number, Op[]>): string | undefined {
  const dots = users.flatMap((u) => (u.kind === 'trans' ? uses.get(u.results[0]!.id) ?? [] : [u]));
  for (const d of dots) {
    if (d.kind !== 'dot') continue; // the generic checks name it
    if (dotInputPrecision(d) !== 'tf32') return `an f32 tile of a dot with inputPrecision '${dotInputPrecision(d)}' (the ring stages f32 for tf32 dots only)`;
    const [a] = d.operands as [Value];
    if (isTcgen05Dot(cx, d) || !isWgmmaLayout(cx.layoutOf(d.results[0]!), a.type.shape[0]!, cx.numWarps)) return 'an f32 (tf32) tile feeds wgmma dots only from the ring (its dot is not a wgmma)';
    if (d.operands[1]!.id === value.id) return 'an f32 (tf32) b loaded [K, N] is N-major, and wgmma reads tf32 B K-major only: load B^T [N, K] from a descriptor on the transposed tensor and .trans() it';
  }
  return undefined;
}

/** Rounds the f32 ring tiles of the stage at `rd` to tf32 in place (all consumer threads), then fence and barrier. */
export function roundTf32Stage(cx: Lowering, tiles: readonly { readonly value: Value; readonly offset: number; readonly g: { readonly bytes: number } }[], rd: string): void {
  const f32 = tiles.filter((t) => t.value.type.elem === 'f32');
  if (!f32.length) return;
  const threads = 32 * cx.numWarps;
  const { tid } = cx.thread();
  const mine = cx.reg('b32');
  cx.emit('// tf32: round the landed f32 tiles to nearest in place (wgmma would truncate them)');
  cx.emit(`mad.lo.u32 ${mine}, ${tid}, 16, ${rd};`);
  const v = [0, 1, 2, 3].map(() => cx.reg('b32'));
  for (const t of f32) {
    const chunks = t.g.bytes / 16;
    for (let k = 0; k * threads < chunks; k++) {
      const q = (k + 1) * threads > chunks ? cx.reg('pred') : undefined;
      const off = t.offset + k * threads * 16;
      if (q) cx.emit(`setp.lt.u32 ${q}, ${tid}, ${chunks - k * threads};`);
      const g = q ? `@${q} ` : '';
      cx.emit(`${g}ld.shared.v4.b32 {${v.join(', ')}}, [${mine}${off ? `+${off}` : ''}];`);
      for (const r of v) cx.emit(`${g}cvt.rna.tf32.f32 ${r}, ${r};`);
      cx.emit(`${g}st.shared.v4.b32 [${mine}${off ? `+${off}` : ''}], {${v.join(', ')}};`);
    }
  }
  cx.emit('fence.proxy.async.shared::cta;');
  cx.barrier();
}
