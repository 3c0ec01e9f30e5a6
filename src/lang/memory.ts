// Global memory: load, store and atomics through tiles of pointers.
import type { AtomicOp, Eviction, LoadCacheMod, MemScope, MemSem, StoreCacheMod } from '../ir/ops.js';
import { EVICTIONS, LOAD_CACHE_MODS, STORE_CACHE_MODS } from '../ir/ops.js';
import type { DType } from '../ir/types.js';
import { isBool, isFloat, isInt, isPtr, pointee } from '../ir/types.js';
import { broadcastShapes, broadcastToIn, castIn, constantIn, describe, rejectFp8, isScalar, toTileIn, type TileLike } from './semantic.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';
import { BlockPointer, blockLoadIn, blockStoreIn, type BlockLoadOptions, type BlockStoreOptions } from './block_ptr.js';

export interface LoadOptions {
  mask?: TileLike;
  /** Value for masked-off lanes (needs `mask`); cast to the pointee dtype. */
  other?: TileLike;
  /** PTX `ld` cache operator (Triton's cache_modifier): 'ca', 'cg', 'cs', 'lu' or 'cv'. */
  cache?: Exclude<LoadCacheMod, ''>;
  /** Eviction priority (Triton's eviction_policy); may be given with `cache` (then an L2 cache policy). */
  eviction?: Exclude<Eviction, ''>;
  /** `ld.volatile`: takes no cache operator or eviction hint. */
  volatile?: boolean;
}
export interface StoreOptions {
  mask?: TileLike;
  /** PTX `st` cache operator: 'wb', 'cg', 'cs' or 'wt'. */
  cache?: Exclude<StoreCacheMod, ''>;
  /** Eviction priority; may be given with `cache` (then an L2 cache policy). */
  eviction?: Exclude<Eviction, ''>;
}
export interface AtomicOptions {
  mask?: TileLike;
  sem?: MemSem;
  scope?: MemScope;
}

const EVICT = EVICTIONS.filter(Boolean);
const SEM = ['relaxed', 'acquire', 'release', 'acq_rel'];
const SCOPE = ['gpu', 'cta', 'sys'];

function pick<T extends string>(t: Trace, v: unknown, allowed: readonly string[], dflt: T, what: string): T {
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !allowed.includes(v)) {
    return t.fail('E_ARG', `${what} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}

/** Exactly what PTX can express for `op`: its cache operators; anything else is named, never dropped. */
function cacheOf<T extends string>(t: Trace, v: unknown, op: 'load' | 'store', allowed: readonly T[]): T {
  const other = op === 'load' ? STORE_CACHE_MODS : LOAD_CACHE_MODS;
  if (typeof v === 'string' && v !== '' && !allowed.includes(v as T) && (other as readonly string[]).includes(v)) {
    return t.fail('E_ARG', `cache '${v}' is a ${op === 'load' ? 'store' : 'load'} cache operator; PTX's ${op === 'load' ? 'ld' : 'st'} takes ${allowed.filter(Boolean).map((a) => `'${a}'`).join(', ')}`);
  }
  return pick<T>(t, v, allowed.filter(Boolean), '' as T, `${op} cache`);
}

function checkOptions(t: Trace, opts: unknown, allowed: string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) return t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) {
    if (!allowed.includes(k)) t.fail('E_ARG', `unknown option '${k}' (allowed: ${allowed.join(', ')})`);
  }
  return opts as Record<string, unknown>;
}

function ptrTile(t: Trace, p: unknown, op: string): Tile {
  if (!(p instanceof Tile)) return t.fail('E_ARG', `${op} needs a tile of pointers, got ${describe(p)}`);
  t.use(p);
  if (!isPtr(p.dtype)) return t.fail('E_TYPE', `${op} needs a tile of pointers, got ${p.dtype} (offset a pointer parameter: x.add(offsets))`);
  return p;
}

/** Mask as a bool tile of the pointer's shape. */
function maskTile(t: Trace, mask: unknown, shape: readonly number[], op: string): Tile {
  const m = toTileIn(t, mask, 'mask');
  if (!isBool(m.dtype)) return t.fail('E_TYPE', `${op} mask must be a bool tile, got ${m.dtype} (compare, e.g. offs.lt(n))`);
  return broadcastToIn(t, m, shape, `${op} mask`);
}

