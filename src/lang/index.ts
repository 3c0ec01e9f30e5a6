// The Triton-style kernel language. See docs/language.md.
export { KernelError, formatLoc } from './errors.js';
export type { KernelErrorInfo } from './errors.js';
export { Tile } from './tile.js';
export { Trace, activeTrace, runTrace, api } from './trace.js';
export { defineKernel, ptr, scalar, constexpr, tensorDesc } from './kernel.js';
export type { KernelDef, KernelSpec, KernelParamSpec, PtrSpec, ScalarSpec, TensorDescSpec, ParamFlags, ConstexprSpec, ConstexprValue, KernelArgs, RuntimeParam, TraceSpecialization } from './kernel.js';
export { programId, numPrograms, clusterCtaRank, arange, full, zeros } from './creation.js';
export { load, store, atomicAdd, atomicMax, atomicMin, atomicAnd, atomicOr, atomicXor, atomicXchg, atomicCas } from './memory.js';
export type { LoadOptions, StoreOptions, AtomicOptions } from './memory.js';
export {
  add, sub, mul, div, divRn, floordiv, rem, mod, pow, neg, minimum, maximum, clamp,
  eq, ne, lt, le, gt, ge, and, or, xor, not, shl, shr, logicalAnd, logicalOr, logicalNot, where,
  abs, exp, exp2, log, log2, sqrt, sqrtRn, rsqrt, sin, cos, tanh, sigmoid, erf, erfc, floor, ceil, fma,
  to, cast, bitcast, cdiv,
} from './semantic.js';
export type { Scalar, TileLike } from './semantic.js';
export { umulhi, truncDiv, truncRem } from './intops.js';
export { rand, randint, randn, randint4x, rand4x, randn4x } from './random.js';
export type { RandomOptions } from './random.js';
export { flip, cat, interleave, swizzle2d } from './rearrange.js';
export type { CatOptions } from './rearrange.js';
export {
  trunc, round, rint, isnan, isinf, isfinite, signbit, copysign, log1p, expm1, tan, atan, atan2, asin, acos,
  sinh, cosh, asinh, acosh, atanh, cbrt, hypot, nextafter, remainder, ldexp, erfinv, lgamma,
} from './math_extra.js';
export { expandDims, reshape, view, trans, permute, broadcastTo, join, split } from './shape.js';
export { sum, max, min, argmax, argmin, reduce, cumsum, cumprod, associativeScan } from './reduce.js';
export type { ReduceOptions, ScanOptions, MaxMinOptions, MaxMinResult } from './reduce.js';
export { sort, topk } from './sort.js';
export { gather } from './gather.js';
export { histogram } from './histogram.js';
export type { HistogramOptions } from './histogram.js';
export type { SortOptions, SortResult } from './sort.js';
export { dot } from './dot.js';
export { dotScaled } from './dot_scaled.js';
export type { DotScaledOptions, ScaledFormat } from './dot_scaled.js';
export { inlineAsmElementwise } from './inline_asm.js';
export type { InlineAsmOptions } from './inline_asm.js';
export { makeTensorDescriptor, TensorDescriptor } from './descriptor.js';
export type { DotOptions } from './dot.js';
export { forLoop, range, ifThenElse, type LoopOptions } from './control.js';
export { persistentTiles, groupedTile } from './persistent.js';
export { whileLoop } from './while_loop.js';
export { exitIf, assume } from './exit_assume.js';
export { makeBlockPtr, advance, BlockPointer } from './block_ptr.js';
export type { BlockLoadOptions, BlockStoreOptions } from './block_ptr.js';
export { multipleOf, maxContiguous, devicePrint, deviceAssert } from './hints.js';
export { promoteInts, computationType, literalDType } from './promote.js';
export { BlockSpec, blockSpec, ds, DSlice, Ref } from './pallas.js';
export type { ShapeDtype, IndexMap, BlockIndex, RefIndexEntry } from './pallas.js';
