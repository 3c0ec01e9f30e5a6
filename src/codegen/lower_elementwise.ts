// Per-element ops: one small template per (op, dtype class), applied to every register a thread
// holds. Legalization happens here, before emission: f16/bf16 compute in f32 and round back with
// cvt.rn; narrow integers compute in 32-bit registers and are re-normalized (wraparound).
import type { BinaryFn, CmpPred, Op, UnaryFn } from '../ir/ops.js';
import { isFloat, isPtr, isSigned, pointee, type DType, type ElemType, type PtrType } from '../ir/types.js';
import { byteSize, isFp8, isMxDType } from '../ir/types.js';
import { f4e2m1Bits, f8e8m0Bits } from '../ir/mx.js';
import { fp8Bits } from '../ir/fp8.js';
import { halfBits, immediate, INT_OP_TYPE, isHalf, regKind } from './ptx_types.js';
import { movFor, type Lowering } from './context.js';
import { parentDim } from '../compiler/layout.js';
import { castOne, CAST_RULES } from './convert/lower_cast.js';
export { castOne };
import { unaryMath } from './math/math_select.js';
import { emitFmod } from './math/lower_fmod.js';
import { emitPow } from './math/lower_pow.js';
import { fmaBf16Once } from './convert/lower_round_once.js';

type Rule = (cx: Lowering, op: Op) => void;
const elemOf = (op: Op, i = 0): ElemType => op.operands[i]!.type.elem;

/** f16/bf16 register -> f32 register. */
export function toF32(cx: Lowering, t: ElemType, r: string): string {
  if (t === 'f32') return r;
  const f = cx.reg('f32');
  cx.emit(`cvt.f32.${t === 'bf16' ? 'bf16' : 'f16'} ${f}, ${r};`);
  return f;
}
export function fromF32(cx: Lowering, t: ElemType, f: string, dst: string): void {
  cx.emit(`cvt.rn.${t === 'bf16' ? 'bf16' : 'f16'}.f32 ${dst}, ${f};`);
}
/** Re-establishes the sign/zero extension of a narrow integer kept in a 32-bit register. */
export function normalize(cx: Lowering, t: ElemType, r: string): void {
  if (t === 'i8') cx.emit(`cvt.s32.s8 ${r}, ${r};`);
  else if (t === 'i16') cx.emit(`cvt.s32.s16 ${r}, ${r};`);
  else if (t === 'u8') cx.emit(`and.b32 ${r}, ${r}, 255;`);
}

/** Materializes constant `v` of dtype `t` into `dst`. */
export function movConst(cx: Lowering, t: ElemType, dst: string, v: number | bigint | boolean): void {
  if (t === 'bool') cx.emit(`setp.ne.u32 ${dst}, ${v ? 1 : 0}, 0;`);
  else if (isHalf(t)) cx.emit(`mov.b16 ${dst}, 0x${halfBits(t as 'f16' | 'bf16', Number(v)).toString(16).padStart(4, '0')};`);
  else if (isFp8(t)) cx.emit(`mov.b16 ${dst}, 0x${fp8Bits(t, Number(v)).toString(16).padStart(4, '0')};`);
  else if (isMxDType(t)) cx.emit(`mov.b16 ${dst}, 0x${(t === 'f8e8m0' ? f8e8m0Bits(Number(v)) : f4e2m1Bits(Number(v))).toString(16).padStart(4, '0')};`);
  else if (t === 'f32' || t === 'f64') cx.emit(`mov.${t} ${dst}, ${immediate(t, v)};`);
  else cx.emit(`${movFor(t)} ${dst}, ${immediate(t, v)};`);
}

/** Applies `fn` to every slot of `op`'s result: into fresh registers, or into `into` (one a slot). */
export const perElem = (cx: Lowering, op: Op, fn: (dst: string, srcs: string[]) => void, into?: string[]): void => {
  const r = op.results[0]!;
  const ins = op.operands.map((_, i) => cx.operand(op, i));
  const n = cx.slots(r).length;
  const out = into ?? cx.newRegs(r.type.elem, n);
  for (let k = 0; k < n; k++) fn(out[k]!, ins.map((rs) => rs[rs.length === 1 ? 0 : k]!));
  cx.define(r, out);
};

