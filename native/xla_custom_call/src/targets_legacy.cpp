// The legacy (API 2/3) RMSNorm targets: the RMSNormDescriptor in `opaque`, buffers in XLA's
// order. Every check runs before anything is written.
#include "export.h"
#include "rms_gpu.h"
#include "rms_problem.h"

using tx::RmsProblem;

TX_EXPORT void rms_forward_affine_mixed_dtype(CUstream_st* stream, void** buffers, const char* opaque, size_t opaque_len, void* status) {
  static const char* kName = "rms_forward_affine_mixed_dtype";
  tx::clear_last_error();
  RmsProblem p;
  tx::Status s = tx::parse_rms_descriptor(opaque, opaque_len, false, &p);
  if (s.ok && !buffers) s = tx::Status::error("buffers is null");
  if (s.ok) s = tx::rms_forward_gpu(p, {buffers[0], buffers[1], buffers[2], buffers[3]}, stream);
  if (!s.ok) tx::legacy_fail(status, kName, s.message);
}

TX_EXPORT void rms_backward_affine(CUstream_st* stream, void** buffers, const char* opaque, size_t opaque_len, void* status) {
  static const char* kName = "rms_backward_affine";
  tx::clear_last_error();
  RmsProblem p;
  tx::Status s = tx::parse_rms_descriptor(opaque, opaque_len, true, &p);
  if (s.ok && !buffers) s = tx::Status::error("buffers is null");
  if (s.ok) s = tx::rms_backward_gpu(p, {buffers[0], buffers[1], buffers[2], buffers[3], buffers[4], buffers[5], buffers[6]}, stream);
  if (!s.ok) tx::legacy_fail(status, kName, s.message);
}

TX_EXPORT void rms_forward_affine_mixed_dtype_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, void* status) {
  static const char* kName = "rms_forward_affine_mixed_dtype_cpu";
  tx::clear_last_error();
  RmsProblem p;
  tx::Status s = tx::parse_rms_descriptor(opaque, opaque_len, false, &p);
  if (s.ok && (!out || !in)) s = tx::Status::error("null buffer array");
  if (!s.ok) return tx::legacy_fail(status, kName, s.message);
  void** outs = static_cast<void**>(out);  // two results: XLA passes the array of their buffers
  tx::rms_forward_cpu(p, {in[0], in[1], outs[0], outs[1]});
}

TX_EXPORT void rms_backward_affine_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, void* status) {
  static const char* kName = "rms_backward_affine_cpu";
  tx::clear_last_error();
  RmsProblem p;
  tx::Status s = tx::parse_rms_descriptor(opaque, opaque_len, true, &p);
  if (s.ok && (!out || !in)) s = tx::Status::error("null buffer array");
  if (!s.ok) return tx::legacy_fail(status, kName, s.message);
  void** outs = static_cast<void**>(out);
  tx::rms_backward_cpu(p, {in[0], in[1], in[2], in[3], outs[0], outs[1], outs[2]});
}
