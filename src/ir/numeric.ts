// Scalar arithmetic with exact dtype semantics, for constant folding (and for anyone else who
// needs the reference behaviour of one element). Integers are computed as bigint and wrapped to
// the dtype's width; floats are computed in f64 and rounded once to the dtype (f32 with
// Math.fround, f16/bf16 to nearest even). For add/sub/mul/div/sqrt that single rounding equals
// the correctly rounded result, because f64 has more than twice the precision of f32/f16/bf16.
// Functions return `undefined` where the result is not a fixed, portable value (division by
// zero, out-of-range shifts or float->int casts, approximate hardware math): callers do not fold.
import type { BinaryFn, CmpPred, ConstValue, UnaryFn } from './ops.js';
import type { DType } from './types.js';
import { bitWidth, isFloat, isInt, isSigned } from './types.js';
import { toF8E4M3, toF8E5M2 } from './fp8.js';
import { f4e2m1Bits, f4e2m1Value, f8e8m0Bits, f8e8m0Value } from './mx.js';

/** Rounds `x` to a binary float with `mant` significand bits (hidden bit included), nearest even. */
function roundToFormat(x: number, mant: number, minExp: number, maxFinite: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  const quantum = 2 ** (Math.max(e, minExp) - (mant - 1));
  const y = a / quantum; // exact: scaling by a power of two
  const fl = Math.floor(y);
  const diff = y - fl;
  const n = diff > 0.5 || (diff === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
  const r = n * quantum;
  return Math.sign(x) * (r > maxFinite ? Infinity : r);
}

export const roundF16 = (x: number): number => roundToFormat(x, 11, -14, 65504);
export const roundBF16 = (x: number): number => roundToFormat(x, 8, -126, 3.3895313892515355e38);

// One scratch word for roundTF32's bit arithmetic.
const TF32_F = new Float32Array(1);
const TF32_U = new Uint32Array(TF32_F.buffer);
/**
 * An f32 value rounded to tf32 (10 fraction bits, f32's exponent range) to nearest with ties away
 * from zero, the way cvt.rna.tf32.f32 does: adding half an ulp to the magnitude bits and clearing
 * the low 13 bits. Inf and NaN are returned unchanged; values past the largest tf32 become Inf.
 */
export function roundTF32(x: number): number {
  if (!Number.isFinite(x)) return x;
  TF32_F[0] = x;
  TF32_U[0] = (TF32_U[0]! + 0x1000) & 0xffffe000;
  return TF32_F[0]!;
}

/** Rounds an f64 to the float dtype `d` (fp8: nearest even, saturating to ±max as cvt.rn.satfinite). */
export function roundFloat(d: DType, x: number): number {
  switch (d) {
    case 'f64': return x;
    case 'f32': return Math.fround(x);
    case 'f16': return roundF16(x);
    case 'bf16': return roundBF16(x);
    case 'f8e4m3': return toF8E4M3(x);
    case 'f8e5m2': return toF8E5M2(x);
    case 'f8e8m0': return f8e8m0Value(f8e8m0Bits(x));
    case 'f4e2m1': return f4e2m1Value(f4e2m1Bits(x));
    default: throw new Error(`roundFloat: ${d} is not a float dtype`);
  }
}

/** Wraps an integer to the range of the integer dtype `d` (two's complement). */
export function wrapInt(d: DType, v: bigint): bigint {
  const bits = bitWidth(d);
  return isSigned(d) ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}

/** Integer constant as bigint (accepts number, bigint or boolean). */
export const toBigInt = (v: ConstValue): bigint => (typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(Math.trunc(v)));
/** Numeric constant as number (bigint converted, booleans as 0/1). */
export const toNumber = (v: ConstValue): number => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));

/** The canonical stored form of an integer constant: bigint for i64, number otherwise. */
export const fromBigInt = (d: DType, v: bigint): ConstValue => (d === 'i64' ? wrapInt(d, v) : Number(wrapInt(d, v)));

/** Canonical form of any constant of dtype `d` (booleans for bool, rounded floats, wrapped ints). */
export function normalizeConst(d: DType, v: ConstValue): ConstValue {
  if (d === 'bool') return typeof v === 'boolean' ? v : toNumber(v) !== 0;
  if (isFloat(d)) return roundFloat(d, toNumber(v));
  return fromBigInt(d, toBigInt(v));
}

export function evalUnary(fn: UnaryFn, d: DType, v: ConstValue, precise = false): ConstValue | undefined {
  if (d === 'bool') return fn === 'not' ? !v : undefined;
  if (isInt(d)) {
    const a = toBigInt(v);
    switch (fn) {
      case 'neg': return fromBigInt(d, -a);
      case 'not': return fromBigInt(d, ~a);
      case 'abs': return fromBigInt(d, a < 0n ? -a : a);
      default: return undefined;
    }
  }
  const x = toNumber(v);
  switch (fn) {
    case 'neg': return -x;
    case 'abs': return Math.abs(x);
    case 'floor': return Math.floor(x);
    case 'ceil': return Math.ceil(x);
    // sqrt is approximate on the GPU unless the op asks for a precise one.
    case 'sqrt': return precise ? roundFloat(d, Math.sqrt(x)) : undefined;
    default: return undefined; // transcendental functions are approximations on the GPU
  }
}

