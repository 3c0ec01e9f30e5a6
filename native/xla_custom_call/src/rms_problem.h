// One RMSNorm call, checked: sizes, dtypes, eps. Built from the legacy opaque descriptor
// (RMSNormDescriptor) or from a typed-FFI call frame, then run by the CPU or the CUDA code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "status.h"
#include "tessera_descriptors.h"

namespace tx {

enum class DType { BF16 = ElementType_BF16, F16 = ElementType_F16, F32 = ElementType_F32, F64 = ElementType_F64 };

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}
inline size_t dtype_size(DType t) { return t == DType::F64 ? 8 : t == DType::F32 ? 4 : 2; }
// invvar (and part_grad, and the accumulation) is f32 for half inputs, else x's dtype.
inline DType invvar_dtype(DType x) { return x == DType::BF16 || x == DType::F16 ? DType::F32 : x; }

struct RmsProblem {
  int64_t n1 = 0, n2 = 0;
  double eps = 0;
  DType x = DType::F32, w = DType::F32;
  int64_t part = 0;  // rows of part_grad (backward)
};

// Checks shared by both front ends.
Status check_problem(const RmsProblem& p, bool backward);
// Reads the 32-byte RMSNormDescriptor of the legacy targets.
Status parse_rms_descriptor(const char* opaque, size_t opaque_len, bool backward, RmsProblem* out);

// Buffers of one call (device or host pointers, as the target runs).
struct RmsFwdBuffers { const void* x; const void* w; void* out; void* invvar; };
struct RmsBwdBuffers { const void* g; const void* invvar; const void* x; const void* w; void* grad_input; void* grad_weight; void* part_grad; };

void rms_forward_cpu(const RmsProblem& p, const RmsFwdBuffers& b);
void rms_backward_cpu(const RmsProblem& p, const RmsBwdBuffers& b);

}  // namespace tx
