// The slice of the CUDA driver API the addon uses, declared here so the addon builds without the
// CUDA toolkit (the driver is dlopen'ed at run time, never linked). Values follow cuda.h.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tcu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUmemoryPool = struct CUmemPoolHandle_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

// CUmemPoolProps (cuda.h's layout): a device-resident pool of pinned device memory.
struct CUmemPoolProps {
  int allocType;    // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int handleTypes;  // CU_MEM_HANDLE_TYPE_NONE = 0
  struct { int type; int id; } location;  // CU_MEM_LOCATION_TYPE_DEVICE = 1, device ordinal
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
// CUmemPool_attribute
enum PoolAttr : int {
  kPoolReleaseThreshold = 4,
  kPoolReservedMemCurrent = 5,
  kPoolReservedMemHigh = 6,
  kPoolUsedMemCurrent = 7,
  kPoolUsedMemHigh = 8,
};
constexpr int kStreamCaptureModeThreadLocal = 1;  // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUdevice_attribute
enum DeviceAttr : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedPerBlock = 8,
  kWarpSize = 10,
  kMultiprocessorCount = 16,
  kCcMajor = 75,
  kCcMinor = 76,
  kMaxSharedPerBlockOptin = 97,
};

// CUfunction_attribute
enum FuncAttr : int {
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncConstSizeBytes = 2,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
  kFuncPtxVersion = 5,
  kFuncBinaryVersion = 6,
  kFuncMaxDynamicSharedSizeBytes = 8,
};

// CUjit_option
enum JitOption : int {
  kJitInfoLogBuffer = 3,
  kJitInfoLogBufferSizeBytes = 4,
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSizeBytes = 6,
};

// The `extra` array form of cuLaunchKernel.
inline void* const kLaunchParamEnd = reinterpret_cast<void*>(0x00);
inline void* const kLaunchParamBufferPointer = reinterpret_cast<void*>(0x01);
inline void* const kLaunchParamBufferSize = reinterpret_cast<void*>(0x02);