const FLOAT_BIN: Partial<Record<BinaryFn, (t: 'f32' | 'f64', precise: boolean) => string>> = {
  add: (t) => `add.rn.${t}`,
  sub: (t) => `sub.rn.${t}`,
  mul: (t) => `mul.rn.${t}`,
  div: (t, precise) => (t === 'f64' || precise ? `div.rn.${t}` : 'div.full.f32'),
};
const INT_BIN: Partial<Record<BinaryFn, (ty: string, bits: number) => string>> = {
  add: (ty) => `add.${ty}`,
  sub: (ty) => `sub.${ty}`,
  mul: (ty) => `mul.lo.${ty}`,
  and: (_, b) => `and.b${b}`,
  or: (_, b) => `or.b${b}`,
  xor: (_, b) => `xor.b${b}`,
  min: (ty) => `min.${ty}`,
  max: (ty) => `max.${ty}`,
  shr: (ty) => `shr.${ty}`,
  umulhi: (_, b) => `mul.hi.u${b}`, // unsigned whatever the dtype's sign (Triton's umulhi)
};

function floatBinary(cx: Lowering, fn: BinaryFn, t: 'f32' | 'f64', d: string, a: string, b: string, precise: boolean): void {
  const tmpl = FLOAT_BIN[fn];
  if (tmpl) return cx.emit(`${tmpl(t, precise)} ${d}, ${a}, ${b};`);
  switch (fn) {
    case 'min':
    case 'max':
      if (t === 'f32') return cx.emit(`${fn}.NaN.f32 ${d}, ${a}, ${b};`);
      {
        const p = cx.reg('pred');
        const s = cx.reg('f64');
        cx.emit(`${fn}.f64 ${d}, ${a}, ${b};`);
        cx.emit(`setp.nan.f64 ${p}, ${a}, ${b};`);
        cx.emit(`add.rn.f64 ${s}, ${a}, ${b};`);
        cx.emit(`selp.f64 ${d}, ${s}, ${d}, ${p};`);
      }
      return;
    case 'rem':
      return emitFmod(cx, t, d, a, b); // exact C fmod (lower_fmod.ts)
    case 'pow':
      return emitPow(cx, t, d, a, b, precise); // C pow (lower_pow.ts)
    default:
      cx.fail(`binary '${fn}' is not defined for ${t}`);
  }
}

function intBinary(cx: Lowering, fn: BinaryFn, t: ElemType, d: string, a: string, b: string): void {
  const ty = INT_OP_TYPE[t as DType]!;
  const bits = ty.endsWith('64') ? 64 : 32;
  if (fn === 'shl' || fn === 'shr') {
    let amt = b;
    if (bits === 64) {
      // PTX shifts take a u32 amount: clamp the u64 amount first (2^32 + 5 must still shift out)
      const wide = cx.reg('b64');
      amt = cx.reg('b32');
      cx.emit(`min.u64 ${wide}, ${b}, 64;`);
      cx.emit(`cvt.u32.u64 ${amt}, ${wide};`);
    }
    cx.emit(fn === 'shl' ? `shl.b${bits} ${d}, ${a}, ${amt};` : `shr.${ty} ${d}, ${a}, ${amt};`);
  } else if (fn === 'div' || fn === 'floordiv' || fn === 'rem') {
    // division by zero is defined (docs/semantics.md): div/floordiv give -1, rem gives a
    const z = cx.reg('pred');
    cx.emit(`setp.eq.${ty} ${z}, ${b}, 0;`);
    if (fn === 'rem') {
      cx.emit(`rem.${ty} ${d}, ${a}, ${b};`);
      cx.emit(`selp.b${bits} ${d}, ${a}, ${d}, ${z};`);
    } else {
      cx.emit(`div.${ty} ${d}, ${a}, ${b};`);
      if (fn === 'floordiv' && ty.startsWith('s')) {
        // q -= 1 when the remainder is nonzero and its sign differs from b's
        const r = cx.reg(bits === 64 ? 'b64' : 'b32');
        const x = cx.reg(bits === 64 ? 'b64' : 'b32');
        const p = cx.reg('pred');
        const q = cx.reg('pred');
        cx.emit(`rem.${ty} ${r}, ${a}, ${b};`);
        cx.emit(`xor.b${bits} ${x}, ${r}, ${b};`);
        cx.emit(`setp.ne.${ty} ${p}, ${r}, 0;`);
        cx.emit(`setp.lt.${ty} ${q}, ${x}, 0;`);
        cx.emit(`and.pred ${p}, ${p}, ${q};`);
        cx.emit(`@${p} sub.${ty} ${d}, ${d}, 1;`);
      }
      cx.emit(`selp.b${bits} ${d}, -1, ${d}, ${z};`);
    }
  } else {
    const tmpl = INT_BIN[fn];
    if (!tmpl) cx.fail(`binary '${fn}' is not defined for ${t}`);
    cx.emit(`${tmpl(ty, bits)} ${d}, ${a}, ${b};`);
  }
  normalize(cx, t, d);
}

