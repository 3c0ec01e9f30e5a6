// The Driver class (Napi::ObjectWrap) and its method table. Each method is a member function
// defined in memory.cc, module.cc, stream.cc, copies.cc, async.cc, launch_plan.cc, sim_ext.cc or
// custom_call.cc. To add a method: add it to TCU_METHODS and define
// `Napi::Value Driver::name(const Napi::CallbackInfo& info)`.
#pragma once
#include <napi.h>

#include <vector>

#include "args.h"
#include "handles.h"

namespace tcu {

#define TCU_METHODS(X)                                                                   \
  X(deviceInfo) X(memGetInfo) X(memAlloc) X(memFree) X(memcpyHtoD) X(memcpyDtoH)         \
  X(memcpyHtoDAsync) X(memsetD8) X(moduleLoadData) X(moduleUnload) X(getFunction)        \
  X(setMaxDynamicShared) X(launch) X(streamCreate) X(streamSynchronize) X(streamDestroy) \
  X(eventCreate) X(eventRecord) X(eventSynchronize) X(eventElapsed) X(eventDestroy)      \
  X(synchronize) X(lastFault) X(close) X(synchronizeAsync) X(streamSynchronizeAsync)     \
  X(memcpyDtoHAsync) X(simCounters) X(simSetInstructionBudget) X(memcpyDtoD)             \
  X(memcpyDtoDAsync) X(memsetD8Async) X(streamWaitEvent) X(eventQuery)                   \
  X(eventSynchronizeAsync) X(streamDone) X(createLaunchPlan) X(callCustomCall)              \
  X(memAllocAsync) X(memFreeAsync) X(memPoolTrim) X(memPoolStats) X(canAccessPeer)         \
  X(memcpyPeerAsync) X(streamBeginCapture) X(streamEndCapture) X(streamIsCapturing)        \
  X(graphLaunch) X(graphDestroy) X(simDeviceSyncs) X(ordinal) X(simSetSanitize)      \
  X(tensorMapEncodeTiled) X(simSetPrintCapture) X(simTakePrints)

// A prototype method of wrapper class W that checks `this` by its type tag before unwrapping it
// (ObjectWrap's own InstanceMethod would unwrap any wrapped object as a W), then runs the member
// with JsError turned into a coded JS error.
template <class W, Kind K, Napi::Value (W::*M)(const Napi::CallbackInfo&)>
Napi::Value callMember(const Napi::CallbackInfo& info) {
  return atBoundary(info.Env(), [&] {
    Napi::Value self = info.This();
    if (!self.IsObject() || !self.As<Napi::Object>().CheckTypeTag(&tagOf(K))) {
      failArg(std::string(static_cast<const char*>(info.Data())) + ": this: expected a " + kindName(K));
    }
    return (W::Unwrap(self.As<Napi::Object>())->*M)(info);
  });
}

// The prototype property `name` (not enumerable, like a class method) calling W::M.
template <class W, Kind K, Napi::Value (W::*M)(const Napi::CallbackInfo&)>
Napi::PropertyDescriptor method(Napi::Env env, const char* name) {
  return Napi::PropertyDescriptor::Value(
      name, Napi::Function::New<callMember<W, K, M>>(env, name, const_cast<char*>(name)), napi_default);
}

// Defines `methods` on the prototype of the class `ctor` (ObjectWrap's own InstanceMethod would
// skip the type-tag check of callMember); returns `ctor`.
Napi::Function withMethods(Napi::Function ctor, const std::vector<Napi::PropertyDescriptor>& methods);

// One opened driver library; `open()` creates it.
class Driver : public Napi::ObjectWrap<Driver> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit Driver(const Napi::CallbackInfo& info);

#define TCU_DECLARE(name) Napi::Value name(const Napi::CallbackInfo& info);
  TCU_METHODS(TCU_DECLARE)
#undef TCU_DECLARE

 private:
  DriverRef state_;
};

// createLaunchPlan's result (launch_plan.cc).
Napi::Function defineLaunchPlan(Napi::Env env);

}  // namespace tcu
