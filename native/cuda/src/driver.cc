#include "driver.h"

#include <dlfcn.h>

#include "js_error.h"

namespace tcu {

namespace {

// The first of `names` the library exports (the versioned names first, as cuda.h maps them).
template <class F>
void resolve(void* lib, F& slot, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (void* p = dlsym(lib, n)) {
      slot = reinterpret_cast<F>(p);
      return;
    }
  }
}

void resolveAll(void* lib, Api& a) {
  resolve(lib, a.cuInit, {"cuInit"});
  resolve(lib, a.cuDriverGetVersion, {"cuDriverGetVersion"});
  resolve(lib, a.cuDeviceGetCount, {"cuDeviceGetCount"});
  resolve(lib, a.cuDeviceGet, {"cuDeviceGet"});
  resolve(lib, a.cuDeviceGetName, {"cuDeviceGetName"});
  resolve(lib, a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  resolve(lib, a.cuDeviceTotalMem, {"cuDeviceTotalMem_v2", "cuDeviceTotalMem"});
  resolve(lib, a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  resolve(lib, a.cuDevicePrimaryCtxRelease,
          {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  resolve(lib, a.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  resolve(lib, a.cuCtxSynchronize, {"cuCtxSynchronize"});
  resolve(lib, a.cuGetErrorName, {"cuGetErrorName"});
  resolve(lib, a.cuGetErrorString, {"cuGetErrorString"});
  resolve(lib, a.cuMemGetInfo, {"cuMemGetInfo_v2", "cuMemGetInfo"});
  resolve(lib, a.cuMemAlloc, {"cuMemAlloc_v2", "cuMemAlloc"});
  resolve(lib, a.cuMemFree, {"cuMemFree_v2", "cuMemFree"});
  resolve(lib, a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2", "cuMemcpyHtoD"});
  resolve(lib, a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2", "cuMemcpyDtoH"});
  resolve(lib, a.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync"});
  resolve(lib, a.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync"});
  resolve(lib, a.cuMemsetD8, {"cuMemsetD8_v2", "cuMemsetD8"});
  resolve(lib, a.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  resolve(lib, a.cuModuleUnload, {"cuModuleUnload"});
  resolve(lib, a.cuModuleGetFunction, {"cuModuleGetFunction"});
  resolve(lib, a.cuFuncGetAttribute, {"cuFuncGetAttribute"});
  resolve(lib, a.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  resolve(lib, a.cuLaunchKernel, {"cuLaunchKernel"});
  resolve(lib, a.cuLaunchKernelEx, {"cuLaunchKernelEx"});
  resolve(lib, a.cuStreamCreate, {"cuStreamCreate"});
  resolve(lib, a.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"});
  resolve(lib, a.cuStreamSynchronize, {"cuStreamSynchronize"});
  resolve(lib, a.cuEventCreate, {"cuEventCreate"});
  resolve(lib, a.cuEventRecord, {"cuEventRecord"});
  resolve(lib, a.cuEventSynchronize, {"cuEventSynchronize"});
  resolve(lib, a.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  resolve(lib, a.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  resolve(lib, a.cuEventQuery, {"cuEventQuery"});
  resolve(lib, a.cuStreamWaitEvent, {"cuStreamWaitEvent"});
  resolve(lib, a.cuMemcpyDtoD, {"cuMemcpyDtoD_v2", "cuMemcpyDtoD"});
  resolve(lib, a.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync"});
  resolve(lib, a.cuMemsetD8Async, {"cuMemsetD8Async"});
  resolve(lib, a.cuMemPoolCreate, {"cuMemPoolCreate"});
  resolve(lib, a.cuMemPoolDestroy, {"cuMemPoolDestroy"});
  resolve(lib, a.cuMemAllocFromPoolAsync, {"cuMemAllocFromPoolAsync"});
  resolve(lib, a.cuMemFreeAsync, {"cuMemFreeAsync"});
  resolve(lib, a.cuMemPoolTrimTo, {"cuMemPoolTrimTo"});
  resolve(lib, a.cuMemPoolSetAttribute, {"cuMemPoolSetAttribute"});
  resolve(lib, a.cuMemPoolGetAttribute, {"cuMemPoolGetAttribute"});
  resolve(lib, a.cuDeviceCanAccessPeer, {"cuDeviceCanAccessPeer"});
  resolve(lib, a.cuMemcpyPeerAsync, {"cuMemcpyPeerAsync"});
  resolve(lib, a.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"});
  resolve(lib, a.cuStreamEndCapture, {"cuStreamEndCapture"});
  resolve(lib, a.cuStreamIsCapturing, {"cuStreamIsCapturing"});
  resolve(lib, a.cuGraphInstantiateWithFlags, {"cuGraphInstantiateWithFlags"});
  resolve(lib, a.cuGraphLaunch, {"cuGraphLaunch"});
  resolve(lib, a.cuGraphExecDestroy, {"cuGraphExecDestroy"});
  resolve(lib, a.cuGraphDestroy, {"cuGraphDestroy"});
  resolve(lib, a.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"});
  resolve(lib, a.tesseraSimGetDeviceSyncCount, {"tesseraSimGetDeviceSyncCount"});
  resolve(lib, a.tesseraSimGetLastFault, {"tesseraSimGetLastFault"});
  resolve(lib, a.tesseraSimGetLaunchCounters, {"tesseraSimGetLaunchCounters"});
  resolve(lib, a.tesseraSimSetInstructionBudget, {"tesseraSimSetInstructionBudget"});
  resolve(lib, a.tesseraSimSetSanitize, {"tesseraSimSetSanitize"});
  resolve(lib, a.tesseraSimSetPrintCapture, {"tesseraSimSetPrintCapture"});
  resolve(lib, a.tesseraSimTakePrints, {"tesseraSimTakePrints"});
}

// Errors that a kernel fault produces (ILLEGAL_ADDRESS, LAUNCH_TIMEOUT, ASSERT,
// ILLEGAL_INSTRUCTION, MISALIGNED_ADDRESS, LAUNCH_FAILED).
bool isFaultCode(CUresult r) {
  return r == 700 || r == 702 || r == 710 || r == 715 || r == 716 || r == 719;
}

}  // namespace

namespace {
void* openLibrary(const std::string& path) {
  dlerror();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    fail("E_NO_DRIVER", "cannot load CUDA driver library '" + path + "': " +
                            (why ? why : "unknown dlopen error"));
  }
  return lib;
}
}  // namespace

int DriverState::deviceCount(const std::string& path) {
  std::shared_ptr<DriverState> d(new DriverState());
  d->lib_ = openLibrary(path);  // never dlclose'd (see open)
  d->path_ = path;
  d->closed_ = true;  // no context to release
  resolveAll(d->lib_, d->api_);
  d->check(d->need(d->api_.cuInit, "cuInit")(0), "cuInit");
  int n = 0;
  d->check(d->need(d->api_.cuDeviceGetCount, "cuDeviceGetCount")(&n), "cuDeviceGetCount");
  return n;
}

CUmemoryPool DriverState::pool() {
  if (closed_) fail("E_CLOSED", "driver '" + path_ + "' was closed");
  if (pool_) return pool_;
  CUmemPoolProps props{};
  props.allocType = 1;      // CU_MEM_ALLOCATION_TYPE_PINNED
  props.location.type = 1;  // CU_MEM_LOCATION_TYPE_DEVICE
  props.location.id = device_;
  CUmemoryPool p = nullptr;
  check(need(api_.cuMemPoolCreate, "cuMemPoolCreate")(&p, &props), "cuMemPoolCreate");
  // Freed blocks stay in the pool for reuse until trimmed (trimMemory, or the OOM retry): a
  // request path never gives memory back to the driver, and never waits for the device.
  unsigned long long keep = ~0ull;
  CUresult r = need(api_.cuMemPoolSetAttribute, "cuMemPoolSetAttribute")(p, kPoolReleaseThreshold, &keep);
  if (r != CUDA_SUCCESS) {
    api_.cuMemPoolDestroy(p);
    check(r, "cuMemPoolSetAttribute");
  }
  pool_ = p;
  return pool_;
}

std::shared_ptr<DriverState> DriverState::open(const std::string& path, int ordinal) {
  dlerror();
  // RTLD_LOCAL: the driver's symbols must not leak into other libraries (a process may open
  // both the real driver and the sim, which export the same names).
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    fail("E_NO_DRIVER", "cannot load CUDA driver library '" + path + "': " +
                            (why ? why : "unknown dlopen error"));
  }
  std::shared_ptr<DriverState> d(new DriverState());
  // The library is never dlclose'd: drivers keep worker threads and atexit handlers that must
  // outlive the last call; the dlopen reference is released at process exit.
  d->lib_ = lib;
  d->path_ = path;
  resolveAll(lib, d->api_);
  const Api& a = d->api_;
  d->check(d->need(a.cuInit, "cuInit")(0), "cuInit");
  int count = 0;
  if (a.cuDeviceGetCount && a.cuDeviceGetCount(&count) == CUDA_SUCCESS && (ordinal < 0 || ordinal >= count)) {
    fail("E_DEVICE", "driver '" + path + "' has " + std::to_string(count) + " device(s); there is no device " +
                         std::to_string(ordinal));
  }
  d->check(d->need(a.cuDeviceGet, "cuDeviceGet")(&d->device_, ordinal), "cuDeviceGet");
  d->need(a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
  d->need(a.cuCtxSetCurrent, "cuCtxSetCurrent");
  CUcontext ctx = nullptr;
  d->check(d->need(a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")(&ctx, d->device_),
           "cuDevicePrimaryCtxRetain");
  d->ctx_ = ctx;
  d->check(a.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return d;
}

DriverState::~DriverState() {
  if (!closed_ && ctx_ != nullptr) api_.cuDevicePrimaryCtxRelease(device_);
}

void DriverState::close() {
  if (closed_) return;
  if (pendingAsync.load() > 0) {
    fail("E_BUSY", "driver '" + path_ + "' cannot close while asynchronous work is in flight");
  }
  closed_ = true;
  if (ctx_ != nullptr && pool_ != nullptr && api_.cuMemPoolDestroy) {
    api_.cuCtxSetCurrent(ctx_);
    api_.cuMemPoolDestroy(pool_);  // its blocks go with the context below
    pool_ = nullptr;
  }
  if (ctx_ != nullptr) {
    api_.cuCtxSetCurrent(nullptr);
    check(api_.cuDevicePrimaryCtxRelease(device_), "cuDevicePrimaryCtxRelease");
  }
}

void DriverState::bind() const {
  if (closed_) fail("E_CLOSED", "driver '" + path_ + "' was closed");
  check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

std::string DriverState::errorName(CUresult r) const {
  const char* name = nullptr;
  if (api_.cuGetErrorName && api_.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA_ERROR_" + std::to_string(r);
}

void DriverState::check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return;
  std::string name = errorName(r);
  const char* text = nullptr;
  std::string msg = std::string(call) + " failed: " + name;
  if (api_.cuGetErrorString && api_.cuGetErrorString(r, &text) == CUDA_SUCCESS && text) {
    msg += " (" + std::string(text) + ")";
  }
  // Launch faults on the sim come with a report (kernel, CTA, thread, PTX line, address).
  if (api_.tesseraSimGetLastFault && isFaultCode(r)) {
    std::string report = lastFault();
    if (!report.empty()) msg += "\n" + report;
    // The sim's sanitizers (racecheck, synccheck, initcheck) end a launch that has hazards as a
    // launch failure with their report: E_HAZARD, so callers can tell it from a crash.
    for (const char* c : {"racecheck", "synccheck", "initcheck"}) {
      if (report.rfind(std::string("tessera-sim: ") + c + " hazard", 0) == 0) name = "E_HAZARD";
    }
  }
  throw JsError{name, msg, call, r, false};
}

std::string DriverState::lastFault() const {
  if (api_.tesseraSimGetLastFault == nullptr) return {};
  std::string buf(8192, '\0');
  api_.tesseraSimGetLastFault(buf.data(), buf.size());
  buf.back() = '\0';
  buf.resize(std::char_traits<char>::length(buf.c_str()));
  return buf;
}

void DriverState::missing(const char* name) const {
  fail("E_NO_SYMBOL", "driver library '" + path_ + "' does not export " + name);
}

}  // namespace tcu
