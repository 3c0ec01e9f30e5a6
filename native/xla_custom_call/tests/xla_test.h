// Shared by the C++ tests of the custom-call library: checks, buffers of any RMSNorm dtype, the
// double-precision reference of docs/xla.md, and fabricated typed-FFI call frames.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ffi_abi.h"
#include "half.h"
#include "tessera_xla.h"

static int g_failures = 0;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                         \
    }                                                                       \
  } while (0)

namespace xt {

enum DT { BF16 = 0, F16 = 1, F32 = 2, F64 = 3 };
inline const char* name(int t) { static const char* n[] = {"bf16", "f16", "f32", "f64"}; return n[t]; }
inline size_t size(int t) { return t == F64 ? 8 : t == F32 ? 4 : 2; }
inline int ivt(int x) { return x == F64 ? F64 : F32; }
inline XLA_FFI_DataType ffi(int t) {
  static const XLA_FFI_DataType m[] = {XLA_FFI_DataType_BF16, XLA_FFI_DataType_F16, XLA_FFI_DataType_F32, XLA_FFI_DataType_F64};
  return m[t];
}

// Elements of dtype t in raw bytes.
struct Buf {
  int t;
  std::vector<unsigned char> b;
  Buf(int type, size_t n) : t(type), b(n * size(type), 0xAB) {}
  size_t n() const { return b.size() / size(t); }
  void* data() { return b.data(); }
  double get(size_t i) const {
    switch (t) {
      case BF16: { tx::bf16 v; std::memcpy(&v, &b[i * 2], 2); return tx::to_float(v); }
      case F16: { tx::f16 v; std::memcpy(&v, &b[i * 2], 2); return tx::to_float(v); }
      case F32: { float v; std::memcpy(&v, &b[i * 4], 4); return v; }
      default: { double v; std::memcpy(&v, &b[i * 8], 8); return v; }
    }
  }
  void set(size_t i, double x) {
    switch (t) {
      case BF16: { tx::bf16 v = tx::to_bf16(float(x)); std::memcpy(&b[i * 2], &v, 2); break; }
      case F16: { tx::f16 v = tx::to_f16(float(x)); std::memcpy(&b[i * 2], &v, 2); break; }
      case F32: { float v = float(x); std::memcpy(&b[i * 4], &v, 4); break; }
      default: std::memcpy(&b[i * 8], &x, 8);
    }
  }
};

// Buffers start as 0xAB bytes: still so when a failed call left them alone.
inline bool untouched(const Buf& b) {
  for (unsigned char v : b.b) if (v != 0xAB) return false;
  return true;
}

inline void fill(Buf& a, unsigned seed, double scale = 1.0) {
  for (size_t i = 0; i < a.n(); ++i) {
    seed = seed * 1103515245u + 12345u;
    a.set(i, scale * ((double((seed >> 8) & 0xffff) / 65536.0) * 2 - 1));
  }
}

// Tolerance of a result stored in dtype t after a reduction.
inline double tol(int t) { return t == F64 ? 1e-12 : t == F32 ? 2e-5 : t == F16 ? 4e-3 : 2e-2; }
// `computed`: the dtype the maths ran in (f32 for bf16/f16/f32 x, f64 for f64 x).
inline bool close(const Buf& got, const std::vector<double>& want, const char* what, int computed) {
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = std::fabs(got.get(i) - want[i]) / (1 + std::fabs(want[i]));
    if (!(e <= worst)) { worst = e; at = i; }
  }
  if (worst > std::max(tol(got.t), tol(computed)) || std::isnan(worst)) {
    std::fprintf(stderr, "  %s (%s): element %zu is %g, want %g (rel %g)\n", what, name(got.t), at, got.get(at), want[at], worst);
    return false;
  }
  return true;
}

struct Ref {
  std::vector<double> out, invvar, gi, gw, part;
};

// The reference computed in double from the (already rounded) inputs.
inline Ref reference(const Buf& x, const Buf& w, const Buf& g, long n1, long n2, double eps, long part) {
  Ref r;
  r.out.resize(n1 * n2);
  r.invvar.resize(n1);
  r.gi.resize(n1 * n2);
  r.gw.assign(n2, 0);
  r.part.assign(part * n2, 0);
  for (long i = 0; i < n1; ++i) {
    double ss = 0, s = 0;
    for (long j = 0; j < n2; ++j) ss += x.get(i * n2 + j) * x.get(i * n2 + j);
    const double u = 1 / std::sqrt(ss / n2 + eps);
    r.invvar[i] = u;
    for (long j = 0; j < n2; ++j) {
      r.out[i * n2 + j] = w.get(j) * x.get(i * n2 + j) * u;
      s += g.get(i * n2 + j) * w.get(j) * x.get(i * n2 + j);
    }
    for (long j = 0; j < n2; ++j) {
      r.gi[i * n2 + j] = u * g.get(i * n2 + j) * w.get(j) - u * u * u / n2 * x.get(i * n2 + j) * s;
      r.part[(i % part) * n2 + j] += g.get(i * n2 + j) * x.get(i * n2 + j) * u;
      r.gw[j] += g.get(i * n2 + j) * x.get(i * n2 + j) * u;
    }
  }
  return r;
}

