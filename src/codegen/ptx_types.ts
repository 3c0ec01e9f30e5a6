// Dtype spellings for PTX, as tables. Narrow integers (i8, u8, i16) live in 32-bit registers,
// kept sign/zero-extended; f16/bf16 live in 16-bit registers and compute through f32; fp8
// (f8e4m3, f8e5m2) and the MX dtypes (f8e8m0, f4e2m1) live in the low byte of a 16-bit register (high byte zero), a byte in memory;
// (f4e2m1: its code in the low nibble); bool is a predicate in registers and a byte in memory.
import type { DType, ElemType } from '../ir/types.js';
import { isPtr } from '../ir/types.js';
import type { RegKind } from './emitter.js';

export const REG_KIND: Record<DType, RegKind> = {
  f64: 'f64', f32: 'f32', f16: 'b16', bf16: 'b16', f8e4m3: 'b16', f8e5m2: 'b16', f8e8m0: 'b16', f4e2m1: 'b16',
  i64: 'b64', i32: 'b32', i16: 'b32', i8: 'b32', u32: 'b32', u8: 'b32', bool: 'pred',
};
export const regKind = (t: ElemType): RegKind => (isPtr(t) ? 'b64' : REG_KIND[t as DType]);

/** Type suffix for ld/st (memory width and extension). */
export const MEM_TYPE: Record<DType, string> = {
  f64: 'f64', f32: 'f32', f16: 'b16', bf16: 'b16', f8e4m3: 'u8', f8e5m2: 'u8', f8e8m0: 'u8', f4e2m1: 'u8',
  i64: 'b64', i32: 'b32', i16: 's16', i8: 's8', u32: 'b32', u8: 'u8', bool: 'u8',
};
export const memType = (t: ElemType): string => (isPtr(t) ? 'b64' : MEM_TYPE[t as DType]);

/** Type suffix for integer arithmetic/compare on the register (narrow ints use their 32-bit home). */
export const INT_OP_TYPE: Partial<Record<DType, string>> = {
  i64: 's64', i32: 's32', i16: 's32', i8: 's32', u32: 'u32', u8: 'u32',
};
/** Type suffix for cvt on the register's value. */
export const CVT_TYPE: Partial<Record<DType, string>> = {
  f64: 'f64', f32: 'f32', f16: 'f16', bf16: 'bf16', i64: 's64', i32: 's32', i16: 's32', i8: 's32', u32: 'u32', u8: 'u32',
};
export const isNarrowInt = (t: ElemType): boolean => t === 'i8' || t === 'u8' || t === 'i16';
export const isHalf = (t: ElemType): boolean => t === 'f16' || t === 'bf16';
/** Bits of a register of this kind. */
export const regBits = (k: RegKind): number => (k === 'pred' ? 1 : k.endsWith('64') ? 64 : k.endsWith('16') ? 16 : 32);

/** PTX immediate for a constant of dtype `t`. */
export function immediate(t: ElemType, v: number | bigint | boolean): string {
  if (t === 'bool') return v ? '1' : '0';
  if (t === 'f32') return `0f${f32Hex(Number(v))}`;
  if (t === 'f64') return `0d${f64Hex(Number(v))}`;
  const n = typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(typeof v === 'number' ? Math.trunc(v) : v);
  if (t === 'u8') return String(BigInt.asUintN(8, n));
  if (t === 'i8') return String(BigInt.asIntN(8, n));
  if (t === 'i16') return String(BigInt.asIntN(16, n));
  if (t === 'u32') return String(BigInt.asUintN(32, n));
  if (t === 'i32') return String(BigInt.asIntN(32, n));
  return String(BigInt.asIntN(64, n));
}
// One scratch buffer for the bit patterns below (a DataView per constant was a hot spot).
const SCRATCH = new DataView(new ArrayBuffer(8));
export function f32Hex(x: number): string {
  SCRATCH.setFloat32(0, x);
  return SCRATCH.getUint32(0).toString(16).toUpperCase().padStart(8, '0');
}
export function f64Hex(x: number): string {
  SCRATCH.setFloat64(0, x);
  return SCRATCH.getBigUint64(0).toString(16).toUpperCase().padStart(16, '0');
}
/** 16-bit pattern of `x` rounded to f16 / bf16 (round to nearest even). */
export function halfBits(t: 'f16' | 'bf16', x: number): number {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, x);
  const u = b.getUint32(0);
  if (t === 'bf16') {
    if (Number.isNaN(x)) return 0x7fc0;
    return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
  }
  return f16Bits(x);
}
function f16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -24 / 2) return sign;
  let e = Math.floor(Math.log2(a));
  if (e < -14) {
    // subnormal: units of 2^-24, ties to even
    const m = roundEven(a / 2 ** -24);
    return sign | m;
  }
  if (2 ** e > a) e -= 1;
  let m = roundEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}
function roundEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