export function loadIn(t: Trace, ptr: unknown, opts: LoadOptions = {}): Tile {
  const o = checkOptions(t, opts, ['mask', 'other', 'cache', 'eviction', 'volatile']);
  const p = ptrTile(t, ptr, 'load');
  const elem = pointee(p.dtype as `ptr<${DType}>`);
  const shape = [...p.shape];
  const operands: Tile[] = [p];
  const hasMask = o.mask !== undefined;
  const hasOther = o.other !== undefined;
  if (hasOther && !hasMask) return t.fail('E_ARG', '`other` needs a `mask` (it fills the masked-off lanes)');
  if (hasMask) operands.push(maskTile(t, o.mask, shape, 'load'));
  if (hasOther) {
    const other = isScalar(o.other)
      ? constantIn(t, o.other, { elem, shape }, '`other`')
      : broadcastToIn(t, castIn(t, toTileIn(t, o.other, '`other`'), elem), shape, 'load other');
    operands.push(other);
  }
  if (o.volatile !== undefined && typeof o.volatile !== 'boolean') return t.fail('E_ARG', `volatile must be a boolean, got ${describe(o.volatile)}`);
  const cache = cacheOf(t, o.cache, 'load', LOAD_CACHE_MODS);
  const eviction = pick<Eviction>(t, o.eviction, EVICT, '', 'eviction');
  if (o.volatile === true && (cache || eviction)) {
    return t.fail('E_ARG', `a volatile load takes no ${cache ? `cache operator ('${cache}')` : `eviction hint ('${eviction}')`}: PTX's ld.volatile has none`);
  }
  return t.emit('load', operands, { elem, shape }, { hasMask, hasOther, cache, eviction, volatile: o.volatile === true });
}

export function storeIn(t: Trace, ptr: unknown, value: unknown, opts: StoreOptions = {}): void {
  const o = checkOptions(t, opts, ['mask', 'cache', 'eviction']);
  const p = ptrTile(t, ptr, 'store');
  const elem = pointee(p.dtype as `ptr<${DType}>`);
  const shape = [...p.shape];
  let v: Tile;
  if (isScalar(value)) {
    v = constantIn(t, value, { elem, shape }, 'stored literal');
  } else {
    const vt = toTileIn(t, value, 'value');
    if (vt.dtype !== elem) {
      return t.fail('E_TYPE', `cannot store ${vt.dtype} values through ${p.dtype}; cast first with .to('${elem}')`);
    }
    v = broadcastToIn(t, vt, shape, 'store value');
  }
  const operands: Tile[] = [p, v];
  const hasMask = o.mask !== undefined;
  if (hasMask) operands.push(maskTile(t, o.mask, shape, 'store'));
  t.emitOp('store', operands, [], {
    hasMask,
    cache: cacheOf(t, o.cache, 'store', STORE_CACHE_MODS),
    eviction: pick<Eviction>(t, o.eviction, EVICT, '', 'eviction'),
  });
}

/** A tile of pointers, or a block pointer (makeBlockPtr: options boundaryCheck and paddingOption, no mask). */
export function load(ptr: Tile, opts?: LoadOptions): Tile;
export function load(ptr: BlockPointer, opts?: BlockLoadOptions): Tile;
export function load(ptr: Tile | BlockPointer, opts?: LoadOptions | BlockLoadOptions): Tile {
  return api('load', (t) => (ptr instanceof BlockPointer ? blockLoadIn(t, ptr, opts) : loadIn(t, ptr, opts as LoadOptions)));
}
export function store(ptr: Tile, value: TileLike, opts?: StoreOptions): void;
export function store(ptr: BlockPointer, value: TileLike, opts?: BlockStoreOptions): void;
export function store(ptr: Tile | BlockPointer, value: TileLike, opts?: StoreOptions | BlockStoreOptions): void {
  api('store', (t) => (ptr instanceof BlockPointer ? blockStoreIn(t, ptr, value, opts) : storeIn(t, ptr, value, opts as StoreOptions)));
}