function evalIntBinary(fn: BinaryFn, d: DType, a: bigint, b: bigint): ConstValue | undefined {
  const bits = BigInt(bitWidth(d));
  switch (fn) {
    case 'add': return fromBigInt(d, a + b);
    case 'sub': return fromBigInt(d, a - b);
    case 'mul': return fromBigInt(d, a * b);
    case 'div': return b === 0n ? undefined : fromBigInt(d, a / b);
    case 'rem': return b === 0n ? undefined : fromBigInt(d, a % b);
    case 'floordiv': {
      if (b === 0n) return undefined;
      let q = a / b;
      if (a % b !== 0n && (a < 0n) !== (b < 0n)) q -= 1n;
      return fromBigInt(d, q);
    }
    case 'and': return fromBigInt(d, a & b);
    case 'or': return fromBigInt(d, a | b);
    case 'xor': return fromBigInt(d, a ^ b);
    case 'shl': return b < 0n || b >= bits ? undefined : fromBigInt(d, a << b);
    case 'shr': return b < 0n || b >= bits ? undefined : fromBigInt(d, a >> b); // a is in range: sign-correct
    case 'min': return fromBigInt(d, a < b ? a : b);
    case 'max': return fromBigInt(d, a > b ? a : b);
    case 'pow': return undefined;
    case 'umulhi': return fromBigInt(d, (BigInt.asUintN(Number(bits), a) * BigInt.asUintN(Number(bits), b)) >> bits);
  }
}

function evalFloatBinary(fn: BinaryFn, d: DType, a: number, b: number, precise: boolean): ConstValue | undefined {
  switch (fn) {
    case 'add': return roundFloat(d, a + b);
    case 'sub': return roundFloat(d, a - b);
    case 'mul': return roundFloat(d, a * b);
    // The default float division is approximate (div.full.f32); only the precise one folds.
    case 'div': return precise || d === 'f64' ? roundFloat(d, a / b) : undefined;
    case 'rem': return a % b; // fmod is exact
    case 'min': return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b);
    case 'max': return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b);
    default: return undefined;
  }
}

export function evalBinary(fn: BinaryFn, d: DType, a: ConstValue, b: ConstValue, precise = false): ConstValue | undefined {
  if (d === 'bool') {
    const x = Boolean(a), y = Boolean(b);
    switch (fn) {
      case 'and': return x && y;
      case 'or': return x || y;
      case 'xor': return x !== y;
      default: return undefined;
    }
  }
  if (isInt(d)) return evalIntBinary(fn, d, toBigInt(a), toBigInt(b));
  return evalFloatBinary(fn, d, toNumber(a), toNumber(b), precise);
}

export function evalCmp(pred: CmpPred, d: DType, a: ConstValue, b: ConstValue): boolean {
  // Integers compare as bigint (exact for i64); floats and bools as numbers (NaN: only `ne` holds).
  const x = isInt(d) ? toBigInt(a) : toNumber(a);
  const y = isInt(d) ? toBigInt(b) : toNumber(b);
  switch (pred) {
    case 'eq': return x === y;
    case 'ne': return x !== y;
    case 'lt': return x < y;
    case 'le': return x <= y;
    case 'gt': return x > y;
    case 'ge': return x >= y;
  }
}

/** Range of the integer dtype `d` as bigints. */
export function intRange(d: DType): [bigint, bigint] {
  const bits = bitWidth(d);
  return isSigned(d) ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n] : [0n, (1n << BigInt(bits)) - 1n];
}

/** Converts a constant of dtype `from` to dtype `to` with the semantics of the `cast` op. */
export function evalCast(from: DType, to: DType, v: ConstValue): ConstValue | undefined {
  if (to === 'bool') return isInt(from) ? toBigInt(v) !== 0n : toNumber(v) !== 0;
  if (from === 'bool') return isFloat(to) ? (v ? 1 : 0) : fromBigInt(to, v ? 1n : 0n);
  if (isInt(from)) {
    const a = toBigInt(v);
    if (isInt(to)) return fromBigInt(to, a);
    // Number(bigint) rounds once to f64; a second rounding to a narrower float could differ from
    // a direct rounding, so only values exact in f64 fold to narrower floats.
    if (to !== 'f64' && (a > 2n ** 53n || a < -(2n ** 53n))) return undefined;
    return roundFloat(to, Number(a));
  }
  const x = toNumber(v);
  if (isFloat(to)) return roundFloat(to, x);
  // float -> int truncates toward zero; NaN and out-of-range values are not portable.
  if (!Number.isFinite(x)) return undefined;
  const t = BigInt(Math.trunc(x));
  const [lo, hi] = intRange(to);
  if (t < lo || t > hi) return undefined;
  return fromBigInt(to, t);
}
