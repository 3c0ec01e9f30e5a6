// The sanitizers on thread-block clusters (run with TESSERA_SIM_ARCH=sm_90): racecheck sees
// distributed-shared-memory accesses (ld/st .shared::cluster through mapa) between CTAs of a
// cluster, ordered by barrier.cluster (an access between a thread's arrive and its wait is not
// ordered by that phase) and by remote mbarrier arrivals; initcheck reports reads of another
// CTA's shared bytes nobody wrote. Each hazard kernel runs clean without the checker (the bug the
// checker exists for) and is reported with it; the corrected kernels run clean under all three
// and give the right answers.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

// Clusters of 2 CTAs of 64 threads: s[tid] = 100 * rank + tid (skipped when mode & 4); then
// mode & 1: barrier.cluster between the stores and the reads; mode & 2: the store is made again
// between this thread's barrier.cluster.arrive and its wait (a race with the other CTA's read
// after its wait). Then out[ctaid * 64 + tid] = other CTA's s[63 - tid], and a last
// barrier.cluster keeps each CTA's shared memory alive until the other has read it.
.visible .entry dsm(.param .u64 out, .param .u32 mode)
.reqnctapercluster 2, 1, 1
{
  .shared .align 4 .b8 s[256];
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  ld.param.u32 %r3, [mode];
  mov.u32 %r4, s;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mad.lo.u32 %r7, %r2, 100, %r1;
  and.b32 %r8, %r3, 4;
  setp.eq.u32 %p1, %r8, 0;
  @%p1 st.shared.u32 [%r6], %r7; // @dsm-st
  and.b32 %r8, %r3, 2;
  setp.ne.u32 %p2, %r8, 0;
  @%p2 bra SPLIT;
  and.b32 %r8, %r3, 1;
  setp.ne.u32 %p3, %r8, 0;
  @!%p3 bra READ;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  bra READ;
SPLIT:
  barrier.cluster.arrive;
  st.shared.u32 [%r6], %r7; // @dsm-split
  barrier.cluster.wait;
READ:
  xor.b32 %r9, %r2, 1;
  sub.u32 %r10, 63, %r1;
  shl.b32 %r10, %r10, 2;
  add.u32 %r10, %r4, %r10;
  mapa.shared::cluster.u32 %r11, %r10, %r9;
  ld.shared::cluster.u32 %r12, [%r11]; // @dsm-ld
  mov.u32 %r13, %ctaid.x;
  mad.lo.u32 %r14, %r13, 64, %r1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r14, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r12;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// Clusters of 2 CTAs of 32 threads: rank 0 inits an mbarrier for 32 arrivals; after a
// barrier.cluster, rank 1's threads store tid + 7 into rank 0's s[tid] and arrive on rank 0's
// mbarrier (.release.cluster.shared::cluster); rank 0 waits for the phase (skipped when wait is
// 0) and reads out[tid] = s[(tid + 1) % 32].
.visible .entry mbx(.param .u64 out, .param .u32 wait)
.reqnctapercluster 2, 1, 1
{
  .shared .align 8 .b64 bar;
  .shared .align 4 .b8 s[128];
  .reg .pred %p<5>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, s;
  setp.eq.u32 %p1, %r2, 0;
  setp.eq.u32 %p2, %r1, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [bar], 32;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @%p1 bra CONSUME;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mapa.shared::cluster.u32 %r7, %r6, 0;
  add.u32 %r8, %r1, 7;
  st.shared::cluster.u32 [%r7], %r8; // @mbx-st
  mapa.shared::cluster.u32 %r9, %r3, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r9];
  bra END;
CONSUME:
  ld.param.u32 %r10, [wait];
  setp.eq.u32 %p4, %r10, 0;
  @%p4 bra READ;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p4, [bar], 0;
  @!%p4 bra WAIT;
READ:
  add.u32 %r11, %r1, 1;
  and.b32 %r11, %r11, 31;
  shl.b32 %r11, %r11, 2;
  add.u32 %r11, %r4, %r11;
  ld.shared.u32 %r12, [%r11]; // @mbx-ld
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r12;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

constexpr unsigned kRace = 1, kSync = 2, kInit = 4, kAll = 7;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string lineOf(const char* marker) {
  std::string ptx = kPtx, m = std::string("// @") + marker;
  size_t at = ptx.find(m + "\n");
  int line = 1;
  for (size_t i = 0; i < at; i++) line += ptx[i] == '\n';
  return "PTX line " + std::to_string(line);
}

struct Env {
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUdeviceptr out = 0;
  void open() {
    CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK_OK(cuCtxSetCurrent(ctx));
    CHECK_OK(cuModuleLoadData(&mod, kPtx));
    CHECK_OK(cuMemAlloc(&out, 4 * 256));
    CHECK_OK(cuMemsetD8(out, 0, 4 * 256));
  }
  // Runs `name` on `grid` CTAs (clusters of 2, from .reqnctapercluster) with the given
  // sanitizers; returns "" when clean, else the report (and makes a fresh context).
  std::string run(const char* name, unsigned flags, unsigned grid, unsigned block, unsigned arg) {
    CHECK_OK(tesseraSimSetSanitize(flags));
    CUfunction f;
    CHECK_OK(cuModuleGetFunction(&f, mod, name));
    void* args[] = {&out, &arg};
    CHECK_OK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
    CUresult r = cuCtxSynchronize();
    CHECK_OK(tesseraSimSetSanitize(0));
    if (r == CUDA_SUCCESS) return "";
    char buf[8192] = {};
    tesseraSimGetLastFault(buf, sizeof buf);
    std::string report = buf;
    CHECK(r == CUDA_ERROR_LAUNCH_FAILED);
    if (r != CUDA_ERROR_LAUNCH_FAILED) std::fprintf(stderr, "%s: %s\n", name, report.c_str());
    CHECK_OK(cuDevicePrimaryCtxReset(0));
    CHECK_OK(cuDevicePrimaryCtxRelease(0));
    open();
    return report;
  }
  std::vector<uint32_t> result(unsigned n) {
    std::vector<uint32_t> v(n);
    CHECK_OK(cuMemcpyDtoH(v.data(), out, 4 * n));
    return v;
  }
};

void expectClean(Env& e, const char* name, unsigned grid, unsigned block, unsigned arg) {
  std::string r = e.run(name, kAll, grid, block, arg);
  if (!r.empty()) std::fprintf(stderr, "unexpected report for %s (%u):\n%s\n", name, arg, r.c_str());
  CHECK(r.empty());
}

void expectHazard(Env& e, const char* name, unsigned flags, unsigned grid, unsigned block, unsigned arg,
                  std::vector<std::string> parts) {
  std::string off = e.run(name, 0, grid, block, arg);
  if (!off.empty()) std::fprintf(stderr, "%s (%u) fails with no checker on:\n%s\n", name, arg, off.c_str());
  CHECK(off.empty());
  std::string r = e.run(name, flags, grid, block, arg);
  bool ok = !r.empty() && has(r, std::string("kernel '") + name + "'");
  for (auto& p : parts) ok = ok && has(r, p);
  if (!ok) std::fprintf(stderr, "report for %s (%u) lacks one of the expected parts:\n%s\n", name, arg, r.c_str());
  if (getenv("SANITIZE_TEST_SHOW")) std::printf("%s (%u):\n%s\n", name, arg, r.c_str());
  CHECK(ok);
}

}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  int major = 0;
  CHECK_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
  if (major < 9) {
    std::fprintf(stderr, "cluster_sanitize_test needs TESSERA_SIM_ARCH=sm_90\n");
    return 1;
  }
  Env e;
  e.open();

  // no barrier.cluster between the stores and the other CTA's reads: both directions race (one
  // cluster: with several, the report's first instance may come from any of them)
  expectHazard(e, "dsm", kRace, 2, 64, 0,
               {"tessera-sim: racecheck hazard in kernel ", "hazard on shared memory", "of cluster rank 1", lineOf("dsm-st"),
                lineOf("dsm-ld"), "CTA (1,0,0)", "CTA (0,0,0)", "no barrier or .sync"});
  // a store between this thread's arrive and its wait is not ordered by that phase
  expectHazard(e, "dsm", kRace, 4, 64, 2, {"read-after-write hazard", lineOf("dsm-split"), lineOf("dsm-ld")});
  // nobody wrote the bytes the other CTA reads
  expectHazard(e, "dsm", kInit, 4, 64, 1 | 4,
               {"tessera-sim: initcheck hazard", "read of uninitialised shared memory", "of cluster rank 1",
                "no thread of the cluster has written", lineOf("dsm-ld")});
  // the consumer reads before the remote producer's arrivals complete the mbarrier phase
  expectHazard(e, "mbx", kRace, 2, 32, 0, {"write-after-read hazard", lineOf("mbx-st"), lineOf("mbx-ld"), "CTA (1,0,0)"});

  // the corrected kernels: clean under all three checkers, with the right answers
  expectClean(e, "dsm", 4, 64, 1);
  std::vector<uint32_t> v = e.result(256);
  bool right = true;
  for (unsigned cta = 0; cta < 4; cta++)
    for (unsigned t = 0; t < 64; t++) right &= v[cta * 64 + t] == 100 * ((cta & 1) ^ 1) + (63 - t);
  CHECK(right);
  expectClean(e, "mbx", 2, 32, 1);
  v = e.result(32);
  right = true;
  for (unsigned t = 0; t < 32; t++) right &= v[t] == (t + 1) % 32 + 7;
  CHECK(right);
  // synccheck alone has nothing to say about the racy ones (it checks barriers, not data)
  CHECK(e.run("dsm", kSync, 4, 64, 0).empty());
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("cluster_sanitize_test");
}
