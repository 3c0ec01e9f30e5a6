// The typed-FFI (API 4) RMSNorm targets. Dtypes and dims come from the call frame, eps from the
// `eps` attribute; the frame is checked against the RMSNorm contract before anything runs.
#include <cstring>
#include <string>

#include "export.h"
#include "ffi_abi.h"
#include "rms_gpu.h"
#include "rms_problem.h"

namespace tx {
namespace {

struct Frame {
  XLA_FFI_Buffer* args[4] = {};
  XLA_FFI_Buffer* rets[3] = {};
  double eps = 0;
  int64_t batch_dims = 0;
  // With batch_dims: each buffer without its leading batch dims (what one batch element sees).
  XLA_FFI_Buffer inner[7] = {};
};

Status dtype_of(const XLA_FFI_Buffer* b, const char* what, DType* out) {
  switch (b->dtype) {
    case XLA_FFI_DataType_BF16: *out = DType::BF16; return {};
    case XLA_FFI_DataType_F16: *out = DType::F16; return {};
    case XLA_FFI_DataType_F32: *out = DType::F32; return {};
    case XLA_FFI_DataType_F64: *out = DType::F64; return {};
    default: return Status::error(std::string(what) + " has XLA dtype " + std::to_string(int(b->dtype)) + ", not bf16/f16/f32/f64");
  }
}

Status count(const XLA_FFI_Buffer* b, const char* what, int64_t* n) {
  if (b->rank < 0 || (b->rank > 0 && !b->dims)) return Status::error(std::string(what) + " has a malformed shape");
  int64_t c = 1;
  for (int64_t i = 0; i < b->rank; ++i) {
    if (b->dims[i] < 0) return Status::error(std::string(what) + " has a negative dim");
    c *= b->dims[i];
  }
  *n = c;
  return {};
}

std::string shape_of(const XLA_FFI_Buffer* b) {
  std::string s = "[";
  for (int64_t i = 0; i < b->rank; ++i) s += (i ? "," : "") + std::to_string(b->dims[i]);
  return s + "]";
}

bool same_dims(const XLA_FFI_Buffer* a, const XLA_FFI_Buffer* b) {
  if (a->rank != b->rank) return false;
  for (int64_t i = 0; i < a->rank; ++i) if (a->dims[i] != b->dims[i]) return false;
  return true;
}

Status read_frame(XLA_FFI_CallFrame* f, int64_t nargs, int64_t nrets, Frame* out) {
  if (f->struct_size < TX_FFI_STRUCT_SIZE(XLA_FFI_CallFrame, attrs)) return Status::error("call frame struct is too small");
  if (f->stage != XLA_FFI_ExecutionStage_EXECUTE) return Status::error("called in stage " + std::to_string(int(f->stage)) + ", only EXECUTE is handled");
  if (f->args.size != nargs) return Status::error("takes " + std::to_string(nargs) + " operands, got " + std::to_string(f->args.size));
  if (f->rets.size != nrets) return Status::error("gives " + std::to_string(nrets) + " results, got " + std::to_string(f->rets.size));
  for (int64_t i = 0; i < nargs; ++i) {
    if (f->args.types[i] != XLA_FFI_ArgType_BUFFER || !f->args.args[i]) return Status::error("operand " + std::to_string(i) + " is not a buffer");
    out->args[i] = static_cast<XLA_FFI_Buffer*>(f->args.args[i]);
  }
  for (int64_t i = 0; i < nrets; ++i) {
    if (f->rets.types[i] != XLA_FFI_RetType_BUFFER || !f->rets.rets[i]) return Status::error("result " + std::to_string(i) + " is not a buffer");
    out->rets[i] = static_cast<XLA_FFI_Buffer*>(f->rets.rets[i]);
  }
  bool have_eps = false;
  for (int64_t i = 0; i < f->attrs.size; ++i) {
    const XLA_FFI_ByteSpan* n = f->attrs.names[i];
    const std::string name(n->ptr, n->len);
    if (name != "eps" && name != "batch_dims") return Status::error("unknown attribute '" + name + "' (only 'eps' and 'batch_dims')");
    if (f->attrs.types[i] != XLA_FFI_AttrType_SCALAR) return Status::error("attribute '" + name + "' must be a scalar");
    const auto* sc = static_cast<const XLA_FFI_Scalar*>(f->attrs.attrs[i]);
    if (name == "batch_dims") {
      if (sc->dtype == XLA_FFI_DataType_S64) std::memcpy(&out->batch_dims, sc->value, 8);
      else if (sc->dtype == XLA_FFI_DataType_S32) { int32_t k; std::memcpy(&k, sc->value, 4); out->batch_dims = k; }
      else return Status::error("attribute 'batch_dims' must be s32 or s64");
      if (out->batch_dims < 0) return Status::error("attribute 'batch_dims' must be >= 0");
      continue;
    }
    if (sc->dtype == XLA_FFI_DataType_F64) std::memcpy(&out->eps, sc->value, 8);
    else if (sc->dtype == XLA_FFI_DataType_F32) { float e; std::memcpy(&e, sc->value, 4); out->eps = e; }
    else return Status::error("attribute 'eps' must be f32 or f64");
    have_eps = true;
  }
  if (!have_eps) return Status::error("attribute 'eps' is missing");
  return {};
}

// batch_dims = k: every operand and result starts with x's k leading dims, and the call is an
// independent RMSNorm per batch element (the contract XLA's batch partitioner needs to split
// the custom call by those dims: docs/xla.md). Strips them into fr->inner; returns the count.
Status split_batch(Frame* fr, int64_t nargs, int64_t nrets, int64_t x_index, int64_t* batches) {
  const int64_t k = fr->batch_dims;
  XLA_FFI_Buffer* all[7];
  for (int64_t i = 0; i < nargs; ++i) all[i] = fr->args[i];
  for (int64_t i = 0; i < nrets; ++i) all[nargs + i] = fr->rets[i];
  const XLA_FFI_Buffer* x = fr->args[x_index];
  if (x->rank < k) return Status::error("batch_dims " + std::to_string(k) + " exceeds x's rank");
  int64_t nb = 1;
  for (int64_t d = 0; d < k; ++d) nb *= x->dims[d];
  for (int64_t i = 0; i < nargs + nrets; ++i) {
    const XLA_FFI_Buffer* b = all[i];
    if (b->rank < k || (k > 0 && !b->dims)) return Status::error("every buffer needs the " + std::to_string(k) + " batch dims of x");
    for (int64_t d = 0; d < k; ++d) {
      if (b->dims[d] != x->dims[d]) return Status::error((i < nargs ? "operand " : "result ") + std::to_string(i < nargs ? i : i - nargs) + " has batch dims " + shape_of(b) + " unlike x " + shape_of(x));
    }
    fr->inner[i] = *b;
    fr->inner[i].rank = b->rank - k;
    fr->inner[i].dims = b->dims ? b->dims + k : nullptr;
  }
  for (int64_t i = 0; i < nargs; ++i) fr->args[i] = &fr->inner[i];
  for (int64_t i = 0; i < nrets; ++i) fr->rets[i] = &fr->inner[nargs + i];
  *batches = nb;
  return {};
}

size_t dtype_bytes(XLA_FFI_DataType t) { return t == XLA_FFI_DataType_F64 ? 8 : t == XLA_FFI_DataType_F32 ? 4 : 2; }

// Bytes of one batch element of buffer b (b already stripped of its batch dims).
size_t element_bytes(const XLA_FFI_Buffer* b) {
  size_t n = dtype_bytes(b->dtype);
  for (int64_t d = 0; d < b->rank; ++d) n *= size_t(b->dims[d]);
  return n;
}

// x, weight -> out, invvar
Status fwd_problem(const Frame& fr, RmsProblem* p) {
  const XLA_FFI_Buffer *x = fr.args[0], *w = fr.args[1], *out = fr.rets[0], *iv = fr.rets[1];
  TX_RETURN_IF_ERROR(dtype_of(x, "x", &p->x));
  TX_RETURN_IF_ERROR(dtype_of(w, "weight", &p->w));
  int64_t nx, nw, ni;
  TX_RETURN_IF_ERROR(count(x, "x", &nx));
  TX_RETURN_IF_ERROR(count(w, "weight", &nw));
  TX_RETURN_IF_ERROR(count(iv, "invvar", &ni));
  if (nw < 1) return Status::error("weight is empty (n2 == 0)");
  if (nx % nw) return Status::error("x " + shape_of(x) + " is not a whole number of weight " + shape_of(w) + " rows");
  p->n2 = nw;
  p->n1 = nx / nw;
  p->eps = fr.eps;
  TX_RETURN_IF_ERROR(check_problem(*p, false));
  if (!same_dims(out, x)) return Status::error("out " + shape_of(out) + " must have x's shape " + shape_of(x));
  if (out->dtype != w->dtype) return Status::error("out must have weight's dtype");
  DType ivt;
  TX_RETURN_IF_ERROR(dtype_of(iv, "invvar", &ivt));
  if (ivt != invvar_dtype(p->x)) return Status::error(std::string("invvar must be ") + dtype_name(invvar_dtype(p->x)) + ", got " + dtype_name(ivt));
  if (ni != p->n1) return Status::error("invvar " + shape_of(iv) + " must have n1 = " + std::to_string(p->n1) + " elements");
  return {};
}

// g, invvar, x, weight -> grad_input, grad_weight, part_grad
Status bwd_problem(const Frame& fr, RmsProblem* p) {
  const XLA_FFI_Buffer *g = fr.args[0], *iv = fr.args[1], *x = fr.args[2], *w = fr.args[3];
  const XLA_FFI_Buffer *gi = fr.rets[0], *gw = fr.rets[1], *pg = fr.rets[2];
  TX_RETURN_IF_ERROR(dtype_of(x, "x", &p->x));
  TX_RETURN_IF_ERROR(dtype_of(w, "weight", &p->w));
  int64_t nx, nw, ni;
  TX_RETURN_IF_ERROR(count(x, "x", &nx));
  TX_RETURN_IF_ERROR(count(w, "weight", &nw));
  TX_RETURN_IF_ERROR(count(iv, "invvar", &ni));
  if (nw < 1) return Status::error("weight is empty (n2 == 0)");
  if (nx % nw) return Status::error("x " + shape_of(x) + " is not a whole number of weight " + shape_of(w) + " rows");
  p->n2 = nw;
  p->n1 = nx / nw;
  p->eps = fr.eps;
  if (pg->rank != 2 || pg->dims[1] != nw) return Status::error("part_grad " + shape_of(pg) + " must be [part_grad_size, n2 = " + std::to_string(nw) + "]");
  p->part = pg->dims[0];
  TX_RETURN_IF_ERROR(check_problem(*p, true));
  if (!same_dims(g, x) || g->dtype != w->dtype) return Status::error("g must have x's shape and weight's dtype");
  const DType want = invvar_dtype(p->x);
  DType t;
  TX_RETURN_IF_ERROR(dtype_of(iv, "invvar", &t));
  if (t != want || ni != p->n1) return Status::error(std::string("invvar must be ") + dtype_name(want) + " with n1 = " + std::to_string(p->n1) + " elements");
  if (!same_dims(gi, x) || gi->dtype != x->dtype) return Status::error("grad_input must have x's shape and dtype");
  if (!same_dims(gw, w) || gw->dtype != w->dtype) return Status::error("grad_weight must have weight's shape and dtype");
  TX_RETURN_IF_ERROR(dtype_of(pg, "part_grad", &t));
  if (t != want) return Status::error(std::string("part_grad must be ") + dtype_name(want));
  return {};
}

bool handshake(XLA_FFI_CallFrame* f) {
  if (!f->extension_start || f->extension_start->type != XLA_FFI_Extension_Metadata) return false;
  auto* ext = reinterpret_cast<XLA_FFI_Metadata_Extension*>(f->extension_start);
  ext->metadata->api_version = XLA_FFI_Api_Version{TX_FFI_STRUCT_SIZE(XLA_FFI_Api_Version, minor_version), nullptr, kTxFfiApiMajor, kTxFfiApiMinor};
  ext->metadata->traits = 0;
  return true;
}

Status stream_of(XLA_FFI_CallFrame* f, CUstream_st** out) {
  if (!f->api || !f->api->XLA_FFI_Stream_Get) return Status::error("the FFI API has no Stream_Get");
  XLA_FFI_Stream_Get_Args a{};
  a.struct_size = TX_FFI_STRUCT_SIZE(XLA_FFI_Stream_Get_Args, stream);
  a.ctx = f->ctx;
  if (XLA_FFI_Error* e = f->api->XLA_FFI_Stream_Get(&a)) {
    (void)e;  // owned by the runtime's error path; report our own message
    return Status::error("XLA_FFI_Stream_Get failed");
  }
  *out = static_cast<CUstream_st*>(a.stream);
  return {};
}

enum class Where { Cpu, Cuda };

XLA_FFI_Error* run(XLA_FFI_CallFrame* f, bool backward, Where where, const char* name) {
  clear_last_error();
  if (!f) return ffi_fail(nullptr, XLA_FFI_Error_Code_INVALID_ARGUMENT, name, "call frame is null");
  if (handshake(f)) return nullptr;
  Frame fr;
  RmsProblem p;
  const int64_t nargs = backward ? 4 : 2, nrets = backward ? 3 : 2;
  int64_t batches = 1;
  Status s = read_frame(f, nargs, nrets, &fr);
  if (s.ok) s = split_batch(&fr, nargs, nrets, backward ? 2 : 0, &batches);
  if (s.ok) s = backward ? bwd_problem(fr, &p) : fwd_problem(fr, &p);
  if (!s.ok) return ffi_fail(f->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, name, s.message);
  CUstream_st* stream = nullptr;
  if (where == Where::Cuda) {
    s = stream_of(f, &stream);
    if (!s.ok) return ffi_fail(f->api, XLA_FFI_Error_Code_INTERNAL, name, s.message);
  }
  // One RMSNorm per batch element, each buffer advanced by its per-element size.
  auto at = [&](XLA_FFI_Buffer* b, int64_t i) { return static_cast<char*>(b->data) + size_t(i) * element_bytes(b); };
  for (int64_t i = 0; i < batches; ++i) {
    const RmsFwdBuffers fb = backward ? RmsFwdBuffers{} : RmsFwdBuffers{at(fr.args[0], i), at(fr.args[1], i), at(fr.rets[0], i), at(fr.rets[1], i)};
    const RmsBwdBuffers bb = backward
        ? RmsBwdBuffers{at(fr.args[0], i), at(fr.args[1], i), at(fr.args[2], i), at(fr.args[3], i), at(fr.rets[0], i), at(fr.rets[1], i), at(fr.rets[2], i)}
        : RmsBwdBuffers{};
    if (where == Where::Cpu) {
      if (backward) rms_backward_cpu(p, bb);
      else rms_forward_cpu(p, fb);
      continue;
    }
    s = backward ? rms_backward_gpu(p, bb, stream) : rms_forward_gpu(p, fb, stream);
    if (!s.ok) return ffi_fail(f->api, XLA_FFI_Error_Code_INTERNAL, name, s.message);
  }
  return nullptr;
}

}  // namespace
}  // namespace tx

TX_EXPORT XLA_FFI_Error* tessera_rms_norm_fwd_cpu(XLA_FFI_CallFrame* f) { return tx::run(f, false, tx::Where::Cpu, "tessera_rms_norm_fwd_cpu"); }
TX_EXPORT XLA_FFI_Error* tessera_rms_norm_bwd_cpu(XLA_FFI_CallFrame* f) { return tx::run(f, true, tx::Where::Cpu, "tessera_rms_norm_bwd_cpu"); }
TX_EXPORT XLA_FFI_Error* tessera_rms_norm_fwd_cuda(XLA_FFI_CallFrame* f) { return tx::run(f, false, tx::Where::Cuda, "tessera_rms_norm_fwd_cuda"); }
TX_EXPORT XLA_FFI_Error* tessera_rms_norm_bwd_cuda(XLA_FFI_CallFrame* f) { return tx::run(f, true, tx::Where::Cuda, "tessera_rms_norm_bwd_cuda"); }
