// Per-element semantics of unary, binary, compare, fma and cast, one small function per op and
// number class. docs/semantics.md is the prose version of this file.
import type { BinaryFn, CmpPred, UnaryFn } from '../ir/ops.js';
import { bitWidth, isFloat, isPtr, isSigned, type DType, type ElemType } from '../ir/types.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../ir/half.js';
import { f8e4m3Bits, f8e4m3Value, f8e5m2Bits, f8e5m2Value } from '../ir/fp8.js';
import { f4e2m1Bits, f4e2m1Value, f8e8m0Bits, f8e8m0Value } from '../ir/mx.js';
import { addRoundToOdd, bigToDoubleOdd, erf, erfc, fmaF64 } from './float.js';

export type NumFn1 = (a: number) => number;
export type NumFn2 = (a: number, b: number) => number;
export type BigFn2 = (a: bigint, b: bigint) => bigint;

// ---- floats (computed on JS numbers; the result array rounds to the dtype) ----

/** C pow: pow(1, y) = 1 and pow(-1, +-inf) = 1 where JS gives NaN. */
function powC(a: number, b: number): number {
  if (a === 1) return 1;
  if (a === -1 && (b === Infinity || b === -Infinity)) return 1;
  return Math.pow(a, b);
}

export const FLOAT_UNARY: Partial<Record<UnaryFn, NumFn1>> = {
  neg: (a) => -a,
  abs: Math.abs,
  exp: Math.exp,
  exp2: (a) => Math.pow(2, a),
  log: Math.log,
  log2: Math.log2,
  sqrt: Math.sqrt,
  rsqrt: (a) => 1 / Math.sqrt(a),
  sin: Math.sin,
  cos: Math.cos,
  tanh: Math.tanh,
  sigmoid: (a) => 1 / (1 + Math.exp(-a)),
  erf,
  erfc,
  floor: Math.floor,
  ceil: Math.ceil,
};

export const FLOAT_BINARY: Partial<Record<BinaryFn, NumFn2>> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  floordiv: (a, b) => Math.floor(a / b),
  rem: (a, b) => a % b, // fmod: sign of the dividend
  // NaN-propagating; -0 < +0 (JS Math.min/max order signed zeros).
  min: Math.min,
  max: Math.max,
  pow: powC,
};

// ---- integers of 32 bits or less (numbers; storing into the result array wraps) ----

function intPowWrap(a: number, b: number): number {
  if (b < 0) return a === 1 ? 1 : a === -1 ? (b % 2 === 0 ? 1 : -1) : 0;
  let r = 1;
  let x = a | 0;
  let e = b;
  while (e > 0) {
    if (e % 2 === 1) r = Math.imul(r, x);
    x = Math.imul(x, x);
    e = Math.floor(e / 2);
  }
  return r;
}

export function intBinary(fn: BinaryFn, t: DType): NumFn2 | undefined {
  const w = bitWidth(t);
  const signed = isSigned(t);
  // Shift amounts are read as unsigned: a negative amount is a huge one.
  const big = (s: number) => s < 0 || s >= w;
  switch (fn) {
    case 'add': return (a, b) => a + b;
    case 'sub': return (a, b) => a - b;
    case 'mul': return Math.imul;
    // Division by zero gives all bits set (as PTX div.u32); remainder by zero gives the dividend.
    case 'div': return (a, b) => (b === 0 ? -1 : Math.trunc(a / b));
    case 'floordiv': return (a, b) => (b === 0 ? -1 : Math.floor(a / b));
    case 'rem': return (a, b) => (b === 0 ? a : a % b);
    case 'and': return (a, b) => a & b;
    case 'or': return (a, b) => a | b;
    case 'xor': return (a, b) => a ^ b;
    case 'shl': return (a, b) => (big(b) ? 0 : a << b);
    case 'shr':
      return signed ? (a, b) => (big(b) ? (a < 0 ? -1 : 0) : a >> b) : (a, b) => (big(b) ? 0 : a >>> b);
    case 'min': return (a, b) => (a < b ? a : b);
    case 'max': return (a, b) => (a > b ? a : b);
    case 'pow': return intPowWrap;
    // High 32 bits of the 64-bit product of the unsigned bit patterns (mul.hi.u32); exact via BigInt.
    case 'umulhi': return (a, b) => Number((BigInt(a >>> 0) * BigInt(b >>> 0)) >> 32n);
  }
}

