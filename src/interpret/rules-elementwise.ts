// Lane-wise ops: const, program ids, arange, splat, unary, binary, cmp, select, fma, cast,
// bitcast, hint. Each rule picks its per-lane function once, at compile time, from the dtype.
// Lane counts come from the operand arrays (not the static type) so the same closures also run
// a combine region over many lanes at once; one-lane operands (constants) are repeated.
import type { ConstValue, Op } from '../ir/ops.js';
import { bitWidth, isFloat, isInt, isPtr, numel, type DType, type ElemType } from '../ir/types.js';
import { arrayCtorFor, type ElemArray } from '../ir/dtype_arrays.js';
import { bitsOf, newArray, splatTo, type Lanes } from './arrays.js';
import type { Rule, Step } from './context.js';
import { unsupported } from './errors.js';
import {
  CMP, FLOAT_BINARY, FLOAT_UNARY, I64_BINARY, castFn, floatDecoder, fmaFor, intBinary, onHalf1, onHalf2,
} from './scalar.js';
import { f16Bits, bf16Bits } from '../ir/half.js';
import { f8e4m3Bits, f8e5m2Bits } from '../ir/fp8.js';
import { f4e2m1Bits, f8e8m0Bits } from '../ir/mx.js';

const elemOf = (op: Op, i = 0): ElemType => op.results[i]!.type.elem;
const dtypeOf = (op: Op, i = 0): DType => {
  const e = elemOf(op, i);
  return (isPtr(e) ? 'i64' : e) as DType;
};

/** The lane value that represents `v` in an array of `t`. */
export function laneOf(t: ElemType, v: ConstValue): number | bigint {
  if (t === 'i64') return typeof v === 'bigint' ? v : BigInt(typeof v === 'boolean' ? Number(v) : v);
  const n = typeof v === 'bigint' ? Number(v) : Number(v);
  if (t === 'f16') return f16Bits(n);
  if (t === 'bf16') return bf16Bits(n);
  if (t === 'f8e4m3') return f8e4m3Bits(n);
  if (t === 'f8e5m2') return f8e5m2Bits(n);
  if (t === 'f8e8m0') return f8e8m0Bits(n);
  if (t === 'f4e2m1') return f4e2m1Bits(n);
  if (t === 'bool') return n !== 0 ? 1 : 0;
  return n;
}

type Loop = (f: unknown, out: Lanes, a: Lanes, b: Lanes, c: Lanes, n: number) => void;

/**
 * A fresh copy of the per-lane loop for one op. Each copy is a separate function to V8, so its
 * element accesses and the call of `f` stay monomorphic (one dtype, one function) and fast;
 * a single shared loop would see every dtype and every op and go megamorphic.
 */
function freshLoop(arity: number): Loop {
  const args = ['a[i]', 'b[i]', 'c[i]'].slice(0, arity).join(', ');
  return new Function(`return function lanes(f, out, a, b, c, n) { for (let i = 0; i < n; i++) out[i] = f(${args}); }`)() as Loop;
}

/** Runs f over the lanes of `ins` (one-lane inputs repeated) into a new array of type t. */
function mapLanes(loop: Loop, t: ElemType, ins: ElemArray[], f: unknown): ElemArray {
  let n = 1;
  for (const a of ins) if (a.length > n) n = a.length;
  const a: Lanes = ins[0] && ins[0].length !== n ? splatTo(ins[0], n) : ins[0]!;
  const b: Lanes = ins[1] ? (ins[1].length !== n ? splatTo(ins[1], n) : ins[1]) : a;
  const c: Lanes = ins[2] ? (ins[2].length !== n ? splatTo(ins[2], n) : ins[2]) : a;
  const out = newArray(t, n);
  loop(f, out, a, b, c, n);
  return out;
}

const get = (cx: { env: ElemArray[] }, id: number): ElemArray => cx.env[id]!;

// Values are never mutated once written, so constant tiles are built once and shared.
export const constRule: Rule<'const'> = (op) => {
  const t = elemOf(op);
  const n = numel(op.results[0]!.type.shape);
  const lane = laneOf(t, op.attrs.value);
  const id = op.results[0]!.id;
  const out: Lanes = newArray(t, n);
  for (let i = 0; i < n; i++) out[i] = lane;
  const value = out as ElemArray;
  return (cx) => { cx.env[id] = value; };
};

