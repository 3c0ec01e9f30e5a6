// print and assert through the CUDA runtime's vprintf and __assertfail.
// print: one vprintf per element a thread owns (replicated copies skipped; a print of scalars only
// from thread 0, once per program as the interpreter prints it), with the program id and element
// index: `pid (x, y, z) idx (i, j) <prefix><values>`. Arguments are packed into a local buffer with
// printf's promotions (ints to 32/64-bit, floats to double; hex: the value's own bits).
// assert: each thread finds its lowest failing element (row-major lane) and, if any, prints it and
// calls __assertfail with the message and the user's file and line (CUDA_ERROR_ASSERT).
// Every vprintf passes two more words (print_sites.ts): the op count and the site, for the host.
import type { Op } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { isPtr } from '../ir/types.js';
import { parentDim, regSlots, type Layout, type RegSlot } from '../compiler/layout.js';
import type { Lowering } from './context.js';
import { toF32 } from './lower_elementwise.js';
import { argBytes, type DeviceSite } from './print_sites.js';
import { isHalf, regKind } from './ptx_types.js';

const spec = (t: ElemType, hex: boolean): string => {
  if (isPtr(t)) return '0x%llx';
  if (isHalf(t)) return hex ? '0x%04x' : '%.9g';
  if (t === 'f32' || t === 'f64') return hex ? (t === 'f64' ? '0x%016llx' : '0x%08x') : t === 'f64' ? '%.17g' : '%.9g';
  if (t === 'i64') return hex ? '0x%016llx' : '%lld';
  if (t === 'u32' || t === 'u8') return hex ? '0x%08x' : '%u';
  return hex ? '0x%08x' : '%d';
};

interface Arg {
  readonly reg: string;
  readonly bits: 32 | 64;
}