// ---- i64 (BigInt; storing into a BigInt64Array wraps) ----

export const I64_BINARY: Record<BinaryFn, BigFn2> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => (b === 0n ? -1n : a / b),
  floordiv: (a, b) => {
    if (b === 0n) return -1n;
    const q = a / b;
    return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
  },
  rem: (a, b) => (b === 0n ? a : a % b),
  and: (a, b) => a & b,
  or: (a, b) => a | b,
  xor: (a, b) => a ^ b,
  shl: (a, b) => (b < 0n || b >= 64n ? 0n : BigInt.asIntN(64, a << b)),
  shr: (a, b) => (b < 0n || b >= 64n ? (a < 0n ? -1n : 0n) : a >> b),
  min: (a, b) => (a < b ? a : b),
  max: (a, b) => (a > b ? a : b),
  pow: (a, b) => {
    if (b < 0n) return a === 1n ? 1n : a === -1n ? (b % 2n === 0n ? 1n : -1n) : 0n;
    let r = 1n;
    let x = a;
    let e = b;
    while (e > 0n) {
      if (e & 1n) r = BigInt.asIntN(64, r * x);
      x = BigInt.asIntN(64, x * x);
      e >>= 1n;
    }
    return r;
  },
  // High 64 bits of the 128-bit product of the unsigned bit patterns (mul.hi.u64).
  umulhi: (a, b) => (BigInt.asUintN(64, a) * BigInt.asUintN(64, b)) >> 64n,
};

export const CMP: Record<CmpPred, (a: number | bigint, b: number | bigint) => boolean> = {
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b, // unordered: NaN != x is true
  lt: (a, b) => a < b,
  le: (a, b) => a <= b,
  gt: (a, b) => a > b,
  ge: (a, b) => a >= b,
};

// ---- decoding and encoding of float lanes ----

/** Lane value -> JS number for a float dtype (f16/bf16/fp8 lanes are bit patterns). */
export function floatDecoder(t: DType): NumFn1 | undefined {
  if (t === 'f16') return f16Value;
  if (t === 'bf16') return bf16Value;
  if (t === 'f8e4m3') return f8e4m3Value;
  if (t === 'f8e5m2') return f8e5m2Value;
  if (t === 'f8e8m0') return f8e8m0Value;
  if (t === 'f4e2m1') return f4e2m1Value;
  return undefined;
}

/** JS number -> lane value, rounding once from the double to the dtype. */
export function floatEncoder(t: DType): NumFn1 | undefined {
  if (t === 'f16') return f16Bits;
  if (t === 'bf16') return bf16Bits;
  // fp8: nearest even, saturating to ±max (PTX cvt.rn.satfinite), src/ir/fp8.ts
  if (t === 'f8e4m3') return f8e4m3Bits;
  if (t === 'f8e5m2') return f8e5m2Bits;
  // the MX dtypes (src/ir/mx.ts): f8e8m0 2^floor(log2 x); f4e2m1 nearest even, saturating
  if (t === 'f8e8m0') return f8e8m0Bits;
  if (t === 'f4e2m1') return f4e2m1Bits;
  return undefined;
}

/** Wraps a float function so it reads and writes half-precision bit patterns (computing in f32). */
export function onHalf1(t: DType, f: NumFn1): NumFn1 {
  const dec = floatDecoder(t);
  const enc = floatEncoder(t);
  if (!dec || !enc) return f;
  return (a) => enc(Math.fround(f(dec(a))));
}

export function onHalf2(t: DType, f: NumFn2): NumFn2 {
  const dec = floatDecoder(t);
  const enc = floatEncoder(t);
  if (!dec || !enc) return f;
  return (a, b) => enc(Math.fround(f(dec(a), dec(b))));
}

