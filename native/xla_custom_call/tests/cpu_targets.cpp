// The CPU targets (legacy API 3 and typed FFI) on every (x, weight) dtype pair against the
// double reference; bad descriptors and frames are errors that leave the outputs untouched.
#include "xla_test.h"

using namespace xt;

namespace {

struct Case {
  int xt, wt;
  long n1, n2, part;
};

void run_case(const Case& c, bool ffi_api) {
  const double eps = 1e-5;
  Buf x(c.xt, c.n1 * c.n2), w(c.wt, c.n2), g(c.wt, c.n1 * c.n2);
  fill(x, 1 + c.xt, 2.0);
  fill(w, 7 + c.wt);
  fill(g, 13);
  const Ref r = reference(x, w, g, c.n1, c.n2, eps, c.part);
  Buf out(c.wt, c.n1 * c.n2), iv(ivt(c.xt), c.n1);
  Buf gi(c.xt, c.n1 * c.n2), gw(c.wt, c.n2), pg(ivt(c.xt), c.part * c.n2);
  if (ffi_api) {
    FakeFfi f(eps);
    XLA_FFI_Error* e = tessera_rms_norm_fwd_cpu(f.build({{{c.n1, c.n2}, {c.xt, x.data()}}, {{c.n2}, {c.wt, w.data()}},
                                                         {{c.n1, c.n2}, {c.wt, out.data()}}, {{c.n1}, {ivt(c.xt), iv.data()}}}, 2));
    CHECK(e == nullptr);
    e = tessera_rms_norm_bwd_cpu(f.build({{{c.n1, c.n2}, {c.wt, g.data()}}, {{c.n1}, {ivt(c.xt), iv.data()}}, {{c.n1, c.n2}, {c.xt, x.data()}},
                                          {{c.n2}, {c.wt, w.data()}}, {{c.n1, c.n2}, {c.xt, gi.data()}}, {{c.n2}, {c.wt, gw.data()}},
                                          {{c.part, c.n2}, {ivt(c.xt), pg.data()}}}, 4));
    if (e) std::fprintf(stderr, "  %s\n", FakeFfi::last().c_str());
    CHECK(e == nullptr);
  } else {
    auto fd = descriptor(int(c.n1), int(c.n2), eps, c.xt, c.wt, 0);
    const void* in[4] = {x.data(), w.data()};
    void* outs[3] = {out.data(), iv.data()};
    rms_forward_affine_mixed_dtype_cpu(outs, in, reinterpret_cast<const char*>(fd.data()), fd.size(), nullptr);
    CHECK(tessera_xla_last_error() == nullptr);
    auto bd = descriptor(int(c.n1), int(c.n2), eps, c.xt, c.wt, int(c.part));
    const void* bin[4] = {g.data(), iv.data(), x.data(), w.data()};
    void* bouts[3] = {gi.data(), gw.data(), pg.data()};
    rms_backward_affine_cpu(bouts, bin, reinterpret_cast<const char*>(bd.data()), bd.size(), nullptr);
    CHECK(tessera_xla_last_error() == nullptr);
  }
  const int u = ivt(c.xt);
  bool ok = close(out, r.out, "out", u) & close(iv, r.invvar, "invvar", u) & close(gi, r.gi, "grad_input", u) & close(gw, r.gw, "grad_weight", u) &
            close(pg, r.part, "part_grad", u);
  if (!ok) std::fprintf(stderr, "case x=%s w=%s n1=%ld n2=%ld part=%ld %s\n", name(c.xt), name(c.wt), c.n1, c.n2, c.part, ffi_api ? "ffi" : "legacy");
  CHECK(ok);
}

void bad_legacy(const std::vector<unsigned char>& d, size_t len, const char* expect) {
  Buf x(F32, 8), w(F32, 4), out(F32, 8), iv(F32, 2);
  fill(x, 3);
  fill(w, 4);
  const void* in[2] = {x.data(), w.data()};
  void* outs[2] = {out.data(), iv.data()};
  rms_forward_affine_mixed_dtype_cpu(outs, in, reinterpret_cast<const char*>(d.data()), len, nullptr);
  const char* e = tessera_xla_last_error();
  CHECK(e != nullptr);
  if (e && !std::strstr(e, expect)) { std::fprintf(stderr, "  error '%s' does not mention '%s'\n", e, expect); CHECK(false); }
  CHECK(untouched(out) && untouched(iv));
}

void bad_cases() {
  bad_legacy(descriptor(2, 4, 1e-5, F32, F32, 0), 31, "opaque_len is 31");
  bad_legacy(descriptor(2, 4, 1e-5, 9, F32, 0), 32, "x_type 9 is not an ElementType");
  bad_legacy(descriptor(2, 4, 1e-5, F32, -1, 0), 32, "w_type -1");
  bad_legacy(descriptor(2, 0, 1e-5, F32, F32, 0), 32, "n2 must be >= 1");
  bad_legacy(descriptor(2, 4, NAN, F32, F32, 0), 32, "eps must be finite");
  // Backward needs part_grad rows.
  {
    auto d = descriptor(2, 4, 1e-5, F32, F32, 0);
    Buf g(F32, 8), iv(F32, 2), x(F32, 8), w(F32, 4), gi(F32, 8), gw(F32, 4), pg(F32, 4);
    const void* in[4] = {g.data(), iv.data(), x.data(), w.data()};
    void* outs[3] = {gi.data(), gw.data(), pg.data()};
    rms_backward_affine_cpu(outs, in, reinterpret_cast<const char*>(d.data()), d.size(), nullptr);
    CHECK(tessera_xla_last_error() && std::strstr(tessera_xla_last_error(), "part_grad_size"));
    CHECK(untouched(gi) && untouched(gw) && untouched(pg));
  }
  // FFI: dtypes or dims that contradict each other.
  FakeFfi f(1e-5);
  Buf x(F32, 8), w(F32, 4), out(F32, 8), iv(F32, 2), iv16(F16, 2), w3(F32, 3);
  auto expect_ffi = [&](XLA_FFI_Error* e, const char* what, const Buf& o1, const Buf& o2) {
    CHECK(e != nullptr);
    if (!std::strstr(FakeFfi::last().c_str(), what)) { std::fprintf(stderr, "  ffi error '%s' lacks '%s'\n", FakeFfi::last().c_str(), what); CHECK(false); }
    CHECK(tessera_xla_last_error() && std::strstr(tessera_xla_last_error(), what));
    CHECK(untouched(o1) && untouched(o2));
  };
  expect_ffi(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{4}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}, {{2}, {F16, iv16.data()}}}, 2)),
             "invvar must be f32", out, iv16);
  expect_ffi(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{3}, {F32, w3.data()}}, {{2, 4}, {F32, out.data()}}, {{2}, {F32, iv.data()}}}, 2)),
             "not a whole number", out, iv);
  expect_ffi(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{0}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}, {{2}, {F32, iv.data()}}}, 2)),
             "n2 == 0", out, iv);
  expect_ffi(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{4}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}, {{3}, {F32, iv.data()}}}, 2)),
             "n1 = 2", out, iv);
  expect_ffi(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{4}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}}, 2)),
             "gives 2 results, got 1", out, iv);
  {
    XLA_FFI_CallFrame* fr = f.build({{{2, 4}, {F32, x.data()}}, {{4}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}, {{2}, {F32, iv.data()}}}, 2);
    fr->attrs.size = 0;
    expect_ffi(tessera_rms_norm_fwd_cpu(fr), "'eps' is missing", out, iv);
  }
  // A success clears the thread's last error.
  CHECK(tessera_rms_norm_fwd_cpu(f.build({{{2, 4}, {F32, x.data()}}, {{4}, {F32, w.data()}}, {{2, 4}, {F32, out.data()}}, {{2}, {F32, iv.data()}}}, 2)) == nullptr);
  CHECK(tessera_xla_last_error() == nullptr);
}

