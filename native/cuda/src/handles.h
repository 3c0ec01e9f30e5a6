// Driver resources as JS objects: one Napi::ObjectWrap class per kind (Handle<State, Kind>).
// Each native state has exactly one owner of the resource: the state object itself, which frees
// it on the explicit call (memFree, moduleUnload, ...) or, as a safety net, when the last
// reference goes (the wrapper's finalizer, which also runs at environment teardown, drops its
// reference). Every state holds the DriverState, so the library and context outlive their
// resources.
#pragma once
#include <napi.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "args.h"
#include "driver.h"
#include "js_error.h"

namespace tcu {

enum class Kind { Driver, DevicePtr, Module, Function, Stream, Event, LaunchPlan, Graph };

struct DevicePtrState {
  DriverRef drv;
  CUdeviceptr addr = 0;
  size_t bytes = 0;
  bool freed = false;
  int busy = 0;  // async copies in flight (main-thread counter)
  int64_t reported = 0;  // bytes reported to V8 as external memory (memAlloc), 0 once given back
  bool pooled = false;   // from the driver's stream-ordered pool (memAllocAsync): freed with cuMemFreeAsync
  ~DevicePtrState();
};

// A fresh allocation `p` (p->addr set) as a JS handle: external memory reported to V8, `address`
// and `bytes` on it (memAlloc and memAllocAsync).
Napi::Object wrapAllocation(Napi::Env env, const std::shared_ptr<DevicePtrState>& p, size_t bytes);
// After a free: the bytes reported to V8 are given back.
void unreportAllocation(Napi::Env env, DevicePtrState& p);

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

// An instantiated graph (streamEndCapture): owns the CUgraphExec (the CUgraph is destroyed once
// instantiated).
struct GraphState {
  DriverRef drv;
  CUgraphExec exec = nullptr;
  size_t nodes = 0;
  bool destroyed = false;
  ~GraphState();
};

const char* kindName(Kind k);
const napi_type_tag& tagOf(Kind k);

// Per-environment data (Napi::Addon instance data, so the addon is context-aware: each worker
// thread has its own): the classes' constructors, and the state handed to the constructor that
// is running. Only the addon creates wrappers: a constructor called from JS finds no state and
// throws E_ARG.
struct AddonData {
  Napi::FunctionReference ctors[8];  // by Kind
  std::shared_ptr<void> pending;
  Kind pendingKind = Kind::Driver;
  static AddonData& of(Napi::Env env);
};

// Creates a wrapper of kind `k` around `state` through the class's constructor.
Napi::Object construct(Napi::Env env, Kind k, std::shared_ptr<void> state);
// In a constructor: the state handed over by construct(); tags `self` with the kind's tag.
std::shared_ptr<void> adopt(const Napi::CallbackInfo& info, Kind k);

// `v` as an object of kind `k` (tag checked before unwrapping), or E_ARG naming `what`.
Napi::Object checkKind(const Napi::Value& v, Kind k, const std::string& what);

// The wrapper of a driver resource: owns one reference to its state.
template <class State, Kind K>
class Handle : public Napi::ObjectWrap<Handle<State, K>> {
 public:
  using StateT = State;
  static constexpr Kind kKind = K;
  explicit Handle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Handle>(info) {
    atBoundary(info.Env(), [&] { state_ = std::static_pointer_cast<State>(adopt(info, K)); });
  }
  static Napi::Function Define(Napi::Env env) { return Handle::DefineClass(env, kindName(K), {}); }
  static Napi::Object New(Napi::Env env, std::shared_ptr<State> state) {
    return construct(env, K, std::move(state));
  }
  // The state behind `v`, or E_ARG naming `what` when `v` is not a handle of this kind.
  static std::shared_ptr<State> of(const Napi::Value& v, const std::string& what) {
    return Handle::Unwrap(checkKind(v, K, what))->state_;
  }
  // A dropped DevicePtr gives its bytes back to V8's external-memory count.
  void Finalize(Napi::BasicEnv env) override {
    if constexpr (std::is_same_v<State, DevicePtrState>) {
      if (state_ && state_->reported) Napi::MemoryManagement::AdjustExternalMemory(env, -state_->reported);
      if (state_) state_->reported = 0;
    }
  }

 private:
  std::shared_ptr<State> state_;
};

using DevicePtrHandle = Handle<DevicePtrState, Kind::DevicePtr>;
using ModuleHandle = Handle<ModuleState, Kind::Module>;
using FunctionHandle = Handle<FunctionState, Kind::Function>;
using StreamHandle = Handle<StreamState, Kind::Stream>;
using EventHandle = Handle<EventState, Kind::Event>;
using GraphHandle = Handle<GraphState, Kind::Graph>;

// Checks that a resource is alive and belongs to `drv` (E_FREED / E_ARG otherwise).
void checkOwner(const DriverRef& owner, const DriverRef& drv, const std::string& what);
std::shared_ptr<DevicePtrState> livePtr(const Napi::Value& v, const DriverRef& drv, const std::string& what);
std::shared_ptr<ModuleState> liveModule(const Napi::Value& v, const DriverRef& drv, const std::string& what);
std::shared_ptr<FunctionState> liveFunction(const Napi::Value& v, const DriverRef& drv, const std::string& what);
// null/undefined -> the default stream (nullptr state).
std::shared_ptr<StreamState> optStream(const Napi::Value& v, const DriverRef& drv, const std::string& what);
std::shared_ptr<StreamState> liveStream(const Napi::Value& v, const DriverRef& drv, const std::string& what);
std::shared_ptr<EventState> liveEvent(const Napi::Value& v, const DriverRef& drv, const std::string& what);

}  // namespace tcu
