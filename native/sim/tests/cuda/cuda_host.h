// Host side of the CUDA C++ kernel tests: loads the nvcc-generated PTX (TSIM_PTX_PATH, set by
// CMake) into the primary context of the sim, and small helpers for buffers and launches.
#pragma once
#include <cstdint>
#include <vector>

#include "check.h"

namespace cudatest {

struct Session {
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  bool ok = false;

  Session() {
    CHECK_OK(cuInit(0));
    CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK_OK(cuCtxSetCurrent(ctx));
    std::string ptx = tcheck::readFile(TSIM_PTX_PATH);
    CHECK(!ptx.empty());
    char log[4096] = {};
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[2] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log))};
    CUresult r = cuModuleLoadDataEx(&mod, ptx.c_str(), 2, opts, vals);
    CHECK_OK(r);
    if (r != CUDA_SUCCESS) std::fprintf(stderr, "module load log:\n%s\n", log);
    ok = r == CUDA_SUCCESS;
  }
  ~Session() {
    if (mod) cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(0);
  }
  CUfunction fn(const char* name) {
    CUfunction f = nullptr;
    CHECK_OK(cuModuleGetFunction(&f, mod, name));
    return f;
  }
};

template <typename T>
struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t count = 0;
  explicit DeviceBuffer(const std::vector<T>& host) : count(host.size()) {
    CHECK_OK(cuMemAlloc(&ptr, count * sizeof(T)));
    CHECK_OK(cuMemcpyHtoD(ptr, host.data(), count * sizeof(T)));
  }
  explicit DeviceBuffer(size_t n) : count(n) {
    CHECK_OK(cuMemAlloc(&ptr, n * sizeof(T)));
    CHECK_OK(cuMemsetD8(ptr, 0, n * sizeof(T)));
  }
  ~DeviceBuffer() { cuMemFree(ptr); }
  std::vector<T> read() const {
    std::vector<T> out(count);
    CHECK_OK(cuMemcpyDtoH(out.data(), ptr, count * sizeof(T)));
    return out;
  }
};

// Launches and waits; returns the launch's first error.
inline CUresult run(CUfunction f, unsigned grid, unsigned block, unsigned shared, std::vector<void*> args) {
  CUresult r = cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, nullptr, args.data(), nullptr);
  if (r != CUDA_SUCCESS) return r;
  return cuCtxSynchronize();
}

// Deterministic pseudo-random numbers (xorshift), so failures reproduce.
struct Rng {
  uint32_t s = 2463534242u;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() >> 8) / 16777216.0f; }
};

}  // namespace cudatest
