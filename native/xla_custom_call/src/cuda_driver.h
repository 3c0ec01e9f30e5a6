// The CUDA driver API, found at run time (docs/xla.md, "The CUDA driver"): a driver the process
// already loaded, else $TESSERA_CUDA_LIB, $TESSERA_SIM_LIB, libcuda.so.1. Nothing is linked.
#pragma once
#include <cuda.h>

#include <string>
#include <vector>

#include "status.h"

namespace tx {

struct Driver {
  std::string path;  // where the entry points came from
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
  decltype(&::cuCtxGetDevice) CtxGetDevice = nullptr;
  decltype(&::cuCtxPushCurrent) CtxPushCurrent = nullptr;
  decltype(&::cuCtxPopCurrent) CtxPopCurrent = nullptr;
  decltype(&::cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) DevicePrimaryCtxRelease = nullptr;
  decltype(&::cuModuleLoadDataEx) ModuleLoadDataEx = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) FuncSetAttribute = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) MemcpyDtoH = nullptr;
};

// The driver, loaded once per process; an error says where it looked.
Status driver(const Driver** out);
// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"
Status cu_check(const Driver& d, CUresult r, const char* what);

// One image of a kernel: PTX text or a cubin for an SM.
struct Image {
  bool cubin = false;
  unsigned arch = 0;  // major*10+minor
  const unsigned char* data = nullptr;
  size_t size = 0;
};

// The module of these images in the current context, loaded on first use and kept for the
// process (keyed by context and the images' bytes). Picks a cubin for the device's SM, else the
// PTX; a refused image (the sim refuses cubins) falls through to the next.
Status module_for(const Driver& d, const std::vector<Image>& images, CUmodule* out, bool* cached);
void forget_module(CUmodule m);
// The entry `entry` of those images' module; a stale cached module is reloaded once.
Status function_in(const Driver& d, const std::vector<Image>& images, const std::string& entry, CUfunction* out);

// The context current on this thread, or an error naming the situation.
Status current_context(const Driver& d, CUcontext* out);

}  // namespace tx