// batch_dims = 1: each batch element is its own RMSNorm with its own weight row; the results
// equal two unbatched calls.
void batched() {
  const long B = 2, S = 3, E = 8;
  Buf x(F32, B * S * E), w(F32, B * E), out(F32, B * S * E), iv(F32, B * S);
  fill(x, 31, 2.0);
  fill(w, 32);
  FakeFfi f(1e-5);
  f.batch_dims = 1;
  XLA_FFI_Error* e = tessera_rms_norm_fwd_cpu(f.build({{{B, S, E}, {F32, x.data()}}, {{B, E}, {F32, w.data()}}, {{B, S, E}, {F32, out.data()}}, {{B, S}, {F32, iv.data()}}}, 2));
  CHECK(e == nullptr);
  for (long b = 0; b < B; ++b) {
    Buf xb(F32, S * E), wb(F32, E), gb(F32, S * E);
    for (long i = 0; i < S * E; ++i) xb.set(i, x.get(b * S * E + i));
    for (long i = 0; i < E; ++i) wb.set(i, w.get(b * E + i));
    const Ref r = reference(xb, wb, gb, S, E, 1e-5, 1);
    Buf ob(F32, S * E), ivb(F32, S);
    for (long i = 0; i < S * E; ++i) ob.set(i, out.get(b * S * E + i));
    for (long i = 0; i < S; ++i) ivb.set(i, iv.get(b * S + i));
    CHECK(close(ob, r.out, "batched out", F32) && close(ivb, r.invvar, "batched invvar", F32));
  }
  // The batch dims must be x's on every buffer.
  Buf w3(F32, 3 * E);
  f.build({{{B, S, E}, {F32, x.data()}}, {{3, E}, {F32, w3.data()}}, {{B, S, E}, {F32, out.data()}}, {{B, S}, {F32, iv.data()}}}, 2);
  CHECK(tessera_rms_norm_fwd_cpu(&f.frame) != nullptr);
  CHECK(std::strstr(FakeFfi::last().c_str(), "operand 1 has batch dims [3,8] unlike x [2,3,8]"));
}

