// The semantic layer: turns JS literals into constants, promotes dtypes (promote.ts), broadcasts
// shapes with explicit splat/expand_dims/broadcast ops, and emits elementwise IR. The public
// free functions here are thin `api(...)` wrappers; the `*In(t, ...)` helpers take the trace and
// are what other ops (and the Pallas front end) build on.
import type { BinaryFn, CmpPred, ConstValue, UnaryFn } from '../ir/ops.js';
import type { DType, ElemType, TileType } from '../ir/types.js';
import { bitWidth, DTYPES, isBool, isDType, isFloat, isFp8, isMiniFloat, isInt, isPow2, isPtr, isRtzCast, sameShape, typeToString } from '../ir/types.js';
import { KernelError } from './errors.js';
import { computationType, literalDType } from './promote.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { checkOptionNames } from './options.js';

/** A JS literal usable where a tile is expected. */
export type Scalar = number | bigint | boolean;
export type TileLike = Tile | Scalar;

export const isScalar = (x: unknown): x is Scalar => typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean';

export function describe(x: unknown): string {
  if (x instanceof Tile) return `tile ${typeToString(x.type)}`;
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'string') return `'${x}'`;
  if (isScalar(x) || x === undefined) return String(x);
  return typeof x === 'object' ? 'an object' : typeof x;
}

// ---------------------------------------------------------------------------------------------
// Constants

const INT_RANGE: Record<string, [bigint, bigint]> = {
  i8: [-(2n ** 7n), 2n ** 7n - 1n], u8: [0n, 255n], i16: [-(2n ** 15n), 2n ** 15n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n], u32: [0n, 2n ** 32n - 1n], i64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Converts a literal to the IR constant of `dtype`, or throws E_TYPE if it does not fit. */
export function constValue(t: Trace, v: Scalar, dtype: DType, what = 'literal'): ConstValue {
  if (dtype === 'bool') {
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1 || v === 0n || v === 1n) return v === 1 || v === 1n;
    return t.fail('E_TYPE', `${what} ${String(v)} is not a bool (use true/false or 0/1)`);
  }
  const n = typeof v === 'boolean' ? (v ? 1 : 0) : v;
  if (isFloat(dtype)) return typeof n === 'bigint' ? Number(n) : n;
  if (typeof n === 'number' && !Number.isInteger(n)) {
    return t.fail('E_TYPE', `${what} ${n} is not an integer and cannot be a ${dtype} constant`);
  }
  const big = BigInt(n);
  const [lo, hi] = INT_RANGE[dtype]!;
  if (big < lo || big > hi) return t.fail('E_TYPE', `${what} ${String(v)} does not fit in ${dtype}`);
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

/** Checks a static block shape: every dim a power of two (Triton's rule). */
export function checkShape(t: Trace, shape: readonly number[], what: string): number[] {
  if (!Array.isArray(shape)) return t.fail('E_SHAPE', `${what} must be an array of numbers, got ${describe(shape)}`);
  for (const d of shape) {
    if (typeof d !== 'number' || !isPow2(d)) {
      t.fail('E_SHAPE', `${what} [${shape.join(', ')}] is invalid: every block dimension must be a power of two (got ${String(d)})`);
    }
  }
  return [...shape];
}

export function constantIn(t: Trace, v: Scalar, type: TileType, what?: string): Tile {
  if (!isDType(type.elem)) return t.fail('E_TYPE', `cannot make a constant of type ${type.elem}`);
  return t.emit('const', [], type, { value: constValue(t, v, type.elem, what) });
}

/** A tile from a tile or a literal; a literal alone takes its own dtype (i32/u32/i64/f32/bool). */
export function toTileIn(t: Trace, x: unknown, what: string): Tile {
  if (x instanceof Tile) {
    t.use(x);
    return x;
  }
  if (isScalar(x)) return constantIn(t, x, { elem: literalDType(x), shape: [] });
  return t.fail('E_ARG', `${what} must be a tile or a JS number/boolean, got ${describe(x)}`);
}

// ---------------------------------------------------------------------------------------------
// Broadcasting

/** numpy broadcasting of two shapes (leading dims added to the shorter), or E_SHAPE. */
export function broadcastShapes(t: Trace, a: readonly number[], b: readonly number[], what: string): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) {
      t.fail('E_SHAPE', `cannot broadcast shapes [${a.join(', ')}] and [${b.join(', ')}] for ${what} (dim ${i}: ${da} vs ${db})`);
    }
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** Broadcasts `x` to `shape` with explicit splat / expand_dims / broadcast ops. */
export function broadcastToIn(t: Trace, x: Tile, shape: readonly number[], what = 'broadcast'): Tile {
  const src = x.shape;
  if (sameShape(src, shape)) return x;
  if (src.length === 0) return t.emit('splat', [x], { elem: x.dtype, shape: [...shape] }, {});
  if (src.length > shape.length) {
    return t.fail('E_SHAPE', `cannot broadcast shape [${src.join(', ')}] to [${shape.join(', ')}] for ${what}`);
  }
  let cur = x;
  while (cur.shape.length < shape.length) {
    cur = t.emit('expand_dims', [cur], { elem: x.dtype, shape: [1, ...cur.shape] }, { axis: 0 });
  }
  const ok = cur.shape.every((d, i) => d === shape[i] || d === 1);
  if (!ok) return t.fail('E_SHAPE', `cannot broadcast shape [${src.join(', ')}] to [${shape.join(', ')}] for ${what}`);
  if (sameShape(cur.shape, shape)) return cur;
  return t.emit('broadcast', [cur], { elem: x.dtype, shape: [...shape] }, { shape: [...shape] });
}

