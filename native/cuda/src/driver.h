// One opened driver library (libcuda.so.1 or the sim library): its entry points, device 0 and the
// retained primary context. Shared (std::shared_ptr) by the JS Driver object and by every resource
// created through it, so a resource can always free itself, whatever order the GC picks.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "cuda_api.h"

namespace tcu {

struct Api {
  PFN_cuInit cuInit = nullptr;
  PFN_cuDriverGetVersion cuDriverGetVersion = nullptr;
  PFN_cuDeviceGetCount cuDeviceGetCount = nullptr;
  PFN_cuDeviceGet cuDeviceGet = nullptr;
  PFN_cuDeviceGetName cuDeviceGetName = nullptr;
  PFN_cuDeviceGetAttribute cuDeviceGetAttribute = nullptr;
  PFN_cuDeviceTotalMem cuDeviceTotalMem = nullptr;
  PFN_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  PFN_cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease = nullptr;
  PFN_cuCtxSetCurrent cuCtxSetCurrent = nullptr;
  PFN_cuCtxSynchronize cuCtxSynchronize = nullptr;
  PFN_cuGetErrorName cuGetErrorName = nullptr;
  PFN_cuGetErrorString cuGetErrorString = nullptr;
  PFN_cuMemGetInfo cuMemGetInfo = nullptr;
  PFN_cuMemAlloc cuMemAlloc = nullptr;
  PFN_cuMemFree cuMemFree = nullptr;
  PFN_cuMemcpyHtoD cuMemcpyHtoD = nullptr;
  PFN_cuMemcpyDtoH cuMemcpyDtoH = nullptr;
  PFN_cuMemcpyHtoDAsync cuMemcpyHtoDAsync = nullptr;
  PFN_cuMemcpyDtoHAsync cuMemcpyDtoHAsync = nullptr;
  PFN_cuMemsetD8 cuMemsetD8 = nullptr;
  PFN_cuModuleLoadDataEx cuModuleLoadDataEx = nullptr;
  PFN_cuModuleUnload cuModuleUnload = nullptr;
  PFN_cuModuleGetFunction cuModuleGetFunction = nullptr;
  PFN_cuFuncGetAttribute cuFuncGetAttribute = nullptr;
  PFN_cuFuncSetAttribute cuFuncSetAttribute = nullptr;
  PFN_cuLaunchKernel cuLaunchKernel = nullptr;
  PFN_cuLaunchKernelEx cuLaunchKernelEx = nullptr;  // CUDA 11.8+: launches with a cluster shape
  PFN_cuStreamCreate cuStreamCreate = nullptr;
  PFN_cuStreamDestroy cuStreamDestroy = nullptr;
  PFN_cuStreamSynchronize cuStreamSynchronize = nullptr;
  PFN_cuEventCreate cuEventCreate = nullptr;
  PFN_cuEventRecord cuEventRecord = nullptr;
  PFN_cuEventSynchronize cuEventSynchronize = nullptr;
  PFN_cuEventElapsedTime cuEventElapsedTime = nullptr;
  PFN_cuEventDestroy cuEventDestroy = nullptr;
  PFN_cuEventQuery cuEventQuery = nullptr;
  PFN_cuStreamWaitEvent cuStreamWaitEvent = nullptr;
  PFN_cuMemcpyDtoD cuMemcpyDtoD = nullptr;
  PFN_cuMemcpyDtoDAsync cuMemcpyDtoDAsync = nullptr;
  PFN_cuMemsetD8Async cuMemsetD8Async = nullptr;
  PFN_cuMemPoolCreate cuMemPoolCreate = nullptr;
  PFN_cuMemPoolDestroy cuMemPoolDestroy = nullptr;
  PFN_cuMemAllocFromPoolAsync cuMemAllocFromPoolAsync = nullptr;
  PFN_cuMemFreeAsync cuMemFreeAsync = nullptr;
  PFN_cuMemPoolTrimTo cuMemPoolTrimTo = nullptr;
  PFN_cuMemPoolSetAttribute cuMemPoolSetAttribute = nullptr;
  PFN_cuMemPoolGetAttribute cuMemPoolGetAttribute = nullptr;
  PFN_cuDeviceCanAccessPeer cuDeviceCanAccessPeer = nullptr;
  PFN_cuMemcpyPeerAsync cuMemcpyPeerAsync = nullptr;
  PFN_cuStreamBeginCapture cuStreamBeginCapture = nullptr;
  PFN_cuStreamEndCapture cuStreamEndCapture = nullptr;
  PFN_cuStreamIsCapturing cuStreamIsCapturing = nullptr;
  PFN_cuGraphInstantiateWithFlags cuGraphInstantiateWithFlags = nullptr;
  PFN_cuGraphLaunch cuGraphLaunch = nullptr;
  PFN_cuGraphExecDestroy cuGraphExecDestroy = nullptr;
  PFN_cuGraphDestroy cuGraphDestroy = nullptr;
  PFN_cuTensorMapEncodeTiled cuTensorMapEncodeTiled = nullptr;
  PFN_tesseraSimGetDeviceSyncCount tesseraSimGetDeviceSyncCount = nullptr;
  PFN_tesseraSimGetLastFault tesseraSimGetLastFault = nullptr;
  PFN_tesseraSimGetLaunchCounters tesseraSimGetLaunchCounters = nullptr;
  PFN_tesseraSimSetInstructionBudget tesseraSimSetInstructionBudget = nullptr;
  PFN_tesseraSimSetSanitize tesseraSimSetSanitize = nullptr;
  PFN_tesseraSimSetPrintCapture tesseraSimSetPrintCapture = nullptr;
  PFN_tesseraSimTakePrints tesseraSimTakePrints = nullptr;
};

class DriverState {
 public:
  // dlopen + dlsym + cuInit + device `ordinal` + its primary context. Throws JsError (E_NO_DRIVER,
  // E_NO_SYMBOL, E_DEVICE for an ordinal the driver does not have, or the driver's error name).
  static std::shared_ptr<DriverState> open(const std::string& path, int ordinal = 0);
  // cuInit + cuDeviceGetCount, no context (E_NO_DRIVER / E_NO_SYMBOL / the driver's error).
  static int deviceCount(const std::string& path);
  ~DriverState();
  DriverState(const DriverState&) = delete;
  DriverState& operator=(const DriverState&) = delete;

