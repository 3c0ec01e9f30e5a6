// RMSNorm as two primitives, after the seed's rms_norm_fwd / rms_norm_bwd: abstract evaluation
// with the seed's consistency checks as errors, an eager impl through the C targets
// (native/xla_custom_call), lowerings to the legacy targets (RMSNormDescriptor as opaque bytes)
// and to the typed-FFI ones (eps as an attribute), a vjp pairing them with the residuals
// (invvar, x, weight), a batching rule and a sharding rule over the batch dims of x.
import type { DType } from '../../ir/types.js';
import { numel } from '../../ir/types.js';
import { packRMSNorm } from '../../descriptor/rms_norm.js';
import { describeAval, shaped, type ShapedArray } from '../aval.js';
import { moveToFront, reshapeP, transposeP, zerosP } from '../basic.js';
import { API_VERSION, emitCustomCall } from '../custom_call.js';
import { lowerManual } from '../manual.js';
import { PrimitiveError } from '../errors.js';
import type { LoweringContext } from '../lowering.js';
import { MLIR_ELEMENT, tensorType } from '../mlir_text.js';
import { definePrimitive, type Primitive, type Value } from '../primitive.js';
import type { ShardingRule } from '../sharding.js';

export interface RmsNormParams {
  readonly eps: number;
}
export interface RmsNormBwdParams extends RmsNormParams {
  /** Rows of the part_grad output [partGradSize, n2] (the seed uses 16). */
  readonly partGradSize: number;
}

const FLOATS: readonly DType[] = ['bf16', 'f16', 'f32', 'f64'];

/** invvar's dtype: f32 for f16/bf16 inputs, else x's dtype. */
export const invvarDType = (x: DType): DType => (x === 'f16' || x === 'bf16' ? 'f32' : x);

/** The legacy targets and the typed-FFI ones, by platform. */
export const RMS_TARGETS = {
  fwd: { legacy: { cuda: 'rms_forward_affine_mixed_dtype', cpu: 'rms_forward_affine_mixed_dtype_cpu' }, ffi: { cuda: 'tessera_rms_norm_fwd_cuda', cpu: 'tessera_rms_norm_fwd_cpu' } },
  bwd: { legacy: { cuda: 'rms_backward_affine', cpu: 'rms_backward_affine_cpu' }, ffi: { cuda: 'tessera_rms_norm_bwd_cuda', cpu: 'tessera_rms_norm_bwd_cpu' } },
} as const;

function dims(prim: string, x: ShapedArray, w: ShapedArray, eps: number): { n1: number; n2: number } {
  const bad = (code: string, m: string): never => { throw new PrimitiveError(code, prim, m); };
  if (!FLOATS.includes(x.dtype)) bad('E_TYPE', `x must be bf16, f16, f32 or f64, got ${describeAval(x)}`);
  if (!FLOATS.includes(w.dtype)) bad('E_TYPE', `weight must be bf16, f16, f32 or f64, got ${describeAval(w)}`);
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) bad('E_ARG', `eps must be a finite number >= 0, got ${String(eps)}`);
  const n2 = numel(w.shape);
  if (n2 < 1) bad('E_SHAPE', `weight ${describeAval(w)} is empty (n2 must be >= 1)`);
  const tail = x.shape.slice(x.shape.length - w.shape.length);
  if (x.shape.length < w.shape.length || tail.some((d, i) => d !== w.shape[i])) {
    bad('E_SHAPE', `x ${describeAval(x)} must end with weight's shape [${w.shape.join(', ')}] (rows are normalised over weight's elements)`);
  }
  const n1 = numel(x.shape) / n2;
  if (n1 > 0x7fffffff || n2 > 0x7fffffff) bad('E_SHAPE', `n1 = ${n1}, n2 = ${n2} do not fit the descriptor's int32`);
  return { n1, n2 };
}