/** The per-thread count of print/assert ops executed (PTX registers are mutable: loops just add). */
function countOp(cx: Lowering): string {
  if (!cx.printSeq) {
    cx.printSeq = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${cx.printSeq}, 0;`);
  }
  cx.emit(`add.u32 ${cx.printSeq}, ${cx.printSeq}, 1;`);
  return cx.printSeq;
}

/** Registers a site; returns its index in the kernel's metadata (`prints`). */
function addSite(cx: Lowering, site: DeviceSite): number {
  cx.deviceSites.push(site);
  return cx.deviceSites.length - 1;
}

const u32 = (cx: Lowering, v: string | number): string => {
  const r = cx.reg('b32');
  cx.emit(`mov.u32 ${r}, ${v};`);
  return r;
};

const pidArgs = (cx: Lowering): Arg[] => ['x', 'y', 'z'].map((a) => ({ reg: u32(cx, `%ctaid.${a}`), bits: 32 as const }));

/** vprintf(fmt, args..., seq, site): the trailing words after the format's own arguments. */
function callVprintf(cx: Lowering, fmt: string, args: readonly Arg[], seq: string, site: number): void {
  const all = [...args, { reg: seq, bits: 32 as const }, { reg: u32(cx, site), bits: 32 as const }];
  let off = 0;
  const place = all.map((a) => {
    off = Math.ceil(off / (a.bits / 8)) * (a.bits / 8);
    const at = off;
    off += a.bits / 8;
    return at;
  });
  const buf = cx.localBuffer(Math.max(8, off));
  all.forEach((a, k) => cx.emit(`st.local.b${a.bits} [${buf.local}+${place[k]}], ${a.reg};`));
  const s = cx.reg('b64');
  cx.emit(`mov.u64 ${s}, ${cx.addString(fmt)};`);
  cx.emit(`cvta.global.u64 ${s}, ${s};`);
  cx.emit('{');
  cx.emit('.param .b64 fmt;');
  cx.emit(`st.param.b64 [fmt], ${s};`);
  cx.emit('.param .b64 args;');
  cx.emit(`st.param.b64 [args], ${buf.generic};`);
  cx.emit('.param .b32 ret;');
  cx.emit('call.uni (ret), vprintf, (fmt, args);');
  cx.emit('}');
}

export function lowerPrint(cx: Lowering, op: Op): void {
  const { prefix, hex } = (op as Op<'print'>).attrs;
  const tile = op.operands.find((v) => v.type.shape.length);
  const shape = tile?.type.shape ?? [];
  const layout = tile ? cx.layoutOf(tile) : undefined;
  const vals = op.operands.map((v) => cx.regsIn(v, layout && v.type.shape.length ? layout : undefined));
  const idx = shape.length ? ` idx (${shape.map(() => '%d').join(', ')})` : '';
  const fmt = `pid (%d, %d, %d)${idx} ${prefix.replace(/%/g, '%%')}${op.operands.map((v) => spec(v.type.elem, hex)).join(', ')}\n`;
  const site = addSite(cx, { kind: 'print', prefix, hex, dtypes: op.operands.map((v) => v.type.elem), shape: [...shape] });
  const seq = countOp(cx);
  const slots = layout ? regSlots(layout, shape) : [{ off: [] as number[] }];
  const n = Math.max(1, slots.length);
  for (let i = 0; i < n; i++) {
    const args: Arg[] = pidArgs(cx);
    if (layout) for (let d = 0; d < shape.length; d++) args.push({ reg: cx.coordReg(layout, shape, slots[i]!, parentDim(layout, d)), bits: 32 });
    op.operands.forEach((v, j) => {
      const r = vals[j]![vals[j]!.length === 1 ? 0 : i]!;
      const t = v.type.elem;
      const k = regKind(t);
      const bits = argBytes(t, hex) * 8 as 32 | 64;
      if (isHalf(t) && hex) {
        const w = cx.reg('b32');
        cx.emit(`cvt.u32.u16 ${w}, ${r};`);
        args.push({ reg: w, bits });
      } else if (t === 'f32' || isHalf(t)) {
        const f = isHalf(t) ? toF32(cx, t, r) : r;
        if (hex) return args.push({ reg: f, bits });
        const d = cx.reg('f64');
        cx.emit(`cvt.f64.f32 ${d}, ${f};`);
        args.push({ reg: d, bits });
      } else if (k === 'pred') {
        const w = cx.reg('b32');
        cx.emit(`selp.u32 ${w}, 1, 0, ${r};`);
        args.push({ reg: w, bits });
      } else args.push({ reg: r, bits });
    });
    const skip = cx.e.label('noprint');
    // the first copy of an element prints it; a print of scalars prints once per program
    const canon = layout ? cx.canonical(layout, shape, slots[i]!) : firstThread(cx);
    if (canon) cx.emit(`@!${canon} bra ${skip};`);
    callVprintf(cx, fmt, args, seq, site);
    if (canon) cx.e.placeLabel(skip);
  }
}

function firstThread(cx: Lowering): string {
  const p = cx.reg('pred');
  cx.emit(`setp.eq.u32 ${p}, ${cx.thread().tid}, 0;`);
  return p;
}

const ASSERTFAIL_DECL = '.extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 __assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, .param .b64 __assertfail_param_4);';

/** Row-major index of a slot's element in `shape`. */
function laneOf(cx: Lowering, layout: Layout, shape: readonly number[], s: RegSlot): string {
  const lin = u32(cx, 0);
  let stride = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    cx.emit(`mad.lo.u32 ${lin}, ${cx.coordReg(layout, shape, s, parentDim(layout, d))}, ${stride}, ${lin};`);
    stride *= shape[d]!;
  }
  return lin;
}

export function lowerAssert(cx: Lowering, op: Op): void {
  const { message } = (op as Op<'assert'>).attrs;
  const cond = op.operands[0]!;
  const shape = cond.type.shape;
  const layout = shape.length ? cx.layoutOf(cond) : undefined;
  const regs = cx.regsIn(cond, layout);
  const site = addSite(cx, { kind: 'assert', message, shape: [...shape], ...(op.loc ? { loc: op.loc } : {}) });
  const seq = countOp(cx);
  // this thread's lowest failing lane (0xffffffff: none)
  const worst = u32(cx, '0xffffffff');
  if (layout) {
    regSlots(layout, shape).forEach((s, i) => {
      const c = regs[regs.length === 1 ? 0 : i]!;
      cx.emit(`@!${c} min.u32 ${worst}, ${worst}, ${laneOf(cx, layout, shape, s)};`);
    });
  } else cx.emit(`@!${regs[0]!} mov.u32 ${worst}, 0;`);
  const ok = cx.e.label('assert_ok');
  const fails = cx.reg('pred');
  cx.emit(`setp.ne.u32 ${fails}, ${worst}, 0xffffffff;`);
  cx.emit(`@!${fails} bra ${ok};`);
  const fmt = `assertion failed in program (%d, %d, %d), lane %u: ${message.replace(/%/g, '%%')}\n`;
  callVprintf(cx, fmt, [...pidArgs(cx), { reg: worst, bits: 32 }], seq, site);
  if (!cx.moduleDecls.includes(ASSERTFAIL_DECL)) cx.moduleDecls.push(ASSERTFAIL_DECL);
  const str = (text: string): string => {
    const r = cx.reg('b64');
    cx.emit(`mov.u64 ${r}, ${cx.addString(text)};`);
    cx.emit(`cvta.global.u64 ${r}, ${r};`);
    return r;
  };
  const msg = str(message);
  const file = str(op.loc?.file ?? '<unknown>');
  const func = str(cx.func.name);
  cx.emit('{');
  cx.emit('.param .b64 a0;');
  cx.emit(`st.param.b64 [a0], ${msg};`);
  cx.emit('.param .b64 a1;');
  cx.emit(`st.param.b64 [a1], ${file};`);
  cx.emit('.param .b32 a2;');
  cx.emit(`st.param.b32 [a2], ${op.loc?.line ?? 0};`);
  cx.emit('.param .b64 a3;');
  cx.emit(`st.param.b64 [a3], ${func};`);
  cx.emit('.param .b64 a4;');
  cx.emit('st.param.b64 [a4], 1;');
  cx.emit('call.uni __assertfail, (a0, a1, a2, a3, a4);');
  cx.emit('}');
  cx.e.placeLabel(ok);
}