// ---------------------------------------------------------------------------------------------
// Casts

/**
 * fp8 (f8e4m3, f8e5m2) and the MX dtypes (f8e8m0, f4e2m1) are storage types: loads, stores, data
 * movement, casts and bitcasts only. Every arithmetic, comparison, math, reduction, dot, atomic or
 * print on such a tile fails here.
 */
export function rejectFp8(t: Trace, dtype: ElemType, opName: string): void {
  if (!isMiniFloat(dtype)) return;
  t.fail('E_TYPE', `${opName} does not take ${dtype} operands: ${isFp8(dtype) ? 'fp8' : dtype} is a storage type without arithmetic; cast with .to('f16') or .to('f32') first`);
}

/** Types an fp8 value converts to and from with one cast op (the IR's rule; the rest go through f32). */
const FP8_PEERS: ReadonlySet<DType> = new Set<DType>(['f32', 'f16', 'bf16', 'f8e4m3', 'f8e5m2', 'f8e8m0', 'f4e2m1']);

/** Value cast to `to` (float->int truncates; ->bool is `!= 0`). No op when already `to`. */
export function castIn(t: Trace, x: Tile, to: DType, rounding?: 'rtz'): Tile {
  t.use(x);
  if (x.dtype === to) return x;
  if (isPtr(x.dtype)) return t.fail('E_TYPE', `cannot cast a pointer tile (${x.dtype}) to ${to}`);
  const from = x.dtype as DType;
  if (isMiniFloat(from) && !FP8_PEERS.has(to)) {
    // fp8 -> f32 is exact, so fp8 -> f32 -> anything is the direct conversion.
    return castIn(t, castIn(t, x, 'f32'), to);
  }
  if (isMiniFloat(to) && !FP8_PEERS.has(from)) {
    if (from === 'f64') {
      return t.fail('E_TYPE', `cannot cast f64 to ${to} directly (it would round twice); cast with .to('f32') first`);
    }
    // Integers (and bool) through f32: an integer that f32 rounds is beyond 2^24, far past the
    // fp8 range, so both paths saturate to the same ±max.
    return castIn(t, castIn(t, x, 'f32'), to);
  }
  if (to === 'bool') {
    const zero = constantIn(t, 0, { elem: x.dtype, shape: [...x.shape] });
    return t.emit('cmp', [x, zero], { elem: 'bool', shape: [...x.shape] }, { pred: 'ne' });
  }
  return t.emit('cast', [x], { elem: to, shape: [...x.shape] }, rounding ? { to, rounding } : { to });
}

