// racecheck and wgmma (run with TESSERA_SIM_ARCH=sm_90): a wgmma.mma_async reads its shared
// operands (through matrix descriptors) at any time until the wgmma.wait_group that covers it, so
// a store to those bytes before that wait is a write-after-read hazard on the async proxy. The
// kernel stores to its B operand before the wait (reported under racecheck, silent without it),
// or after the wait and a barrier (clean under all three checkers, and D = A * B is right).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);

namespace {

// One warpgroup. s holds A (64 x 16 f16, K-major, no swizzle: core matrices of 8 rows x 16
// bytes, LBO 128, SBO 256) at 0 and B (8 x 16, the same layout) at 2048, all 1.0; D (64 x 8 f32)
// = A * B, every element 16. mode 0: thread 0 stores 2.0 pairs to B's first word between the
// commit and the wait (the hazard); mode 1: after the wait and a bar.sync.
const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

.visible .entry wgrace(.param .u64 out, .param .u32 mode)
{
  .shared .align 128 .b8 s[2560];
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [mode];
  mov.u32 %r3, s;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  mov.u32 %r6, 0x3c003c00;
  st.shared.u32 [%r5], %r6;
  st.shared.u32 [%r5+512], %r6;
  st.shared.u32 [%r5+1024], %r6;
  st.shared.u32 [%r5+1536], %r6;
  st.shared.u32 [%r5+2048], %r6;
  bar.sync 0;
  fence.proxy.async.shared::cta;
  cvt.u64.u32 %rd1, %r3;
  shr.u64 %rd1, %rd1, 4;
  or.b64 %rd2, %rd1, 0x0000001000080000;
  add.u64 %rd3, %rd2, 128;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0,%f1,%f2,%f3}, %rd2, %rd3, 0, 1, 1, 0, 0; // @wg-mma
  wgmma.commit_group.sync.aligned;
  setp.eq.u32 %p2, %r1, 0;
  setp.eq.u32 %p1, %r2, 0;
  and.pred %p3, %p1, %p2;
  mov.u32 %r7, 0x40004000;
  @%p3 st.shared.u32 [%r3+2048], %r7; // @wg-early
  wgmma.wait_group.sync.aligned 0;
  bar.sync 0;
  setp.ne.u32 %p1, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 st.shared.u32 [%r3+2048], %r7; // @wg-late
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd4, %rd5;
  st.global.v4.f32 [%rd6], {%f0,%f1,%f2,%f3};
  ret;
}
)";

constexpr unsigned kRace = 1, kAll = 7;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string lineOf(const char* marker) {
  std::string ptx = kPtx, m = std::string("// @") + marker;
  size_t at = ptx.find(m);
  int line = 1;
  for (size_t i = 0; i < at; i++) line += ptx[i] == '\n';
  return "PTX line " + std::to_string(line);
}

// Runs the kernel (one CTA of 128 threads) with the given checkers; "" when clean, else the report.
std::string run(unsigned flags, unsigned mode, std::vector<float>* result) {
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CUfunction f;
  CHECK_OK(cuModuleGetFunction(&f, mod, "wgrace"));
  CUdeviceptr out;
  CHECK_OK(cuMemAlloc(&out, 512 * 4));
  CHECK_OK(tesseraSimSetSanitize(flags));
  void* args[] = {&out, &mode};
  CHECK_OK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CUresult r = cuCtxSynchronize();
  CHECK_OK(tesseraSimSetSanitize(0));
  std::string report;
  if (r == CUDA_SUCCESS) {
    if (result) {
      result->assign(512, 0.f);
      CHECK_OK(cuMemcpyDtoH(result->data(), out, 512 * 4));
    }
  } else {
    CHECK(r == CUDA_ERROR_LAUNCH_FAILED);
    char buf[8192] = {};
    tesseraSimGetLastFault(buf, sizeof buf);
    report = buf;
    if (report.empty()) report = "(no report)";
  }
  // a hazard leaves the context sticky: start a fresh one either way
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return report;
}

}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  // the store before the wait: silent without the checker (the sim reads the operands at the
  // wait, so the result may be wrong), reported with it, naming both instructions
  std::vector<float> d;
  std::string off = run(0, 0, &d);
  if (!off.empty()) std::fprintf(stderr, "reported with no checker on:\n%s\n", off.c_str());
  CHECK(off.empty());
  std::string r = run(kRace, 0, nullptr);
  if (getenv("SANITIZE_TEST_SHOW")) std::printf("%s\n", r.c_str());
  const std::string want =
      "tessera-sim: racecheck hazard in kernel 'wgrace': write-after-read hazard on shared memory [0x800, +4): 4-byte "
      "write at " + lineOf("wg-early") + " by thread (0,0,0) CTA (0,0,0) conflicts with wgmma operand read at " +
      lineOf("wg-mma") + " by thread (0,0,0) CTA (0,0,0), before the wgmma.wait_group that covers it";
  bool ok = r.compare(0, want.size(), want) == 0 && has(r, "racecheck 1 hazard (1 distinct)");
  if (!ok) std::fprintf(stderr, "report differs; want:\n%s\n  racecheck 1 hazard (1 distinct)\ngot:\n%s\n", want.c_str(), r.c_str());
  CHECK(ok);
  // the store after the wait (and a barrier): clean under every checker, and D = A * B = 16
  for (unsigned flags : {kAll, 0u}) {
    std::vector<float> good;
    std::string rep = run(flags, 1, &good);
    if (!rep.empty()) std::fprintf(stderr, "unexpected report (flags %u):\n%s\n", flags, rep.c_str());
    CHECK(rep.empty());
    bool right = good.size() == 512;
    for (float x : good) right = right && x == 16.f;
    CHECK(right);
  }
  return tcheck::finish("wgmma_sanitize_test");
}
