// Memory ops: addptr, load, store, atomic_rmw, atomic_cas. Every unmasked lane's address is
// checked (inside a live buffer, whole element inside, naturally aligned); masked-off lanes are
// never looked at. A store checks all its lanes before writing any. Atomics run lane by lane in
// order, and programs run one after another, so "grid order" is simply execution order.
import type { AtomicOp, Op } from '../ir/ops.js';
import { isFloat, isPtr, numel, pointee, type DType, type ElemType } from '../ir/types.js';
import { bitsOf, indexString, newArray, splatTo, type Lanes } from './arrays.js';
import type { Compiler, Rule, RunCtx } from './context.js';
import { InterpretError, unsupported } from './errors.js';
import { BYTES, type ElemArray } from '../ir/dtype_arrays.js';
import type { Allocation } from './memory.js';
import { floatDecoder, floatEncoder, FLOAT_BINARY, I64_BINARY, intBinary } from './scalar.js';

const ptrDtype = (op: Op, c: Compiler): DType => {
  const e = op.operands[0]!.type.elem;
  if (!isPtr(e)) throw unsupported(c.kernel, op, `expected a pointer operand, got ${e}`);
  return pointee(e);
};

/** Dtype of the memory view used to move lanes bit-exactly (f32 through its bits). */
export const moveDtype = (d: DType): DType => (d === 'f32' ? 'u32' : d);

const hex = (a: number) => `0x${a.toString(16)}`;

/** Finds the buffer for one lane's access or throws E_OOB with everything needed to debug it. */
function locate(cx: RunCtx, c: Compiler, op: Op, what: string, addr: number, size: number, lane: number): Allocation {
  const a = cx.mem.find(addr);
  if (a && !a.freed && addr + size <= a.base + a.size && addr % size === 0) return a;
  let why: string;
  if (!Number.isFinite(addr) || addr < 0 || !Number.isInteger(addr)) why = 'is not a valid address';
  else if (a && a.freed) why = 'is inside a freed buffer';
  else if (a && addr % size !== 0) why = `is misaligned for a ${size}-byte element`;
  else if (a) why = 'runs past the end of its buffer';
  else why = 'is outside every buffer';
  const shape = op.kind === 'desc_load' || op.kind === 'desc_store' ? (op as Op<'desc_load'>).attrs.block : op.operands[0]!.type.shape;
  const idx = shape.length ? ` [${indexString(shape, lane)}]` : '';
  throw new InterpretError(
    'E_OOB',
    `out-of-bounds ${what} in program (${cx.pid.join(', ')}), lane ${lane}${idx}: address ${hex(addr)} (${size} bytes) ${why}; ${cx.mem.describeNearest(addr)}`,
    { kernel: c.kernel, ...(op.loc ? { loc: op.loc } : {}), pid: [...cx.pid], lane, address: addr },
  );
}

/**
 * Remembers the last buffer a memory op touched, so consecutive lanes in the same buffer cost a
 * range check instead of a lookup. One cursor per op execution.
 */
export class Cursor {
  lo = 0;
  hi = -1;
  view: Lanes = new Uint8Array(0);
  constructor(private readonly cx: RunCtx, private readonly c: Compiler, private readonly op: Op,
    private readonly what: string, private readonly size: number, private readonly vd: DType) {}

  /** Element index of `addr` in `this.view`, after checking the access (throws E_OOB). */
  index(addr: number, lane: number): number {
    if (addr >= this.lo && addr + this.size <= this.hi) {
      const k = (addr - this.lo) / this.size;
      if (k === Math.floor(k)) return k; // buffers are 256-aligned: aligned iff k is whole
    }
    const a = locate(this.cx, this.c, this.op, this.what, addr, this.size, lane);
    this.lo = a.base;
    this.hi = a.base + a.size;
    this.view = this.cx.mem.viewOf(a, this.vd);
    return (addr - a.base) / this.size;
  }
}

/**
 * A separate function per op (see rules-elementwise.ts: freshLoop), so each memory op's element
 * accesses stay monomorphic. Only code written in this file is ever passed in.
 */
function freshLoop(body: string, ...params: string[]): (...args: any[]) => void {
  return new Function(`return function memLoop(${params.join(', ')}) { ${body} }`)();
}

