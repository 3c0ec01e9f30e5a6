// Driver resources as JS objects. Each native state has exactly one owner of the resource: the
// state object itself, which frees it on the explicit call (memFree, moduleUnload, ...) or, as a
// safety net, when the last reference goes (the JS object's finalizer drops its reference).
// Every state holds the DriverState, so the library and context outlive their resources.
#pragma once
#include <node_api.h>

#include <memory>
#include <string>
#include <vector>

#include "driver.h"

namespace tcu {

enum class Kind { Driver, DevicePtr, Module, Function, Stream, Event };

struct DevicePtrState {
  DriverRef drv;
  CUdeviceptr addr = 0;
  size_t bytes = 0;
  bool freed = false;
  int busy = 0;  // async copies in flight (main-thread counter)
  int64_t reported = 0;  // bytes reported to V8 as external memory (memAlloc), 0 once given back
  ~DevicePtrState();
};

struct ModuleState {
  DriverRef drv;
  CUmodule mod = nullptr;
  bool unloaded = false;
  ~ModuleState();
};

struct FunctionState {
  std::shared_ptr<ModuleState> module;  // keeps the module loaded while the function lives
  CUfunction fn = nullptr;
  std::string name;
};

struct StreamState {
  DriverRef drv;
  CUstream stream = nullptr;
  bool destroyed = false;
  int busy = 0;
  // Host copies of data given to memcpyHtoDAsync: alive until the stream is synchronized.
  std::vector<std::vector<uint8_t>> staging;
  // Counts of staging buffers ever pushed / dropped, so streamDone drops only the ones enqueued
  // before it (see dropStaging).
  uint64_t stagedPushed = 0, stagedDropped = 0;
  // Drops staging buffers up to the `upTo`-th pushed (all of them by default).
  void dropStaging(uint64_t upTo = UINT64_MAX) {
    size_t n = 0;
    while (n < staging.size() && stagedDropped < upTo) ++n, ++stagedDropped;
    staging.erase(staging.begin(), staging.begin() + static_cast<std::ptrdiff_t>(n));
  }
  ~StreamState();
};

struct EventState {
  DriverRef drv;
  CUevent event = nullptr;
  bool destroyed = false;
  int busy = 0;  // eventSynchronizeAsync waits in flight (main-thread counter)
  ~EventState();
};

const char* kindName(Kind k);

// Wraps `state` in a fresh JS object tagged with `k`; the object's finalizer drops the reference.
template <class T>
napi_value wrapNew(napi_env env, std::shared_ptr<T> state, Kind k);
// Attaches `state` to an existing object (the Driver constructor's `this`).
template <class T>
void wrapInto(napi_env env, napi_value obj, std::shared_ptr<T> state, Kind k);
// The state behind `v`, or E_ARG naming `what` when `v` is not an object of kind `k`.
template <class T>
std::shared_ptr<T> unwrapAs(napi_env env, napi_value v, Kind k, const std::string& what);

// Checks that a resource is alive and belongs to `drv` (E_FREED / E_ARG otherwise).
void checkOwner(const DriverRef& owner, const DriverRef& drv, const std::string& what);
std::shared_ptr<DevicePtrState> livePtr(napi_env env, napi_value v, const DriverRef& drv,
                                        const std::string& what);
std::shared_ptr<ModuleState> liveModule(napi_env env, napi_value v, const DriverRef& drv,
                                        const std::string& what);
std::shared_ptr<FunctionState> liveFunction(napi_env env, napi_value v, const DriverRef& drv,
                                            const std::string& what);
// null/undefined -> the default stream (nullptr state).
std::shared_ptr<StreamState> optStream(napi_env env, napi_value v, const DriverRef& drv,
                                       const std::string& what);
std::shared_ptr<StreamState> liveStream(napi_env env, napi_value v, const DriverRef& drv,
                                        const std::string& what);
std::shared_ptr<EventState> liveEvent(napi_env env, napi_value v, const DriverRef& drv,
                                      const std::string& what);

}  // namespace tcu

#include "handles_impl.h"
