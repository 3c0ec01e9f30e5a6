// print through the CUDA runtime's vprintf: one call per element a thread owns (replicated
// copies skipped), with the program id and element index, as the interpreter prints them:
// `pid (x, y, z) idx (i, j) <prefix><values>`. Arguments are packed into a local buffer with
// printf's promotions (ints to 32/64-bit, floats to double).
import type { Op } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { parentDim, regSlots } from '../compiler/layout.js';
import type { Lowering } from './context.js';
import { toF32 } from './lower_elementwise.js';
import { isHalf, regKind } from './ptx_types.js';

const spec = (t: ElemType, hex: boolean): string => {
  if (t === 'f32' || t === 'f64' || isHalf(t)) return hex ? (t === 'f64' ? '0x%016llx' : '0x%08x') : t === 'f64' ? '%.17g' : '%.9g';
  if (t === 'i64') return hex ? '0x%016llx' : '%lld';
  if (t === 'u32' || t === 'u8') return hex ? '0x%08x' : '%u';
  return hex ? '0x%08x' : '%d';
};

export function lowerPrint(cx: Lowering, op: Op): void {
  const { prefix, hex } = (op as Op<'print'>).attrs;
  const tile = op.operands.find((v) => v.type.shape.length);
  const shape = tile?.type.shape ?? [];
  const layout = tile ? cx.layoutOf(tile) : undefined;
  const vals = op.operands.map((v) => cx.regsIn(v, layout && v.type.shape.length ? layout : undefined));
  const idx = shape.length ? ` idx (${shape.map(() => '%d').join(', ')})` : '';
  const fmt = `pid (%d, %d, %d)${idx} ${prefix.replace(/%/g, '%%')}${op.operands.map((v) => spec(v.type.elem, hex)).join(', ')}\n`;
  const str = cx.addString(fmt);
  const slots = layout ? regSlots(layout, shape) : [{ off: [] as number[] }];
  const n = Math.max(1, slots.length);
  for (let i = 0; i < n; i++) {
    const args: { reg: string; bits: 32 | 64; kind: string }[] = [];
    for (const a of ['x', 'y', 'z']) {
      const r = cx.reg('b32');
      cx.emit(`mov.u32 ${r}, %ctaid.${a};`);
      args.push({ reg: r, bits: 32, kind: 'b32' });
    }
    if (layout) for (let d = 0; d < shape.length; d++) args.push({ reg: cx.coordReg(layout, shape, slots[i]!, parentDim(layout, d)), bits: 32, kind: 'b32' });
    op.operands.forEach((v, j) => {
      const r = vals[j]![vals[j]!.length === 1 ? 0 : i]!;
      const t = v.type.elem;
      const k = regKind(t);
      if (t === 'f32' || isHalf(t)) {
        const f = isHalf(t) ? toF32(cx, t, r) : r;
        if (hex) return args.push({ reg: f, bits: 32, kind: 'b32' });
        const d = cx.reg('f64');
        cx.emit(`cvt.f64.f32 ${d}, ${f};`);
        args.push({ reg: d, bits: 64, kind: 'b64' });
      } else if (k === 'pred') {
        const w = cx.reg('b32');
        cx.emit(`selp.u32 ${w}, 1, 0, ${r};`);
        args.push({ reg: w, bits: 32, kind: 'b32' });
      } else args.push({ reg: r, bits: k === 'b64' || k === 'f64' ? 64 : 32, kind: `b${k === 'b64' || k === 'f64' ? 64 : 32}` });
    });
    let off = 0;
    const place = args.map((a) => {
      off = Math.ceil(off / (a.bits / 8)) * (a.bits / 8);
      const at = off;
      off += a.bits / 8;
      return at;
    });
    const buf = cx.localBuffer(Math.max(8, off));
    const skip = cx.e.label('noprint');
    const canon = layout ? cx.canonical(layout, shape, slots[i]!) : undefined;
    if (canon) cx.emit(`@!${canon} bra ${skip};`);
    args.forEach((a, k) => cx.emit(`st.local.b${a.bits} [${buf.local}+${place[k]}], ${a.reg};`));
    const s = cx.reg('b64');
    cx.emit(`mov.u64 ${s}, ${str};`);
    cx.emit(`cvta.global.u64 ${s}, ${s};`);
    cx.emit('{');
    cx.emit('.param .b64 fmt;');
    cx.emit(`st.param.b64 [fmt], ${s};`);
    cx.emit('.param .b64 args;');
    cx.emit(`st.param.b64 [args], ${buf.generic};`);
    cx.emit('.param .b32 ret;');
    cx.emit('call.uni (ret), vprintf, (fmt, args);');
    cx.emit('}');
    if (canon) cx.e.placeLabel(skip);
  }
}
