// Primary and created contexts, the current-context stack, and INVALID_CONTEXT conditions.
#include <thread>

#include "check.h"

int main() {
  CHECK_OK(cuInit(0));
  CUcontext cur = reinterpret_cast<CUcontext>(0x1);
  CHECK_OK(cuCtxGetCurrent(&cur));
  CHECK(cur == nullptr);
  CUdeviceptr p;
  CHECK_CU(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
  CUdevice d;
  CHECK_CU(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuCtxPopCurrent(&cur), CUDA_ERROR_INVALID_CONTEXT);

  // Primary context: retain twice gives the same handle, release below zero fails.
  CUcontext primary = nullptr, again = nullptr;
  CHECK_OK(cuDevicePrimaryCtxRetain(&primary, 0));
  CHECK_OK(cuDevicePrimaryCtxRetain(&again, 0));
  CHECK(primary != nullptr && primary == again);
  CHECK_CU(cuDevicePrimaryCtxRetain(&again, 1), CUDA_ERROR_INVALID_DEVICE);
  unsigned flags = 99;
  int active = 0;
  CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  CHECK(active == 1);
  CHECK_OK(cuCtxSetCurrent(primary));
  CHECK_OK(cuCtxGetCurrent(&cur));
  CHECK(cur == primary);
  CHECK_OK(cuCtxGetDevice(&d));
  CHECK(d == 0);
  CHECK_OK(cuMemAlloc(&p, 64));
  CHECK(p != 0);
  CHECK_OK(cuCtxSynchronize());

  // The current context is per thread.
  std::thread([&] {
    CUcontext other = reinterpret_cast<CUcontext>(0x1);
    CHECK_OK(cuCtxGetCurrent(&other));
    CHECK(other == nullptr);
    CUdeviceptr q;
    CHECK_CU(cuMemAlloc(&q, 16), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_OK(cuCtxSetCurrent(primary));
    CHECK_OK(cuMemAlloc(&q, 16));
    CHECK_OK(cuMemFree(q));
  }).join();

  // A created context is pushed; destroying it pops it and invalidates the handle.
  CUcontext created = nullptr;
  CHECK_OK(cuCtxCreate(&created, nullptr, 0, 0));
  CHECK_OK(cuCtxGetCurrent(&cur));
  CHECK(cur == created && created != primary);
  CUdeviceptr inCreated;
  CHECK_OK(cuMemAlloc(&inCreated, 32));
  CHECK_OK(cuCtxPopCurrent(&cur));
  CHECK(cur == created);
  CHECK_OK(cuCtxGetCurrent(&cur));
  CHECK(cur == primary);
  CHECK_OK(cuCtxPushCurrent(created));
  CHECK_OK(cuCtxDestroy(created));
  CHECK_OK(cuCtxGetCurrent(&cur));
  CHECK(cur == primary);
  CHECK_CU(cuCtxDestroy(created), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuCtxSetCurrent(created), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuCtxPushCurrent(created), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuCtxDestroy(primary), CUDA_ERROR_INVALID_CONTEXT);  // primary: release, not destroy
  CHECK_CU(cuCtxPushCurrent(nullptr), CUDA_ERROR_INVALID_CONTEXT);

  // Releasing the last reference deactivates the primary context: its memory is gone.
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  CHECK_OK(cuMemFree(p));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  CHECK(active == 0);
  CHECK_CU(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_CU(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
  CHECK_OK(cuDevicePrimaryCtxRetain(&again, 0));
  CHECK(again == primary);
  CHECK_OK(cuMemAlloc(&p, 16));

  // Reset frees every allocation of the primary context.
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_CU(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
  int least = 1, greatest = 1;
  CHECK_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
  CHECK(least == 0 && greatest < 0);
  size_t limit = 0;
  CHECK_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
  CHECK_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
  CHECK(limit == 4096);
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("context_test");
}