/** Factors for a rule over x's dims: batch dims first (i, j, ...), then weight's (from 'p'). */
// Shardy wants factors named i, j, k, ... in order of their sizes list.
function factors(x: ShapedArray, w: ShapedArray): { batch: string[]; row: string[]; sizes: Record<string, number>; next(size: number): string } {
  const sizes: Record<string, number> = {};
  let n = 0;
  const next = (size: number): string => {
    const f = String.fromCharCode('i'.charCodeAt(0) + n++);
    sizes[f] = size;
    return f;
  };
  const nb = x.shape.length - w.shape.length;
  const batch = x.shape.slice(0, nb).map(next);
  const row = w.shape.map(next);
  return { batch, row, sizes, next };
}

const fwdRule = (x: ShapedArray, w: ShapedArray): ShardingRule => {
  const f = factors(x, w);
  return { operands: [[...f.batch, ...f.row], f.row], results: [[...f.batch, ...f.row], f.batch], factorSizes: f.sizes };
};

// grad_weight and part_grad are sums over the batch dims; Shardy's `reduction` cannot name a
// factor that also maps a result dim (grad_input's), so the sharded lowering all-reduces them.
const bwdRule = (x: ShapedArray, w: ShapedArray, partGradSize: number): ShardingRule => {
  const f = factors(x, w);
  const n2 = numel(w.shape);
  return {
    operands: [[...f.batch, ...f.row], f.batch, [...f.batch, ...f.row], f.row],
    results: [[...f.batch, ...f.row], f.row, [f.next(partGradSize), f.next(n2)]],
    factorSizes: f.sizes,
  };
};

/**
 * With a mesh the call runs per shard of x's batch dim (a manual computation, see manual.ts);
 * the call itself then carries its rule and the num_batch_dims frontend attribute.
 */
function sharded(ctx: LoweringContext, prim: string, x: ShapedArray, w: ShapedArray, rule: ShardingRule, summed: readonly number[], operands: readonly string[], body: (c: LoweringContext, a: readonly string[]) => string[]): string[] {
  if (x.shape.length - w.shape.length !== 1) throw new PrimitiveError('E_SHAPE', prim, `a sharded lowering needs x with exactly one batch dim before weight's dims, got ${describeAval(x)}`);
  return lowerManual(ctx, prim, operands, rule, rule.operands[0]![0]!, summed, body);
}

const partitionAttrs = (ctx: LoweringContext, rule: ShardingRule) =>
  ctx.manual || ctx.mesh ? { shardingRule: rule, frontendAttributes: { num_batch_dims: String(rule.operands[0]!.length - rule.operands[rule.operands.length - 1]!.length) } } : {};

// ---- XLA's batch partitioner: the typed-FFI targets' `batch_dims` contract (docs/xla.md) ----
// Every operand and result starts with x's batch dim: weight is broadcast to [B, n2], invvar is
// [B, rows per element], grad_weight [B, n2] and part_grad [B, P, n2] are summed over B after.

const F32_ZERO = (dtype: ShapedArray['dtype']) => `stablehlo.constant dense<0.000000e+00> : tensor<${MLIR_ELEMENT[dtype]}>`;

function checkPartitioner(ctx: LoweringContext, prim: string, x: ShapedArray, w: ShapedArray): void {
  if (ctx.form !== 'ffi') throw new PrimitiveError('E_ARG', prim, "sharding 'partitioner' needs form 'ffi' (the batch_dims attribute of the typed-FFI targets)");
  if (w.shape.length !== 1 || x.shape.length < 2) throw new PrimitiveError('E_SHAPE', prim, `sharding 'partitioner' needs weight [n2] and x [B, ..., n2], got x ${describeAval(x)}, weight ${describeAval(w)}`);
}

function broadcastWeight(ctx: LoweringContext, w: string, x: ShapedArray, wa: ShapedArray): { name: string; aval: ShapedArray } {
  const aval = shaped([x.shape[0]!, ...wa.shape], wa.dtype);
  return { name: ctx.op([aval], `stablehlo.broadcast_in_dim ${w}, dims = [1] : (${tensorType(wa)}) -> ${tensorType(aval)}`)[0]!, aval };
}

function sumOverBatch(ctx: LoweringContext, v: string, a: ShapedArray): string {
  const out = shaped(a.shape.slice(1), a.dtype);
  const zero = ctx.op([shaped([], a.dtype)], F32_ZERO(a.dtype))[0]!;
  return ctx.op([out], `stablehlo.reduce(${v} init: ${zero}) applies stablehlo.add across dimensions = [0] : (${tensorType(a)}, tensor<${MLIR_ELEMENT[a.dtype]}>) -> ${tensorType(out)}`)[0]!;
}

