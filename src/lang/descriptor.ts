// Tensor descriptors, Triton's `tl.make_tensor_descriptor(base, shape, strides, block_shape)`:
// a strided tensor in global memory read and written one block at a time with `desc.load(offsets)`
// and `desc.store(offsets, value)`. Out of bounds, loads give zero and stores write nothing (what
// TMA does). On sm_90a the compiler moves the blocks with TMA (cp.async.bulk.tensor); elsewhere
// they become masked loads and stores. Errors are E_DESCRIPTOR, named at trace time.
import { badDescBlock } from '../ir/tensor_desc.js';
import { byteSize, isBool, isFloat, isMiniFloat, isInt, isPtr, pointee, type DType, type PtrType } from '../ir/types.js';
import { broadcastToIn, castIn, constantIn, describe, isScalar } from './semantic.js';
import { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

/** A scalar int (tile or JS integer) as an i32 scalar tile. */
function i32Scalar(t: Trace, x: unknown, what: string): Tile {
  if (typeof x === 'number') {
    if (!Number.isInteger(x) || x < -(2 ** 31) || x >= 2 ** 31) return t.fail('E_DESCRIPTOR', `${what} must be an i32 integer, got ${x}`);
    return constantIn(t, x, { elem: 'i32', shape: [] });
  }
  if (!(x instanceof Tile)) return t.fail('E_DESCRIPTOR', `${what} must be a scalar integer (tile or number), got ${describe(x)}`);
  t.use(x);
  if (x.shape.length !== 0 || !isInt(x.dtype)) return t.fail('E_DESCRIPTOR', `${what} must be a scalar integer, got ${x.toString()}`);
  return x.dtype === 'i32' ? x : castIn(t, x, 'i32');
}

function list(t: Trace, xs: unknown, rank: number, what: string): unknown[] {
  if (!Array.isArray(xs) || xs.length !== rank) {
    return t.fail('E_DESCRIPTOR', `${what} must be an array of ${rank} entries (one per block dim), got ${Array.isArray(xs) ? `${xs.length} entries` : describe(xs)}`);
  }
  return xs;
}

/** desc.load's options: only `paddingOption`, 'zero' (the default) or 'nan' (float dtypes). */
function descPadding(t: Trace, opts: unknown, dtype: DType): 'zero' | 'nan' {
  if (opts === undefined) return 'zero';
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) return t.fail('E_ARG', `desc.load options must be an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) if (k !== 'paddingOption') t.fail('E_ARG', `unknown desc.load option '${k}' (allowed: paddingOption)`);
  const pad = (opts as { paddingOption?: unknown }).paddingOption ?? 'zero';
  if (pad !== 'zero' && pad !== 'nan') return t.fail('E_ARG', `paddingOption must be 'zero' or 'nan', got ${describe(pad)}`);
  if (pad === 'nan' && (!isFloat(dtype) || isMiniFloat(dtype))) return t.fail('E_TYPE', `paddingOption 'nan' needs a float descriptor (f64, f32, f16, bf16), got ${dtype}`);
  return pad;
}

/** A descriptor made by makeTensorDescriptor; its tiles are those of the trace it was made in. */
export class TensorDescriptor {
  /** @internal */
  constructor(
    readonly base: Tile,
    readonly shape: readonly Tile[],
    readonly strides: readonly Tile[],
    readonly blockShape: readonly number[],
  ) {}
  get dtype(): DType { return pointee(this.base.dtype as PtrType); }

  /**
   * The block at `offsets` (element offsets per dim); out-of-bounds elements are zero, or NaN with
   * `{ paddingOption: 'nan' }` (float dtypes; TMA's NaN fill on sm_90a).
   */
  load(offsets: readonly (Tile | number)[], opts?: { paddingOption?: 'zero' | 'nan' }): Tile {
    return api('desc.load', (t) => {
      const pad = descPadding(t, opts, this.dtype);
      const offs = this.#offsets(t, offsets);
      return t.emit('desc_load', [this.base, ...this.shape, ...this.strides, ...offs], { elem: this.dtype, shape: [...this.blockShape] }, { block: [...this.blockShape], ...(pad === 'nan' ? { padding: 'nan' as const } : {}) });
    });
  }

  /** Writes `value` (a tile of blockShape, or a scalar) at `offsets`; out-of-bounds elements are not written. */
  store(offsets: readonly (Tile | number)[], value: Tile | number | boolean | bigint): void {
    api('desc.store', (t) => {
      const offs = this.#offsets(t, offsets);
      let v: Tile;
      if (isScalar(value)) v = constantIn(t, value, { elem: this.dtype, shape: [...this.blockShape] }, 'stored literal');
      else {
        if (!(value instanceof Tile)) return t.fail('E_DESCRIPTOR', `value must be a tile or a number, got ${describe(value)}`);
        t.use(value);
        if (value.dtype !== this.dtype) return t.fail('E_TYPE', `cannot store ${value.dtype} values through a descriptor of ${this.dtype}; cast first with .to('${this.dtype}')`);
        v = broadcastToIn(t, value, this.blockShape, 'desc.store value');
      }
      t.emitOp('desc_store', [this.base, ...this.shape, ...this.strides, ...offs, v], [], { block: [...this.blockShape] });
    });
  }

  #offsets(t: Trace, offsets: unknown): Tile[] {
    return list(t, offsets, this.blockShape.length, 'offsets').map((o, i) => i32Scalar(t, o, `offsets[${i}]`));
  }
}

/**
 * Triton's `make_tensor_descriptor`: `base` a pointer parameter (16-byte aligned at launch),
 * `shape` and `strides` in elements (scalars or numbers; the last stride must be the literal 1,
 * the others multiples of 16 bytes), `blockShape` powers of two up to 256 with a last dim of at
 * least 16 bytes.
 */
export const makeTensorDescriptor = (base: Tile, shape: readonly (Tile | number)[], strides: readonly (Tile | number)[], blockShape: readonly number[]): TensorDescriptor =>
  api('makeTensorDescriptor', (t) => {
    if (!(base instanceof Tile)) return t.fail('E_DESCRIPTOR', `base must be a pointer, got ${describe(base)}`);
    t.use(base);
    if (!isPtr(base.dtype) || base.shape.length !== 0) return t.fail('E_DESCRIPTOR', `base must be a scalar pointer (a pointer parameter), got ${base.toString()}`);
    const dtype = pointee(base.dtype);
    if (isBool(dtype)) return t.fail('E_DESCRIPTOR', 'a descriptor cannot hold bool elements (TMA has no 1-bit type); use u8');
    if (!Array.isArray(blockShape)) return t.fail('E_DESCRIPTOR', `blockShape must be an array of numbers, got ${describe(blockShape)}`);
    const bad = badDescBlock(blockShape);
    if (bad) return t.fail('E_DESCRIPTOR', bad);
    const rank = blockShape.length;
    const eb = byteSize(dtype);
    if (blockShape[rank - 1]! * eb < 16) {
      return t.fail('E_DESCRIPTOR', `the last block dim must span at least 16 bytes (TMA's minimum box row), got ${blockShape[rank - 1]} x ${eb} bytes`);
    }
    const sh = list(t, shape, rank, 'shape');
    const st = list(t, strides, rank, 'strides');
    if (st[rank - 1] !== 1) return t.fail('E_DESCRIPTOR', `the last stride must be the literal 1 (the innermost dim is contiguous), got ${describe(st[rank - 1])}`);
    sh.forEach((s, i) => {
      if (typeof s === 'number' && s < 1) t.fail('E_DESCRIPTOR', `shape[${i}] must be at least 1, got ${s}`);
    });
    st.forEach((s, i) => {
      if (i < rank - 1 && typeof s === 'number' && (s * eb) % 16 !== 0) {
        t.fail('E_DESCRIPTOR', `strides[${i}] = ${s} elements is ${s * eb} bytes, not a multiple of 16 (TMA's global stride rule)`);
      }
    });
    return new TensorDescriptor(base, sh.map((s, i) => i32Scalar(t, s, `shape[${i}]`)), st.map((s, i) => i32Scalar(t, s, `strides[${i}]`)), [...blockShape]);
  });