  const Api& api() const { return api_; }
  const std::string& path() const { return path_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return ctx_; }
  // This device's stream-ordered pool (cuMemPoolCreate on first use, release threshold: keep
  // everything until trimmed), owned here and destroyed by close(). E_NO_SYMBOL without pools.
  CUmemoryPool pool();
  bool hasPool() const { return pool_ != nullptr; }
  bool closed() const { return closed_; }
  bool isSim() const { return api_.tesseraSimGetLastFault != nullptr; }

  // Makes the primary context current on the calling thread. Throws E_CLOSED after close().
  void bind() const;
  // Throws a JsError carrying the driver's error name when r != CUDA_SUCCESS.
  void check(CUresult r, const char* call) const;
  // Throws E_NO_SYMBOL when the library does not export the entry point.
  template <class F>
  F need(F f, const char* name) const {
    if (f == nullptr) missing(name);
    return f;
  }
  std::string errorName(CUresult r) const;
  // The sim's report of the last launch fault; empty on the real driver or when none.
  std::string lastFault() const;

  // Releases the primary context. Resources still alive become inert (their memory went with
  // the context). Throws E_BUSY while async work is in flight.
  void close();

  // Custom-call libraries opened by callCustomCall, by path (main thread only; never dlclose'd:
  // a library may have registered state with the driver or the C++ runtime).
  struct CustomCallLib {
    void* handle = nullptr;
    const char* (*lastError)() = nullptr;
    std::map<std::string, void*> symbols;
  };
  std::map<std::string, CustomCallLib> customCallLibs;

  // Async work in flight (worker threads use the context; close() must wait for them).
  std::atomic<int> pendingAsync{0};

 private:
  DriverState() = default;
  [[noreturn]] void missing(const char* name) const;

  void* lib_ = nullptr;
  std::string path_;
  Api api_;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  CUmemoryPool pool_ = nullptr;
  bool closed_ = false;
};

using DriverRef = std::shared_ptr<DriverState>;

}  // namespace tcu
