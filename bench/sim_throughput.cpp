// sim_bench: simulated thread-instructions per second of the `sim` device on a reduction and a
// matmul, with the sanitizers off and with each of them on (racecheck, synccheck, initcheck, all
// three). A benchmark, not a test: it prints figures (measured on the CPU; no GPU involved).
//   build/bin/sim_bench [--json]
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "sim.h"

extern "C" CUresult tesseraSimGetLaunchCounters(void* out, size_t size);
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// out[block] = sum of in[] over a grid-stride loop, warp shuffles, then shared memory.
.visible .entry reduce(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 warpSums[32];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %nctaid.x;
  mad.lo.s32 %r6, %r3, %r4, %r2;
  mul.lo.s32 %r7, %r4, %r5;
  mov.f32 %f1, 0f00000000;
LOOP:
  setp.ge.u32 %p1, %r6, %r1;
  @%p1 bra REDUCE;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  add.s32 %r6, %r6, %r7;
  bra.uni LOOP;
REDUCE:
  shfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 8, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 4, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 2, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 1, 31, -1;
  add.f32 %f1, %f1, %f2;
  and.b32 %r8, %r2, 31;
  shr.u32 %r9, %r2, 5;
  setp.ne.u32 %p2, %r8, 0;
  mov.u32 %r10, warpSums;
  shl.b32 %r11, %r9, 2;
  add.s32 %r12, %r10, %r11;
  @!%p2 st.shared.f32 [%r12], %f1;
  bar.sync 0;
  setp.ne.u32 %p3, %r2, 0;
  @%p3 bra DONE;
  mov.f32 %f3, 0f00000000;
  mov.u32 %r13, 0;
  shr.u32 %r14, %r4, 5;
SUM:
  shl.b32 %r11, %r13, 2;
  add.s32 %r12, %r10, %r11;
  ld.shared.f32 %f4, [%r12];
  add.f32 %f3, %f3, %f4;
  add.s32 %r13, %r13, 1;
  setp.lt.u32 %p1, %r13, %r14;
  @%p1 bra SUM;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f3;
DONE:
  ret;
}

// C = A * B, n x n row-major f32, one thread per element (naive inner product).
.visible .entry matmul(.param .u64 A, .param .u64 B, .param .u64 C, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [A];
  ld.param.u64 %rd2, [B];
  ld.param.u64 %rd3, [C];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %ctaid.y;
  mov.u32 %r7, %ntid.y;
  mov.u32 %r8, %tid.y;
  mad.lo.s32 %r9, %r6, %r7, %r8;
  setp.ge.u32 %p1, %r5, %r1;
  setp.ge.u32 %p2, %r9, %r1;
  or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r10, 0;
  mul.lo.s32 %r11, %r9, %r1;
KLOOP:
  add.s32 %r12, %r11, %r10;
  mul.wide.u32 %rd4, %r12, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f2, [%rd5];
  mad.lo.s32 %r13, %r10, %r1, %r5;
  mul.wide.u32 %rd6, %r13, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, %r1;
  @%p2 bra KLOOP;
  add.s32 %r14, %r11, %r5;
  mul.wide.u32 %rd8, %r14, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.f32 [%rd9], %f1;
DONE:
  ret;
}
)";

bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "sim_bench: %s failed: %s\n", what, name);
  return false;
}

struct Result {
  std::string name;
  std::string checkers = "off";
  double seconds = 0;
  uint64_t threadInstructions = 0, warpInstructions = 0;
};

