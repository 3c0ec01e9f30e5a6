// The tile IR: SSA values of tile type, ops with typed attributes, regions for loops/ifs/combiners.
// This file is the contract between the front ends (src/lang), the interpreter (src/interpret)
// and the compiler (src/compiler, src/codegen). Each op kind lists its operands and attributes.
import type { DType, ElemType, TileType } from './types.js';

/** Where in the user's TypeScript an op came from. */
export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export type UnaryFn =
  | 'neg' | 'not' /* bitwise/logical not */ | 'abs'
  | 'exp' | 'exp2' | 'log' | 'log2' | 'sqrt' | 'rsqrt' | 'sin' | 'cos' | 'tanh' | 'sigmoid' | 'erf' | 'erfc'
  | 'floor' | 'ceil';

export type BinaryFn =
  | 'add' | 'sub' | 'mul'
  | 'div'      // float: true division; int: truncating division (C semantics)
  | 'floordiv' // int only: rounds toward -inf (Python //)
  | 'rem'      // int: C remainder (sign of dividend); float: fmod
  | 'and' | 'or' | 'xor' | 'shl' | 'shr' // shr: arithmetic for signed, logical for unsigned
  | 'min' | 'max' // float: NaN-propagating (see docs/semantics.md)
  | 'pow'
  | 'umulhi'; // int (32/64-bit) only: high half of the unsigned double-width product of the bit patterns

/** Element formats of dot_scaled's operands (OCP MX, and bf16/fp16 unscaled). */
export type ScaledFormat = 'e4m3' | 'e5m2' | 'e2m3' | 'e3m2' | 'e2m1' | 'bf16' | 'fp16';

export type CmpPred = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
export type AtomicOp = 'add' | 'max' | 'min' | 'and' | 'or' | 'xor' | 'xchg';
export type MemSem = 'relaxed' | 'acquire' | 'release' | 'acq_rel';
export type MemScope = 'gpu' | 'cta' | 'sys';
/**
 * Options of one `for` loop (Triton's tl.range keywords): `numStages` overrides the kernel's
 * pipelining depth for this loop; `warpSpecialize` asks for a producer/consumer split on sm_90a
 * (codegen/pipeline/lower_warp_specialize.ts); `unroll`, `flatten` and `disallowAccMultiBuffer` are
 * recorded for later passes and not acted on yet (docs/language.md).
 */
/** Deepest pipeline accepted, kernel-wide or per loop (a ring of more stages only costs shared memory). */
export const MAX_NUM_STAGES = 8;

export interface LoopAttrs {
  readonly numStages?: number;
  readonly warpSpecialize?: boolean;
  readonly unroll?: number;
  readonly flatten?: boolean;
  readonly disallowAccMultiBuffer?: boolean;
}

/** PTX's cache operators for loads (`ld.cop`): cache at all levels, global (L2), streaming, last use, volatile. */
export type LoadCacheMod = '' | 'ca' | 'cg' | 'cs' | 'lu' | 'cv';
/** PTX's cache operators for stores (`st.cop`): write-back, global (L2), streaming, write-through. */
export type StoreCacheMod = '' | 'wb' | 'cg' | 'cs' | 'wt';
export type CacheMod = LoadCacheMod | StoreCacheMod;
export const LOAD_CACHE_MODS: readonly LoadCacheMod[] = ['', 'ca', 'cg', 'cs', 'lu', 'cv'];
export const STORE_CACHE_MODS: readonly StoreCacheMod[] = ['', 'wb', 'cg', 'cs', 'wt'];
/** Eviction priority (Triton's eviction_policy); with a cache operator it travels as an L2 cache policy. */
export type Eviction = '' | 'evict_first' | 'evict_last' | 'evict_normal';
export const EVICTIONS: readonly Eviction[] = ['', 'evict_first', 'evict_last', 'evict_normal'];
export type ConstValue = number | bigint | boolean;

/**
 * Operands and attributes per op kind. Operand lists are positional; `?` operands are present
 * when the matching `has*` attribute is true. Results are listed after `->`.
 */