export const addptrRule: Rule<'addptr'> = (op, c) => {
  const d = ptrDtype(op, c);
  const size = BYTES[d];
  const [p, o] = op.operands.map((v) => v.id) as [number, number];
  const id = op.results[0]!.id;
  return (cx) => {
    const ptrs = cx.env[p]!;
    const offs = cx.env[o]!;
    const n = Math.max(ptrs.length, offs.length);
    const pp: Lanes = splatTo(ptrs, n);
    const oo: Lanes = splatTo(offs, n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = pp[i] + Number(oo[i]) * size;
    cx.env[id] = out;
  };
};

export const loadRule: Rule<'load'> = (op, c) => {
  const d = ptrDtype(op, c);
  const size = BYTES[d];
  const { hasMask, hasOther } = op.attrs;
  const ids = op.operands.map((v) => v.id);
  const ptrId = ids[0]!;
  const maskId = hasMask ? ids[1] : undefined;
  const otherId = hasOther ? ids[hasMask ? 2 : 1] : undefined;
  const id = op.results[0]!.id;
  const n = numel(op.results[0]!.type.shape);
  const t: ElemType = d;
  const vd = moveDtype(d);
  // A masked-off lane takes `other` (or stays 0) and is never looked up.
  const loop = freshLoop(`for (let i = 0; i < n; i++) {
    ${hasMask ? `if (!mask[i]) { ${hasOther ? 'o[i] = other[i];' : ''} continue; }` : ''}
    const k = cur.index(ptrs[i], i);
    o[i] = ${d === 'bool' ? '(cur.view[k] !== 0 ? 1 : 0)' : 'cur.view[k]'};
  }`, 'cur', 'ptrs', 'mask', 'other', 'o', 'n');
  return (cx) => {
    const ptrs: Lanes = splatTo(cx.env[ptrId]!, n);
    const mask: Lanes | undefined = maskId === undefined ? undefined : splatTo(cx.env[maskId]!, n);
    const other: Lanes | undefined = otherId === undefined ? undefined : bitsOf(splatTo(cx.env[otherId]!, n));
    const out = newArray(t, n);
    const o: Lanes = bitsOf(out);
    loop(new Cursor(cx, c, op, 'load', size, vd), ptrs, mask, other, o, n);
    cx.env[id] = out;
  };
};

export const storeRule: Rule<'store'> = (op, c) => {
  const d = ptrDtype(op, c);
  const size = BYTES[d];
  const [ptrId, valId, maskId] = op.operands.map((v) => v.id) as [number, number, number | undefined];
  const hasMask = op.attrs.hasMask;
  const n = numel(op.operands[0]!.type.shape);
  const vd = moveDtype(d);
  const skip = hasMask ? 'if (!mask[i]) continue;' : '';
  const loop = freshLoop(`
    for (let i = 0; i < n; i++) { ${skip} check.index(ptrs[i], i); }
    for (let i = 0; i < n; i++) { ${skip} const k = cur.index(ptrs[i], i); cur.view[k] = vals[i]; }`,
  'check', 'cur', 'ptrs', 'vals', 'mask', 'n');
  return (cx) => {
    const ptrs: Lanes = splatTo(cx.env[ptrId]!, n);
    const vals: Lanes = bitsOf(splatTo(cx.env[valId]!, n));
    const mask: Lanes | undefined = hasMask ? splatTo(cx.env[maskId!]!, n) : undefined;
    // Check every active lane first: a failing store writes nothing.
    loop(new Cursor(cx, c, op, 'store', size, vd), new Cursor(cx, c, op, 'store', size, vd), ptrs, vals, mask, n);
  };
};

type Combine = (old: number | bigint, v: number | bigint) => number | bigint;

/** f32/f64 atomic max/min read and write bits (see floatBitsMinMax). */
const bitsMinMax = (opName: AtomicOp, d: DType): boolean => (opName === 'max' || opName === 'min') && (d === 'f32' || d === 'f64');
const atomicBits = (d: DType): DType => (d === 'f32' ? 'u32' : 'i64');

/**
 * Atomic float max/min order bit patterns as sign-magnitude numbers, which is what the lowering
 * through integer atomics gives (and Triton's): -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
 * So a NaN with the sign bit clear wins a max and loses a min (docs/semantics.md).
 */
function floatBitsMinMax(isMax: boolean, d: DType): Combine {
  const key = d === 'f32'
    ? (b: number | bigint): number => ((Number(b) >>> 0) >= 0x80000000 ? -((Number(b) >>> 0) & 0x7fffffff) - 1 : Number(b))
    : (b: number | bigint): bigint => ((b as bigint) < 0n ? -((b as bigint) & 0x7fffffffffffffffn) - 1n : (b as bigint));
  return (o, v) => ((key(v) > key(o)) === isMax && key(v) !== key(o) ? v : o);
}

function atomicCombine(opName: AtomicOp, d: DType): Combine | undefined {
  if (opName === 'xchg') return (_old, v) => v;
  if (bitsMinMax(opName, d)) return floatBitsMinMax(opName === 'max', d);
  if (isFloat(d)) {
    if (opName !== 'add' && opName !== 'max' && opName !== 'min') return undefined;
    const f = FLOAT_BINARY[opName]!;
    const dec = floatDecoder(d);
    const enc = floatEncoder(d);
    if (dec && enc) return (o, v) => enc(Math.fround(f(dec(o as number), dec(v as number))));
    return f as Combine;
  }
  if (d === 'i64') return I64_BINARY[opName] as Combine;
  const f = intBinary(opName, d === 'bool' ? 'u8' : d);
  return f as Combine | undefined;
}

export const atomicRmwRule: Rule<'atomic_rmw'> = (op, c) => {
  const d = ptrDtype(op, c);
  const size = BYTES[d];
  const f = atomicCombine(op.attrs.op, d);
  if (!f) throw unsupported(c.kernel, op, `atomic '${op.attrs.op}' is not defined on ${d}`);
  const [ptrId, valId, maskId] = op.operands.map((v) => v.id) as [number, number, number | undefined];
  const hasMask = op.attrs.hasMask;
  const id = op.results[0]!.id;
  const n = numel(op.results[0]!.type.shape);
  // xchg and float max/min move bits; arithmetic reads values (f16/bf16 lanes are bits, decoded by `f`).
  const vd = op.attrs.op === 'xchg' ? moveDtype(d) : bitsMinMax(op.attrs.op, d) ? atomicBits(d) : d;
  const asBits = (a: ElemArray): Lanes => (vd === d ? a : vd === 'i64' ? new BigInt64Array(a.buffer, a.byteOffset, a.length) : bitsOf(a));
  return (cx) => {
    const ptrs: Lanes = splatTo(cx.env[ptrId]!, n);
    const valArr = splatTo(cx.env[valId]!, n);
    const vals: Lanes = asBits(valArr);
    const mask: Lanes | undefined = hasMask ? splatTo(cx.env[maskId!]!, n) : undefined;
    const out = newArray(d, n);
    const o: Lanes = asBits(out);
    for (let i = 0; i < n; i++) {
      if (mask && !mask[i]) continue; // old value of a masked-off lane reads as 0
      const addr = ptrs[i] as number;
      const a = locate(cx, c, op, 'atomic', addr, size, i);
      const view: Lanes = cx.mem.viewOf(a, vd);
      const k = (addr - a.base) / size;
      const old = view[k];
      o[i] = old;
      view[k] = f(old, vals[i]);
    }
    cx.env[id] = out;
  };
};

/** Integer dtype of the same width, for bitwise compare-and-swap. */
const casDtype = (d: DType): DType => (d === 'f32' ? 'u32' : d === 'f64' ? 'i64' : d);

function intView(a: ElemArray, d: DType): Lanes {
  if (d === 'f32') return new Uint32Array(a.buffer, a.byteOffset, a.length);
  if (d === 'f64') return new BigInt64Array(a.buffer, a.byteOffset, a.length);
  return a;
}

export const atomicCasRule: Rule<'atomic_cas'> = (op, c) => {
  const d = ptrDtype(op, c);
  const size = BYTES[d];
  const vd = casDtype(d);
  const [ptrId, cmpId, valId] = op.operands.map((v) => v.id) as [number, number, number];
  const id = op.results[0]!.id;
  const n = numel(op.results[0]!.type.shape);
  return (cx) => {
    const ptrs: Lanes = splatTo(cx.env[ptrId]!, n);
    const cmps = intView(splatTo(cx.env[cmpId]!, n), d);
    const vals = intView(splatTo(cx.env[valId]!, n), d);
    const out = newArray(d, n);
    const o = intView(out, d);
    for (let i = 0; i < n; i++) {
      const addr = ptrs[i] as number;
      const a = locate(cx, c, op, 'atomic_cas', addr, size, i);
      const view: Lanes = cx.mem.viewOf(a, vd);
      const k = (addr - a.base) / size;
      const old = view[k];
      o[i] = old;
      if (old === cmps[i]) view[k] = vals[i]; // compares bit patterns, as PTX atom.cas.b32/.b64
    }
    cx.env[id] = out;
  };
};
