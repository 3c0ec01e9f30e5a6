// Descriptor schemas and the descriptors of the XLA custom-call targets.
export { DescriptorError } from './errors.js';
export { defineEnum, defineStruct, elemSize, isEnum } from './schema.js';
export type { EnumDef, FieldDef, FieldLayout, FieldType, ScalarKind, StructLayout, StructSchema, StructInput, StructValue } from './schema.js';
export { cEnum, cHeader, cStruct } from './c_struct.js';
export { ElementType, RMSNormDescriptor, dtypeOfElementType, elementTypeOf, packRMSNorm, unpackRMSNorm } from './rms_norm.js';
export type { ElementTypeName, RMSNormParams } from './rms_norm.js';
export {
  KERNEL_CALL_MAGIC, KERNEL_CALL_VERSION, KernelCallHeader, KernelImage, KernelImageKind, KernelParam, KernelParamKind,
  packKernelCall, unpackKernelCall,
} from './kernel_call.js';
export type { KernelCallSpec, KernelImageSpec, KernelParamSpec, ScalarDType, UnpackedKernelCall } from './kernel_call.js';
export { descriptorsHeader } from './header.js';
