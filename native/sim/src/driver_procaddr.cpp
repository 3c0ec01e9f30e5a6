// cuGetProcAddress (both ABIs) and the older versioned entry points that real libcuda.so.1 still
// exports beside the current ones. cuda.h maps the plain names to the newest version with macros;
// they are undone here so the old symbols can be defined under their own names.
#include <cstring>
#include <string>
#include <unordered_map>

#include "driver_state.h"

#undef cuCtxCreate
#undef cuEventElapsedTime
#undef cuGetProcAddress
#undef cuDeviceGetUuid
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuStreamDestroy
#undef cuEventDestroy

CUresult tsimCreateContext(CUcontext* pctx, unsigned int flags, CUdevice dev);  // driver_context.cpp

TSIM_API CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return tsimCreateContext(pctx, flags, dev);
}
TSIM_API CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam* params, int numParams, unsigned int flags,
                                 CUdevice dev) {
  if (numParams > 0 || params) return CUDA_ERROR_NOT_SUPPORTED;
  return tsimCreateContext(pctx, flags, dev);
}
TSIM_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) { return cuEventElapsedTime_v2(ms, a, b); }
TSIM_API CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }
TSIM_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
TSIM_API CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
TSIM_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int f) { return cuDevicePrimaryCtxSetFlags_v2(dev, f); }
TSIM_API CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
TSIM_API CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
TSIM_API CUresult cuCtxPopCurrent(CUcontext* pctx) { return cuCtxPopCurrent_v2(pctx); }
TSIM_API CUresult cuStreamDestroy(CUstream s) { return cuStreamDestroy_v2(s); }
TSIM_API CUresult cuEventDestroy(CUevent e) { return cuEventDestroy_v2(e); }

// Entry points of the tessera-sim extensions (driver_launch.cpp).
extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);
extern "C" CUresult tesseraSimGetLaunchCounters(void* out, size_t size);
extern "C" CUresult tesseraSimSetInstructionBudget(uint64_t threadInstructions);
extern "C" CUresult tesseraSimGetDeviceSyncCount(unsigned long long* count);  // driver_graph.cpp
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);
extern "C" CUresult tesseraSimSetPrintCapture(unsigned long long tag);
extern "C" CUresult tesseraSimTakePrints(unsigned long long tag, void* buf, size_t* size, unsigned long long* dropped);
extern "C" CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                        CUdriverProcAddressQueryResult* symbolStatus);
extern "C" CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);

// Per-thread-default-stream variants (driver_ptsz.cpp); cuda.h declares them only for the driver's own build.
extern "C" {
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void*, size_t);
CUresult cuMemcpyDtoH_v2_ptds(void*, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpy_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemsetD8_v2_ptds(CUdeviceptr, unsigned char, size_t);
CUresult cuMemsetD16_v2_ptds(CUdeviceptr, unsigned short, size_t);
CUresult cuMemsetD32_v2_ptds(CUdeviceptr, unsigned int, size_t);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void*, size_t, CUstream);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void*, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemsetD8Async_ptsz(CUdeviceptr, unsigned char, size_t, CUstream);
CUresult cuMemsetD16Async_ptsz(CUdeviceptr, unsigned short, size_t, CUstream);
CUresult cuMemsetD32Async_ptsz(CUdeviceptr, unsigned int, size_t, CUstream);
CUresult cuStreamSynchronize_ptsz(CUstream);
CUresult cuStreamQuery_ptsz(CUstream);
CUresult cuStreamGetFlags_ptsz(CUstream, unsigned int*);
CUresult cuStreamGetPriority_ptsz(CUstream, int*);
CUresult cuStreamGetCtx_ptsz(CUstream, CUcontext*);
CUresult cuStreamWaitEvent_ptsz(CUstream, CUevent, unsigned int);
CUresult cuStreamAddCallback_ptsz(CUstream, CUstreamCallback, void*, unsigned int);
CUresult cuEventRecord_ptsz(CUevent, CUstream);
CUresult cuEventRecordWithFlags_ptsz(CUevent, CUstream, unsigned int);
CUresult cuLaunchHostFunc_ptsz(CUstream, CUhostFn, void*);
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, CUstream, void**, void**);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig*, CUfunction, void**, void**);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                                        unsigned int, unsigned int, unsigned int, CUstream, void**);
}

