// The CUDA targets on the sim driver (this program links libtessera_sim.so, so the library finds
// the driver already in the process): legacy and typed-FFI RMSNorm with device buffers on a
// stream, against the double reference; the generic kernel-call target (GPU and CPU) with a
// hand-written PTX kernel whose result is aliased to an operand; bad descriptors.
#include <cuda.h>

#include "xla_test.h"

using namespace xt;

namespace {

#define CU(call) CHECK((call) == CUDA_SUCCESS)

struct Dev {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  explicit Dev(const Buf& b) : bytes(b.b.size()) {
    CU(cuMemAlloc(&p, bytes ? bytes : 1));
    CU(cuMemcpyHtoD(p, b.b.data(), bytes));
  }
  ~Dev() { cuMemFree(p); }
  void read(Buf& b) const { CU(cuMemcpyDtoH(b.b.data(), p, bytes)); }
  void* ptr() const { return reinterpret_cast<void*>(p); }
};

void rms_case(CUstream s, int xt, int wt, long n1, long n2, long part, bool ffi_api) {
  const double eps = 1e-6;
  Buf x(xt, n1 * n2), w(wt, n2), g(wt, n1 * n2);
  fill(x, 11 + xt, 3.0);
  fill(w, 5 + wt);
  fill(g, 17);
  const Ref r = reference(x, w, g, n1, n2, eps, part);
  Buf out(wt, n1 * n2), iv(ivt(xt), n1), gi(xt, n1 * n2), gw(wt, n2), pg(ivt(xt), part * n2);
  Dev dx(x), dw(w), dg(g), dout(out), div(iv), dgi(gi), dgw(gw), dpg(pg);
  if (ffi_api) {
    FakeFfi f(eps);
    FakeFfi::stream_value() = s;
    XLA_FFI_Error* e = tessera_rms_norm_fwd_cuda(f.build({{{n1, n2}, {xt, dx.ptr()}}, {{n2}, {wt, dw.ptr()}}, {{n1, n2}, {wt, dout.ptr()}}, {{n1}, {ivt(xt), div.ptr()}}}, 2));
    if (e) std::fprintf(stderr, "  %s\n", FakeFfi::last().c_str());
    CHECK(e == nullptr);
    e = tessera_rms_norm_bwd_cuda(f.build({{{n1, n2}, {wt, dg.ptr()}}, {{n1}, {ivt(xt), div.ptr()}}, {{n1, n2}, {xt, dx.ptr()}}, {{n2}, {wt, dw.ptr()}},
                                           {{n1, n2}, {xt, dgi.ptr()}}, {{n2}, {wt, dgw.ptr()}}, {{part, n2}, {ivt(xt), dpg.ptr()}}}, 4));
    if (e) std::fprintf(stderr, "  %s\n", FakeFfi::last().c_str());
    CHECK(e == nullptr);
  } else {
    auto fd = descriptor(int(n1), int(n2), eps, xt, wt, 0);
    void* fb[4] = {dx.ptr(), dw.ptr(), dout.ptr(), div.ptr()};
    rms_forward_affine_mixed_dtype(s, fb, reinterpret_cast<const char*>(fd.data()), fd.size(), nullptr);
    if (tessera_xla_last_error()) std::fprintf(stderr, "  %s\n", tessera_xla_last_error());
    CHECK(tessera_xla_last_error() == nullptr);
    auto bd = descriptor(int(n1), int(n2), eps, xt, wt, int(part));
    void* bb[7] = {dg.ptr(), div.ptr(), dx.ptr(), dw.ptr(), dgi.ptr(), dgw.ptr(), dpg.ptr()};
    rms_backward_affine(s, bb, reinterpret_cast<const char*>(bd.data()), bd.size(), nullptr);
    if (tessera_xla_last_error()) std::fprintf(stderr, "  %s\n", tessera_xla_last_error());
    CHECK(tessera_xla_last_error() == nullptr);
  }
  CU(cuStreamSynchronize(s));
  dout.read(out); div.read(iv); dgi.read(gi); dgw.read(gw); dpg.read(pg);
  const int u = ivt(xt);
  bool ok = close(out, r.out, "out", u) & close(iv, r.invvar, "invvar", u) & close(gi, r.gi, "grad_input", u) & close(gw, r.gw, "grad_weight", u) &
            close(pg, r.part, "part_grad", u);
  if (!ok) std::fprintf(stderr, "case x=%s w=%s n1=%ld n2=%ld part=%ld %s\n", name(xt), name(wt), n1, n2, part, ffi_api ? "ffi" : "legacy");
  CHECK(ok);
}

// y[i] = a * x[i] + y[i]
const char* kAxpyPtx = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry axpy(.param .u64 px, .param .u64 py, .param .f32 pa, .param .u32 pn) {
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [py];
  ld.param.f32 %f1, [pa];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)";

// A kernel-call descriptor as docs/xla.md lays it out (what src/descriptor's packKernelCall writes).
std::vector<unsigned char> kernel_call(const std::string& entry, unsigned n, float a) {
  std::vector<TesseraKernelParam> params(4);
  params[0] = {TesseraKernelParamKind_OPERAND, 0, 8, 0, 0};
  params[1] = {TesseraKernelParamKind_RESULT, 0, 8, 0, 0};
  uint32_t abits;
  std::memcpy(&abits, &a, 4);
  params[2] = {TesseraKernelParamKind_SCALAR, 0, 4, 0, abits};
  params[3] = {TesseraKernelParamKind_SCALAR, 0, 4, 0, n};
  const std::string ptx = kAxpyPtx;
  const unsigned char junk[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};  // a "cubin" no driver takes
  auto pad8 = [](size_t v) { return (v + 7) / 8 * 8; };
  size_t off = sizeof(TesseraKernelCallHeader) + 8 * 3 + sizeof(TesseraKernelParam) * 4 + sizeof(TesseraKernelImage) * 2;
  const size_t entry_at = off;
  off = pad8(off + entry.size());
  const size_t junk_at = off;
  off = pad8(off + sizeof junk);
  const size_t ptx_at = off;
  off = pad8(off + ptx.size());
  std::vector<unsigned char> d(off, 0);
  TesseraKernelCallHeader h{};
  h.magic = 0x314b5354; h.version = 1; h.total_size = uint32_t(off);
  h.grid[0] = (n + 63) / 64; h.grid[1] = h.grid[2] = 1;
  h.block[0] = 64; h.block[1] = h.block[2] = 1;
  h.num_operands = 2; h.num_results = 1; h.num_params = 4; h.num_images = 2; h.entry_len = uint32_t(entry.size());
  size_t at = 0;
  auto put = [&](const void* p, size_t len) { std::memcpy(&d[at], p, len); at += len; };
  put(&h, sizeof h);
  const uint64_t sizes[3] = {4ull * n, 4ull * n, 4ull * n};
  put(sizes, sizeof sizes);
  put(params.data(), sizeof(TesseraKernelParam) * 4);
  TesseraKernelImage im[2] = {{TesseraKernelImageKind_CUBIN, 80, uint32_t(junk_at), sizeof junk}, {TesseraKernelImageKind_PTX, 80, uint32_t(ptx_at), uint32_t(ptx.size())}};
  put(im, sizeof im);
  std::memcpy(&d[entry_at], entry.data(), entry.size());
  std::memcpy(&d[junk_at], junk, sizeof junk);
  std::memcpy(&d[ptx_at], ptx.data(), ptx.size());
  return d;
}

void kernel_call_cases(CUstream s) {
  const unsigned n = 100;
  Buf x(F32, n), y(F32, n);
  fill(x, 21);
  fill(y, 22);
  std::vector<double> want(n);
  for (unsigned i = 0; i < n; ++i) want[i] = double(float(2.5f * float(x.get(i)) + float(y.get(i))));
  const auto d = kernel_call("axpy", n, 2.5f);
  {  // GPU: the result buffer is operand 1's buffer (XLA output_operand_aliases)
    Dev dx(x), dy(y);
    void* bufs[3] = {dx.ptr(), dy.ptr(), dy.ptr()};
    tessera_kernel_call(s, bufs, reinterpret_cast<const char*>(d.data()), d.size(), nullptr);
    if (tessera_xla_last_error()) std::fprintf(stderr, "  %s\n", tessera_xla_last_error());
    CHECK(tessera_xla_last_error() == nullptr);
    CU(cuStreamSynchronize(s));
    Buf got(F32, n);
    dy.read(got);
    CHECK(close(got, want, "kernel_call gpu", F32));
  }
  {  // CPU through the driver: host buffers, aliased the same way
    Buf hy = y;
    const void* in[2] = {x.data(), hy.data()};
    tessera_kernel_call_cpu(hy.data(), in, reinterpret_cast<const char*>(d.data()), d.size(), nullptr);
    if (tessera_xla_last_error()) std::fprintf(stderr, "  %s\n", tessera_xla_last_error());
    CHECK(tessera_xla_last_error() == nullptr);
    CHECK(close(hy, want, "kernel_call cpu", F32));
  }
  // Bad descriptors: an error naming the problem, the result untouched.
  auto bad = [&](const std::vector<unsigned char>& desc, size_t len, const char* expect) {
    Buf hy = y;
    const void* in[2] = {x.data(), hy.data()};
    tessera_kernel_call_cpu(hy.data(), in, reinterpret_cast<const char*>(desc.data()), len, nullptr);
    const char* e = tessera_xla_last_error();
    CHECK(e != nullptr);
    if (e && !std::strstr(e, expect)) { std::fprintf(stderr, "  error '%s' lacks '%s'\n", e, expect); CHECK(false); }
    CHECK(hy.b == y.b);
  };
  bad(d, 40, "shorter than its 64-byte header");
  bad(d, d.size() - 8, "opaque_len is");
  {
    auto t = d;
    const uint32_t many = 200;
    std::memcpy(&t[48], &many, 4);  // num_params past the end
    bad(t, t.size(), "truncated");
  }
  {
    auto t = d;
    t[0] = 'X';
    bad(t, t.size(), "bad magic");
  }
  bad(kernel_call("axpz", n, 2.5f), kernel_call("axpz", n, 2.5f).size(), "entry 'axpz' is not in the kernel's module");
  {
    Dev dx(x), dy(y);
    void* bufs[3] = {dx.ptr(), dy.ptr(), dy.ptr()};
    tessera_kernel_call(s, bufs, reinterpret_cast<const char*>(d.data()), 63, nullptr);
    CHECK(tessera_xla_last_error() && std::strstr(tessera_xla_last_error(), "64-byte header"));
  }
}

void gpu_bad_descriptor(CUstream s) {
  Buf x(F32, 8), w(F32, 4), out(F32, 8), iv(F32, 2);
  Dev dx(x), dw(w), dout(out), div(iv);
  auto fd = descriptor(2, 4, 1e-5, 7, F32, 0);
  void* fb[4] = {dx.ptr(), dw.ptr(), dout.ptr(), div.ptr()};
  rms_forward_affine_mixed_dtype(s, fb, reinterpret_cast<const char*>(fd.data()), fd.size(), nullptr);
  CHECK(tessera_xla_last_error() && std::strstr(tessera_xla_last_error(), "x_type 7"));
  CU(cuStreamSynchronize(s));
  Buf got(F32, 8);
  dout.read(got);
  CHECK(got.b == out.b);
}

}  // namespace

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUstream s;
  CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  for (int xt = 0; xt < 4; ++xt)
    for (int wt = 0; wt < 4; ++wt) rms_case(s, xt, wt, 3, 72, 2, (xt + wt) % 2 == 1);  // 72: vector path for every pair
  rms_case(s, F16, F32, 4, 37, 3, false);   // odd row length: the scalar path
  rms_case(s, BF16, BF16, 9, 256, 4, true); // several warps' worth per row
  rms_case(s, F32, F32, 0, 16, 2, false);   // no rows
  kernel_call_cases(s);
  gpu_bad_descriptor(s);
  cuStreamDestroy(s);
  cuDevicePrimaryCtxRelease(dev);
  if (g_failures) { std::fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
  std::printf("xla gpu targets on the sim: ok\n");
  return 0;
}
