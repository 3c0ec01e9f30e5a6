// dotScaled: Triton's tl.dot_scaled, the matrix product of block-scaled (OCP MX, nvfp4) operands.
// Defined as its exact emulation and built from existing ops, so the interpreter and every target
// compute the same thing (docs/semantics.md "dotScaled"): each element is decoded to f32 and
// multiplied by its block's scale (exact in f32 except where the product overflows to ±inf), then
// an ordinary dot with f32 accumulation runs on those values. That dot takes the cheapest input
// type that holds every scaled value exactly, whatever the scales: bf16 when both operands are
// e2m1/e2m3/e3m2/bf16 (their scaled values have ≤ 4 significant bits and none below 2^-131, above
// bf16's smallest subnormal 2^-133), tf32 when e4m3 or fp16 is involved (e4m3's smallest scaled
// value 2^-136 is a multiple of tf32's 2^-136 granularity; fp16 has tf32's 10 fraction bits), and
// exact f32 ('ieee', FMA) with e5m2 (2^-16 · 2^-127 = 2^-143 is below tf32's granularity). The
// tf32 rounding of a tf32-exact value is the identity, so every path is the f32 reference dot.
import type { DType } from '../ir/types.js';
import { sameShape } from '../ir/types.js';
import { expandDimsIn } from './shape.js';
import { binaryIn, bitcastIn, broadcastToIn, castIn, cmpIn, constantIn, describe, toTileIn, whereIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

import type { ScaledFormat } from '../ir/ops.js';
export type { ScaledFormat };
const FORMATS: readonly ScaledFormat[] = ['e4m3', 'e5m2', 'e2m3', 'e3m2', 'e2m1', 'bf16', 'fp16'];

/**
 * Tile dtypes each format is accepted in (u8/i16: the bit patterns, as in Triton; f4e2m1: the MX
 * dtype, one code per byte, so not packed).
 */
const OPERAND_DTYPES: Record<ScaledFormat, readonly DType[]> = {
  e4m3: ['f8e4m3', 'u8'], e5m2: ['f8e5m2', 'u8'], e2m3: ['u8'], e3m2: ['u8'], e2m1: ['u8', 'f4e2m1'], bf16: ['bf16', 'i16'], fp16: ['f16', 'i16'],
};
/** Elements per byte along K: u8 e2m1 tiles are packed two codes a byte (f4e2m1 ones are not). */
const perByte = (format: ScaledFormat, tile: Tile): number => (format === 'e2m1' && tile.dtype === 'u8' ? 2 : 1);

/** Minifloat layouts of the formats decoded with integer ops (no inf/NaN; docs/semantics.md). */
const MINI: Partial<Record<ScaledFormat, { e: number; m: number; bias: number }>> = {
  e2m1: { e: 2, m: 1, bias: 1 }, e2m3: { e: 2, m: 3, bias: 1 }, e3m2: { e: 3, m: 2, bias: 3 },
};

export interface DotScaledOptions {
  /** f32 accumulator [M, N] (the result is acc + a·b). */
  acc?: TileLike;
  /**
   * Triton's fast_math (it may skip the NaN handling of scales and operands). Accepted; our
   * emulation is exact either way, so it changes nothing.
   */
  fastMath?: boolean;
}

const i32 = (t: Trace, x: Tile): Tile => castIn(t, x, 'i32');
const and = (t: Trace, x: Tile, m: number): Tile => binaryIn(t, 'and', x, m);
const shr = (t: Trace, x: Tile, s: number): Tile => (s === 0 ? x : binaryIn(t, 'shr', x, s));
const shl = (t: Trace, x: Tile, s: number): Tile => (s === 0 ? x : binaryIn(t, 'shl', x, s));

/** f32 value of i32 codes of a 4/6-bit minifloat: normal codes by building the f32 bits, subnormal ones as m·2^(1-bias-m). */
function decodeMini(t: Trace, c: Tile, f: { e: number; m: number; bias: number }): Tile {
  const e = and(t, shr(t, c, f.m), (1 << f.e) - 1);
  const m = and(t, c, (1 << f.m) - 1);
  const normal = bitcastIn(t, binaryIn(t, 'or', shl(t, binaryIn(t, 'add', e, 127 - f.bias), 23), shl(t, m, 23 - f.m)), 'f32');
  const sub = binaryIn(t, 'mul', castIn(t, m, 'f32'), 2 ** (1 - f.bias - f.m));
  const mag = whereIn(t, cmpIn(t, 'eq', e, 0), sub, normal);
  const sign = shl(t, and(t, shr(t, c, f.e + f.m), 1), 31);
  return bitcastIn(t, binaryIn(t, 'or', bitcastIn(t, mag, 'i32'), sign), 'f32');
}

/** f32 value of i32 e8m0 codes: 2^(c-127); c = 0 is the f32 subnormal 2^-127, 0xFF NaN. */
function decodeE8M0(t: Trace, c: Tile): Tile {
  const bits = whereIn(t, cmpIn(t, 'eq', c, 0), 0x400000, shl(t, c, 23));
  return bitcastIn(t, whereIn(t, cmpIn(t, 'eq', c, 0xff), 0x7fc00000, bits), 'f32');
}

/** Unpacks e2m1 bytes [R, C] into codes [R, 2C] (packed along dim 1) or [2R, C] (along dim 0); low nibble first. */
function unpackE2M1(t: Trace, x: Tile, alongRows: boolean): Tile {
  const c = i32(t, x);
  const lo = castIn(t, and(t, c, 0xf), 'u8'), hi = castIn(t, shr(t, c, 4), 'u8');
  const [r, cols] = x.shape as [number, number];
  const j = t.emit('join', [lo, hi], { elem: 'u8', shape: [r, cols, 2] }, {});
  if (!alongRows) return t.emit('reshape', [j], { elem: 'u8', shape: [r, 2 * cols] }, { shape: [r, 2 * cols], allowReorder: false });
  const p = t.emit('trans', [j], { elem: 'u8', shape: [r, 2, cols] }, { perm: [0, 2, 1] });
  return t.emit('reshape', [p], { elem: 'u8', shape: [2 * r, cols] }, { shape: [2 * r, cols], allowReorder: false });
}

/** Scale codes [R, G] repeated `group` times along K: [R, K] for a (K along dim 1), [K, R] for b (transposed). */
function expandScale(t: Trace, s: Tile, group: number, forB: boolean): Tile {
  const [r, g] = s.shape as [number, number];
  const k = g * group;
  if (!forB) {
    const x = broadcastToIn(t, expandDimsIn(t, s, 2), [r, g, group], 'dotScaled scale');
    return t.emit('reshape', [x], { elem: s.dtype, shape: [r, k] }, { shape: [r, k], allowReorder: false });
  }
  const st = t.emit('trans', [s], { elem: s.dtype, shape: [g, r] }, { perm: [1, 0] });
  const x = broadcastToIn(t, expandDimsIn(t, st, 1), [g, group, r], 'dotScaled scale');
  return t.emit('reshape', [x], { elem: s.dtype, shape: [k, r] }, { shape: [k, r], allowReorder: false });
}

interface Operand {
  readonly name: 'a' | 'b';
  readonly tile: Tile;
  readonly format: ScaledFormat;
  readonly scale: Tile | undefined;
}

function checkFormat(t: Trace, f: unknown, what: string): ScaledFormat {
  if (typeof f !== 'string' || !FORMATS.includes(f as ScaledFormat)) return t.fail('E_ARG', `${what} must be one of ${FORMATS.map((x) => `'${x}'`).join(', ')}, got ${describe(f)}`);
  return f as ScaledFormat;
}

/** Elements of the operand decoded to f32 ([M, K] for a, [K, N] for b), unscaled. */
function decodeOperand(t: Trace, o: Operand): Tile {
  const x = o.tile;
  const mini = MINI[o.format];
  // an f4e2m1 tile: its code in the low nibble (the high one ignored, docs/semantics.md)
  if (x.dtype === 'f4e2m1') return decodeMini(t, and(t, i32(t, bitcastIn(t, x, 'u8')), 0xf), mini!);
  if (o.format === 'e2m1') return decodeMini(t, i32(t, unpackE2M1(t, x, o.name === 'b')), mini!);
  if (mini) return decodeMini(t, and(t, i32(t, x), 0x3f), mini);
  const natives: Record<string, DType> = { e4m3: 'f8e4m3', e5m2: 'f8e5m2', bf16: 'bf16', fp16: 'f16' };
  const native = natives[o.format]!;
  return castIn(t, x.dtype === native ? x : bitcastIn(t, x, native), 'f32');
}

/** The scales of the operand as f32, one per element ([M, K] for a, [K, N] for b). */
function decodeScale(t: Trace, s: Tile, group: number, forB: boolean): Tile {
  const e = expandScale(t, s, group, forB);
  if (s.dtype === 'u8') return decodeE8M0(t, i32(t, e));
  // f8e8m0 tiles: the same codes, decoded by the same integer code as u8 ones
  if (s.dtype === 'f8e8m0') return decodeE8M0(t, i32(t, bitcastIn(t, e, 'u8')));
  // nvfp4: ue4m3, an e4m3 code with its sign bit ignored
  return castIn(t, bitcastIn(t, castIn(t, and(t, i32(t, bitcastIn(t, e, 'u8')), 0x7f), 'u8'), 'f8e4m3'), 'f32');
}

/**
 * acc + (a scaled by aScale) · (b scaled by bScale), Triton's tl.dot_scaled (docs/language.md):
 * a [M, K] (e2m1 in u8: [M, K/2] bytes packed along K), b [K, N] (e2m1 in u8: [K/2, N] packed
 * along K; e2m1 in f4e2m1 tiles is one code per element, unpacked); scales e8m0 (u8 codes or
 * f8e8m0) [M, K/32] and [N, K/32] (b's is not transposed), or for e2m1 f8e4m3 (ue4m3, nvfp4)
 * [M, K/16] / [N, K/16]; null for no scale (required for bf16/fp16). Result f32 [M, N].
 */
export const dotScaled = (a: Tile, aScale: Tile | null | undefined, aFormat: ScaledFormat, b: Tile, bScale: Tile | null | undefined, bFormat: ScaledFormat, opts: DotScaledOptions = {}): Tile =>
  api('dotScaled', (t) => {
    if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
    for (const k of Object.keys(opts)) if (k !== 'acc' && k !== 'fastMath') t.fail('E_ARG', `unknown option '${k}' (allowed: acc, fastMath)`);
    if (opts.fastMath !== undefined && typeof opts.fastMath !== 'boolean') t.fail('E_ARG', `fastMath must be a boolean, got ${describe(opts.fastMath)}`);
    const ops: Operand[] = [];
    for (const [name, x, s, f] of [['a', a, aScale, aFormat], ['b', b, bScale, bFormat]] as const) {
      const format = checkFormat(t, f, `${name}Format`);
      const tile = toTileIn(t, x, name);
      if (tile.rank !== 2) t.fail('E_SHAPE', `dotScaled needs 2-D operands; ${name} has shape [${tile.shape.join(', ')}]`);
      if (!OPERAND_DTYPES[format].includes(tile.dtype as DType)) {
        t.fail('E_TYPE', `dotScaled: a '${format}' operand ${name} must be ${OPERAND_DTYPES[format].join(' or ')}${format === 'e2m1' ? ' (u8: two codes per byte, packed along K, low nibble first; f4e2m1: one per element)' : ''}, got ${tile.dtype}`);
      }
      const scale = s === null || s === undefined ? undefined : toTileIn(t, s, `${name}Scale`);
      if (scale && (format === 'bf16' || format === 'fp16')) t.fail('E_ARG', `dotScaled: a '${format}' operand takes no scale (pass null for ${name}Scale)`);
      ops.push({ name, tile, format, scale });
    }
    const [oa, ob] = ops as [Operand, Operand];
    const M = oa.tile.shape[0]!, N = ob.tile.shape[1]!;
    const K = oa.tile.shape[1]! * perByte(oa.format, oa.tile);
    const Kb = ob.tile.shape[0]! * perByte(ob.format, ob.tile);
    if (K !== Kb) t.fail('E_SHAPE', `dotScaled: a ${oa.tile.dtype}[${oa.tile.shape.join(', ')}] ('${oa.format}') holds K = ${K} elements along K and b ${ob.tile.dtype}[${ob.tile.shape.join(', ')}] ('${ob.format}') K = ${Kb}; they must be equal (e2m1 in u8 packs two per byte along K)`);
    const groups: number[] = [];
    for (const o of ops) {
      if (!o.scale) continue;
      const rows = o.name === 'a' ? M : N;
      let group: number;
      if (o.scale.dtype === 'u8' || o.scale.dtype === 'f8e8m0') group = 32;
      else if (o.scale.dtype === 'f8e4m3' && o.format === 'e2m1') group = 16;
      else return t.fail('E_TYPE', `dotScaled: ${o.name}Scale must be u8 or f8e8m0 (e8m0 codes, one per 32 elements along K)${o.format === 'e2m1' ? ' or f8e4m3 (ue4m3, nvfp4: one per 16)' : ''}, got ${o.scale.dtype}`);
      const want = [rows, K / group];
      if (K % group !== 0 || !sameShape(o.scale.shape, want)) {
        t.fail('E_SHAPE', `dotScaled: ${o.name}Scale has shape [${o.scale.shape.join(', ')}]; with K = ${K} and one ${group === 32 ? 'e8m0' : 'ue4m3'} scale per ${group} elements it must be [${rows}, ${K / group}]${K % group ? ` (K must be a multiple of ${group})` : ''}`);
      }
      groups.push(group);
    }
    let acc: Tile;
    if (opts.acc !== undefined) {
      acc = toTileIn(t, opts.acc, 'acc');
      if (acc.dtype !== 'f32') t.fail('E_TYPE', `dotScaled accumulates in f32; acc is ${acc.dtype}`);
      if (acc.rank === 2 && !sameShape(acc.shape, [M, N])) t.fail('E_SHAPE', `dotScaled accumulator has shape [${acc.shape.join(', ')}], expected [${M}, ${N}]`);
      acc = broadcastToIn(t, acc, [M, N], 'dotScaled accumulator');
    } else acc = constantIn(t, 0, { elem: 'f32', shape: [M, N] });

    // one dot_scaled op (a target with block-scaled tensor cores lowers it natively) whose region
    // is its definition, the emulation, traced over the region's args
    const operands = [oa.tile, ...(oa.scale ? [oa.scale] : []), ob.tile, ...(ob.scale ? [ob.scale] : []), acc];
    const type = { elem: 'f32' as const, shape: [M, N] };
    const def = t.region(operands.map((x) => ({ elem: x.dtype, shape: [...x.shape] })), (args) => {
      const arg = [...args];
      const inside = ops.map((o) => ({ ...o, tile: arg.shift()!, scale: o.scale ? arg.shift()! : undefined }));
      t.emitOp('yield', [emulate(t, inside as [Operand, Operand], [...groups], arg[0]!, type)], [], {});
    });
    const attrs = { aFormat: oa.format, bFormat: ob.format, hasAScale: !!oa.scale, hasBScale: !!ob.scale };
    return t.emit('dot_scaled', operands, type, attrs, [def]);
  });

/** The definition of dotScaled (docs/semantics.md): decode, scale in f32, then an exact dot. */
function emulate(t: Trace, ops: [Operand, Operand], groups: number[], acc: Tile, type: { elem: 'f32'; shape: number[] }): Tile {
  const [oa, ob] = ops;
  const values = ops.map((o) => {
    const v = decodeOperand(t, o);
    return o.scale ? binaryIn(t, 'mul', v, decodeScale(t, o.scale, groups.shift()!, o.name === 'b')) : v;
  }) as [Tile, Tile];
  const bf16Exact = (f: ScaledFormat) => f === 'e2m1' || f === 'e2m3' || f === 'e3m2' || f === 'bf16';
  const tf32Exact = (f: ScaledFormat) => bf16Exact(f) || f === 'e4m3' || f === 'fp16';
  if (bf16Exact(oa.format) && bf16Exact(ob.format)) {
    return t.emit('dot', [castIn(t, values[0], 'bf16'), castIn(t, values[1], 'bf16'), acc], type, { inputPrecision: 'ieee' });
  }
  const prec = tf32Exact(oa.format) && tf32Exact(ob.format) ? 'tf32' : 'ieee';
  return t.emit('dot', [values[0], values[1], acc], type, { inputPrecision: prec });
}