// Entry-point signatures (cuda.h's, with our own type names).
using PFN_cuInit = CUresult (*)(unsigned);
using PFN_cuDriverGetVersion = CUresult (*)(int*);
using PFN_cuDeviceGetCount = CUresult (*)(int*);
using PFN_cuDeviceGet = CUresult (*)(CUdevice*, int);
using PFN_cuDeviceGetName = CUresult (*)(char*, int, CUdevice);
using PFN_cuDeviceGetAttribute = CUresult (*)(int*, int, CUdevice);
using PFN_cuDeviceTotalMem = CUresult (*)(size_t*, CUdevice);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext*, CUdevice);
using PFN_cuDevicePrimaryCtxRelease = CUresult (*)(CUdevice);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext);
using PFN_cuCtxSynchronize = CUresult (*)();
using PFN_cuGetErrorName = CUresult (*)(CUresult, const char**);
using PFN_cuGetErrorString = CUresult (*)(CUresult, const char**);
using PFN_cuMemGetInfo = CUresult (*)(size_t*, size_t*);
using PFN_cuMemAlloc = CUresult (*)(CUdeviceptr*, size_t);
using PFN_cuMemFree = CUresult (*)(CUdeviceptr);
using PFN_cuMemcpyHtoD = CUresult (*)(CUdeviceptr, const void*, size_t);
using PFN_cuMemcpyDtoH = CUresult (*)(void*, CUdeviceptr, size_t);
using PFN_cuMemcpyHtoDAsync = CUresult (*)(CUdeviceptr, const void*, size_t, CUstream);
using PFN_cuMemcpyDtoHAsync = CUresult (*)(void*, CUdeviceptr, size_t, CUstream);
using PFN_cuMemsetD8 = CUresult (*)(CUdeviceptr, unsigned char, size_t);
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule*, const void*, unsigned, int*, void**);
using PFN_cuModuleUnload = CUresult (*)(CUmodule);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction*, CUmodule, const char*);
using PFN_cuFuncGetAttribute = CUresult (*)(int*, int, CUfunction);
using PFN_cuFuncSetAttribute = CUresult (*)(CUfunction, int, int);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, CUstream, void**, void**);
// cuLaunchKernelEx's configuration (cuda.h's CUlaunchConfig / CUlaunchAttribute layouts): one
// attribute, the cluster dimension (sm_90 thread block clusters).
inline constexpr int kLaunchAttributeClusterDimension = 4;  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char raw[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  LaunchAttribute* attrs;
  unsigned numAttrs;
};
using PFN_cuLaunchKernelEx = CUresult (*)(const LaunchConfig*, CUfunction, void**, void**);
using PFN_cuStreamCreate = CUresult (*)(CUstream*, unsigned);
using PFN_cuStreamDestroy = CUresult (*)(CUstream);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream);
using PFN_cuEventCreate = CUresult (*)(CUevent*, unsigned);
using PFN_cuEventRecord = CUresult (*)(CUevent, CUstream);
using PFN_cuEventSynchronize = CUresult (*)(CUevent);
using PFN_cuEventElapsedTime = CUresult (*)(float*, CUevent, CUevent);
using PFN_cuEventDestroy = CUresult (*)(CUevent);
using PFN_cuEventQuery = CUresult (*)(CUevent);
using PFN_cuStreamWaitEvent = CUresult (*)(CUstream, CUevent, unsigned);
using PFN_cuMemcpyDtoD = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t);
using PFN_cuMemcpyDtoDAsync = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
using PFN_cuMemsetD8Async = CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream);
// Extensions exported only by the sim library (native/sim): the last launch fault report, the
// last launch's counters (a tsim::Counters, native/sim/src/sim.h), the per-launch budget.
// Stream-ordered pools, peers, capture and graphs.
using PFN_cuMemPoolCreate = CUresult (*)(CUmemoryPool*, const CUmemPoolProps*);
using PFN_cuMemPoolDestroy = CUresult (*)(CUmemoryPool);
using PFN_cuMemAllocFromPoolAsync = CUresult (*)(CUdeviceptr*, size_t, CUmemoryPool, CUstream);
using PFN_cuMemFreeAsync = CUresult (*)(CUdeviceptr, CUstream);
using PFN_cuMemPoolTrimTo = CUresult (*)(CUmemoryPool, size_t);
using PFN_cuMemPoolSetAttribute = CUresult (*)(CUmemoryPool, int, void*);
using PFN_cuMemPoolGetAttribute = CUresult (*)(CUmemoryPool, int, void*);
using PFN_cuDeviceCanAccessPeer = CUresult (*)(int*, CUdevice, CUdevice);
using PFN_cuMemcpyPeerAsync = CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
using PFN_cuStreamBeginCapture = CUresult (*)(CUstream, int);
using PFN_cuStreamEndCapture = CUresult (*)(CUstream, CUgraph*);
using PFN_cuStreamIsCapturing = CUresult (*)(CUstream, int*);
using PFN_cuGraphInstantiateWithFlags = CUresult (*)(CUgraphExec*, CUgraph, unsigned long long);
using PFN_cuGraphLaunch = CUresult (*)(CUgraphExec, CUstream);
using PFN_cuGraphExecDestroy = CUresult (*)(CUgraphExec);
using PFN_cuGraphDestroy = CUresult (*)(CUgraph);
// cuTensorMapEncodeTiled (cuda.h 12+): CUtensorMap is 128 bytes, 64-aligned; the enums as unsigned.
using PFN_cuTensorMapEncodeTiled = CUresult (*)(void*, unsigned, unsigned, void*, const unsigned long long*,
                                                const unsigned long long*, const unsigned*, const unsigned*,
                                                unsigned, unsigned, unsigned, unsigned);
using PFN_tesseraSimGetDeviceSyncCount = int (*)(unsigned long long*);
using PFN_tesseraSimGetLastFault = int (*)(char*, size_t);
using PFN_tesseraSimGetLaunchCounters = int (*)(void*, size_t);
using PFN_tesseraSimSetInstructionBudget = int (*)(uint64_t);
using PFN_tesseraSimSetSanitize = int (*)(unsigned);
using PFN_tesseraSimSetPrintCapture = int (*)(unsigned long long);
using PFN_tesseraSimTakePrints = int (*)(unsigned long long, void*, size_t*, unsigned long long*);

}  // namespace tcu
