export * from './types.js';
export * from './ops.js';
export { IRBuilder } from './builder.js';
export { verify } from './verify.js';
export { TesseraError, IRVerifyError } from './errors.js';
export { printFunc, formatConst } from './print.js';
export type { PrintOptions } from './print.js';
export { hashFunc } from './hash.js';
export { walkOps, maxValueId, freeValues, usedIds } from './walk.js';
export { isPure, isSpeculatable } from './effects.js';
export { Subst } from './rewrite.js';
export { arrayCtorFor, BYTES, type ElemArray } from './dtype_arrays.js';
export { f16Bits, bf16Bits, f16Value, bf16Value, toF16, toBF16, f16Array, bf16Array, f16ToFloat32, bf16ToFloat32 } from './half.js';
export {
  f8e4m3Bits, f8e5m2Bits, f8e4m3Value, f8e5m2Value, toF8E4M3, toF8E5M2, fp8Bits, fp8Value,
  f8e4m3Array, f8e5m2Array, f8e4m3ToFloat32, f8e5m2ToFloat32, FP8_FORMATS, type Fp8DType,
} from './fp8.js';
export { mxValue, mxBits, mxMax, packE2M1, unpackE2M1, e8m0Value, e8m0Bits, ue4m3Value, MX_FORMATS, type MxElemFormat } from './mx.js';
export { roundF16, roundBF16, roundFloat, wrapInt, evalUnary, evalBinary, evalCmp, evalCast, normalizeConst } from './numeric.js';
export { descOperands, badDescBlock, MAX_DESC_BLOCK_DIM, MAX_DESC_RANK } from './tensor_desc.js';
export type { DescOperands } from './tensor_desc.js';
