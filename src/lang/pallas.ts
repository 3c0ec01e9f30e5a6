// The Pallas-style front end: Refs, BlockSpecs and dynamic slices, lowered to the same IR as
// pointer kernels. A Ref is a view of one block of an array: a base pointer, row-major strides,
// the block's start in every array dim (from the BlockSpec's index map) and the array's extents.
// Indexing a Ref builds a tile of pointers; dims where the array is not a multiple of the block
// (ragged edges) get a bounds mask, so out-of-range lanes are never touched.
import type { Func, Param } from '../ir/ops.js';
import { isDType, isInt, isPow2, ptrOf, type DType } from '../ir/types.js';
import { arange } from './creation.js';
import { KernelError } from './errors.js';
import { userLoc } from './loc.js';
import { load, store } from './memory.js';
import { add, logicalAnd, lt, mul } from './semantic.js';
import { broadcastTo, expandDims, reshape } from './shape.js';
import { Tile } from './tile.js';
import { api, runTrace, Trace } from './trace.js';
import { checkOptionNames } from './options.js';

/** Shape and dtype of an array (JAX's ShapeDtypeStruct). */
export interface ShapeDtype {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** Index map result: one block index per array dim (a Tile scalar or a JS integer). */
export type BlockIndex = Tile | number;
export type IndexMap = (...gridIndices: Tile[]) => BlockIndex | readonly BlockIndex[];

/**
 * Which block of an array one program sees. `blockShape[d] === null` maps over dim d one element
 * at a time and squeezes it out of the Ref; the index map returns, per array dim, the block index
 * (the element index for squeezed dims).
 */
export class BlockSpec {
  constructor(readonly blockShape: readonly (number | null)[], readonly indexMap: IndexMap) {
    if (!Array.isArray(blockShape)) throw specError(`BlockSpec blockShape must be an array, got ${String(blockShape)}`);
    if (typeof indexMap !== 'function') throw specError('BlockSpec indexMap must be a function of the grid indices');
  }
}

/** `pl.BlockSpec(blockShape, indexMap)` spelled as a function. */
export const blockSpec = (blockShape: readonly (number | null)[], indexMap: IndexMap): BlockSpec => new BlockSpec(blockShape, indexMap);

/** A dynamic slice `start : start + size` of one Ref dim; `size` is static (a power of two). */
export class DSlice {
  constructor(readonly start: BlockIndex, readonly size: number) {}
}
export const ds = (start: BlockIndex, size: number): DSlice => new DSlice(start, size);

/** One entry of a Ref index: null/undefined = the whole dim, a scalar, a dynamic slice, or an int tile. */
export type RefIndexEntry = null | undefined | BlockIndex | DSlice;

function specError(detail: string): KernelError {
  const loc = userLoc();
  return new KernelError('E_ARG', detail, { op: 'pallasCall', ...(loc ? { loc } : {}) });
}

interface RefDim {
  readonly stride: number;
  readonly extent: number;
  /** Block size along this dim (1 when squeezed). */
  readonly block: number;
  readonly squeezed: boolean;
  /** Element index where the block starts. */
  readonly start: BlockIndex;
}

/** A reference to one block of a kernel input or output. */
export class Ref {
  /** @internal */
  constructor(
    readonly name: string,
    readonly dtype: DType,
    private readonly base: Tile,
    private readonly dims: readonly RefDim[],
  ) {}

  /** The block's shape as the kernel sees it (squeezed dims removed). */
  get shape(): number[] {
    return this.dims.filter((d) => !d.squeezed).map((d) => d.block);
  }

  /** Reads the block (or an indexed part of it). Masked lanes read `other` (default 0). */
  load(index?: readonly RefIndexEntry[], opts: { mask?: Tile; other?: number | boolean | Tile } = {}): Tile {
    return api('ref.load', (t) => {
      checkOptionNames(t, 'ref.load', opts, ['mask', 'other']);
      const { ptrs, mask } = this.address(t, index);
      const m = combineMasks(mask, opts.mask);
      if (m === undefined) return load(ptrs);
      return load(ptrs, opts.other === undefined ? { mask: m } : { mask: m, other: opts.other });
    });
  }

