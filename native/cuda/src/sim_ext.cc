// Methods over the sim library's extension symbols (absent on the real driver): launch counters
// and the per-launch instruction budget.
#include "../../sim/src/sim.h"  // tsim::Counters: the layout tesseraSimGetLaunchCounters fills
#include "methods.h"

namespace tcu {

// simCounters() -> counters of the last completed launch, or null (real driver / no launch yet).
napi_value Driver_simCounters(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "simCounters", 0);
    DriverRef d = driverOf(env, a);
    auto get = d->api().tesseraSimGetLaunchCounters;
    tsim::Counters c;
    if (get == nullptr || get(&c, sizeof c) != CUDA_SUCCESS) return jsNull(env);
    auto n = [&](uint64_t v) { return jsNumber(env, static_cast<double>(v)); };
    napi_value o = jsObject(env);
    setConst(env, o, "warpInstructions", n(c.warpInstructions));
    setConst(env, o, "threadInstructions", n(c.threadInstructions));
    static const char* const kClasses[8] = {"intAlu", "float", "memGlobal", "memShared",
                                            "control", "sync", "tensor", "other"};
    napi_value byClass = jsObject(env);
    for (int i = 0; i < 8; ++i) setConst(env, byClass, kClasses[i], n(c.byClass[i]));
    setConst(env, o, "byClass", byClass);
    setConst(env, o, "globalLoadRequests", n(c.globalLoadRequests));
    setConst(env, o, "globalStoreRequests", n(c.globalStoreRequests));
    setConst(env, o, "globalLoadSectors", n(c.globalLoadSectors));
    setConst(env, o, "globalStoreSectors", n(c.globalStoreSectors));
    setConst(env, o, "sharedAccesses", n(c.sharedAccesses));
    setConst(env, o, "sharedBankConflicts", n(c.sharedBankConflicts));
    setConst(env, o, "barriers", n(c.barriers));
    return o;
  });
}

// simSetInstructionBudget(threadInstructions): 0 = unlimited. E_NO_SYMBOL on the real driver.
napi_value Driver_simSetInstructionBudget(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "simSetInstructionBudget", 1);
    DriverRef d = driverOf(env, a);
    uint64_t budget = toU64(env, a[0], a.where("threadInstructions"), UINT64_MAX);
    auto set = d->need(d->api().tesseraSimSetInstructionBudget, "tesseraSimSetInstructionBudget");
    d->check(set(budget), "tesseraSimSetInstructionBudget");
    return jsUndefined(env);
  });
}

}  // namespace tcu