/** f32 ops of one instruction a slot (it reads its sources before writing): safe to run in place. */
const IN_PLACE: ReadonlySet<BinaryFn> = new Set<BinaryFn>(['add', 'sub', 'mul', 'div', 'min', 'max']);

/**
 * An f32 binary op may write into an operand's registers when it is that operand's only use and the
 * operand owns them (a loop-carried value, or such an op's result: Lowering.clobberOperand). In flash
 * attention `acc * alpha + P V` and `l * alpha + sum(p)` then land in acc's and l's registers, and the
 * loop's back edge copies nothing for them.
 */
function inPlaceOut(cx: Lowering, op: Op, fn: BinaryFn, t: ElemType): string[] | undefined {
  if (t !== 'f32' || !IN_PLACE.has(fn)) return undefined;
  const n = cx.slots(op.results[0]!).length;
  return cx.clobberOperand(op, 0, n) ?? cx.clobberOperand(op, 1, n);
}

const binary: Rule = (cx, op) => {
  const { fn, precise } = (op as Op<'binary'>).attrs;
  const t = elemOf(op);
  const into = inPlaceOut(cx, op, fn, t);
  perElem(cx, op, (d, [a, b]) => {
    if (t === 'bool') {
      const m = { and: 'and', or: 'or', xor: 'xor' }[fn as string];
      if (!m) cx.fail(`binary '${fn}' is not defined for bool`);
      return cx.emit(`${m}.pred ${d}, ${a}, ${b};`);
    }
    if (t === 'f32' || t === 'f64') return floatBinary(cx, fn, t, d, a!, b!, precise);
    if (isHalf(t)) {
      const f = cx.reg('f32');
      floatBinary(cx, fn, 'f32', f, toF32(cx, t, a!), toF32(cx, t, b!), precise);
      return fromF32(cx, t, f, d);
    }
    intBinary(cx, fn, t, d, a!, b!);
  }, into);
};

const CMP: Record<CmpPred, { int: string; float: string }> = {
  eq: { int: 'eq', float: 'eq' },
  ne: { int: 'ne', float: 'neu' }, // NaN != x is true
  lt: { int: 'lt', float: 'lt' },
  le: { int: 'le', float: 'le' },
  gt: { int: 'gt', float: 'gt' },
  ge: { int: 'ge', float: 'ge' },
};
const cmp: Rule = (cx, op) => {
  const pred = (op as Op<'cmp'>).attrs.pred;
  const t = elemOf(op);
  perElem(cx, op, (d, [a, b]) => {
    if (t === 'bool') {
      const x = cx.reg('b32');
      const y = cx.reg('b32');
      cx.emit(`selp.u32 ${x}, 1, 0, ${a};`);
      cx.emit(`selp.u32 ${y}, 1, 0, ${b};`);
      return cx.emit(`setp.${CMP[pred].int}.u32 ${d}, ${x}, ${y};`);
    }
    if (isFloat(t)) {
      const ft = isHalf(t) ? 'f32' : t;
      return cx.emit(`setp.${CMP[pred].float}.${ft} ${d}, ${isHalf(t) ? toF32(cx, t, a!) : a}, ${isHalf(t) ? toF32(cx, t, b!) : b};`);
    }
    const ty = isPtr(t) ? 'u64' : INT_OP_TYPE[t as DType]!;
    cx.emit(`setp.${CMP[pred].int}.${ty} ${d}, ${a}, ${b};`);
  });
};

