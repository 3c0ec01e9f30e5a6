// The CUtensorMaps a kernel's TMA copies read (sm_90a): one per distinct (descriptor, box,
// swizzle), passed as a hidden 128-byte kernel parameter (`.param .align 64 .b8 name[128]`, what
// Triton and CUTLASS pass by value) that the launcher encodes with cuTensorMapEncodeTiled from the
// launch's arguments. `TensorMapSpec` is the recipe, kept in the compiled kernel's metadata (and so
// in the persistent cache) next to its other launch facts.
import type { Func, Op, Value } from '../../ir/ops.js';
import { descOperands } from '../../ir/tensor_desc.js';
import { byteSize, isInt, pointee, type DType, type PtrType } from '../../ir/types.js';
import { swizzleFor, type SwizzleBytes } from '../smem/smem_swizzle.js';

/** A launch-time scalar: a kernel parameter (by index) or a constant. */
export type ScalarSource = { readonly param: number } | { readonly value: number };

export interface TensorMapSpec {
  /** The PTX parameter symbol. */
  readonly name: string;
  /** Byte offset in the parameter buffer (64-aligned, after the kernel's own parameters). */
  readonly offset: number;
  readonly dtype: DType;
  /** CUtensorMapDataType (cuda.h). */
  readonly dataType: number;
  /** Index of the pointer parameter that is the tensor's base. */
  readonly base: number;
  /** Elements per dim, innermost first (cuTensorMapEncodeTiled's order). */
  readonly dims: readonly ScalarSource[];
  /** Element strides of dims 1..rank-1, innermost first (the launcher scales them to bytes). */
  readonly strides: readonly ScalarSource[];
  /** Box dims, innermost first. */
  readonly box: readonly number[];
  /** CU_TENSOR_MAP_SWIZZLE_{32,64,128}B, or 0 for none. */
  readonly swizzle: SwizzleBytes;
  /** 1: CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA (a desc_load with padding 'nan'); absent: zero fill. */
  readonly oobFill?: 1;
}

/** cuda.h's CUtensorMapDataType for each dtype TMA moves (8-bit types as raw bytes). */
const DATA_TYPE: Partial<Record<DType, number>> = {
  u8: 0, i8: 0, f8e4m3: 0, f8e5m2: 0, f8e8m0: 0, f4e2m1: 0, i16: 1, u32: 2, i32: 3, i64: 5, f16: 6, f32: 7, f64: 8, bf16: 9,
};
export const tmaDataType = (d: DType): number | undefined => DATA_TYPE[d];
export const descElem = (op: Op): DType => pointee(op.operands[0]!.type.elem as PtrType);

/** Ways tests break the TMA lowering on purpose, to show the sim catches each. */
export const TMA_SABOTAGE = ['no-wait'] as const;
export type TmaSabotage = (typeof TMA_SABOTAGE)[number];

/**
 * How a block sits in shared memory: `rows` rows (the outer block dims flattened) of `rowBytes`,
 * in column blocks `swizzle` bytes wide (smem_swizzle.ts), one TMA box per column block; rows
 * not a multiple of 8 (a partial swizzle repeat) or 16-byte rows are not swizzled (one box).
 */
export interface TileGeometry {
  readonly block: readonly number[];
  readonly eb: number;
  readonly rows: number;
  readonly rowBytes: number;
  readonly swizzle: SwizzleBytes;
  /** Box dims innermost first, and how many boxes (column blocks) cover a row. */
  readonly box: readonly number[];
  readonly boxes: number;
  readonly bytes: number;
}

export function tileGeometry(op: Op<'desc_load'> | Op<'desc_store'>): TileGeometry {
  const block = op.attrs.block;
  const eb = byteSize(descElem(op));
  const inner = block[block.length - 1]!;
  const rows = block.slice(0, -1).reduce((a, b) => a * b, 1);
  const rowBytes = inner * eb;
  const swizzle = rows % 8 === 0 ? swizzleFor(rowBytes) : 0;
  const boxInner = swizzle ? swizzle / eb : inner;
  const box = [boxInner, ...block.slice(0, -1).reverse()];
  return { block, eb, rows, rowBytes, swizzle, box, boxes: inner / boxInner, bytes: rows * rowBytes };
}

/** The maps of one kernel being lowered, shared by its desc ops (same operands and box: same map). */
export class TensorMapTable {
  readonly specs: Omit<TensorMapSpec, 'offset'>[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly consts = new Map<number, number>();
  /** i32 casts of integer parameters: the parameter's value is the launch value. */
  private readonly casts = new Map<number, number>();

  constructor(private readonly f: Func) {
    const see = (ops: readonly Op[]): void => {
      for (const o of ops) {
        if (o.kind === 'const') this.consts.set(o.results[0]!.id, Number((o as Op<'const'>).attrs.value));
        const p = o.kind === 'cast' ? f.body.args.findIndex((a) => a.id === o.operands[0]!.id) : -1;
        if (p >= 0 && isInt(f.body.args[p]!.type.elem)) this.casts.set(o.results[0]!.id, p);
        o.regions.forEach((r) => see(r.ops));
      }
    };
    see(f.body.ops);
  }

  private source(v: Value, what: string): ScalarSource {
    const p = this.f.body.args.findIndex((a) => a.id === v.id);
    if (p >= 0) return { param: p };
    const q = this.casts.get(v.id);
    if (q !== undefined) return { param: q };
    const c = this.consts.get(v.id);
    if (c === undefined) throw new Error(`a TMA descriptor's ${what} is computed in the kernel (only parameters and constants can build a tensor map at launch)`);
    return { value: c };
  }

  /** Index of the map for `op` (created on first use). */
  mapFor(op: Op<'desc_load'> | Op<'desc_store'>, g: TileGeometry): number {
    const d = descOperands(op);
    const base = this.source(d.base, 'base');
    if (!('param' in base)) throw new Error('a TMA descriptor base must be a pointer parameter');
    const rev = <T>(xs: readonly T[]): T[] => [...xs].reverse();
    const dims = rev(d.shape).map((v) => this.source(v, 'shape'));
    const strides = rev(d.strides).slice(1).map((v) => this.source(v, 'stride'));
    const dtype = descElem(op);
    const spec = { name: `${this.f.name}_tmap_${this.specs.length}`, dtype, dataType: tmaDataType(dtype)!, base: base.param, dims, strides, box: [...g.box], swizzle: g.swizzle, ...(op.kind === 'desc_load' && (op as Op<'desc_load'>).attrs.padding === 'nan' ? { oobFill: 1 as const } : {}) };
    const key = JSON.stringify({ ...spec, name: '' });
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.specs.length;
      this.specs.push(spec);
      this.byKey.set(key, i);
    }
    return i;
  }

  /** The specs with their parameter offsets, placed after `paramBytes` bytes of ordinary parameters. */
  place(paramBytes: number): TensorMapSpec[] {
    const start = Math.ceil(paramBytes / 64) * 64;
    return this.specs.map((s, i) => ({ ...s, offset: start + 128 * i }));
  }
}

const tables = new WeakMap<object, TensorMapTable>();
/** The table of the lowering `cx` (one per renderPtx). */
export function tensorMaps(cx: { readonly func: Func }): TensorMapTable {
  let t = tables.get(cx);
  if (!t) tables.set(cx, (t = new TensorMapTable(cx.func)));
  return t;
}
export const hasTensorMaps = (cx: object): boolean => (tables.get(cx)?.specs.length ?? 0) > 0;
