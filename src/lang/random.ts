// Counter-based random numbers, bit-identical to triton.language.random: Philox4x32 (10 rounds by
// default) keyed by the seed and counted by the offsets. Everything is a composition of existing
// elementwise ops (umulhi, mul, xor, add on u32), so the interpreter and the compiled code agree by
// construction. docs/language.md ("Random numbers") states the streams.
import { isBool, isInt } from '../ir/types.js';
import { binaryIn, broadcastShapes, broadcastToIn, castIn, cmpIn, constantIn, describe, toTileIn, unaryIn, whereIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

/** Philox4x32 round multipliers and Weyl key increments (Salmon et al., SC'11; Random123). */
const ROUND_A = 0xd2511f53;
const ROUND_B = 0xcd9e8d57;
const KEY_A = 0x9e3779b9; // golden ratio
const KEY_B = 0xbb67ae85; // sqrt(3) - 1
/** The largest f32 s with (2^31 - 1) * s < 1 after rounding: maps a non-negative i32 into [0, 1). */
const I32_TO_UNIT = 4.6566127342e-10;

export interface RandomOptions {
  /** Philox rounds (Triton's n_rounds); default 10. */
  readonly nRounds?: number;
}

function rounds(t: Trace, opts: unknown): number {
  if (opts === undefined) return 10;
  if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object like { nRounds: 10 }, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) if (k !== 'nRounds') t.fail('E_ARG', `unknown option '${k}' (allowed: nRounds)`);
  const n = (opts as RandomOptions).nRounds ?? 10;
  if (!Number.isInteger(n) || n < 1 || n > 64) return t.fail('E_ARG', `nRounds must be an integer in 1..64, got ${describe(n)}`);
  return n;
}

/** An integer tile (or literal) for `what`, else E_TYPE. */
function intTile(t: Trace, x: unknown, what: string): Tile {
  const xt = toTileIn(t, x, what);
  if (!isInt(xt.dtype) || isBool(xt.dtype)) return t.fail('E_TYPE', `${what} must be integers, got ${xt.dtype}`);
  return xt;
}

/**
 * The four 32-bit Philox outputs for counter (offset_lo, offset_hi, 0, 0) and key (seed_lo, seed_hi),
 * as Triton's randint4x: the seed is widened to 64 bits (sign-extended when signed), an offset
 * wider than 32 bits gives its high half as the second counter word.
 */
function philox4x(t: Trace, seed: unknown, offsets: unknown, nRounds: number): [Tile, Tile, Tile, Tile] {
  const s = intTile(t, seed, 'seed');
  const o = intTile(t, offsets, 'offsets');
  const shape = broadcastShapes(t, s.shape, o.shape, 'the seed and the offsets');
  const s64 = broadcastToIn(t, castIn(t, s, 'i64'), shape);
  const ob = broadcastToIn(t, o, shape);
  let k0 = castIn(t, s64, 'u32');
  let k1 = castIn(t, binaryIn(t, 'shr', s64, 32), 'u32');
  let c0 = castIn(t, ob, 'u32');
  const zero = constantIn(t, 0, { elem: 'u32', shape });
  let c1 = o.dtype === 'i64' ? castIn(t, binaryIn(t, 'shr', ob, 32), 'u32') : zero;
  let c2 = zero;
  let c3 = zero;
  for (let r = 0; r < nRounds; r++) {
    const n0 = binaryIn(t, 'xor', binaryIn(t, 'xor', binaryIn(t, 'umulhi', c2, ROUND_B), c1), k0);
    const n2 = binaryIn(t, 'xor', binaryIn(t, 'xor', binaryIn(t, 'umulhi', c0, ROUND_A), c3), k1);
    c1 = binaryIn(t, 'mul', c2, ROUND_B);
    c3 = binaryIn(t, 'mul', c0, ROUND_A);
    c0 = n0;
    c2 = n2;
    if (r + 1 < nRounds) {
      k0 = binaryIn(t, 'add', k0, KEY_A);
      k1 = binaryIn(t, 'add', k1, KEY_B);
    }
  }
  return [c0, c1, c2, c3];
}

/** u32 -> f32 in [0, 1) as Triton's uint_to_uniform_float: read as i32, fold negatives with ~x, scale. */
function toUniform(t: Trace, x: Tile): Tile {
  const i = castIn(t, x, 'i32');
  const folded = whereIn(t, cmpIn(t, 'lt', i, 0), unaryIn(t, 'not', i, 'int'), i);
  return binaryIn(t, 'mul', castIn(t, folded, 'f32'), I32_TO_UNIT);
}

/** Box-Muller on (u1, u2) as Triton's pair_uniform_to_normal: both normals of the pair. */
function boxMuller(t: Trace, u1: Tile, u2: Tile): [Tile, Tile] {
  const u = binaryIn(t, 'max', u1, 1.0e-7);
  const th = binaryIn(t, 'mul', u2, 6.283185307179586);
  const r = unaryIn(t, 'sqrt', binaryIn(t, 'mul', unaryIn(t, 'log', u, 'float'), -2.0), 'float');
  return [binaryIn(t, 'mul', r, unaryIn(t, 'cos', th, 'float')), binaryIn(t, 'mul', r, unaryIn(t, 'sin', th, 'float'))];
}

/** Four blocks of random u32 (Triton's randint4x): the Philox4x32 outputs for each offset. */
export const randint4x = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): [Tile, Tile, Tile, Tile] =>
  api('randint4x', (t) => philox4x(t, seed, offsets, rounds(t, opts)));

/** A block of random u32 (Triton's randint): the first Philox output. */
export const randint = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): Tile =>
  api('randint', (t) => philox4x(t, seed, offsets, rounds(t, opts))[0]);

/** A block of f32 uniform in [0, 1) (Triton's rand), from the first Philox output. */
export const rand = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): Tile =>
  api('rand', (t) => toUniform(t, philox4x(t, seed, offsets, rounds(t, opts))[0]));

/** Four blocks of f32 uniform in [0, 1) (Triton's rand4x). */
export const rand4x = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): [Tile, Tile, Tile, Tile] =>
  api('rand4x', (t) => philox4x(t, seed, offsets, rounds(t, opts)).map((x) => toUniform(t, x)) as [Tile, Tile, Tile, Tile]);

/** A block of f32 standard normals (Triton's randn): Box-Muller's cosine branch on the first two outputs. */
export const randn = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): Tile =>
  api('randn', (t) => {
    const [a, b] = philox4x(t, seed, offsets, rounds(t, opts));
    return boxMuller(t, toUniform(t, a), toUniform(t, b))[0];
  });

/** Four blocks of f32 standard normals (Triton's randn4x): both branches on outputs (0, 1) and (2, 3). */
export const randn4x = (seed: TileLike, offsets: TileLike, opts?: RandomOptions): [Tile, Tile, Tile, Tile] =>
  api('randn4x', (t) => {
    const u = philox4x(t, seed, offsets, rounds(t, opts)).map((x) => toUniform(t, x));
    return [...boxMuller(t, u[0]!, u[1]!), ...boxMuller(t, u[2]!, u[3]!)] as [Tile, Tile, Tile, Tile];
  });