export const programIdRule: Rule<'program_id'> = (op) => {
  const id = op.results[0]!.id;
  const axis = op.attrs.axis;
  return (cx) => { cx.env[id] = Int32Array.of(cx.pid[axis]); };
};

export const numProgramsRule: Rule<'num_programs'> = (op) => {
  const id = op.results[0]!.id;
  const axis = op.attrs.axis;
  return (cx) => { cx.env[id] = Int32Array.of(cx.grid[axis]); };
};

/** The program's rank in its cluster, x fastest, as %cluster_ctarank. */
export const clusterCtaRankRule: Rule<'cluster_cta_rank'> = (op) => {
  const id = op.results[0]!.id;
  return (cx) => {
    const [cx0, cy, cz] = cx.cluster;
    cx.env[id] = Int32Array.of((cx.pid[0] % cx0) + cx0 * ((cx.pid[1] % cy) + cy * (cx.pid[2] % cz)));
  };
};

export const arangeRule: Rule<'arange'> = (op) => {
  const { start, end } = op.attrs;
  const id = op.results[0]!.id;
  const value = new Int32Array(end - start);
  for (let i = 0; i < value.length; i++) value[i] = start + i;
  return (cx) => { cx.env[id] = value; };
};

export const splatRule: Rule<'splat'> = (op) => {
  const src = op.operands[0]!.id;
  const id = op.results[0]!.id;
  const n = numel(op.results[0]!.type.shape);
  return (cx) => {
    const a = get(cx, src);
    cx.env[id] = a.length === 1 ? splatTo(a, n) : a; // many lanes: a lane-wise region passes through
  };
};

export const hintRule: Rule<'hint'> = (op) => {
  const src = op.operands[0]!.id;
  const id = op.results[0]!.id;
  return (cx) => { cx.env[id] = get(cx, src); };
};

/** Builds a step that maps `f` over the operands' lanes into result 0. */
function lanewise(op: Op, f: (...xs: never[]) => number | bigint | boolean): Step {
  const ids = op.operands.map((v) => v.id);
  const t = elemOf(op);
  const id = op.results[0]!.id;
  const loop = freshLoop(ids.length);
  if (ids.length === 1) { const a = ids[0]!; return (cx) => { cx.env[id] = mapLanes(loop, t, [get(cx, a)], f); }; }
  if (ids.length === 2) {
    const [a, b] = ids as [number, number];
    return (cx) => { cx.env[id] = mapLanes(loop, t, [get(cx, a), get(cx, b)], f); };
  }
  return (cx) => { cx.env[id] = mapLanes(loop, t, ids.map((i) => get(cx, i)), f); };
}

export const unaryRule: Rule<'unary'> = (op, c) => {
  const t = dtypeOf(op);
  const fn = op.attrs.fn;
  if (isFloat(t)) {
    const f = FLOAT_UNARY[fn];
    if (!f) throw unsupported(c.kernel, op, `'${fn}' is not defined on ${t}`);
    return lanewise(op, onHalf1(t, f) as never);
  }
  if (t === 'bool') {
    if (fn === 'not') return lanewise(op, ((a: number) => a ^ 1) as never);
    if (fn === 'abs' || fn === 'floor' || fn === 'ceil') return lanewise(op, ((a: number) => a) as never);
    if (fn === 'neg') return lanewise(op, ((a: number) => a) as never); // -1 wraps to 1 in one bit
    throw unsupported(c.kernel, op, `'${fn}' is not defined on bool`);
  }
  if (t === 'i64') {
    const f: Partial<Record<typeof fn, (a: bigint) => bigint>> = {
      neg: (a) => -a, not: (a) => ~a, abs: (a) => (a < 0n ? -a : a), floor: (a) => a, ceil: (a) => a,
    };
    const g = f[fn];
    if (!g) throw unsupported(c.kernel, op, `'${fn}' is not defined on i64`);
    return lanewise(op, g as never);
  }
  const f: Partial<Record<typeof fn, (a: number) => number>> = {
    neg: (a) => -a, not: (a) => ~a, abs: Math.abs, floor: (a) => a, ceil: (a) => a,
  };
  const g = f[fn];
  if (!g) throw unsupported(c.kernel, op, `'${fn}' is not defined on ${t} (cast to a float first)`);
  return lanewise(op, g as never);
};

