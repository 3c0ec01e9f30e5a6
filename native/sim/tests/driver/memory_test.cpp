// Allocation, copies, memsets and pointer attributes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));

  size_t free0 = 0, total = 0;
  CHECK_OK(cuMemGetInfo(&free0, &total));
  CHECK(free0 <= total && total > 0);

  CUdeviceptr a = 0, b = 0;
  CHECK_CU(cuMemAlloc(&a, 0), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemAlloc(&a, total + 1), CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_CU(cuMemAlloc(&a, ~size_t(0)), CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_OK(cuMemAlloc(&a, 1000));
  CHECK_OK(cuMemAlloc(&b, 1000));
  CHECK(a % 256 == 0 && b % 256 == 0 && a != b);
  size_t free1 = 0;
  CHECK_OK(cuMemGetInfo(&free1, &total));
  CHECK(free1 < free0);

  // Round trips through every copy direction.
  std::vector<uint8_t> src(1000), dst(1000, 0);
  for (size_t i = 0; i < src.size(); i++) src[i] = static_cast<uint8_t>(i * 7 + 3);
  CHECK_OK(cuMemcpyHtoD(a, src.data(), src.size()));
  CHECK_OK(cuMemcpyDtoD(b, a, 1000));
  CHECK_OK(cuMemcpyDtoH(dst.data(), b, dst.size()));
  CHECK(dst == src);
  CHECK_OK(cuMemcpyDtoH(dst.data(), a + 10, 20));
  CHECK(std::memcmp(dst.data(), src.data() + 10, 20) == 0);

  // Copies must stay inside one allocation.
  CHECK_CU(cuMemcpyHtoD(a, src.data(), 1001), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemcpyDtoH(dst.data(), a + 999, 2), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemcpyDtoH(dst.data(), 0x1234, 4), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(src.data()), src.data(), 4), CUDA_ERROR_INVALID_VALUE);

  // Memsets: element patterns, alignment rules, partial ranges.
  CHECK_OK(cuMemsetD8(a, 0xab, 1000));
  CHECK_OK(cuMemcpyDtoH(dst.data(), a, 1000));
  bool allAb = true;
  for (uint8_t x : dst) allAb = allAb && x == 0xab;
  CHECK(allAb);
  CHECK_OK(cuMemsetD16(a + 2, 0x1234, 3));
  CHECK_OK(cuMemsetD32(a + 8, 0xdeadbeefu, 2));
  CHECK_OK(cuMemcpyDtoH(dst.data(), a, 16));
  uint16_t h[3];
  uint32_t w[2];
  std::memcpy(h, dst.data() + 2, 6);
  std::memcpy(w, dst.data() + 8, 8);
  CHECK(dst[0] == 0xab && dst[1] == 0xab);
  CHECK(h[0] == 0x1234 && h[1] == 0x1234 && h[2] == 0x1234);
  CHECK(w[0] == 0xdeadbeefu && w[1] == 0xdeadbeefu);
  CHECK_CU(cuMemsetD16(a + 1, 1, 1), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemsetD32(a + 2, 1, 1), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemsetD32(a, 1, 251), CUDA_ERROR_INVALID_VALUE);  // 1004 bytes > 1000

  // Async variants in a stream, in order.
  CUstream s;
  CHECK_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  std::vector<uint8_t> pattern(1000, 0x11);
  CHECK_OK(cuMemcpyHtoDAsync(a, pattern.data(), 1000, s));
  pattern.assign(1000, 0x22);  // an async host-to-device copy snapshots pageable memory
  CHECK_OK(cuMemsetD32Async(a, 0x05050505u, 4, s));
  CHECK_OK(cuMemcpyDtoDAsync(b, a, 1000, s));
  CHECK_OK(cuMemsetD8Async(b + 999, 0x7f, 1, s));
  CHECK_OK(cuMemsetD16Async(b + 100, 0x0909, 2, s));
  CHECK_OK(cuMemcpyDtoHAsync(dst.data(), b, 1000, s));
  CHECK_OK(cuStreamSynchronize(s));
  CHECK(dst[0] == 0x05 && dst[15] == 0x05 && dst[16] == 0x11 && dst[998] == 0x11 && dst[999] == 0x7f);
  CHECK(dst[100] == 0x09 && dst[103] == 0x09 && dst[104] == 0x11);
  CHECK_OK(cuStreamDestroy(s));

  // Pointer attributes.
  CUcontext owner = nullptr;
  CHECK_OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a + 5));
  CHECK(owner == ctx);
  unsigned memType = 0;
  CHECK_OK(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
  CHECK(memType == CU_MEMORYTYPE_DEVICE);
  CUdeviceptr start = 0;
  size_t rangeSize = 0;
  CHECK_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 123));
  CHECK_OK(cuPointerGetAttribute(&rangeSize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 123));
  CHECK(start == a && rangeSize == 1000);
  CHECK_CU(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 reinterpret_cast<CUdeviceptr>(src.data())),
           CUDA_ERROR_INVALID_VALUE);
  CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  int ordinal = 7;
  memType = 7;
  void* data[2] = {&memType, &ordinal};
  CHECK_OK(cuPointerGetAttributes(2, attrs, data, a));
  CHECK(memType == CU_MEMORYTYPE_DEVICE && ordinal == 0);
  CHECK_OK(cuPointerGetAttributes(2, attrs, data, reinterpret_cast<CUdeviceptr>(src.data())));
  CHECK(memType == 0);
  CUdeviceptr base = 0;
  size_t bytes = 0;
  CHECK_OK(cuMemGetAddressRange(&base, &bytes, b + 999));
  CHECK(base == b && bytes == 1000);
  CHECK_CU(cuMemGetAddressRange(&base, &bytes, b + 1000), CUDA_ERROR_NOT_FOUND);

  // Page-locked host memory: recognised by the pointer queries, usable for copies.
  void* pinned = nullptr;
  CHECK_OK(cuMemAllocHost(&pinned, 256));
  CHECK_OK(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(pinned) + 8));
  CHECK(memType == CU_MEMORYTYPE_HOST);
  std::memset(pinned, 0x3c, 256);
  CHECK_OK(cuMemcpyHtoD(b, pinned, 256));
  CHECK_OK(cuMemsetD8(b, 0, 1));
  CHECK_OK(cuMemcpyDtoH(pinned, b, 256));
  CHECK(static_cast<uint8_t*>(pinned)[0] == 0 && static_cast<uint8_t*>(pinned)[255] == 0x3c);
  CHECK_OK(cuMemFreeHost(pinned));
  CHECK_CU(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);

  // Free: once only, base addresses only; freed ranges are never handed out again.
  CHECK_CU(cuMemFree(a + 8), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuMemFree(a));
  CHECK_CU(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuMemcpyDtoH(dst.data(), a, 4), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr c = 0;
  CHECK_OK(cuMemAlloc(&c, 1000));
  CHECK(c != a);
  CHECK_OK(cuMemFree(0));  // freeing NULL is a no-op, as on the real driver
  CHECK_OK(cuMemFree(b));
  CHECK_OK(cuMemFree(c));
  size_t free2 = 0;
  CHECK_OK(cuMemGetInfo(&free2, &total));
  CHECK(free2 == free0);
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("memory_test");
}