/** Shape shared by the pointers and the values (values broadcast to the pointers, or both ways). */
function atomicShape(t: Trace, p: Tile, vals: Tile[], op: string): number[] {
  let shape = [...p.shape];
  for (const v of vals) shape = broadcastShapes(t, shape, v.shape, op);
  return shape;
}

function atomicValue(t: Trace, v: unknown, elem: DType, what: string): Tile {
  if (isScalar(v)) return constantIn(t, v, { elem, shape: [] }, what);
  return castIn(t, toTileIn(t, v, what), elem);
}

function atomicRmwIn(t: Trace, op: AtomicOp, name: string, ptr: unknown, val: unknown, opts: AtomicOptions = {}): Tile {
  const o = checkOptions(t, opts, ['mask', 'sem', 'scope']);
  const p = ptrTile(t, ptr, name);
  const elem = pointee(p.dtype as `ptr<${DType}>`);
  rejectFp8(t, elem, name);
  const okType =
    op === 'xchg' ? !isBool(elem)
    : op === 'add' ? isInt(elem) || elem === 'f32' || elem === 'f64' || elem === 'f16' || elem === 'bf16'
    : op === 'max' || op === 'min' ? isInt(elem) || isFloat(elem)
    : isInt(elem);
  if (!okType) return t.fail('E_TYPE', `${name} does not support ${elem} memory`);
  const v = atomicValue(t, val, elem, 'value');
  const m = o.mask !== undefined ? toTileIn(t, o.mask, 'mask') : undefined;
  if (m && !isBool(m.dtype)) return t.fail('E_TYPE', `${name} mask must be a bool tile, got ${m.dtype}`);
  const shape = atomicShape(t, p, m ? [v, m] : [v], name);
  const operands = [broadcastToIn(t, p, shape, name), broadcastToIn(t, v, shape, name)];
  if (m) operands.push(broadcastToIn(t, m, shape, name));
  return t.emit('atomic_rmw', operands, { elem, shape }, {
    op, hasMask: m !== undefined,
    sem: pick<MemSem>(t, o.sem, SEM, 'acq_rel', 'sem'),
    scope: pick<MemScope>(t, o.scope, SCOPE, 'gpu', 'scope'),
  });
}

const rmw = (op: AtomicOp, name: string) => (ptr: Tile, val: TileLike, opts?: AtomicOptions): Tile =>
  api(name, (t) => atomicRmwIn(t, op, name, ptr, val, opts));
/** Atomic read-modify-write; each returns the old values. Default sem 'acq_rel', scope 'gpu'. */
export const atomicAdd = rmw('add', 'atomicAdd');
export const atomicMax = rmw('max', 'atomicMax');
export const atomicMin = rmw('min', 'atomicMin');
export const atomicAnd = rmw('and', 'atomicAnd');
export const atomicOr = rmw('or', 'atomicOr');
export const atomicXor = rmw('xor', 'atomicXor');
export const atomicXchg = rmw('xchg', 'atomicXchg');

/** Compare-and-swap: where *ptr == cmp, store val; returns the old values. */
export const atomicCas = (ptr: Tile, cmp: TileLike, val: TileLike, opts?: Omit<AtomicOptions, 'mask'>): Tile =>
  api('atomicCas', (t) => {
    const o = checkOptions(t, opts, ['sem', 'scope']);
    const p = ptrTile(t, ptr, 'atomicCas');
    const elem = pointee(p.dtype as `ptr<${DType}>`);
    rejectFp8(t, elem, 'atomicCas');
    if (!(isInt(elem) || isFloat(elem))) return t.fail('E_TYPE', `atomicCas does not support ${elem} memory`);
    const c = atomicValue(t, cmp, elem, 'cmp');
    const v = atomicValue(t, val, elem, 'value');
    const shape = atomicShape(t, p, [c, v], 'atomicCas');
    return t.emit('atomic_cas', [broadcastToIn(t, p, shape), broadcastToIn(t, c, shape), broadcastToIn(t, v, shape)], { elem, shape }, {
      sem: pick<MemSem>(t, o.sem, SEM, 'acq_rel', 'sem'),
      scope: pick<MemScope>(t, o.scope, SCOPE, 'gpu', 'scope'),
    });
  });
