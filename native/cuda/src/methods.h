// The Driver object's methods (one N-API callback each), grouped by file:
// memory.cc, module.cc, stream.cc, async.cc.
#pragma once
#include <node_api.h>

#include "args.h"
#include "handles.h"

namespace tcu {

// The DriverState behind `this` (E_ARG if `this` is not a Driver).
DriverRef driverOf(napi_env env, const Args& a);

#define TCU_METHODS(X)                                                                   \
  X(deviceInfo) X(memGetInfo) X(memAlloc) X(memFree) X(memcpyHtoD) X(memcpyDtoH)         \
  X(memcpyHtoDAsync) X(memsetD8) X(moduleLoadData) X(moduleUnload) X(getFunction)        \
  X(setMaxDynamicShared) X(launch) X(streamCreate) X(streamSynchronize) X(streamDestroy) \
  X(eventCreate) X(eventRecord) X(eventSynchronize) X(eventElapsed) X(eventDestroy)      \
  X(synchronize) X(lastFault) X(close) X(synchronizeAsync) X(streamSynchronizeAsync)     \
  X(memcpyDtoHAsync) X(simCounters) X(simSetInstructionBudget) X(memcpyDtoD)               \
  X(memcpyDtoDAsync) X(memsetD8Async) X(streamWaitEvent) X(eventQuery)                   \
  X(eventSynchronizeAsync) X(streamDone) X(createLaunchPlan) X(callCustomCall)

#define TCU_DECLARE(name) napi_value Driver_##name(napi_env env, napi_callback_info info);
TCU_METHODS(TCU_DECLARE)
#undef TCU_DECLARE

}  // namespace tcu
