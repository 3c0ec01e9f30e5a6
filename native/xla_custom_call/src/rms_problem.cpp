#include "rms_problem.h"

#include <cmath>
#include <cstring>

namespace tx {

Status check_problem(const RmsProblem& p, bool backward) {
  if (p.n2 < 1) return Status::error("n2 must be >= 1, got " + std::to_string(p.n2));
  if (p.n1 < 0) return Status::error("n1 must be >= 0, got " + std::to_string(p.n1));
  if (p.n1 > (int64_t(1) << 40) / p.n2) return Status::error("n1 * n2 is too large");
  if (!std::isfinite(p.eps) || p.eps < 0) return Status::error("eps must be finite and >= 0");
  if (backward && p.part < 1) return Status::error("part_grad_size must be >= 1 for the backward, got " + std::to_string(p.part));
  return {};
}

Status parse_rms_descriptor(const char* opaque, size_t opaque_len, bool backward, RmsProblem* out) {
  if (!opaque) return Status::error("opaque descriptor is null");
  if (opaque_len != sizeof(RMSNormDescriptor)) {
    return Status::error("opaque_len is " + std::to_string(opaque_len) + ", an RMSNormDescriptor has " + std::to_string(sizeof(RMSNormDescriptor)) + " bytes");
  }
  RMSNormDescriptor d;
  std::memcpy(&d, opaque, sizeof d);  // opaque bytes carry no alignment promise
  const int xt = int(d.x_type), wt = int(d.w_type);
  if (xt < 0 || xt > 3) return Status::error("x_type " + std::to_string(xt) + " is not an ElementType (0 BF16, 1 F16, 2 F32, 3 F64)");
  if (wt < 0 || wt > 3) return Status::error("w_type " + std::to_string(wt) + " is not an ElementType (0 BF16, 1 F16, 2 F32, 3 F64)");
  RmsProblem p;
  p.n1 = d.n1;
  p.n2 = d.n2;
  p.eps = d.eps;
  p.x = DType(xt);
  p.w = DType(wt);
  p.part = d.part_grad_size;
  TX_RETURN_IF_ERROR(check_problem(p, backward));
  *out = p;
  return {};
}

}  // namespace tx