const select: Rule = (cx, op) => {
  const t = elemOf(op, 1);
  perElem(cx, op, (d, [c, a, b]) => {
    if (t === 'bool') {
      const x = cx.reg('pred');
      const y = cx.reg('pred');
      cx.emit(`and.pred ${x}, ${c}, ${a};`);
      cx.emit(`not.pred ${y}, ${c};`);
      cx.emit(`and.pred ${y}, ${y}, ${b};`);
      return cx.emit(`or.pred ${d}, ${x}, ${y};`);
    }
    const k = regKind(t);
    const ty = k === 'f32' || k === 'f64' ? k : `b${k.endsWith('64') ? 64 : k.endsWith('16') ? 16 : 32}`;
    cx.emit(`selp.${ty} ${d}, ${a}, ${b}, ${c};`);
  });
};

const fma: Rule = (cx, op) => {
  const t = elemOf(op);
  perElem(cx, op, (d, [a, b, c]) => {
    if (t === 'f32' || t === 'f64') return cx.emit(`fma.rn.${t} ${d}, ${a}, ${b}, ${c};`);
    // one rounding of the exact a*b + c (fma.rn.f32 then cvt.rn would round twice)
    if (t === 'f16') return cx.emit(`fma.rn.f16 ${d}, ${a}, ${b}, ${c};`);
    if (t === 'bf16') return fmaBf16Once(cx, d, a!, b!, c!);
    cx.fail(`fma is only defined for floats, got ${t}`);
  });
};

function unaryOne(cx: Lowering, fn: UnaryFn, t: ElemType, d: string, a: string, precise: boolean): void {
  if (t === 'bool') {
    if (fn !== 'not') cx.fail(`unary '${fn}' is not defined for bool`);
    return cx.emit(`not.pred ${d}, ${a};`);
  }
  if (isHalf(t)) {
    if (fn === 'neg') return cx.emit(`xor.b16 ${d}, ${a}, 0x8000;`);
    if (fn === 'abs') return cx.emit(`and.b16 ${d}, ${a}, 0x7FFF;`);
    const f = cx.reg('f32');
    unaryOne(cx, fn, 'f32', f, toF32(cx, t, a), precise);
    return fromF32(cx, t, f, d);
  }
  if (t === 'f32' || t === 'f64') {
    if (fn === 'neg') return cx.emit(`neg.${t} ${d}, ${a};`);
    if (fn === 'abs') return cx.emit(`abs.${t} ${d}, ${a};`);
    if (fn === 'not') cx.fail(`unary 'not' is not defined for ${t}`);
    return unaryMath(cx.e, fn, t, d, a, precise);
  }
  const ty = INT_OP_TYPE[t as DType]!;
  const bits = ty.endsWith('64') ? 64 : 32;
  if (fn === 'neg') cx.emit(`neg.${ty.replace('u', 's')} ${d}, ${a};`);
  else if (fn === 'not') cx.emit(`not.b${bits} ${d}, ${a};`);
  else if (fn === 'abs') cx.emit(isSigned(t) ? `abs.${ty} ${d}, ${a};` : `mov.b${bits} ${d}, ${a};`);
  else cx.fail(`unary '${fn}' is not defined for ${t}`);
  normalize(cx, t, d);
}
const unary: Rule = (cx, op) => {
  const { fn, precise } = (op as Op<'unary'>).attrs;
  const t = elemOf(op);
  perElem(cx, op, (d, [a]) => unaryOne(cx, fn, t, d, a!, precise));
};

const addptr: Rule = (cx, op) => {
  const size = byteSize(pointee(elemOf(op) as PtrType));
  const ot = elemOf(op, 1);
  perElem(cx, op, (d, [p, o]) => {
    if (regKind(ot) === 'b64') {
      const t = cx.reg('b64');
      cx.emit(`mul.lo.s64 ${t}, ${o}, ${size};`);
      cx.emit(`add.s64 ${d}, ${p}, ${t};`);
    } else cx.emit(`mad.wide.${isSigned(ot) ? 's32' : 'u32'} ${d}, ${o}, ${size}, ${p};`);
  });
};