export const binaryRule: Rule<'binary'> = (op, c) => {
  const t = dtypeOf(op);
  const fn = op.attrs.fn;
  if (isPtr(elemOf(op))) throw unsupported(c.kernel, op, 'pointer arithmetic goes through addptr');
  if (isFloat(t)) {
    const f = FLOAT_BINARY[fn];
    if (!f) throw unsupported(c.kernel, op, `'${fn}' is not defined on ${t}`);
    return lanewise(op, onHalf2(t, f) as never);
  }
  if (t === 'i64') return lanewise(op, I64_BINARY[fn] as never);
  const f = intBinary(fn, t === 'bool' ? 'u8' : t);
  if (!f) throw unsupported(c.kernel, op, `'${fn}' is not defined on ${t}`);
  // bool is a one-bit unsigned integer.
  return lanewise(op, (t === 'bool' ? (a: number, b: number) => f(a, b) & 1 : f) as never);
};

export const cmpRule: Rule<'cmp'> = (op) => {
  const e = op.operands[0]!.type.elem;
  const p = CMP[op.attrs.pred];
  const dec = isPtr(e) ? undefined : floatDecoder(e as DType);
  return lanewise(op, (dec ? (a: number, b: number) => p(dec(a), dec(b)) : p) as never);
};

export const selectRule: Rule<'select'> = (op) => {
  const [c, a, b] = op.operands.map((v) => v.id) as [number, number, number];
  const t = elemOf(op);
  const id = op.results[0]!.id;
  return (cx) => {
    const cond = get(cx, c);
    const x = get(cx, a);
    const y = get(cx, b);
    const n = Math.max(cond.length, x.length, y.length);
    const cc: Lanes = splatTo(cond, n);
    const xx: Lanes = bitsOf(splatTo(x, n));
    const yy: Lanes = bitsOf(splatTo(y, n));
    const out = newArray(t, n);
    const o: Lanes = bitsOf(out);
    for (let i = 0; i < n; i++) o[i] = cc[i] ? xx[i] : yy[i];
    cx.env[id] = out;
  };
};

export const fmaRule: Rule<'fma'> = (op, c) => {
  const t = dtypeOf(op);
  if (isFloat(t)) return lanewise(op, fmaFor(t) as never);
  if (t === 'i64') return lanewise(op, ((a: bigint, b: bigint, d: bigint) => a * b + d) as never);
  if (isInt(t)) return lanewise(op, ((a: number, b: number, d: number) => Math.imul(a, b) + d) as never);
  throw unsupported(c.kernel, op, `fma is not defined on ${t}`);
};

export const castRule: Rule<'cast'> = (op, c) => {
  const from = op.operands[0]!.type.elem;
  const f = castFn(from, op.attrs.to, op.attrs.rounding);
  if (!f) throw unsupported(c.kernel, op, `cannot cast ${from} to ${op.attrs.to}`);
  return lanewise(op, f as never);
};

export const bitcastRule: Rule<'bitcast'> = (op, c) => {
  const from = op.operands[0]!.type.elem;
  const to = op.attrs.to;
  const src = op.operands[0]!.id;
  const id = op.results[0]!.id;
  if (isPtr(from)) {
    if (to !== 'i64') throw unsupported(c.kernel, op, `cannot bitcast ${from} to ${to}`);
    return lanewise(op, ((a: number) => BigInt(a)) as never);
  }
  // bool is stored as one byte; treat it as 8 bits wide for reinterpretation.
  const w = (t: DType) => (t === 'bool' ? 8 : bitWidth(t));
  if (w(from as DType) !== w(to)) throw unsupported(c.kernel, op, `bitcast needs equal widths (${from} -> ${to})`);
  const C = arrayCtorFor(to);
  return (cx) => {
    const a = get(cx, src);
    const copy = new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
    let out = new C(copy.buffer, 0, a.length);
    if (to === 'bool') out = Uint8Array.from(out as Uint8Array, (v) => (v !== 0 ? 1 : 0));
    cx.env[id] = out;
  };
};