export function bitcastIn(t: Trace, x: Tile, to: DType): Tile {
  t.use(x);
  if (isPtr(x.dtype)) return t.fail('E_TYPE', `cannot bitcast a pointer tile (${x.dtype})`);
  if (x.dtype === to) return x;
  if (isBool(x.dtype) || to === 'bool' || bitWidth(x.dtype) !== bitWidth(to)) {
    return t.fail('E_TYPE', `bitcast needs types of the same bit width: ${x.dtype} (${bitWidth(x.dtype)} bits) -> ${to} (${bitWidth(to)} bits)`);
  }
  return t.emit('bitcast', [x], { elem: to, shape: [...x.shape] }, { to });
}

export function checkDType(t: Trace, d: unknown, what: string): DType {
  if (!isDType(d)) return t.fail('E_TYPE', `${what} must be one of ${DTYPES.join(' ')}, got ${String(d)}`);
  return d;
}

/** Options of `x.to(dtype, opts)`. */
export interface ToOptions {
  /** Reinterpret the bits (same width) instead of converting the value. */
  readonly bitcast?: boolean;
  /** Float downcasts (to a narrower float, fp8 excepted): 'rtne' (default) or 'rtz' (toward zero). */
  readonly rounding?: 'rtne' | 'rtz';
}

export const to = (x: Tile, dtype: DType, opts: ToOptions = {}): Tile =>
  api((opts as ToOptions | undefined)?.bitcast ? 'bitcast' : 'to', (t) => {
    const o = checkOptionNames(t, 'to', opts, ['bitcast', 'rounding']);
    const d = checkDType(t, dtype, 'target dtype');
    const xt = toTileIn(t, x, 'input');
    if (o['bitcast'] !== undefined && typeof o['bitcast'] !== 'boolean') return t.fail('E_ARG', `to: bitcast must be a boolean, got ${describe(o['bitcast'])}`);
    const r = o['rounding'];
    if (r === undefined) return o['bitcast'] ? bitcastIn(t, xt, d) : castIn(t, xt, d);
    if (r !== 'rtne' && r !== 'rtz') return t.fail('E_ARG', `to: rounding must be 'rtne' or 'rtz', got ${describe(r)}`);
    if (o['bitcast']) return t.fail('E_ARG', `to: rounding applies to value casts, not to a bitcast`);
    if (!isRtzCast(xt.dtype, d)) {
      return t.fail('E_TYPE', `to: rounding '${r}' is only for float downcasts (to a narrower float, fp8 excepted), not ${xt.dtype} -> ${d}`);
    }
    return castIn(t, xt, d, r === 'rtz' ? 'rtz' : undefined);
  });
export const cast = to;
export const bitcast = (x: Tile, dtype: DType): Tile => to(x, dtype, { bitcast: true });

// ---------------------------------------------------------------------------------------------
// Operand handling for elementwise ops

interface Operand {
  readonly tile?: Tile;
  readonly lit?: Scalar;
  readonly dtype: ElemType;
  readonly weak: boolean;
  readonly shape: readonly number[];
}

function operand(t: Trace, x: unknown, what: string): Operand {
  if (x instanceof Tile) {
    t.use(x);
    return { tile: x, dtype: x.dtype, weak: false, shape: x.shape };
  }
  if (isScalar(x)) return { lit: x, dtype: literalDType(x), weak: true, shape: [] };
  return t.fail('E_ARG', `${what} must be a tile or a JS number/boolean, got ${describe(x)}`);
}

