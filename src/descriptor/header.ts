// The C header of every descriptor the XLA custom-call library reads
// (native/xla_custom_call/include/tessera_descriptors.h holds exactly this text).
import { cHeader } from './c_struct.js';
import { KernelCallHeader, KernelImage, KernelImageKind, KernelParam, KernelParamKind } from './kernel_call.js';
import { ElementType, RMSNormDescriptor } from './rms_norm.js';

export const descriptorsHeader = (): string =>
  cHeader('TESSERA_DESCRIPTORS_H', 'Descriptors of the Tessera XLA custom-call targets (docs/xla.md).',
    [ElementType, KernelParamKind, KernelImageKind],
    [RMSNormDescriptor, KernelCallHeader, KernelParam, KernelImage]);
