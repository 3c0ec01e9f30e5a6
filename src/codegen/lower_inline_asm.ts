// inline_asm (inlineAsmElementwise, Triton's inline_asm_elementwise): the user's PTX runs once per
// `pack` register slots of the thread, in its own `{ }` scope so that its `.reg` declarations stay
// local. `$i` becomes the i-th operand register: outputs first, then inputs. With pack > 1, the
// elements (narrow ints in their 32-bit homes, halves in 16-bit registers) are packed into one
// register, low element in the low bits, and the outputs unpacked the same way; a last partial
// group is padded with zeros and its padding results dropped (the asm is elementwise).
import type { Op } from '../ir/ops.js';
import type { DType } from '../ir/types.js';
import { checkAsm, parseAsmConstraints, type AsmRegClass } from '../ir/inline_asm.js';
import type { Lowering } from './context.js';
import type { RegKind } from './emitter.js';
import { isHalf, regKind } from './ptx_types.js';

type Rule = (cx: Lowering, op: Op) => void;

const CLASS_KIND: Record<AsmRegClass, RegKind> = { r: 'b32', h: 'b16', l: 'b64', f: 'f32', d: 'f64' };

/** Packs `regs` (elements of `t`, missing ones zero) into one register of class `c`. */
function pack(cx: Lowering, t: DType, c: AsmRegClass, regs: (string | undefined)[]): string {
  const dst = cx.reg(CLASS_KIND[c]);
  if (isHalf(t) || t === 'i16') {
    // two 16-bit elements: halves sit in b16 registers, i16 in the low half of a b32 one
    const halves = regs.map((r) => {
      if (r === undefined) return '0';
      if (isHalf(t)) return r;
      const h = cx.reg('b16');
      cx.emit(`cvt.u16.u32 ${h}, ${r};`);
      return h;
    });
    const parts = halves.map((h) => {
      if (h !== '0') return h;
      const z = cx.reg('b16');
      cx.emit(`mov.b16 ${z}, 0;`);
      return z;
    });
    cx.emit(`mov.b32 ${dst}, {${parts.join(', ')}};`);
    return dst;
  }
  // bytes (i8/u8 in 32-bit homes): dst = sum of (r & 0xff) << 8k
  cx.emit(`mov.b32 ${dst}, 0;`);
  regs.forEach((r, k) => {
    if (r === undefined) return;
    const b = cx.reg('b32');
    cx.emit(`and.b32 ${b}, ${r}, 255;`);
    if (k > 0) cx.emit(`shl.b32 ${b}, ${b}, ${8 * k};`);
    cx.emit(`or.b32 ${dst}, ${dst}, ${b};`);
  });
  return dst;
}

/** The `n` elements of a packed register, each in the home register of `t`. */
function unpack(cx: Lowering, t: DType, src: string, n: number): string[] {
  if (isHalf(t) || t === 'i16') {
    const hs = Array.from({ length: n }, () => cx.reg('b16'));
    cx.emit(`mov.b32 {${hs.join(', ')}}, ${src};`);
    if (isHalf(t)) return hs;
    return hs.map((h) => {
      const dst = cx.reg('b32');
      cx.emit(`cvt.s32.s16 ${dst}, ${h};`);
      return dst;
    });
  }
  // bytes: move byte k to the top, then shift back down with the dtype's extension
  return Array.from({ length: n }, (_, k) => {
    const dst = cx.reg('b32');
    cx.emit(`shl.b32 ${dst}, ${src}, ${24 - 8 * k};`);
    cx.emit(`shr.${t === 'i8' ? 's32' : 'u32'} ${dst}, ${dst}, 24;`);
    return dst;
  });
}

export const inlineAsm: Rule = (cx, op) => {
  const a = (op as Op<'inline_asm'>).attrs;
  const cons = parseAsmConstraints(a.constraints);
  const outT = op.results.map((r) => r.type.elem as DType);
  const inT = op.operands.map((v) => v.type.elem as DType);
  const bad = typeof cons === 'string' ? cons : checkAsm(a.asm, cons, outT, inT, a.pack);
  if (bad !== undefined || typeof cons === 'string') return cx.fail(`inline_asm: ${bad}`);
  const ins = op.operands.map((_, i) => cx.operand(op, i));
  const n = cx.slots(op.results[0]!).length;
  const outs: string[][] = op.results.map(() => []);
  for (let g = 0; g < n; g += a.pack) {
    const idx = Array.from({ length: a.pack }, (_, k) => (g + k < n ? g + k : undefined));
    const inRegs = ins.map((rs, i) => {
      const at = (k: number | undefined): string | undefined => (k === undefined ? undefined : rs[rs.length === 1 ? 0 : k]!);
      return a.pack === 1 ? at(idx[0])! : pack(cx, inT[i]!, cons.inputs[i]!, idx.map(at));
    });
    const outRegs = cons.outputs.map((c, j) => (a.pack === 1 ? cx.reg(regKind(outT[j]!)) : cx.reg(CLASS_KIND[c])));
    const operands = [...outRegs, ...inRegs];
    const text = a.asm.replace(/\$(\d+)/g, (_, d: string) => operands[Number(d)]!);
    // braces on their own lines: a `//` comment in the asm must not swallow the closing one
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const last = lines.length - 1;
    if (!/[;}]$/.test(lines[last]!) && !lines[last]!.includes('//')) lines[last] += ';';
    cx.emit('{');
    lines.forEach((l) => cx.emit(l));
    cx.emit('}');
    outRegs.forEach((r, j) => {
      if (a.pack === 1) return outs[j]!.push(r);
      const els = unpack(cx, outT[j]!, r, a.pack);
      idx.forEach((k, i) => k !== undefined && outs[j]!.push(els[i]!));
    });
  }
  op.results.forEach((r, j) => cx.define(r, outs[j]!));
};