inline std::vector<unsigned char> descriptor(int n1, int n2, double eps, int xt, int wt, int part) {
  RMSNormDescriptor d{};
  d.n1 = n1; d.n2 = n2; d.eps = eps; d.x_type = ElementType(xt); d.w_type = ElementType(wt); d.part_grad_size = part;
  std::vector<unsigned char> v(sizeof d);
  std::memcpy(v.data(), &d, sizeof d);
  return v;
}

// A typed-FFI call frame over Bufs, with a stand-in API that records created errors.
struct FakeFfi {
  static std::string& last() { static std::string s; return s; }
  static XLA_FFI_Error* create(XLA_FFI_Error_Create_Args* a) { last() = a->message; return reinterpret_cast<XLA_FFI_Error*>(0x1); }
  static void* stream() { static void* s = nullptr; return s; }
  static XLA_FFI_Error* get_stream(XLA_FFI_Stream_Get_Args* a) { a->stream = stream_value(); return nullptr; }
  static void*& stream_value() { static void* s = nullptr; return s; }
  XLA_FFI_Api api{};
  std::vector<std::vector<int64_t>> dims;
  std::vector<XLA_FFI_Buffer> bufs;
  std::vector<void*> args, rets;
  std::vector<XLA_FFI_ArgType> at;
  std::vector<XLA_FFI_RetType> rt;
  XLA_FFI_ByteSpan eps_name{"eps", 3}, batch_name{"batch_dims", 10};
  XLA_FFI_ByteSpan* names[2] = {&eps_name, &batch_name};
  double eps;
  int64_t batch_dims = -1;  // >= 0: pass the batch_dims attribute
  XLA_FFI_Scalar eps_attr{XLA_FFI_DataType_F64, &eps};
  XLA_FFI_Scalar batch_attr{XLA_FFI_DataType_S64, &batch_dims};
  XLA_FFI_AttrType attr_types[2] = {XLA_FFI_AttrType_SCALAR, XLA_FFI_AttrType_SCALAR};
  void* attrs[2] = {&eps_attr, &batch_attr};
  XLA_FFI_CallFrame frame{};

  FakeFfi(double e) : eps(e) {
    api.struct_size = sizeof api;
    api.XLA_FFI_Error_Create = &create;
    api.XLA_FFI_Stream_Get = &get_stream;
  }
  // shape, dtype, data for each operand then each result; nargs operands.
  XLA_FFI_CallFrame* build(std::vector<std::pair<std::vector<int64_t>, std::pair<int, void*>>> specs, size_t nargs) {
    dims.clear(); bufs.clear(); args.clear(); rets.clear(); at.clear(); rt.clear();
    dims.reserve(specs.size());
    bufs.reserve(specs.size());
    for (auto& s : specs) {
      dims.push_back(s.first);
      XLA_FFI_Buffer b{};
      b.struct_size = sizeof b;
      b.dtype = ffi(s.second.first);
      b.data = s.second.second;
      b.rank = int64_t(s.first.size());
      b.dims = dims.back().data();
      bufs.push_back(b);
    }
    for (size_t i = 0; i < bufs.size(); ++i) {
      if (i < nargs) { args.push_back(&bufs[i]); at.push_back(XLA_FFI_ArgType_BUFFER); }
      else { rets.push_back(&bufs[i]); rt.push_back(XLA_FFI_RetType_BUFFER); }
    }
    frame = XLA_FFI_CallFrame{};
    frame.struct_size = sizeof frame;
    frame.api = &api;
    frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
    frame.args = XLA_FFI_Args{sizeof(XLA_FFI_Args), nullptr, int64_t(args.size()), at.data(), args.data()};
    frame.rets = XLA_FFI_Rets{sizeof(XLA_FFI_Rets), nullptr, int64_t(rets.size()), rt.data(), rets.data()};
    frame.attrs = XLA_FFI_Attrs{sizeof(XLA_FFI_Attrs), nullptr, batch_dims >= 0 ? 2 : 1, attr_types, names, attrs};
    return &frame;
  }
};

}  // namespace xt
