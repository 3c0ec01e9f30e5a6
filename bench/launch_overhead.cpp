// The C baseline of the launch-overhead benchmark (bench/launch.ts): loads the sim driver library
// (argv[1]) with dlopen, loads an empty kernel with 8 parameters, and times N cuLaunchKernel calls
// plus one cuCtxSynchronize. Prints {"launches":N,"usPerLaunch":x} on stdout.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "../native/cuda/src/cuda_api.h"

using namespace tcu;

static const char kPtx[] = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry empty8(
  .param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
  .param .u64 p4, .param .u64 p5, .param .u64 p6, .param .u64 p7
)
{
  ret;
}
)";

template <class F>
static F sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    std::fprintf(stderr, "launch_overhead: missing %s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}

static void ok(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "launch_overhead: %s failed (%d)\n", what, r);
    std::exit(1);
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: launch_overhead LIBRARY N\n");
    return 2;
  }
  const long n = std::atol(argv[2]);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "launch_overhead: %s\n", dlerror());
    return 2;
  }
  auto init = sym<PFN_cuInit>(lib, "cuInit");
  auto devGet = sym<PFN_cuDeviceGet>(lib, "cuDeviceGet");
  auto retain = sym<PFN_cuDevicePrimaryCtxRetain>(lib, "cuDevicePrimaryCtxRetain");
  auto setCurrent = sym<PFN_cuCtxSetCurrent>(lib, "cuCtxSetCurrent");
  auto sync = sym<PFN_cuCtxSynchronize>(lib, "cuCtxSynchronize");
  auto load = sym<PFN_cuModuleLoadDataEx>(lib, "cuModuleLoadDataEx");
  auto getFn = sym<PFN_cuModuleGetFunction>(lib, "cuModuleGetFunction");
  auto launch = sym<PFN_cuLaunchKernel>(lib, "cuLaunchKernel");
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  ok(init(0), "cuInit");
  ok(devGet(&dev, 0), "cuDeviceGet");
  ok(retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  ok(setCurrent(ctx), "cuCtxSetCurrent");
  ok(load(&mod, kPtx, 0, nullptr, nullptr), "cuModuleLoadDataEx");
  ok(getFn(&fn, mod, "empty8"), "cuModuleGetFunction");
  unsigned long long args[8] = {};
  void* params[8];
  for (int i = 0; i < 8; ++i) params[i] = &args[i];
  for (int i = 0; i < 100; ++i) ok(launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), "warm-up");
  ok(sync(), "cuCtxSynchronize");
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) ok(launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
  ok(sync(), "cuCtxSynchronize");
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"launches\":%ld,\"usPerLaunch\":%.4f}\n", n, us / static_cast<double>(n));
  return 0;
}