// The table lists deprecated entry points too (cuDeviceComputeCapability): they are still exported.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

struct Proc {
  void* fn;
  int minVersion;  // first CUDA version (1000*major + 10*minor) that has the entry point
};

// `cudaVersion` picks among versions where the ABI changed, as the real driver does.
void* versioned(const std::string& name, int v) {
  if (name == "cuCtxCreate")
    return v >= 12050 ? reinterpret_cast<void*>(&cuCtxCreate_v4)
                      : v >= 11040 ? reinterpret_cast<void*>(&cuCtxCreate_v3) : reinterpret_cast<void*>(&cuCtxCreate_v2);
  if (name == "cuEventElapsedTime")
    return v >= 12080 ? reinterpret_cast<void*>(&cuEventElapsedTime_v2) : reinterpret_cast<void*>(&cuEventElapsedTime);
  if (name == "cuGetProcAddress")
    return v >= 12000 ? reinterpret_cast<void*>(&cuGetProcAddress_v2) : reinterpret_cast<void*>(&cuGetProcAddress);
  if (name == "cuDeviceGetUuid")
    return v >= 11040 ? reinterpret_cast<void*>(&cuDeviceGetUuid_v2) : reinterpret_cast<void*>(&cuDeviceGetUuid);
  return nullptr;
}