/** a*b + c with one rounding to dtype t (a*b is exact in double for f32/f16/bf16 inputs). */
export function fmaFor(t: DType): (a: number, b: number, c: number) => number {
  if (t === 'f64') return fmaF64;
  if (t === 'f32') return (a, b, c) => addRoundToOdd(a * b, c); // the Float32Array rounds to f32
  const dec = floatDecoder(t)!;
  const enc = floatEncoder(t)!;
  return (a, b, c) => enc(addRoundToOdd(dec(a) * dec(b), dec(c)));
}

// ---- casts: lane of `from` -> lane of `to` ----

const I64_MIN = -(2 ** 63);

/** Float -> int: truncate toward zero, saturate to the range, NaN -> 0 (PTX cvt.rzi.sat). */
function floatToInt(t: DType): NumFn1 {
  const w = bitWidth(t);
  const lo = isSigned(t) ? -(2 ** (w - 1)) : 0;
  const hi = isSigned(t) ? 2 ** (w - 1) - 1 : 2 ** w - 1;
  return (x) => (x !== x ? 0 : x <= lo ? lo : x >= hi ? hi : Math.trunc(x));
}

function floatToI64(x: number): bigint {
  if (x !== x) return 0n;
  if (x >= 2 ** 63) return (1n << 63n) - 1n;
  if (x <= I64_MIN) return -(1n << 63n);
  return BigInt(Math.trunc(x));
}

export type CastFn = (x: number | bigint) => number | bigint;

const f32Bits = new Float32Array(1);
const f32Word = new Uint32Array(f32Bits.buffer);

/**
 * Float -> f32/f16/bf16 lane rounded toward zero: round to nearest, then step the magnitude down
 * one code where that went past x (the codes of a sign-magnitude format are ordered by magnitude,
 * and inf - 1 code is the largest finite value, where rtz saturates). NaN and inf stay.
 */
function towardZero(to: DType): NumFn1 | undefined {
  if (to === 'f32') {
    return (x) => {
      f32Bits[0] = x;
      if (Number.isFinite(x) && Math.abs(f32Bits[0]!) > Math.abs(x)) f32Word[0] = f32Word[0]! - 1;
      return f32Bits[0]!;
    };
  }
  const enc = to === 'f16' || to === 'bf16' ? floatEncoder(to)! : undefined;
  const dec = enc ? floatDecoder(to)! : undefined;
  if (!enc || !dec) return undefined;
  return (x) => {
    const b = enc(x);
    return Number.isFinite(x) && Math.abs(dec(b)) > Math.abs(x) ? b - 1 : b;
  };
}

/** The lane conversion for a cast, or undefined when it is not supported. */
export function castFn(from: ElemType, to: DType, rounding?: 'rtz'): CastFn | undefined {
  if (isPtr(from)) {
    if (to === 'i64') return (x) => BigInt(x as number);
    return undefined;
  }
  const src = from as DType;
  // Step 1: lane -> JS value (number, or bigint for i64).
  const dec = floatDecoder(src);
  const read: (x: number | bigint) => number | bigint = dec ? (x) => dec(x as number) : (x) => x;
  if (rounding === 'rtz') {
    const enc = towardZero(to);
    return enc ? (x) => enc(read(x) as number) : undefined;
  }
  // Step 2: JS value -> lane of `to`.
  let write: (v: number | bigint) => number | bigint;
  if (to === 'bool') write = (v) => (typeof v === 'bigint' ? (v !== 0n ? 1 : 0) : v !== 0 ? 1 : 0); // NaN -> 1
  else if (isFloat(to)) {
    const enc = floatEncoder(to);
    // An i64 is first rounded to odd in double, so the final rounding to f32/f16 is exact.
    const toNum = (v: number | bigint) => (typeof v === 'bigint' ? (to === 'f64' ? Number(v) : bigToDoubleOdd(v)) : v);
    write = enc ? (v) => enc(toNum(v)) : toNum;
  } else if (to === 'i64') {
    write = isFloat(src) ? (v) => floatToI64(v as number) : (v) => (typeof v === 'bigint' ? v : BigInt(v));
  } else {
    // Int -> int keeps the low bits (the result array truncates); float -> int saturates.
    const f2i = floatToInt(to);
    write = isFloat(src)
      ? (v) => f2i(v as number)
      : (v) => (typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v);
  }
  return (x) => write(read(x));
}
