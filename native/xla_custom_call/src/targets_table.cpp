// The table of exported targets (name, XLA platform, highest API version the symbol implements).
#include <cstddef>

#include "export.h"

struct TesseraXlaTarget {
  const char* name;
  const char* platform;
  int api_version;
};

namespace {
const TesseraXlaTarget kTargets[] = {
    {"rms_forward_affine_mixed_dtype", "CUDA", 3},
    {"rms_backward_affine", "CUDA", 3},
    {"rms_forward_affine_mixed_dtype_cpu", "Host", 3},
    {"rms_backward_affine_cpu", "Host", 3},
    {"tessera_rms_norm_fwd_cpu", "Host", 4},
    {"tessera_rms_norm_bwd_cpu", "Host", 4},
    {"tessera_rms_norm_fwd_cuda", "CUDA", 4},
    {"tessera_rms_norm_bwd_cuda", "CUDA", 4},
    {"tessera_kernel_call", "CUDA", 3},
    {"tessera_kernel_call_cpu", "Host", 3},
};
}  // namespace

TX_EXPORT const TesseraXlaTarget* tessera_xla_targets(size_t* count) {
  if (count) *count = sizeof kTargets / sizeof kTargets[0];
  return kTargets;
}
