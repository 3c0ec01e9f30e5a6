// Primitives: abstract evaluation, eager impl, StableHLO lowering, vjp, batching, sharding rule.
export { PrimitiveError } from './errors.js';
export { shaped, describeAval, type ShapedArray } from './aval.js';
export { definePrimitive, type Primitive, type PrimitiveRules, type VjpRule, type BatchRule, type Value } from './primitive.js';
export { trace, inline, Var, type Program, type Eqn } from './program.js';
export { lowerProgram, type LowerOptions, type LoweringContext, type Platform, type CallForm } from './lowering.js';
export { emitCustomCall, API_VERSION, type CustomCallSpec } from './custom_call.js';
export { mlirBytes, mlirFloat, mlirDict, tensorType, rowMajorLayout, type AttrValue } from './mlir_text.js';
export { shardingRuleText, type ShardingRule, type Mesh, type DimSharding } from './sharding.js';
export { vjp, vmap, evalProgram } from './transforms.js';
export { reshapeP, transposeP, zerosP } from './basic.js';
export {
  eagerArray, nativeEagerContext, deviceEagerContext, setDefaultEagerContext, defaultEagerContext, hostArrays, isDeviceArray, avalOf, describeValue,
  type EagerArray, type EagerValue, type EagerContext, type CustomCallDriver, type DeviceEagerOptions,
} from './eager.js';
export { rmsNormFwdP, rmsNormBwdP, rmsNorm, invvarDType, RMS_TARGETS, DEFAULT_PART_GRAD_SIZE, type RmsNormParams, type RmsNormBwdParams } from './rmsnorm/primitives.js';
export { kernelPrimitive, pallasPrimitive, launchPrimitive, type KernelArgSource, type KernelCallSpec, type ResolvedLaunch } from './kernel_call.js';
export { rmsNormFwdKernel, rmsNormBwdKernel, rmsNormGradWeightKernel } from './rmsnorm/kernels.js';
export { rmsNormFwdRef, rmsNormBwdRef } from './rmsnorm/reference.js';
export { tesseraRmsNormContext } from './rmsnorm/eager_kernels.js';
