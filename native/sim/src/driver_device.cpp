// cuInit, versions and the (single) simulated device.
#include <cstring>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {
CUresult checkDevice(CUdevice dev) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  return dev >= 0 && dev < Driver::get().deviceCount ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// Attribute values of an A100 (sm_80), H100 (sm_90) or B200 (sm_100); limits the launch checks
// enforce. (Tensor memory has no attribute: a B200 SM has 512 columns, DeviceProps::tmemColumns.)
bool attributeValue(CUdevice_attribute a, const tsimdrv::DeviceProps& p, int& v) {
  const bool hopper = p.major >= 9, blackwell = p.major >= 10;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = tsimdrv::kStaticSharedLimit; return true;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; return true;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = 65536; return true;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = blackwell ? 1965000 : hopper ? 1755000 : 1410000; return true;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; return true;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = p.smCount; return true;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = CU_COMPUTEMODE_DEFAULT; return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0; return true;  // the same for every device (see the UUID)
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = blackwell ? 3996000 : hopper ? 2619000 : 1215000; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = blackwell ? 8192 : 5120; return true;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = p.l2Bytes; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = 2048; return true;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = 2; return true;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = p.major; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = p.minor; return true;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = p.sharedPerSm; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = 65536; return true;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = p.sharedOptin; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: v = hopper ? 1 : 0; return true;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: v = hopper ? 32505856 : 31457280; return true;
    default: break;
  }
  if (a > 0 && a < CU_DEVICE_ATTRIBUTE_MAX) { v = 0; return true; }  // a feature the sim lacks
  return false;
}
}  // namespace

TSIM_API CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  Driver::get().initOnce();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = 13000;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGetCount(int* count) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = Driver::get().deviceCount;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= Driver::get().deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (CUresult r = checkDevice(dev)) return r;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, Driver::get().props.name.c_str(), static_cast<size_t>(len) - 1);
  name[len - 1] = 0;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  if (CUresult r = checkDevice(dev)) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  int v = 0;
  if (!attributeValue(attrib, Driver::get().props, v)) return CUDA_ERROR_INVALID_VALUE;
  *pi = v;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  if (CUresult r = checkDevice(dev)) return r;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  *bytes = Driver::get().props.totalMem;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  if (CUresult r = checkDevice(dev)) return r;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  static const char bytes[16] = {'T', 'e', 's', 's', 'e', 'r', 'a', '-', 's', 'i', 'm', '-', 'd', 'e', 'v', '0'};
  std::memcpy(uuid->bytes, bytes, 16);
  uuid->bytes[15] = static_cast<char>('0' + dev);  // one UUID per device
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  if (CUresult r = checkDevice(dev)) return r;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  *major = Driver::get().props.major;
  *minor = Driver::get().props.minor;
  return CUDA_SUCCESS;
}