export interface OpAttrs {
  /** () -> tile. Splat constant of the result type (i64/u64 values canonically as bigint). */
  const: { value: ConstValue };
  /** () -> i32 scalar */
  program_id: { axis: 0 | 1 | 2 };
  /** () -> i32 scalar */
  num_programs: { axis: 0 | 1 | 2 };
  /** () -> i32 scalar: this program's rank in its thread block cluster (0 without clusters) */
  cluster_cta_rank: Record<string, never>;
  /** () -> i32[end-start] holding start..end-1 */
  arange: { start: number; end: number };
  /** (scalar) -> tile of result shape */
  splat: Record<string, never>;
  /** (tile) -> tile; numpy broadcast of size-1 dims to `shape` (same rank) */
  broadcast: { shape: number[] };
  /** (tile) -> tile with a size-1 dim inserted at `axis` */
  expand_dims: { axis: number };
  /** (tile) -> tile; row-major reshape. `allowReorder` marks `view` (order of elements unspecified). */
  reshape: { shape: number[]; allowReorder: boolean };
  /** (tile) -> tile; result dim i is operand dim perm[i] */
  trans: { perm: number[] };
  /** (a, b) -> tile with a new last dim of size 2: [..., 0] = a, [..., 1] = b */
  join: Record<string, never>;
  /** (tile with last dim 2) -> (lo, hi) */
  split: Record<string, never>;
  /** (x) -> same type */
  unary: { fn: UnaryFn; precise: boolean };
  /** (a, b) -> same type (operands already promoted and broadcast by the front end) */
  binary: { fn: BinaryFn; precise: boolean };
  /** (a, b) -> bool tile */
  cmp: { pred: CmpPred };
  /** (cond: bool, a, b) -> type of a */
  select: Record<string, never>;
  /** (a, b, c) -> a*b+c, float, single rounding */
  fma: Record<string, never>;
  /**
   * (x) -> tile of dtype `to`; float->int truncates toward zero; to a float rounds to nearest even,
   * or toward zero with `rounding: 'rtz'` (float -> narrower float, fp8 excepted)
   */
  cast: { to: DType; rounding?: 'rtz' };
  /** (x) -> same-width reinterpretation */
  bitcast: { to: DType };
  /** (ptr tile, int tile offset in elements) -> ptr tile */
  addptr: Record<string, never>;
  /** (ptr, mask?, other?) -> tile of pointee */
  load: { hasMask: boolean; hasOther: boolean; cache: LoadCacheMod; eviction: Eviction; volatile: boolean };
  /** (ptr, value, mask?) -> () */
  store: { hasMask: boolean; cache: StoreCacheMod; eviction: Eviction };
  /** (ptr, val, mask?) -> old values */
  atomic_rmw: { op: AtomicOp; sem: MemSem; scope: MemScope; hasMask: boolean };
  /** (ptr, cmp, val) -> old values */
  atomic_cas: { sem: MemSem; scope: MemScope };
  /**
   * Tensor descriptor load (Triton's `desc.load`): (base ptr scalar, shape_0..shape_{r-1},
   * stride_0..stride_{r-1}, offset_0..offset_{r-1}; all i32 scalars, strides in elements) ->
   * tile [block] of the pointee. Element (i_0..) reads base[sum((offset_d + i_d) * stride_d)]
   * where every 0 <= offset_d + i_d < shape_d; elsewhere zero (as TMA fills out of bounds), or
   * NaN with `padding: 'nan'` (float pointees; TMA's FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA).
   */
  desc_load: { block: number[]; padding?: 'nan' };
  /** Tensor descriptor store: (base, shapes, strides, offsets as desc_load, value [block]) -> (); out-of-bounds elements are not written. */
  desc_store: { block: number[] };
  /**
   * (x_0..x_{n-1}) -> n results with `axis` removed. One region: args (acc_0..acc_{n-1}, x_0..x_{n-1})
   * as scalars, terminated by `yield` of n scalars. `kind` names the combiner when it is a known one
   * (lets backends pick fast paths); 'custom' otherwise.
   */
  reduce: { axis: number; kind: 'sum' | 'max' | 'min' | 'argmax' | 'argmin' | 'custom' };
  /** Like reduce but keeps the axis: inclusive scan. */
  scan: { axis: number; reverse: boolean; kind: 'sum' | 'prod' | 'custom' };
  /**
   * (keys) -> (keys [, idx: i32]) with `axis` cut to its first `k` (a power of two; k = the axis
   * length: a sort, smaller: top-k). Along `axis` the elements are ordered by key (ints by value;
   * floats by IEEE totalOrder, −NaN < −inf < … < −0 < +0 < … < +inf < +NaN), reversed when
   * `descending`; equal keys by ascending position. `indices`: also the position along `axis`
   * each kept element came from (docs/semantics.md).
   */
  sort: { axis: number; descending: boolean; k: number; indices: boolean };
  /**
   * (src, index: integer tile of src's rank) -> tile of index's shape and src's dtype (Triton's
   * tl.gather): out[i] = src[i with dim `axis` replaced by index[i]]. index's other dims equal src's;
   * an index outside [0, src.shape[axis]) is an error (docs/semantics.md).
   */
  gather: { axis: number };
  /**
   * (x: 1-D integers [, mask: bool of x's shape]) -> i32 [numBins] (Triton's tl.histogram): bin b
   * counts the elements equal to b; masked-off elements and values outside [0, numBins) are not counted.
   */
  histogram: { numBins: number; hasMask: boolean };
  /**
   * (arg_0..arg_{n-1}, one shape) -> m results of that shape (Triton's inline_asm_elementwise):
   * PTX text run once per `pack` elements, `$0..$(m-1)` the outputs, then the inputs, register
   * classes per `constraints` (src/ir/inline_asm.ts). Compiled devices only; impure unless `isPure`.
   */
  inline_asm: { asm: string; constraints: string; pack: number; isPure: boolean };
  /** (a [M,K], b [K,N], acc [M,N]) -> [M,N] of acc's dtype */
  dot: { inputPrecision: 'ieee' | 'tf32' };
  /**
   * (a, aScale?, b, bScale?, acc f32 [M,N]) -> f32 [M,N]: Triton's tl.dot_scaled (src/lang/dot_scaled.ts,
   * docs/semantics.md "dotScaled"), scales present when the `has*` attribute is true. One region,
   * the op's definition: args (the operands, same types), its exact emulation (decode, scale in
   * f32, an ordinary dot), ending in `yield` of the result. The interpreter runs the region;
   * targets without block-scaled tensor cores inline it (compiler/inline_dot_scaled.ts).
   */
  dot_scaled: { aFormat: ScaledFormat; bFormat: ScaledFormat; hasAScale: boolean; hasBScale: boolean };
  /**
   * (lb, ub, step, init_0..init_{n-1}) -> n results. Region args: (iv, carried_0..carried_{n-1}),
   * terminated by `yield` of n values. lb/ub/step are i32 or i64 scalars; step is positive.
   * The attributes are the loop's options (forLoop's `opts`): performance hints for the passes,
   * no effect on what the loop computes (the interpreter ignores them).
   */
  for: LoopAttrs;
  /** (cond: bool scalar) -> n results. Two regions (then, else), each ending in `yield` of n values. */
  if: Record<string, never>;
  /**
   * (init_0..init_{n-1}) -> n results; a loop with a dynamic trip count (scf.while). Two regions,
   * both with args (carried_0..carried_{n-1}): region 0 (before) ends in `yield` of one bool scalar,
   * region 1 (body) in `yield` of the n next carried values. Runs before; while it yields true,
   * runs the body and repeats; the results are the carried values before yields false.
   */
  while: Record<string, never>;
  /**
   * (cond: bool scalar) -> (); ends the program where cond is true (the traced early `return`).
   * Only in the function body (not in a region): the condition is a scalar, the same in every
   * thread of the program, so all of them leave together (no barrier waits for a thread that left).
   */
  exit_if: Record<string, never>;
  /**
   * (cond: bool tile or scalar) -> (); a promise that cond is true in every lane (Triton's
   * `tl.assume`). The interpreter checks it (E_ASSUME); the compiler may rely on it (AxisInfo).
   */
  assume: Record<string, never>;
  /** Region terminator. */
  yield: Record<string, never>;
  /** (x) -> x, with compiler facts attached: one entry per dim (one for a scalar). */
  hint: { multipleOf?: number[]; maxContiguous?: number[] };
  /** (...values) -> () ; prints with program id */
  print: { prefix: string; hex: boolean };
  /** (cond: bool tile) -> () ; fails the launch where cond is false */
  assert: { message: string };
  /** Function terminator. */
  return: Record<string, never>;
}

export type OpKind = keyof OpAttrs;

export interface Value {
  readonly id: number;
  readonly type: TileType;
}

export interface Block {
  readonly args: Value[];
  readonly ops: Op[];
}

export interface Op<K extends OpKind = OpKind> {
  readonly kind: K;
  readonly operands: Value[];
  readonly results: Value[];
  readonly attrs: OpAttrs[K];
  readonly regions: Block[];
  readonly loc?: Loc;
}

export interface Param {
  readonly name: string;
  /** Scalar type: a pointer, an integer or a float. */
  readonly type: ElemType;
}

/** A traced kernel: one entry function. Constexprs are already baked in. */
export interface Func {
  readonly name: string;
  readonly params: Param[];
  /** body.args[i] is the value of params[i]. */
  readonly body: Block;
  /** The constexpr values this function was traced with (for printing and hashing). */
  readonly constexprs: Readonly<Record<string, number | boolean | string>>;
}

export const isOp = <K extends OpKind>(op: Op, kind: K): op is Op<K> => op.kind === kind;