const letters = (n: number, from = 0) => Array.from({ length: n }, (_, i) => String.fromCharCode(105 + from + i)); // i, j, k, ...

function emitFwdPartitioner(ctx: LoweringContext, [x, w]: readonly string[], eps: number): string[] {
  const [xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray];
  checkPartitioner(ctx, 'rms_norm_fwd', xa, wa);
  const wb = broadcastWeight(ctx, w!, xa, wa);
  const xf = letters(xa.shape.length); // i = batch, then the row dims, the last = n2
  const sizes = Object.fromEntries(xf.map((f, d) => [f, xa.shape[d]!]));
  const iv = shaped(xa.shape.slice(0, -1), invvarDType(xa.dtype));
  const inner = ctx.with([xa, wb.aval], [ctx.avalsOut[0]!, iv]);
  const [out, ivb] = emitCustomCall(inner, {
    target: RMS_TARGETS.fwd.ffi[ctx.platform], operands: [x!, wb.name], results: [ctx.avalsOut[0]!, iv], apiVersion: API_VERSION.typedFfi,
    backendConfig: { batch_dims: { i64: 1 }, eps: { f64: eps } }, frontendAttributes: { num_batch_dims: '1' },
    shardingRule: { operands: [xf, [xf[0]!, xf[xf.length - 1]!]], results: [xf, xf.slice(0, -1)], factorSizes: sizes },
  }) as [string, string];
  return [out, ctx.op([ctx.avalsOut[1]!], `stablehlo.reshape ${ivb} : (${tensorType(iv)}) -> ${tensorType(ctx.avalsOut[1]!)}`)[0]!];
}

function emitBwdPartitioner(ctx: LoweringContext, [g, iv, x, w]: readonly string[], eps: number, partGradSize: number): string[] {
  const [, iva, xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray, ShapedArray, ShapedArray];
  checkPartitioner(ctx, 'rms_norm_bwd', xa, wa);
  const wb = broadcastWeight(ctx, w!, xa, wa);
  const ivShape = shaped(xa.shape.slice(0, -1), iva.dtype);
  const ivb = ctx.op([ivShape], `stablehlo.reshape ${iv} : (${tensorType(iva)}) -> ${tensorType(ivShape)}`)[0]!;
  const B = xa.shape[0]!;
  const gwb = shaped([B, ...wa.shape], wa.dtype);
  const pgb = shaped([B, partGradSize, wa.shape[0]!], iva.dtype);
  const xf = letters(xa.shape.length);
  const l = letters(1, xf.length)[0]!;
  const n2f = xf[xf.length - 1]!;
  const sizes = { ...Object.fromEntries(xf.map((f, d) => [f, xa.shape[d]!])), [l]: partGradSize };
  const inner = ctx.with([ctx.avalsIn[0]!, ivShape, xa, wb.aval], [xa, gwb, pgb]);
  const [gi, gw, pg] = emitCustomCall(inner, {
    target: RMS_TARGETS.bwd.ffi[ctx.platform], operands: [g!, ivb, x!, wb.name], results: [xa, gwb, pgb], apiVersion: API_VERSION.typedFfi,
    backendConfig: { batch_dims: { i64: 1 }, eps: { f64: eps } }, frontendAttributes: { num_batch_dims: '1' },
    shardingRule: { operands: [xf, xf.slice(0, -1), xf, [xf[0]!, n2f]], results: [xf, [xf[0]!, n2f], [xf[0]!, l, n2f]], factorSizes: sizes },
  }) as [string, string, string];
  return [gi, sumOverBatch(ctx, gw, gwb), sumOverBatch(ctx, pg, pgb)];
}