  /** Writes `value` (broadcast to the indexed shape; dtype must match) into the block. */
  store(value: Tile | number | boolean, index?: readonly RefIndexEntry[], opts: { mask?: Tile } = {}): void {
    api('ref.store', (t) => {
      checkOptionNames(t, 'ref.store', opts, ['mask']);
      const { ptrs, mask } = this.address(t, index);
      const m = combineMasks(mask, opts.mask);
      if (m === undefined) store(ptrs, value);
      else store(ptrs, value, { mask: m });
    });
  }

  /** Pointers for `index` (numpy basic + integer-array indexing) and the ragged-edge mask. */
  private address(t: Trace, index: readonly RefIndexEntry[] | undefined): { ptrs: Tile; mask: Tile | undefined } {
    const visible = this.dims.filter((d) => !d.squeezed);
    const idx = index ?? [];
    if (!Array.isArray(idx)) return t.fail('E_ARG', `index of Ref '${this.name}' must be an array of index entries, got ${String(idx)}`);
    if (idx.length > visible.length) {
      return t.fail('E_ARG', `Ref '${this.name}' has ${visible.length} dims [${this.shape.join(', ')}] but was indexed with ${idx.length} entries`);
    }
    // Classify entries and find the shape of the result (numpy rules).
    type Kind = { kind: 'full'; size: number } | { kind: 'slice'; start: BlockIndex; size: number } | { kind: 'scalar'; v: BlockIndex } | { kind: 'array'; v: Tile };
    const kinds: Kind[] = visible.map((d, i): Kind => {
      const e = idx[i];
      if (e === undefined || e === null) return { kind: 'full', size: d.block };
      if (e instanceof DSlice) {
        if (!isPow2(e.size)) return t.fail('E_SHAPE', `ds(start, ${e.size}) on Ref '${this.name}' dim ${i}: the size must be a power of two`);
        return { kind: 'slice', start: e.start, size: e.size };
      }
      if (typeof e === 'number') {
        if (!Number.isInteger(e)) return t.fail('E_ARG', `index ${e} of Ref '${this.name}' dim ${i} is not an integer`);
        return { kind: 'scalar', v: e };
      }
      if (e instanceof Tile) {
        if (!isInt(e.dtype)) return t.fail('E_TYPE', `index of Ref '${this.name}' dim ${i} must be an integer tile, got ${e.dtype}`);
        return e.shape.length === 0 ? { kind: 'scalar', v: e } : { kind: 'array', v: e };
      }
      return t.fail('E_ARG', `index entry ${i} of Ref '${this.name}' must be null, an integer, a tile or ds(start, size), got ${String(e)}`);
    });
    const arrays = kinds.flatMap((k, i) => (k.kind === 'array' ? [i] : []));
    let advShape: number[] = [];
    for (const i of arrays) advShape = broadcastShape(t, advShape, (kinds[i] as { v: Tile }).v.shape, this.name);
    const adjacent = arrays.length > 0 && arrays[arrays.length - 1]! - arrays[0]! === arrays.length - 1;
    // Result layout: list of (source) parts in order; adv dims go in place when adjacent, else first.
    const resShape: number[] = [];
    const slicePos = new Map<number, number>();
    let advPos = 0;
    if (arrays.length > 0 && !adjacent) {
      advPos = 0;
      resShape.push(...advShape);
    }
    kinds.forEach((k, i) => {
      if (arrays.length > 0 && adjacent && i === arrays[0]) {
        advPos = resShape.length;
        resShape.push(...advShape);
      }
      if (k.kind === 'full' || k.kind === 'slice') {
        slicePos.set(i, resShape.length);
        resShape.push(k.size);
      }
    });
    const rank = resShape.length;
    // Per visible dim: the element index within the block, shaped to broadcast into resShape.
    const place = (tile: Tile, pos: number): Tile => {
      let x = tile;
      for (let a = 0; a < pos; a++) x = expandDims(x, 0);
      while (x.shape.length < rank) x = expandDims(x, x.shape.length);
      return x;
    };
    const within: BlockIndex[] = kinds.map((k, i) => {
      switch (k.kind) {
        case 'full': return place(arange(0, k.size), slicePos.get(i)!);
        case 'slice': return place(add(arange(0, k.size), k.start), slicePos.get(i)!);
        case 'scalar': return k.v;
        case 'array': {
          const v = k.v;
          const aligned = v.shape.length < advShape.length ? reshape(v, [...Array(advShape.length - v.shape.length).fill(1), ...v.shape]) : v;
          return place(aligned, advPos);
        }
      }
    });
    let offset: BlockIndex = 0;
    let mask: Tile | undefined;
    let vi = 0;
    for (const d of this.dims) {
      const inBlock: BlockIndex = d.squeezed ? 0 : within[vi++]!;
      const pos = addIdx(d.start, inBlock);
      offset = addIdx(offset, mulIdx(pos, d.stride));
      if (!d.squeezed && d.extent % d.block !== 0) {
        const ok = lt(pos instanceof Tile ? pos : broadcastTo(pos, []), d.extent);
        mask = mask === undefined ? ok : logicalAnd(mask, ok);
      }
    }
    let ptrs = this.base.add(offset);
    if (ptrs.shape.length < rank || ptrs.shape.some((s, i) => s !== resShape[i])) ptrs = broadcastTo(ptrs, resShape);
    if (mask !== undefined && mask.shape.some((s, i) => s !== resShape[i])) mask = broadcastTo(mask, resShape);
    return { ptrs, mask };
  }
}

const addIdx = (a: BlockIndex, b: BlockIndex): BlockIndex =>
  typeof a === 'number' && typeof b === 'number' ? a + b : a === 0 ? b : b === 0 ? a : add(a as Tile, b);
const mulIdx = (a: BlockIndex, s: number): BlockIndex => (typeof a === 'number' ? a * s : s === 1 ? a : mul(a, s));

function combineMasks(a: Tile | undefined, b: Tile | undefined): Tile | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return logicalAnd(a, b);
}