const constant: Rule = (cx, op) => {
  const r = op.results[0]!;
  const n = cx.slots(r).length;
  const one = cx.newRegs(r.type.elem, 1)[0]!;
  movConst(cx, r.type.elem, one, (op as Op<'const'>).attrs.value);
  cx.define(r, new Array<string>(n).fill(one));
};
const splat: Rule = (cx, op) => {
  const r = op.results[0]!;
  const src = cx.regs(op.operands[0]!)[0]!;
  cx.define(r, new Array<string>(cx.slots(r).length).fill(src));
};
const arange: Rule = (cx, op) => {
  const r = op.results[0]!;
  const l = cx.layoutOf(r);
  const start = (op as Op<'arange'>).attrs.start;
  const out = cx.slots(r).map((s) => {
    const c = cx.coord(l, r.type.shape, s, parentDim(l, 0));
    const d = cx.reg('b32');
    cx.emit(`add.s32 ${d}, ${c.reg}, ${c.imm + start};`);
    return d;
  });
  cx.define(r, out);
};
const SREG = ['x', 'y', 'z'];
const programId: Rule = (cx, op) => {
  const d = cx.reg('b32');
  cx.emit(`mov.u32 ${d}, %ctaid.${SREG[(op as Op<'program_id'>).attrs.axis]};`);
  cx.define(op.results[0]!, [d]);
};
const numPrograms: Rule = (cx, op) => {
  const d = cx.reg('b32');
  cx.emit(`mov.u32 ${d}, %nctaid.${SREG[(op as Op<'num_programs'>).attrs.axis]};`);
  cx.define(op.results[0]!, [d]);
};
// %cluster_ctarank exists from sm_90; before it there are no clusters, so every rank is 0
const clusterCtaRank: Rule = (cx, op) => {
  const d = cx.reg('b32');
  cx.emit(cx.target === 'sm_80' || cx.target === 'sm_89' ? `mov.u32 ${d}, 0;` : `mov.u32 ${d}, %cluster_ctarank;`);
  cx.define(op.results[0]!, [d]);
};
const hint: Rule = (cx, op) => cx.define(op.results[0]!, cx.operand(op, 0));

/** broadcast: same layout parameters, size-1 dims read the thread's only register along them. */
const broadcast: Rule = (cx, op) => {
  const src = op.operands[0]!;
  const r = op.results[0]!;
  const regs = cx.operand(op, 0);
  if (src.type.shape.length === 0) return cx.define(r, new Array<string>(cx.slots(r).length).fill(regs[0]!));
  const srcL = cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(src);
  const index = new Map(cx.slots(src, srcL).map((s, i) => [s.off.join(','), i]));
  const out = cx.slots(r).map((s) => {
    const key = s.off.map((o, d) => (src.type.shape[d] === 1 ? 0 : o)).join(',');
    const i = index.get(key) ?? cx.fail(`broadcast: no register for element offset [${key}]`);
    return regs[i]!;
  });
  cx.define(r, out);
};
/** expand_dims of a slice of the result's layout: the registers are the same. */
const expandDims: Rule = (cx, op) => {
  const r = op.results[0]!;
  const regs = cx.operand(op, 0);
  const n = cx.slots(r).length;
  if (regs.length !== n && regs.length !== 1) cx.fail(`expand_dims: ${regs.length} registers for ${n} slots`);
  cx.define(r, regs.length === n ? regs : new Array<string>(n).fill(regs[0]!));
};

export const ELEMENTWISE_RULES: Record<string, Rule> = {
  const: constant, splat, arange, program_id: programId, num_programs: numPrograms, cluster_cta_rank: clusterCtaRank, hint,
  unary, binary, cmp, select, fma, cast: CAST_RULES.cast!, bitcast: CAST_RULES.bitcast!, addptr, broadcast, expand_dims: expandDims,
};
