// The RMSNorm descriptor of the XLA custom-call targets (native/xla_custom_call), as the seed
// declares it: `struct RMSNormDescriptor { int n1; int n2; double eps; ElementType x_type;
// ElementType w_type; int part_grad_size; }`, 32 bytes. It travels as the custom call's opaque
// bytes (backend_config) of the legacy targets.
import type { DType } from '../ir/types.js';
import { DescriptorError } from './errors.js';
import { defineEnum, defineStruct } from './schema.js';

export const ElementType = defineEnum('ElementType', ['BF16', 'F16', 'F32', 'F64']);
export type ElementTypeName = (typeof ElementType.values)[number];

export const RMSNormDescriptor = defineStruct('RMSNormDescriptor', [
  { name: 'n1', type: 'i32' },
  { name: 'n2', type: 'i32' },
  { name: 'eps', type: 'f64' },
  { name: 'x_type', type: ElementType },
  { name: 'w_type', type: ElementType },
  { name: 'part_grad_size', type: 'i32' },
] as const);

const BY_DTYPE: Partial<Record<DType, ElementTypeName>> = { bf16: 'BF16', f16: 'F16', f32: 'F32', f64: 'F64' };
const TO_DTYPE: Record<ElementTypeName, DType> = { BF16: 'bf16', F16: 'f16', F32: 'f32', F64: 'f64' };

/** The descriptor's ElementType for a dtype; an error for dtypes RMSNorm does not take. */
export function elementTypeOf(d: DType): ElementTypeName {
  const e = BY_DTYPE[d];
  if (!e) throw new DescriptorError('RMSNormDescriptor', `dtype '${d}' has no ElementType (bf16, f16, f32, f64)`);
  return e;
}
export const dtypeOfElementType = (e: ElementTypeName): DType => TO_DTYPE[e];

export interface RMSNormParams {
  readonly n1: number;
  readonly n2: number;
  readonly eps: number;
  readonly xType: DType;
  readonly wType: DType;
  /** Rows of the backward's part_grad output ([part_grad_size, n2]); 0 for the forward. */
  readonly partGradSize: number;
}

/** Packs an RMSNorm descriptor after the checks the C targets make (so errors surface here first). */
export function packRMSNorm(p: RMSNormParams): Uint8Array {
  const bad = (m: string): never => { throw new DescriptorError('RMSNormDescriptor', m); };
  if (!Number.isInteger(p.n1) || p.n1 < 0) bad(`n1 must be an integer >= 0, got ${p.n1}`);
  if (!Number.isInteger(p.n2) || p.n2 < 1) bad(`n2 must be an integer >= 1, got ${p.n2}`);
  if (!Number.isFinite(p.eps) || p.eps < 0) bad(`eps must be finite and >= 0, got ${p.eps}`);
  if (!Number.isInteger(p.partGradSize) || p.partGradSize < 0) bad(`partGradSize must be an integer >= 0, got ${p.partGradSize}`);
  return RMSNormDescriptor.pack({
    n1: p.n1, n2: p.n2, eps: p.eps, x_type: elementTypeOf(p.xType), w_type: elementTypeOf(p.wType), part_grad_size: p.partGradSize,
  });
}

export function unpackRMSNorm(bytes: Uint8Array): RMSNormParams {
  const v = RMSNormDescriptor.unpack(bytes);
  return { n1: v.n1, n2: v.n2, eps: v.eps, xType: TO_DTYPE[v.x_type], wType: TO_DTYPE[v.w_type], partGradSize: v.part_grad_size };
}
