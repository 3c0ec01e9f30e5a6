// A program built with CUDA_API_PER_THREAD_DEFAULT_STREAM: cuda.h maps its calls to the _ptds/_ptsz
// entry points, where the NULL stream is the per-thread default stream.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

namespace {
void push(void* p) { static_cast<std::vector<int>*>(p)->push_back(static_cast<int>(static_cast<std::vector<int>*>(p)->size())); }
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUdeviceptr d;
  CHECK_OK(cuMemAlloc(&d, 64));
  uint32_t in[16], out[16] = {};
  for (int i = 0; i < 16; i++) in[i] = 100 + i;
  CHECK_OK(cuMemcpyHtoD(d, in, sizeof in));          // cuMemcpyHtoD_v2_ptds
  CHECK_OK(cuMemsetD32Async(d, 7, 4, nullptr));       // cuMemsetD32Async_ptsz on the per-thread stream
  std::vector<int> order;
  CHECK_OK(cuLaunchHostFunc(nullptr, push, &order));  // cuLaunchHostFunc_ptsz
  CHECK_OK(cuMemcpyDtoHAsync(out, d, sizeof out, nullptr));
  CHECK_OK(cuStreamSynchronize(nullptr));             // cuStreamSynchronize_ptsz
  CHECK(out[0] == 7 && out[3] == 7 && out[4] == 104 && out[15] == 115);
  CHECK(order.size() == 1);
  CHECK_OK(cuMemsetD8(d, 1, 64));                     // cuMemsetD8_v2_ptds
  CHECK_OK(cuMemcpyDtoH(out, d, 4));
  CHECK(out[0] == 0x01010101u);
  CHECK_OK(cuStreamQuery(nullptr));

  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  CHECK_OK(cuGetProcAddress("cuLaunchKernel", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuLaunchKernel_ptsz));
  CHECK_OK(cuGetProcAddress("cuMemcpyHtoD", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuMemcpyHtoD_v2_ptds));
  CHECK_OK(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuMemAlloc_v2));
  CHECK_OK(cuMemFree(d));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("ptsz_test");
}