function materialize(t: Trace, o: Operand, dtype: ElemType, shape: readonly number[], what: string): Tile {
  if (o.tile) {
    const c = isDType(dtype) && o.tile.dtype !== dtype ? castIn(t, o.tile, dtype) : o.tile;
    return broadcastToIn(t, c, shape, what);
  }
  return constantIn(t, o.lit!, { elem: dtype, shape: [...shape] }, 'literal');
}

/** Promotes and broadcasts operands to one dtype and shape (Triton's binary type checking). */
export function promoteOperands(t: Trace, xs: unknown[], opName: string, divOrMod = false): { tiles: Tile[]; dtype: DType; shape: number[] } {
  const ops = xs.map((x, i) => operand(t, x, `operand ${i + 1} of ${opName}`));
  for (const o of ops) {
    if (isPtr(o.dtype)) t.fail('E_TYPE', `${opName} does not take pointer tiles (${o.dtype})`);
    rejectFp8(t, o.dtype, opName);
  }
  let dtype = ops[0]!.dtype as DType;
  let weak = ops[0]!.weak;
  for (const o of ops.slice(1)) {
    const r = computationType(dtype, weak, o.dtype as DType, o.weak, divOrMod);
    if (r.ok === false) return t.fail('E_TYPE', r.reason);
    dtype = r.dtype;
    weak = weak && o.weak;
  }
  let shape: number[] = [];
  for (const o of ops) shape = broadcastShapes(t, shape, o.shape, opName);
  const tiles = ops.map((o) => materialize(t, o, dtype, shape, opName));
  return { tiles, dtype, shape };
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

type Check = 'any' | 'int' | 'float' | 'intOrBool' | 'numeric';

function checkKind(t: Trace, dtype: DType, check: Check, opName: string): void {
  const bad =
    (check === 'int' && !isInt(dtype)) ||
    (check === 'float' && !isFloat(dtype)) ||
    (check === 'intOrBool' && !(isInt(dtype) || isBool(dtype))) ||
    (check === 'numeric' && isBool(dtype));
  if (!bad) return;
  const want = { any: '', int: 'integer', float: 'floating-point', intOrBool: 'integer or bool', numeric: 'numeric (not bool)' }[check];
  const hint = check === 'float' ? ` (cast with .to('f32') first)` : '';
  t.fail('E_TYPE', `${opName} needs ${want} operands, got ${dtype}${hint}`);
}

/** Elementwise binary op after promotion; `check` restricts the computation dtype. */
export function binaryIn(t: Trace, fn: BinaryFn, a: unknown, b: unknown, opts: { check?: Check; divOrMod?: boolean; precise?: boolean; name?: string } = {}): Tile {
  const name = opts.name ?? fn;
  const { tiles, dtype, shape } = promoteOperands(t, [a, b], name, opts.divOrMod);
  checkKind(t, dtype, opts.check ?? 'any', name);
  return t.emit('binary', tiles, { elem: dtype, shape }, { fn, precise: opts.precise ?? false });
}

export function unaryIn(t: Trace, fn: UnaryFn, x: unknown, check: Check, name: string = fn, precise = false): Tile {
  const xt = toTileIn(t, x, `input of ${name}`);
  if (isPtr(xt.dtype)) return t.fail('E_TYPE', `${name} does not take pointer tiles (${xt.dtype})`);
  rejectFp8(t, xt.dtype, name);
  checkKind(t, xt.dtype, check, name);
  return t.emit('unary', [xt], { elem: xt.dtype, shape: [...xt.shape] }, { fn, precise });
}

/** Pointer +/- integer offsets (in elements): addptr with broadcasting. */
function addPtrIn(t: Trace, p: Tile, off: unknown, negate: boolean, name: string): Tile {
  const o = toTileIn(t, off, `offset of ${name}`);
  if (!isInt(o.dtype)) return t.fail('E_TYPE', `pointer offsets must be integers, got ${o.dtype}`);
  const offs = negate ? t.emit('unary', [o], { elem: o.dtype, shape: [...o.shape] }, { fn: 'neg', precise: false }) : o;
  const shape = broadcastShapes(t, p.shape, offs.shape, name);
  const pb = broadcastToIn(t, p, shape, name);
  const ob = broadcastToIn(t, offs, shape, name);
  return t.emit('addptr', [pb, ob], { elem: p.dtype, shape }, {});
}

const isPtrTile = (x: unknown): x is Tile => x instanceof Tile && isPtr(x.dtype);

export const add = (a: TileLike, b: TileLike): Tile =>
  api('add', (t) => {
    if (isPtrTile(a) && isPtrTile(b)) return t.fail('E_TYPE', 'cannot add two pointer tiles');
    if (isPtrTile(a)) return addPtrIn(t, a, b, false, 'add');
    if (isPtrTile(b)) return addPtrIn(t, b, a, false, 'add');
    return binaryIn(t, 'add', a, b, { check: 'numeric' });
  });
export const sub = (a: TileLike, b: TileLike): Tile =>
  api('sub', (t) => {
    if (isPtrTile(b)) return t.fail('E_TYPE', 'cannot subtract a pointer tile');
    if (isPtrTile(a)) return addPtrIn(t, a, b, true, 'sub');
    return binaryIn(t, 'sub', a, b, { check: 'numeric' });
  });
export const mul = (a: TileLike, b: TileLike): Tile => api('mul', (t) => binaryIn(t, 'mul', a, b, { check: 'numeric' }));

/** True division: integer operands are computed in f32 (as Triton's `/`). */
export const div = (a: TileLike, b: TileLike): Tile =>
  api('div', (t) => {
    const { tiles, dtype } = promoteOperands(t, [a, b], 'div', true);
    const d = isFloat(dtype) ? dtype : 'f32';
    return binaryIn(t, 'div', castIn(t, tiles[0]!, d), castIn(t, tiles[1]!, d), { name: 'div' });
  });
/** Correctly rounded float division. */
export const divRn = (a: TileLike, b: TileLike): Tile => api('divRn', (t) => binaryIn(t, 'div', a, b, { check: 'float', divOrMod: true, precise: true }));
/** Integer division rounding toward -infinity (Python `//`). Integers only. */
export const floordiv = (a: TileLike, b: TileLike): Tile => api('floordiv', (t) => binaryIn(t, 'floordiv', a, b, { check: 'int', divOrMod: true }));
/** Remainder with the sign of the dividend (C `%`, float fmod), as Triton's `%`. */
export const rem = (a: TileLike, b: TileLike): Tile => api('rem', (t) => binaryIn(t, 'rem', a, b, { check: 'numeric', divOrMod: true }));
export const mod = rem;
export const pow = (a: TileLike, b: TileLike): Tile => api('pow', (t) => binaryIn(t, 'pow', a, b, { check: 'float' }));
export const minimum = (a: TileLike, b: TileLike): Tile => api('minimum', (t) => binaryIn(t, 'min', a, b, { check: 'numeric', name: 'minimum' }));
export const maximum = (a: TileLike, b: TileLike): Tile => api('maximum', (t) => binaryIn(t, 'max', a, b, { check: 'numeric', name: 'maximum' }));
/** min(max(x, lo), hi). */
export const clamp = (x: TileLike, lo: TileLike, hi: TileLike): Tile =>
  api('clamp', (t) => {
    const { tiles, dtype, shape } = promoteOperands(t, [x, lo, hi], 'clamp');
    checkKind(t, dtype, 'numeric', 'clamp');
    const ty = { elem: dtype, shape };
    const lower = t.emit('binary', [tiles[0]!, tiles[1]!], ty, { fn: 'max', precise: false });
    return t.emit('binary', [lower, tiles[2]!], ty, { fn: 'min', precise: false });
  });

// Bitwise (integers; and/or/xor/not also on bool)
export const and = (a: TileLike, b: TileLike): Tile => api('and', (t) => binaryIn(t, 'and', a, b, { check: 'intOrBool' }));
export const or = (a: TileLike, b: TileLike): Tile => api('or', (t) => binaryIn(t, 'or', a, b, { check: 'intOrBool' }));
export const xor = (a: TileLike, b: TileLike): Tile => api('xor', (t) => binaryIn(t, 'xor', a, b, { check: 'intOrBool' }));
export const shl = (a: TileLike, b: TileLike): Tile => api('shl', (t) => binaryIn(t, 'shl', a, b, { check: 'int' }));
/** Shift right: arithmetic for signed, logical for unsigned. */
export const shr = (a: TileLike, b: TileLike): Tile => api('shr', (t) => binaryIn(t, 'shr', a, b, { check: 'int' }));
export const not = (x: TileLike): Tile => api('not', (t) => unaryIn(t, 'not', x, 'intOrBool'));

// Logical (operands converted to bool with != 0)
const asBool = (t: Trace, x: unknown, what: string): Tile => castIn(t, toTileIn(t, x, what), 'bool');
function logical(t: Trace, fn: 'and' | 'or', a: unknown, b: unknown, name: string): Tile {
  return binaryIn(t, fn, asBool(t, a, `operand 1 of ${name}`), asBool(t, b, `operand 2 of ${name}`), { name });
}
export const logicalAnd = (a: TileLike, b: TileLike): Tile => api('logicalAnd', (t) => logical(t, 'and', a, b, 'logicalAnd'));
export const logicalOr = (a: TileLike, b: TileLike): Tile => api('logicalOr', (t) => logical(t, 'or', a, b, 'logicalOr'));
export const logicalNot = (x: TileLike): Tile => api('logicalNot', (t) => unaryIn(t, 'not', asBool(t, x, 'input'), 'any', 'logicalNot'));

// Comparisons -> bool
export function cmpIn(t: Trace, pred: CmpPred, a: unknown, b: unknown): Tile {
  if (isPtrTile(a) || isPtrTile(b)) {
    const pa = toTileIn(t, a, 'operand 1'), pb = toTileIn(t, b, 'operand 2');
    if (pa.dtype !== pb.dtype) return t.fail('E_TYPE', `cannot compare ${pa.dtype} with ${pb.dtype}`);
    const shape = broadcastShapes(t, pa.shape, pb.shape, pred);
    return t.emit('cmp', [broadcastToIn(t, pa, shape), broadcastToIn(t, pb, shape)], { elem: 'bool', shape }, { pred });
  }
  const { tiles, shape } = promoteOperands(t, [a, b], pred);
  return t.emit('cmp', tiles, { elem: 'bool', shape }, { pred });
}
export const eq = (a: TileLike, b: TileLike): Tile => api('eq', (t) => cmpIn(t, 'eq', a, b));
export const ne = (a: TileLike, b: TileLike): Tile => api('ne', (t) => cmpIn(t, 'ne', a, b));
export const lt = (a: TileLike, b: TileLike): Tile => api('lt', (t) => cmpIn(t, 'lt', a, b));
export const le = (a: TileLike, b: TileLike): Tile => api('le', (t) => cmpIn(t, 'le', a, b));
export const gt = (a: TileLike, b: TileLike): Tile => api('gt', (t) => cmpIn(t, 'gt', a, b));
export const ge = (a: TileLike, b: TileLike): Tile => api('ge', (t) => cmpIn(t, 'ge', a, b));

/** Elementwise select: cond ? a : b, with broadcasting and promotion of a and b. */
export function whereIn(t: Trace, cond: unknown, a: unknown, b: unknown): Tile {
  const c = toTileIn(t, cond, 'condition');
  const cb = isBool(c.dtype) ? c : castIn(t, c, 'bool');
  if (isPtrTile(a) || isPtrTile(b)) {
    const pa = toTileIn(t, a, 'operand 2'), pb = toTileIn(t, b, 'operand 3');
    if (pa.dtype !== pb.dtype) return t.fail('E_TYPE', `where needs both values of one pointer type, got ${pa.dtype} and ${pb.dtype}`);
    const shape = broadcastShapes(t, broadcastShapes(t, pa.shape, pb.shape, 'where'), cb.shape, 'where');
    return t.emit('select', [broadcastToIn(t, cb, shape), broadcastToIn(t, pa, shape), broadcastToIn(t, pb, shape)], { elem: pa.dtype, shape }, {});
  }
  const { tiles, dtype, shape: vs } = promoteOperands(t, [a, b], 'where');
  const shape = broadcastShapes(t, vs, cb.shape, 'where');
  const [x, y] = tiles.map((v) => broadcastToIn(t, v, shape, 'where'));
  return t.emit('select', [broadcastToIn(t, cb, shape, 'where'), x!, y!], { elem: dtype, shape }, {});
}
export const where = (cond: TileLike, a: TileLike, b: TileLike): Tile => api('where', (t) => whereIn(t, cond, a, b));

// ---------------------------------------------------------------------------------------------
// Math (floats; abs and neg also on integers)

export const neg = (x: TileLike): Tile => api('neg', (t) => unaryIn(t, 'neg', x, 'numeric'));
export const abs = (x: TileLike): Tile => api('abs', (t) => unaryIn(t, 'abs', x, 'numeric'));
const mathFn = (fn: UnaryFn) => (x: TileLike): Tile => api(fn, (t) => unaryIn(t, fn, x, 'float'));
export const exp = mathFn('exp');
export const exp2 = mathFn('exp2');
export const log = mathFn('log');
export const log2 = mathFn('log2');
export const sqrt = mathFn('sqrt');
export const rsqrt = mathFn('rsqrt');
export const sin = mathFn('sin');
export const cos = mathFn('cos');
export const tanh = mathFn('tanh');
export const sigmoid = mathFn('sigmoid');
export const erf = mathFn('erf');
/** 1 - erf(x), accurate where erf rounds to 1 (its own op, not 1 - erf: docs/language.md). */
export const erfc = mathFn('erfc');
export const floor = mathFn('floor');
export const ceil = mathFn('ceil');
/** Correctly rounded square root. */
export const sqrtRn = (x: TileLike): Tile => api('sqrtRn', (t) => unaryIn(t, 'sqrt', x, 'float', 'sqrtRn', true));

/** a*b+c with a single rounding (floats). */
export const fma = (a: TileLike, b: TileLike, c: TileLike): Tile =>
  api('fma', (t) => {
    const { tiles, dtype, shape } = promoteOperands(t, [a, b, c], 'fma');
    checkKind(t, dtype, 'float', 'fma');
    return t.emit('fma', tiles, { elem: dtype, shape }, {});
  });

/** ceil(a / b): JS numbers at trace time, tiles with `(a + b - 1) // b` (non-negative inputs). */
export function cdiv(a: number, b: number): number;
export function cdiv(a: TileLike, b: TileLike): Tile;
export function cdiv(a: TileLike, b: TileLike): Tile | number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (!Number.isInteger(a) || !Number.isInteger(b) || b === 0) {
      throw new KernelError('E_ARG', `cdiv needs integers and a non-zero divisor, got ${a} and ${b}`, { op: 'cdiv' });
    }
    return Math.floor((a + b - 1) / b);
  }
  return api('cdiv', (t) => {
    const { tiles } = promoteOperands(t, [a, b], 'cdiv', true);
    const num = binaryIn(t, 'sub', binaryIn(t, 'add', tiles[0], tiles[1]), 1);
    return binaryIn(t, 'floordiv', num, tiles[1], { check: 'int', divOrMod: true, name: 'cdiv' });
  });
}