function emitFwd(ctx: LoweringContext, operands: readonly string[], eps: number): string[] {
  const [xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray];
  const { n1, n2 } = dims('rms_norm_fwd', xa, wa, eps);
  const common = { operands, results: ctx.avalsOut, ...partitionAttrs(ctx, fwdRule(xa, wa)) };
  if (ctx.form === 'ffi') {
    return emitCustomCall(ctx, { ...common, target: RMS_TARGETS.fwd.ffi[ctx.platform], apiVersion: API_VERSION.typedFfi, backendConfig: { eps: { f64: eps } } });
  }
  const opaque = packRMSNorm({ n1, n2, eps, xType: xa.dtype, wType: wa.dtype, partGradSize: 0 });
  return emitCustomCall(ctx, { ...common, target: RMS_TARGETS.fwd.legacy[ctx.platform], apiVersion: legacyVersion(ctx), backendConfig: opaque });
}

function emitBwd(ctx: LoweringContext, operands: readonly string[], eps: number, partGradSize: number): string[] {
  const [, , xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray, ShapedArray, ShapedArray];
  const { n1, n2 } = dims('rms_norm_bwd', xa, wa, eps);
  const common = { operands, results: ctx.avalsOut, ...partitionAttrs(ctx, bwdRule(xa, wa, partGradSize)) };
  if (ctx.form === 'ffi') {
    return emitCustomCall(ctx, { ...common, target: RMS_TARGETS.bwd.ffi[ctx.platform], apiVersion: API_VERSION.typedFfi, backendConfig: { eps: { f64: eps } } });
  }
  const opaque = packRMSNorm({ n1, n2, eps, xType: xa.dtype, wType: wa.dtype, partGradSize });
  return emitCustomCall(ctx, { ...common, target: RMS_TARGETS.bwd.legacy[ctx.platform], apiVersion: legacyVersion(ctx), backendConfig: opaque });
}

export const rmsNormFwdP: Primitive<RmsNormParams> = definePrimitive<RmsNormParams>({
  name: 'rms_norm_fwd',
  abstractEval(ins, { eps }) {
    if (ins.length !== 2) throw new PrimitiveError('E_ARG', 'rms_norm_fwd', `takes (x, weight), got ${ins.length} inputs`);
    const [x, w] = ins as [ShapedArray, ShapedArray];
    const { n1 } = dims('rms_norm_fwd', x, w, eps);
    return [shaped(x.shape, w.dtype), shaped([n1], invvarDType(x.dtype))];
  },
  // Eagerly: the legacy GPU target on the context's device (host or device arrays).
  eagerCustomCall([x, w], { eps }) {
    const { n1, n2 } = dims('rms_norm_fwd', x!, w!, eps);
    return { symbol: RMS_TARGETS.fwd.legacy.cuda, opaque: packRMSNorm({ n1, n2, eps, xType: x!.dtype, wType: w!.dtype, partGradSize: 0 }) };
  },
  lowering(ctx, operands, { eps }) {
    const [xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray];
    dims('rms_norm_fwd', xa, wa, eps);
    if (ctx.mesh && ctx.sharding === 'partitioner') return emitFwdPartitioner(ctx, operands, eps);
    if (ctx.mesh) return sharded(ctx, 'rms_norm_fwd', xa, wa, fwdRule(xa, wa), [], operands, (c, a) => emitFwd(c, a, eps));
    return emitFwd(ctx, operands, eps);
  },
  // The seed's custom_vjp: residuals (invvar, x, weight); invvar's own cotangent is not used.
  vjp: {
    fwd(ins, params) {
      const [out, invvar] = rmsNormFwdP.bind(ins, params) as [Value, Value];
      return { outs: [out, invvar], residuals: [invvar, ins[0]!, ins[1]!] };
    },
    bwd([invvar, x, w], [g], { eps }) {
      if (!g) return [null, null];
      const [gi, gw] = rmsNormBwdP.bind([g, invvar!, x!, w!], { eps, partGradSize: DEFAULT_PART_GRAD_SIZE });
      return [gi!, gw!];
    },
  },
  // x batched at dim d (moved to the front): more rows of the same weight. A batched weight
  // would need one call per batch element and is refused.
  batch(ins, [dx, dw], params) {
    const [x, w] = ins as [Value, Value];
    if (dw !== null && dw !== undefined) throw new PrimitiveError('E_RULE', 'rms_norm_fwd', 'cannot batch over weight (one weight per call); batch x only');
    const xb = dx === 0 ? x : transposeP.bind([x], { perm: moveToFront(x.aval.shape.length, dx!) })[0]!;
    const [out, invvar] = rmsNormFwdP.bind([xb, w], params) as [Value, Value];
    const b = xb.aval.shape[0]!;
    return { outs: [out, reshapeP.bind([invvar], { shape: [b, invvar.aval.shape[0]! / Math.max(b, 1)] })[0]!], dims: [0, 0] };
  },
  shardingRule: (ins) => fwdRule(ins[0]!, ins[1]!),
});

