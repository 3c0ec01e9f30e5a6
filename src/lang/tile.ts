// Tile: a symbolic block of values during a trace (the user-facing handle to one IR value).
//
// Internals (for other front ends, e.g. Pallas):
//  - `value` is the IR Value (id + TileType); `trace` is the Trace it belongs to; `scope` the
//    region scope it was created in. Create Tiles only through `trace.wrap(value)` / `trace.emit`.
//  - A Tile is valid only inside its own trace and while its scope is open; every op checks this
//    through `trace.use(tile)` and raises E_TRACE otherwise.
//  - Methods are fluent sugar: each one calls the free function of the same name (semantic.ts,
//    shape.ts, reduce.ts, ...), which does promotion/broadcasting and emits IR.
import type { Value } from '../ir/ops.js';
import type { DType, ElemType, TileType } from '../ir/types.js';
import type { Scope, Trace } from './trace.js';
import * as S from './semantic.js';
import * as Sh from './shape.js';
import * as R from './reduce.js';
import * as Sel from './sort.js';
import * as G from './gather.js';
import * as Hi from './histogram.js';
import * as H from './hints.js';

type TL = S.TileLike;

export class Tile {
  constructor(
    readonly value: Value,
    readonly trace: Trace,
    readonly scope: Scope,
  ) {}

  get type(): TileType { return this.value.type; }
  get dtype(): ElemType { return this.value.type.elem; }
  get shape(): readonly number[] { return this.value.type.shape; }
  get rank(): number { return this.value.type.shape.length; }
  get numel(): number { return this.value.type.shape.reduce((a, b) => a * b, 1); }
  toString(): string { return `Tile<${this.dtype}[${this.shape.join('x')}]>`; }
  /** JS operators on tiles would silently give strings or NaN: reject them with a hint. */
  [Symbol.toPrimitive](hint: string): string {
    if (hint === 'string') return this.toString();
    return this.trace.fail('E_TRACE', `JS operators (+, -, <, ...) do not work on tiles (${this.toString()}); use methods such as .add(), .lt() or free functions`);
  }

  // arithmetic (pointer + int offsets is pointer arithmetic)
  add(o: TL): Tile { return S.add(this, o); }
  sub(o: TL): Tile { return S.sub(this, o); }
  mul(o: TL): Tile { return S.mul(this, o); }
  div(o: TL): Tile { return S.div(this, o); }
  floordiv(o: TL): Tile { return S.floordiv(this, o); }
  rem(o: TL): Tile { return S.rem(this, o); }
  mod(o: TL): Tile { return S.rem(this, o); }
  pow(o: TL): Tile { return S.pow(this, o); }
  neg(): Tile { return S.neg(this); }
  minimum(o: TL): Tile { return S.minimum(this, o); }
  maximum(o: TL): Tile { return S.maximum(this, o); }
  clamp(lo: TL, hi: TL): Tile { return S.clamp(this, lo, hi); }
  cdiv(o: TL): Tile { return S.cdiv(this, o); }

  // comparisons -> bool
  eq(o: TL): Tile { return S.eq(this, o); }
  ne(o: TL): Tile { return S.ne(this, o); }
  lt(o: TL): Tile { return S.lt(this, o); }
  le(o: TL): Tile { return S.le(this, o); }
  gt(o: TL): Tile { return S.gt(this, o); }
  ge(o: TL): Tile { return S.ge(this, o); }

  // bitwise and logical
  and(o: TL): Tile { return S.and(this, o); }
  or(o: TL): Tile { return S.or(this, o); }
  xor(o: TL): Tile { return S.xor(this, o); }
  not(): Tile { return S.not(this); }
  shl(o: TL): Tile { return S.shl(this, o); }
  shr(o: TL): Tile { return S.shr(this, o); }
  logicalAnd(o: TL): Tile { return S.logicalAnd(this, o); }
  logicalOr(o: TL): Tile { return S.logicalOr(this, o); }
  logicalNot(): Tile { return S.logicalNot(this); }

  // math
  abs(): Tile { return S.abs(this); }
  exp(): Tile { return S.exp(this); }
  exp2(): Tile { return S.exp2(this); }
  log(): Tile { return S.log(this); }
  log2(): Tile { return S.log2(this); }
  sqrt(): Tile { return S.sqrt(this); }
  rsqrt(): Tile { return S.rsqrt(this); }
  sin(): Tile { return S.sin(this); }
  cos(): Tile { return S.cos(this); }
  tanh(): Tile { return S.tanh(this); }
  sigmoid(): Tile { return S.sigmoid(this); }
  erf(): Tile { return S.erf(this); }
  erfc(): Tile { return S.erfc(this); }
  floor(): Tile { return S.floor(this); }
  ceil(): Tile { return S.ceil(this); }

  // casts
  to(dtype: DType, opts?: S.ToOptions): Tile { return S.to(this, dtype, opts); }
  bitcast(dtype: DType): Tile { return S.bitcast(this, dtype); }

  // shapes
  expandDims(axis: number | number[]): Tile { return Sh.expandDims(this, axis); }
  reshape(shape: number[], opts?: { canReorder?: boolean }): Tile { return Sh.reshape(this, shape, opts); }
  view(shape: number[]): Tile { return Sh.view(this, shape); }
  trans(...perm: number[]): Tile { return Sh.trans(this, ...perm); }
  permute(...perm: number[]): Tile { return Sh.trans(this, ...perm); }
  broadcastTo(shape: number[]): Tile { return Sh.broadcastTo(this, shape); }
  split(): [Tile, Tile] { return Sh.split(this); }

  // reductions and scans
  sum(axis?: number, opts?: R.ReduceOptions): Tile { return R.sum(this, axis, opts); }
  max<O extends R.MaxMinOptions>(axis?: number, opts?: O): R.MaxMinResult<O> { return R.max(this, axis, opts); }
  min<O extends R.MaxMinOptions>(axis?: number, opts?: O): R.MaxMinResult<O> { return R.min(this, axis, opts); }
  argmax(axis: number, opts?: R.ReduceOptions): Tile { return R.argmax(this, axis, opts); }
  argmin(axis: number, opts?: R.ReduceOptions): Tile { return R.argmin(this, axis, opts); }
  cumsum(axis = 0, opts?: R.ScanOptions): Tile { return R.cumsum(this, axis, opts); }
  cumprod(axis = 0, opts?: R.ScanOptions): Tile { return R.cumprod(this, axis, opts); }

  // sorting, gathering, histogram (Triton's tensor members gather and histogram, and sort/topk)
  sort<O extends Sel.SortOptions>(opts?: O): Sel.SortResult<O> { return Sel.sort(this, opts); }
  topk<O extends Sel.SortOptions>(k: number, opts?: O): Sel.SortResult<O> { return Sel.topk(this, k, opts); }
  gather(index: Tile, axis: number): Tile { return G.gather(this, index, axis); }
  histogram(numBins: number, opts?: Hi.HistogramOptions): Tile { return Hi.histogram(this, numBins, opts); }

  // compiler hints
  multipleOf(values: number | number[]): Tile { return H.multipleOf(this, values); }
  maxContiguous(values: number | number[]): Tile { return H.maxContiguous(this, values); }
}