void handshake() {
  XLA_FFI_Metadata md{};
  md.struct_size = sizeof md;
  XLA_FFI_Metadata_Extension ext{};
  ext.extension_base.struct_size = sizeof ext;
  ext.extension_base.type = XLA_FFI_Extension_Metadata;
  ext.metadata = &md;
  XLA_FFI_CallFrame f{};
  f.struct_size = sizeof f;
  f.extension_start = &ext.extension_base;
  CHECK(tessera_rms_norm_fwd_cpu(&f) == nullptr);
  CHECK(md.api_version.major_version == 0 && md.api_version.minor_version >= 1);
}

void table() {
  size_t n = 0;
  const TesseraXlaTarget* t = tessera_xla_targets(&n);
  CHECK(n == 10);
  int ffi = 0;
  for (size_t i = 0; i < n; ++i) {
    CHECK(std::string(t[i].platform) == "Host" || std::string(t[i].platform) == "CUDA");
    if (t[i].api_version == 4) ++ffi;
  }
  CHECK(ffi == 4);
}

}  // namespace

int main() {
  for (int xt = 0; xt < 4; ++xt)
    for (int wt = 0; wt < 4; ++wt) {
      run_case({xt, wt, 5, 40, 3}, false);
      run_case({xt, wt, 3, 8, 2}, true);
    }
  run_case({F32, F32, 0, 16, 4}, false);  // no rows: grad_weight and part_grad are zeros
  run_case({F64, F32, 17, 1, 16}, true);
  bad_cases();
  batched();
  handshake();
  table();
  if (g_failures) { std::fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
  std::printf("xla cpu targets: ok\n");
  return 0;
}