export const DEFAULT_PART_GRAD_SIZE = 16;

const legacyVersion = (ctx: LoweringContext) => (ctx.platform === 'cpu' ? API_VERSION.statusReturningUnified : API_VERSION.statusReturning);

export const rmsNormBwdP: Primitive<RmsNormBwdParams> = definePrimitive<RmsNormBwdParams>({
  name: 'rms_norm_bwd',
  abstractEval(ins, { eps, partGradSize }) {
    const P = 'rms_norm_bwd';
    if (ins.length !== 4) throw new PrimitiveError('E_ARG', P, `takes (g, invvar, x, weight), got ${ins.length} inputs`);
    const [g, iv, x, w] = ins as [ShapedArray, ShapedArray, ShapedArray, ShapedArray];
    const { n1, n2 } = dims(P, x, w, eps);
    if (!Number.isInteger(partGradSize) || partGradSize < 1) throw new PrimitiveError('E_ARG', P, `partGradSize must be an integer >= 1, got ${String(partGradSize)}`);
    if (g.dtype !== w.dtype) throw new PrimitiveError('E_TYPE', P, `g must have weight's dtype ${w.dtype} (it is the output's cotangent), got ${describeAval(g)}`);
    if (g.shape.length !== x.shape.length || g.shape.some((d, i) => d !== x.shape[i])) throw new PrimitiveError('E_SHAPE', P, `g ${describeAval(g)} must have x's shape [${x.shape.join(', ')}]`);
    if (iv.shape.length !== 1 || iv.shape[0] !== n1) throw new PrimitiveError('E_SHAPE', P, `invvar ${describeAval(iv)} must have shape [${n1}] (one per row of x)`);
    if (iv.dtype !== invvarDType(x.dtype)) throw new PrimitiveError('E_TYPE', P, `invvar must be ${invvarDType(x.dtype)} for x of ${x.dtype}, got ${iv.dtype}`);
    return [shaped(x.shape, x.dtype), shaped(w.shape, w.dtype), shaped([partGradSize, n2], iv.dtype)];
  },
  eagerCustomCall([, , x, w], { eps, partGradSize }) {
    const { n1, n2 } = dims('rms_norm_bwd', x!, w!, eps);
    return { symbol: RMS_TARGETS.bwd.legacy.cuda, opaque: packRMSNorm({ n1, n2, eps, xType: x!.dtype, wType: w!.dtype, partGradSize }) };
  },
  lowering(ctx, operands, { eps, partGradSize }) {
    const [, , xa, wa] = ctx.avalsIn as [ShapedArray, ShapedArray, ShapedArray, ShapedArray];
    dims('rms_norm_bwd', xa, wa, eps);
    if (ctx.mesh && ctx.sharding === 'partitioner') return emitBwdPartitioner(ctx, operands, eps, partGradSize);
    if (ctx.mesh) return sharded(ctx, 'rms_norm_bwd', xa, wa, bwdRule(xa, wa, partGradSize), [1, 2], operands, (c, a) => emitBwd(c, a, eps, partGradSize));
    return emitBwd(ctx, operands, eps, partGradSize);
  },
  shardingRule: (ins, _outs, { partGradSize }) => bwdRule(ins[2]!, ins[3]!, partGradSize),
});

/** RMSNorm's output only (the seed's `rms_norm`); differentiable through rmsNormFwdP's vjp. */
export const rmsNorm = (x: Value, weight: Value, eps = 1e-5): Value => rmsNormFwdP.bind([x, weight], { eps })[0]!;

export { zerosP };