#define P(name, fn, ver) {name, {reinterpret_cast<void*>(&fn), ver}}
const std::unordered_map<std::string, Proc>& table() {
  static const std::unordered_map<std::string, Proc> t = {
      P("cuInit", cuInit, 2000),
      P("cuDriverGetVersion", cuDriverGetVersion, 2020),
      P("cuDeviceGetCount", cuDeviceGetCount, 2000),
      P("cuDeviceGet", cuDeviceGet, 2000),
      P("cuDeviceGetName", cuDeviceGetName, 2000),
      P("cuDeviceGetAttribute", cuDeviceGetAttribute, 2000),
      P("cuDeviceTotalMem", cuDeviceTotalMem_v2, 3020),
      P("cuDeviceComputeCapability", cuDeviceComputeCapability, 2000),
      P("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, 7000),
      P("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2, 7000),
      P("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset_v2, 7000),
      P("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState, 7000),
      P("cuDevicePrimaryCtxSetFlags", cuDevicePrimaryCtxSetFlags_v2, 7000),
      P("cuCtxDestroy", cuCtxDestroy_v2, 4000),
      P("cuCtxSetCurrent", cuCtxSetCurrent, 4000),
      P("cuCtxGetCurrent", cuCtxGetCurrent, 4000),
      P("cuCtxPushCurrent", cuCtxPushCurrent_v2, 4000),
      P("cuCtxPopCurrent", cuCtxPopCurrent_v2, 4000),
      P("cuCtxGetDevice", cuCtxGetDevice, 2000),
      P("cuCtxGetFlags", cuCtxGetFlags, 7000),
      P("cuCtxGetApiVersion", cuCtxGetApiVersion, 3020),
      P("cuCtxSynchronize", cuCtxSynchronize, 2000),
      P("cuCtxGetStreamPriorityRange", cuCtxGetStreamPriorityRange, 5050),
      P("cuCtxSetLimit", cuCtxSetLimit, 3010),
      P("cuCtxGetLimit", cuCtxGetLimit, 3010),
      P("cuModuleLoad", cuModuleLoad, 2000),
      P("cuModuleLoadData", cuModuleLoadData, 2000),
      P("cuModuleLoadDataEx", cuModuleLoadDataEx, 2010),
      P("cuModuleUnload", cuModuleUnload, 2000),
      P("cuModuleGetFunction", cuModuleGetFunction, 2000),
      P("cuModuleGetGlobal", cuModuleGetGlobal_v2, 3020),
      P("cuFuncGetAttribute", cuFuncGetAttribute, 2020),
      P("cuFuncSetAttribute", cuFuncSetAttribute, 9000),
      P("cuFuncSetCacheConfig", cuFuncSetCacheConfig, 3000),
      P("cuFuncGetName", cuFuncGetName, 12030),
      P("cuFuncGetModule", cuFuncGetModule, 11000),
      P("cuMemAlloc", cuMemAlloc_v2, 3020),
      P("cuMemFree", cuMemFree_v2, 3020),
      P("cuMemGetInfo", cuMemGetInfo_v2, 3020),
      P("cuMemGetAddressRange", cuMemGetAddressRange_v2, 3020),
      P("cuMemcpy", cuMemcpy, 4000),
      P("cuMemAllocHost", cuMemAllocHost_v2, 3020),
      P("cuMemHostAlloc", cuMemHostAlloc, 2020),
      P("cuMemFreeHost", cuMemFreeHost, 2000),
      P("cuMemcpyAsync", cuMemcpyAsync, 4000),
      P("cuMemcpyHtoD", cuMemcpyHtoD_v2, 3020),
      P("cuMemcpyDtoH", cuMemcpyDtoH_v2, 3020),
      P("cuMemcpyDtoD", cuMemcpyDtoD_v2, 3020),
      P("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2, 3020),
      P("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync_v2, 3020),
      P("cuMemcpyDtoDAsync", cuMemcpyDtoDAsync_v2, 3020),
      P("cuMemsetD8", cuMemsetD8_v2, 3020),
      P("cuMemsetD16", cuMemsetD16_v2, 3020),
      P("cuMemsetD32", cuMemsetD32_v2, 3020),
      P("cuMemsetD8Async", cuMemsetD8Async, 3020),
      P("cuMemsetD16Async", cuMemsetD16Async, 3020),
      P("cuMemsetD32Async", cuMemsetD32Async, 3020),
      P("cuPointerGetAttribute", cuPointerGetAttribute, 4000),
      P("cuPointerGetAttributes", cuPointerGetAttributes, 7000),
      P("cuStreamCreate", cuStreamCreate, 2000),
      P("cuStreamCreateWithPriority", cuStreamCreateWithPriority, 5050),
      P("cuStreamDestroy", cuStreamDestroy_v2, 4000),
      P("cuStreamSynchronize", cuStreamSynchronize, 2000),
      P("cuStreamQuery", cuStreamQuery, 2000),
      P("cuStreamWaitEvent", cuStreamWaitEvent, 3020),
      P("cuStreamGetFlags", cuStreamGetFlags, 5050),
      P("cuStreamGetPriority", cuStreamGetPriority, 5050),
      P("cuStreamGetCtx", cuStreamGetCtx, 9020),
      P("cuEventCreate", cuEventCreate, 2000),
      P("cuEventRecord", cuEventRecord, 2000),
      P("cuEventRecordWithFlags", cuEventRecordWithFlags, 11010),
      P("cuEventQuery", cuEventQuery, 2000),
      P("cuEventSynchronize", cuEventSynchronize, 2000),
      P("cuEventDestroy", cuEventDestroy_v2, 4000),
      P("cuLaunchKernel", cuLaunchKernel, 4000),
      P("cuLaunchKernelEx", cuLaunchKernelEx, 11060),
      P("cuTensorMapEncodeTiled", cuTensorMapEncodeTiled, 12000),
      P("cuTensorMapEncodeIm2col", cuTensorMapEncodeIm2col, 12000),
      P("cuTensorMapEncodeIm2colWide", cuTensorMapEncodeIm2colWide, 12080),
      P("cuLaunchCooperativeKernel", cuLaunchCooperativeKernel, 9000),
      P("cuLaunchHostFunc", cuLaunchHostFunc, 10000),
      P("cuStreamAddCallback", cuStreamAddCallback, 5000),
      P("cuOccupancyMaxActiveBlocksPerMultiprocessor", cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050),
      P("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000),
      P("cuOccupancyMaxActiveClusters", cuOccupancyMaxActiveClusters, 11070),
      P("cuOccupancyMaxPotentialClusterSize", cuOccupancyMaxPotentialClusterSize, 11070),
      P("cuGetErrorName", cuGetErrorName, 6000),
      P("cuGetErrorString", cuGetErrorString, 6000),
      P("cuMemcpyHtoD_v2_ptds", cuMemcpyHtoD_v2_ptds, 7000),
      P("cuMemcpyDtoH_v2_ptds", cuMemcpyDtoH_v2_ptds, 7000),
      P("cuMemcpyDtoD_v2_ptds", cuMemcpyDtoD_v2_ptds, 7000),
      P("cuMemcpy_ptds", cuMemcpy_ptds, 7000),
      P("cuMemsetD8_v2_ptds", cuMemsetD8_v2_ptds, 7000),
      P("cuMemsetD16_v2_ptds", cuMemsetD16_v2_ptds, 7000),
      P("cuMemsetD32_v2_ptds", cuMemsetD32_v2_ptds, 7000),
      P("cuMemcpyHtoDAsync_v2_ptsz", cuMemcpyHtoDAsync_v2_ptsz, 7000),
      P("cuMemcpyDtoHAsync_v2_ptsz", cuMemcpyDtoHAsync_v2_ptsz, 7000),
      P("cuMemcpyDtoDAsync_v2_ptsz", cuMemcpyDtoDAsync_v2_ptsz, 7000),
      P("cuMemcpyAsync_ptsz", cuMemcpyAsync_ptsz, 7000),
      P("cuMemsetD8Async_ptsz", cuMemsetD8Async_ptsz, 7000),
      P("cuMemsetD16Async_ptsz", cuMemsetD16Async_ptsz, 7000),
      P("cuMemsetD32Async_ptsz", cuMemsetD32Async_ptsz, 7000),
      P("cuStreamSynchronize_ptsz", cuStreamSynchronize_ptsz, 7000),
      P("cuStreamQuery_ptsz", cuStreamQuery_ptsz, 7000),
      P("cuStreamGetFlags_ptsz", cuStreamGetFlags_ptsz, 7000),
      P("cuStreamGetPriority_ptsz", cuStreamGetPriority_ptsz, 7000),
      P("cuStreamGetCtx_ptsz", cuStreamGetCtx_ptsz, 9020),
      P("cuStreamWaitEvent_ptsz", cuStreamWaitEvent_ptsz, 7000),
      P("cuStreamAddCallback_ptsz", cuStreamAddCallback_ptsz, 7000),
      P("cuEventRecord_ptsz", cuEventRecord_ptsz, 7000),
      P("cuEventRecordWithFlags_ptsz", cuEventRecordWithFlags_ptsz, 11010),
      P("cuLaunchHostFunc_ptsz", cuLaunchHostFunc_ptsz, 10000),
      P("cuLaunchKernel_ptsz", cuLaunchKernel_ptsz, 7000),
      P("cuLaunchKernelEx_ptsz", cuLaunchKernelEx_ptsz, 11060),
      P("cuLaunchCooperativeKernel_ptsz", cuLaunchCooperativeKernel_ptsz, 9000),
      P("tesseraSimGetLastFault", tesseraSimGetLastFault, 2000),
      P("tesseraSimGetLaunchCounters", tesseraSimGetLaunchCounters, 2000),
      P("tesseraSimSetInstructionBudget", tesseraSimSetInstructionBudget, 2000),
      // memory pools and peers (driver_pool.cpp), stream capture and graphs (driver_graph.cpp)
      P("cuMemPoolCreate", cuMemPoolCreate, 11020), P("cuMemPoolDestroy", cuMemPoolDestroy, 11020),
      P("cuDeviceGetDefaultMemPool", cuDeviceGetDefaultMemPool, 11020),
      P("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync, 11020), P("cuMemAllocAsync", cuMemAllocAsync, 11020),
      P("cuMemFreeAsync", cuMemFreeAsync, 11020), P("cuMemPoolTrimTo", cuMemPoolTrimTo, 11020),
      P("cuMemPoolSetAttribute", cuMemPoolSetAttribute, 11020), P("cuMemPoolGetAttribute", cuMemPoolGetAttribute, 11020),
      P("cuDeviceCanAccessPeer", cuDeviceCanAccessPeer, 4000), P("cuCtxEnablePeerAccess", cuCtxEnablePeerAccess, 4000),
      P("cuMemcpyPeer", cuMemcpyPeer, 4000), P("cuMemcpyPeerAsync", cuMemcpyPeerAsync, 4000),
      P("cuStreamBeginCapture", cuStreamBeginCapture_v2, 10010), P("cuStreamEndCapture", cuStreamEndCapture, 10000),
      P("cuStreamIsCapturing", cuStreamIsCapturing, 10000), P("cuGraphGetNodes", cuGraphGetNodes, 10000),
      P("cuGraphInstantiate", cuGraphInstantiateWithFlags, 12000),
      P("cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags, 11040), P("cuGraphLaunch", cuGraphLaunch, 10000),
      P("cuGraphExecDestroy", cuGraphExecDestroy, 10000), P("cuGraphDestroy", cuGraphDestroy, 10000),
      P("tesseraSimGetDeviceSyncCount", tesseraSimGetDeviceSyncCount, 2000),
      P("tesseraSimSetSanitize", tesseraSimSetSanitize, 2000),
      P("tesseraSimSetPrintCapture", tesseraSimSetPrintCapture, 2000),
      P("tesseraSimTakePrints", tesseraSimTakePrints, 2000),
  };
  return t;
}
#undef P

// Names whose per-thread-default-stream variant differs (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM).
const std::unordered_map<std::string, const char*>& perThreadNames() {
  static const std::unordered_map<std::string, const char*> t = {
      {"cuMemcpyHtoD", "cuMemcpyHtoD_v2_ptds"}, {"cuMemcpyDtoH", "cuMemcpyDtoH_v2_ptds"},
      {"cuMemcpyDtoD", "cuMemcpyDtoD_v2_ptds"}, {"cuMemcpy", "cuMemcpy_ptds"},
      {"cuMemsetD8", "cuMemsetD8_v2_ptds"}, {"cuMemsetD16", "cuMemsetD16_v2_ptds"},
      {"cuMemsetD32", "cuMemsetD32_v2_ptds"}, {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2_ptsz"},
      {"cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2_ptsz"}, {"cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2_ptsz"},
      {"cuMemcpyAsync", "cuMemcpyAsync_ptsz"}, {"cuMemsetD8Async", "cuMemsetD8Async_ptsz"},
      {"cuMemsetD16Async", "cuMemsetD16Async_ptsz"}, {"cuMemsetD32Async", "cuMemsetD32Async_ptsz"},
      {"cuStreamSynchronize", "cuStreamSynchronize_ptsz"}, {"cuStreamQuery", "cuStreamQuery_ptsz"},
      {"cuStreamGetFlags", "cuStreamGetFlags_ptsz"}, {"cuStreamGetPriority", "cuStreamGetPriority_ptsz"},
      {"cuStreamGetCtx", "cuStreamGetCtx_ptsz"}, {"cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"},
      {"cuStreamAddCallback", "cuStreamAddCallback_ptsz"}, {"cuEventRecord", "cuEventRecord_ptsz"},
      {"cuEventRecordWithFlags", "cuEventRecordWithFlags_ptsz"}, {"cuLaunchHostFunc", "cuLaunchHostFunc_ptsz"},
      {"cuLaunchKernel", "cuLaunchKernel_ptsz"}, {"cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
      {"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz"},
  };
  return t;
}

}  // namespace

TSIM_API CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                      CUdriverProcAddressQueryResult* symbolStatus) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if (flags & ~known) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const std::string name(symbol);
  if (void* fn = versioned(name, cudaVersion)) {
    *pfn = fn;
    if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  auto it = table().find(name);
  if (it != table().end() && (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)) {
    auto pt = perThreadNames().find(name);
    if (pt != perThreadNames().end()) it = table().find(pt->second);
  }
  if (it == table().end()) {
    if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  if (cudaVersion < it->second.minVersion) {
    if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = it->second.fn;
  if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

// The CUDA 11.3-11.8 ABI: no status out-parameter.
TSIM_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, nullptr);
}