// Runs one launch `reps` times and keeps the fastest.
bool measure(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void** args, int reps, Result& r) {
  for (int i = 0; i < reps; i++) {
    auto t0 = std::chrono::steady_clock::now();
    if (!ok(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, nullptr, args, nullptr), "cuLaunchKernel")) return false;
    if (!ok(cuCtxSynchronize(), "cuCtxSynchronize")) return false;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0 || s < r.seconds) r.seconds = s;
  }
  tsim::Counters c;
  if (!ok(tesseraSimGetLaunchCounters(&c, sizeof c), "tesseraSimGetLaunchCounters")) return false;
  r.threadInstructions = c.threadInstructions;
  r.warpInstructions = c.warpInstructions;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  CUcontext ctx;
  CUmodule mod;
  CUfunction reduce, matmul;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDevicePrimaryCtxRetain(&ctx, 0), "retain") ||
      !ok(cuCtxSetCurrent(ctx), "set current") || !ok(cuModuleLoadData(&mod, kPtx), "module load") ||
      !ok(cuModuleGetFunction(&reduce, mod, "reduce"), "reduce") ||
      !ok(cuModuleGetFunction(&matmul, mod, "matmul"), "matmul"))
    return 1;

  std::vector<Result> results;
  // Checkers off first: initcheck's write tracking, once on, stays on for later allocations.
  const struct { const char* name; unsigned flags; } configs[] = {
      {"off", 0}, {"racecheck", 1}, {"synccheck", 2}, {"initcheck", 4}, {"all three", 7}};
  for (const auto& cfg : configs) {
  if (!ok(tesseraSimSetSanitize(cfg.flags), "tesseraSimSetSanitize")) return 1;
  {
    const unsigned n = 1 << 22, blocks = 256, threads = 256;
    std::vector<float> host(n, 1.0f);
    CUdeviceptr in, out;
    if (!ok(cuMemAlloc(&in, n * 4), "alloc") || !ok(cuMemAlloc(&out, blocks * 4), "alloc") ||
        !ok(cuMemcpyHtoD(in, host.data(), n * 4), "copy"))
      return 1;
    unsigned count = n;
    void* args[] = {&in, &out, &count};
    Result r{"reduce f32 (4M elements, 256x256 threads)", cfg.name};
    if (!measure(reduce, blocks, 1, threads, 1, args, 5, r)) return 1;
    results.push_back(r);
    cuMemFree(in);
    cuMemFree(out);
  }
  {
    const unsigned n = 128;
    std::vector<float> host(n * n, 0.5f);
    CUdeviceptr a, b, c;
    if (!ok(cuMemAlloc(&a, n * n * 4), "alloc") || !ok(cuMemAlloc(&b, n * n * 4), "alloc") ||
        !ok(cuMemAlloc(&c, n * n * 4), "alloc") || !ok(cuMemcpyHtoD(a, host.data(), n * n * 4), "copy") ||
        !ok(cuMemcpyHtoD(b, host.data(), n * n * 4), "copy"))
      return 1;
    unsigned count = n;
    void* args[] = {&a, &b, &c, &count};
    Result r{"matmul f32 naive (128x128x128, 16x16 blocks)", cfg.name};
    if (!measure(matmul, n / 16, n / 16, 16, 16, args, 5, r)) return 1;
    results.push_back(r);
    cuMemFree(a);
    cuMemFree(b);
    cuMemFree(c);
  }
  }
  tesseraSimSetSanitize(0);

  const char* env = std::getenv("TESSERA_SIM_THREADS");
  unsigned cores = env && std::atoi(env) > 0 ? static_cast<unsigned>(std::atoi(env)) : std::thread::hardware_concurrency();
  if (cores == 0) cores = 1;
  if (json) std::printf("{\"device\":\"sim (CPU, no GPU)\",\"workerThreads\":%u,\"results\":[", cores);
  else std::printf("sim_bench: simulated throughput on the CPU (no GPU), %u worker thread(s)\n", cores);
  for (size_t i = 0; i < results.size(); i++) {
    const Result& r = results[i];
    double rate = r.threadInstructions / r.seconds;
    if (json)
      std::printf("%s{\"name\":\"%s\",\"checkers\":\"%s\",\"seconds\":%.6f,\"threadInstructions\":%llu,\"threadInstrPerSec\":%.0f,"
                  "\"threadInstrPerSecPerCore\":%.0f}",
                  i ? "," : "", r.name.c_str(), r.checkers.c_str(), r.seconds, static_cast<unsigned long long>(r.threadInstructions), rate,
                  rate / cores);
    else
      std::printf("  %-48s %-10s %8.3f s  %12llu thread-instr  %8.1f M/s  (%6.1f M/s per core)\n", r.name.c_str(),
                  r.checkers.c_str(), r.seconds, static_cast<unsigned long long>(r.threadInstructions), rate / 1e6, rate / 1e6 / cores);
  }
  if (json) std::printf("]}\n");
  cuModuleUnload(mod);
  cuDevicePrimaryCtxRelease(0);
  return 0;
}
