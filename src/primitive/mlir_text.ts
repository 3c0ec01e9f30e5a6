// Spelling values in MLIR's textual syntax: tensor types, byte strings, float and dictionary
// attributes, layouts. Every function here produces text MLIR's parser reads back exactly.
import type { DType } from '../ir/types.js';
import type { ShapedArray } from './aval.js';

/** MLIR element type of each dtype (unsigned ints are `ui`, bool is `i1`). */
export const MLIR_ELEMENT: { readonly [D in DType]: string } = {
  f64: 'f64', f32: 'f32', f16: 'f16', bf16: 'bf16', f8e4m3: 'f8E4M3FN', f8e5m2: 'f8E5M2', f8e8m0: 'f8E8M0FNU', f4e2m1: 'f4E2M1FN', i64: 'i64', i32: 'i32', i16: 'i16', i8: 'i8', u32: 'ui32', u8: 'ui8', bool: 'i1',
};

export const tensorType = (a: ShapedArray): string => `tensor<${a.shape.map((d) => `${d}x`).join('')}${MLIR_ELEMENT[a.dtype]}>`;

const HEX = '0123456789ABCDEF';

/**
 * A quoted MLIR string holding arbitrary bytes: printable ASCII stays as is, `"` and `\` and every
 * other byte become `\XX` (two hex digits), which MLIR's lexer decodes back to that byte.
 */
export function mlirBytes(bytes: Uint8Array): string {
  let s = '"';
  for (const b of bytes) {
    if (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c) s += String.fromCharCode(b);
    else s += `\\${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return `${s}"`;
}

export const mlirString = (s: string): string => mlirBytes(new TextEncoder().encode(s));

/**
 * A float literal MLIR reads back to the same double: JS's shortest round-trip digits, with the
 * `.` MLIR's float grammar requires; non-finite values as their IEEE bits in hex.
 */
export function mlirFloat(x: number, type: 'f32' | 'f64'): string {
  if (!Number.isFinite(x)) {
    const v = new DataView(new ArrayBuffer(8));
    if (type === 'f64') {
      v.setFloat64(0, x);
      return `0x${v.getBigUint64(0).toString(16).toUpperCase().padStart(16, '0')} : f64`;
    }
    v.setFloat32(0, x);
    return `0x${v.getUint32(0).toString(16).toUpperCase().padStart(8, '0')} : f32`;
  }
  let s = Object.is(x, -0) ? '-0' : String(x);
  const e = s.search(/e/i);
  const mant = e < 0 ? s : s.slice(0, e);
  if (!mant.includes('.')) s = `${mant}.0${e < 0 ? '' : s.slice(e)}`;
  return `${s} : ${type}`;
}

/** A value of a dictionary attribute (the typed-FFI backend_config). */
export type AttrValue =
  | { readonly f64: number } | { readonly f32: number }
  | { readonly i64: number | bigint } | { readonly i32: number }
  | { readonly str: string } | { readonly bool: boolean };

export function mlirAttr(v: AttrValue): string {
  if ('f64' in v) return mlirFloat(v.f64, 'f64');
  if ('f32' in v) return mlirFloat(Math.fround(v.f32), 'f32');
  if ('i64' in v) return `${BigInt(v.i64)} : i64`;
  if ('i32' in v) return `${v.i32 | 0} : i32`;
  if ('str' in v) return mlirString(v.str);
  return v.bool ? 'true' : 'false';
}

const BARE = /^[A-Za-z_][A-Za-z0-9_$.]*$/;
const attrName = (k: string): string => (BARE.test(k) ? k : mlirString(k));

export const mlirDict = (d: Readonly<Record<string, AttrValue>>): string =>
  `{${Object.keys(d).sort().map((k) => `${attrName(k)} = ${mlirAttr(d[k]!)}`).join(', ')}}`;

/** A dictionary of string attributes (frontend attributes). */
export const mlirStringDict = (d: Readonly<Record<string, string>>): string =>
  `{${Object.keys(d).sort().map((k) => `${attrName(k)} = ${mlirString(d[k]!)}`).join(', ')}}`;

/** Row-major (major-to-minor) layout of a rank-r array: dims r-1 .. 0, as an index tensor. */
export function rowMajorLayout(rank: number): string {
  const dims = Array.from({ length: rank }, (_, i) => rank - 1 - i);
  return rank === 0 ? 'dense<> : tensor<0xindex>' : rank === 1 ? 'dense<0> : tensor<1xindex>' : `dense<[${dims.join(', ')}]> : tensor<${rank}xindex>`;
}
