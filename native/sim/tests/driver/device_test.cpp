// Init, version, device queries, error names and cuGetProcAddress.
#include <cstdlib>
#include <cstring>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);

int main() {
  int count = -1;
  CUdevice dev = -1;
  CHECK_CU(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  CHECK_CU(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
  CUcontext ctx = nullptr;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
  CUdeviceptr p;
  CHECK_CU(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
  int version = 0;
  CHECK_OK(cuDriverGetVersion(&version));  // allowed before cuInit
  CHECK(version == 13000);
  CHECK_CU(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuInit(0));
  CHECK_OK(cuInit(0));  // idempotent

  CHECK_OK(cuDeviceGetCount(&count));
  CHECK(count == 1);
  CHECK_OK(cuDeviceGet(&dev, 0));
  CHECK_CU(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
  CHECK_CU(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
  CHECK_CU(cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  dev = 0;

  char name[128] = {};
  CHECK_OK(cuDeviceGetName(name, sizeof name, dev));
  CHECK(std::strstr(name, "sm_") != nullptr);
  char tiny[4];
  CHECK_OK(cuDeviceGetName(tiny, sizeof tiny, dev));
  CHECK(std::strlen(tiny) == 3);
  CHECK_CU(cuDeviceGetName(name, sizeof name, 3), CUDA_ERROR_INVALID_DEVICE);

  const char* arch = std::getenv("TESSERA_SIM_ARCH");
  const bool blackwell = arch && std::strcmp(arch, "sm_100") == 0;
  const bool hopper = (arch && std::strcmp(arch, "sm_90") == 0) || blackwell;  // the limits B200 shares with H100
  const bool ada = arch && std::strcmp(arch, "sm_89") == 0;
  auto attr = [&](CUdevice_attribute a) {
    int v = -12345;
    CHECK_OK(cuDeviceGetAttribute(&v, a, dev));
    return v;
  };
  CHECK(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) == (blackwell ? 10 : hopper ? 9 : 8));
  CHECK(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) == (ada ? 9 : 0));
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) == (hopper ? 228 : ada ? 100 : 164) * 1024);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) == (hopper ? 1 : 0));
  CHECK(attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE) == 32);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z) == 64);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK) == 48 * 1024);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) == (hopper ? 227 : ada ? 99 : 163) * 1024);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) == (blackwell ? 148 : hopper ? 132 : ada ? 142 : 108));
  CHECK(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) == (blackwell ? 126 : hopper ? 50 : ada ? 48 : 40) * 1024 * 1024);
  CHECK(std::strstr(name, blackwell ? "(sm_100)" : hopper ? "(sm_90)" : ada ? "(sm_89)" : "(sm_80)") != nullptr);
  CHECK(attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) == 1);
  int v;
  CHECK_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, dev), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_ERROR_INVALID_DEVICE);

  size_t total = 0;
  CHECK_OK(cuDeviceTotalMem(&total, dev));
  CHECK(total >= (size_t(1) << 30));
  CUuuid a, b;
  CHECK_OK(cuDeviceGetUuid(&a, dev));
  CHECK_OK(cuDeviceGetUuid(&b, dev));
  CHECK(std::memcmp(a.bytes, b.bytes, 16) == 0);

  // Error names and strings.
  const char* s = nullptr;
  CHECK_OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
  CHECK(s && std::strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
  CHECK_OK(cuGetErrorName(CUDA_SUCCESS, &s));
  CHECK(s && std::strcmp(s, "CUDA_SUCCESS") == 0);
  CHECK_OK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
  CHECK(s && std::strcmp(s, "invalid argument") == 0);
  CHECK_OK(cuGetErrorString(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, &s));
  CHECK(s && std::strlen(s) > 0);
  CHECK_CU(cuGetErrorName(static_cast<CUresult>(123456), &s), CUDA_ERROR_INVALID_VALUE);
  CHECK(s == nullptr);

  // cuGetProcAddress: same entry points as the exported symbols, versioned names resolved.
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  CHECK_OK(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuMemAlloc_v2));
  CHECK(status == CU_GET_PROC_ADDRESS_SUCCESS);
  CHECK_OK(cuGetProcAddress("cuLaunchKernel", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuLaunchKernel));
  CHECK_OK(cuGetProcAddress("cuCtxCreate", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  CHECK(fn == reinterpret_cast<void*>(&cuCtxCreate_v4));
  CHECK_OK(cuGetProcAddress("cuDeviceGetCount", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  int viaPtr = 0;
  CHECK_OK(reinterpret_cast<CUresult (*)(int*)>(fn)(&viaPtr));
  CHECK(viaPtr == 1);
  CHECK_CU(cuGetProcAddress("cuNoSuchThing", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_ERROR_NOT_FOUND);
  CHECK(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && fn == nullptr);
  CHECK_CU(cuGetProcAddress("cuLaunchKernelEx", &fn, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_ERROR_NOT_FOUND);
  CHECK(status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK_CU(cuGetProcAddress(nullptr, &fn, 13000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuGetProcAddress("cuInit", &fn, 13000, 0x80, &status), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuGetProcAddress("tesseraSimGetLastFault", &fn, 13000, 0, &status));
  CHECK(fn == reinterpret_cast<void*>(&tesseraSimGetLastFault));
  return tcheck::finish("device_test");
}