function broadcastShape(t: Trace, a: readonly number[], b: readonly number[], ref: string): number[] {
  const r = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < r; i++) {
    const x = a[a.length - r + i] ?? 1;
    const y = b[b.length - r + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) t.fail('E_SHAPE', `integer-array indices of Ref '${ref}' do not broadcast: [${a.join(', ')}] vs [${b.join(', ')}]`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** A BlockSpec made concrete for one array: the whole array in one block when none was given. */
export function resolveSpec(spec: BlockSpec | null | undefined, arr: ShapeDtype, what: string): BlockSpec {
  if (spec === null || spec === undefined) {
    const d = arr.shape.findIndex((n) => !isPow2(n));
    if (d >= 0) {
      throw specError(`${what}: without a BlockSpec the whole array [${arr.shape.join(', ')}] is one block, but dim ${d} (${arr.shape[d]}) is not a power of two; block dims must be powers of two, so give a BlockSpec`);
    }
    return new BlockSpec([...arr.shape], () => arr.shape.map(() => 0));
  }
  if (!(spec instanceof BlockSpec)) throw specError(`${what}: expected a BlockSpec, got ${String(spec)}`);
  if (spec.blockShape.length !== arr.shape.length) {
    throw specError(`${what}: block shape [${spec.blockShape.join(', ')}] has ${spec.blockShape.length} dims but the array has ${arr.shape.length} ([${arr.shape.join(', ')}])`);
  }
  spec.blockShape.forEach((b, d) => {
    if (b !== null && !isPow2(b)) throw specError(`${what}: block dim ${d} is ${String(b)}; block dims must be powers of two (or null to squeeze)`);
  });
  return spec;
}

function checkShapeDtype(a: ShapeDtype, what: string): void {
  if (typeof a !== 'object' || a === null || !Array.isArray(a.shape) || !isDType(a.dtype)) {
    throw specError(`${what} must be { shape: number[], dtype }, got ${JSON.stringify(a)}`);
  }
  if (a.shape.some((d) => !Number.isInteger(d) || d < 1)) throw specError(`${what} has an invalid shape [${a.shape.join(', ')}]`);
}

export interface PallasTraceConfig {
  readonly name: string;
  readonly grid: readonly number[];
  readonly inputs: readonly ShapeDtype[];
  readonly outputs: readonly ShapeDtype[];
  readonly inSpecs: readonly BlockSpec[];
  readonly outSpecs: readonly BlockSpec[];
}

/**
 * Traces a Pallas body into a Func whose params are one pointer per input, then one per output.
 * The body receives one Ref per input, then one per output.
 */
export function tracePallas(body: (...refs: Ref[]) => void, cfg: PallasTraceConfig): Func {
  cfg.inputs.forEach((a, i) => checkShapeDtype(a, `input ${i}`));
  cfg.outputs.forEach((a, i) => checkShapeDtype(a, `output ${i}`));
  if (cfg.grid.length < 1 || cfg.grid.length > 3 || cfg.grid.some((g) => !Number.isInteger(g) || g < 1)) {
    throw specError(`grid must have 1 to 3 positive integer dims, got [${cfg.grid.join(', ')}]`);
  }
  const arrays = [...cfg.inputs, ...cfg.outputs];
  const specs = [...cfg.inSpecs, ...cfg.outSpecs];
  const names = [...cfg.inputs.map((_, i) => `in${i}`), ...cfg.outputs.map((_, i) => `out${i}`)];
  const params: Param[] = arrays.map((a, i) => ({ name: names[i]!, type: ptrOf(a.dtype) }));
  const t = new Trace(cfg.name);
  return runTrace(t, () =>
    t.builder.func(cfg.name, params, { grid: cfg.grid.join('x') }, (args) => {
      const gridIdx = cfg.grid.map((_, axis) => t.emit('program_id', [], { elem: 'i32', shape: [] }, { axis: axis as 0 | 1 | 2 }));
      const refs = arrays.map((a, i) => {
        const spec = specs[i]!;
        const raw = t.user(() => spec.indexMap(...gridIdx));
        const blockIdx = Array.isArray(raw) ? raw : [raw];
        if (blockIdx.length !== a.shape.length) {
          t.fail('E_ARG', `the index map of ${names[i]} returned ${blockIdx.length} block indices for a ${a.shape.length}-d array`, 'pallasCall');
        }
        const strides = a.shape.map((_, d) => a.shape.slice(d + 1).reduce((x, y) => x * y, 1));
        const dims: RefDim[] = a.shape.map((extent, d) => {
          const b = spec.blockShape[d]!;
          const bi = blockIdx[d] as BlockIndex;
          if (!(bi instanceof Tile) && !(typeof bi === 'number' && Number.isInteger(bi))) {
            t.fail('E_ARG', `the index map of ${names[i]} returned ${String(bi)} for dim ${d}; expected an integer or a scalar tile`, 'pallasCall');
          }
          const block = b ?? 1;
          return { stride: strides[d]!, extent, block, squeezed: b === null, start: mulIdxIn(bi, block) };
        });
        return new Ref(names[i]!, a.dtype, t.wrap(args[i]!), dims);
      });
      const ret: unknown = t.user(() => body(...refs));
      if (ret !== undefined) t.fail('E_TRACE', 'a Pallas kernel body returns nothing; write outputs through their Refs', 'pallasCall');
    }),
  );
}

/** Block index -> element index, as a public op so its IR carries the user's index-map line. */
const mulIdxIn = (a: BlockIndex, s: number): BlockIndex => api('pallasCall', () => mulIdx(a, s));
