// Methods over the sim library's extension symbols (absent on the real driver): launch counters
// and the per-launch instruction budget.
#include "../../sim/src/sim.h"  // tsim::Counters: the layout tesseraSimGetLaunchCounters fills
#include "addon.h"

namespace tcu {

// simCounters() -> counters of the last completed launch, or null (real driver / no launch yet).
Napi::Value Driver::simCounters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simCounters");
  DriverRef d = state_;
  auto get = d->api().tesseraSimGetLaunchCounters;
  tsim::Counters c;
  if (get == nullptr || get(&c, sizeof c) != CUDA_SUCCESS) return env.Null();
  auto n = [&](uint64_t v) { return Napi::Number::New(env, static_cast<double>(v)); };
  Napi::Object o = Napi::Object::New(env);
  setConst(o, "warpInstructions", n(c.warpInstructions));
  setConst(o, "threadInstructions", n(c.threadInstructions));
  static const char* const kClasses[8] = {"intAlu", "float", "memGlobal", "memShared",
                                          "control", "sync", "tensor", "other"};
  Napi::Object byClass = Napi::Object::New(env);
  for (int i = 0; i < 8; ++i) setConst(byClass, kClasses[i], n(c.byClass[i]));
  setConst(o, "byClass", byClass);
  setConst(o, "globalLoadRequests", n(c.globalLoadRequests));
  setConst(o, "globalStoreRequests", n(c.globalStoreRequests));
  setConst(o, "globalLoadSectors", n(c.globalLoadSectors));
  setConst(o, "globalStoreSectors", n(c.globalStoreSectors));
  setConst(o, "sharedAccesses", n(c.sharedAccesses));
  setConst(o, "sharedBankConflicts", n(c.sharedBankConflicts));
  setConst(o, "barriers", n(c.barriers));
  return o;
}

// simSetInstructionBudget(threadInstructions): 0 = unlimited. E_NO_SYMBOL on the real driver.
Napi::Value Driver::simSetInstructionBudget(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simSetInstructionBudget");
  DriverRef d = state_;
  uint64_t budget = toU64(a[0], a.where("threadInstructions"), UINT64_MAX);
  auto set = d->need(d->api().tesseraSimSetInstructionBudget, "tesseraSimSetInstructionBudget");
  d->check(set(budget), "tesseraSimSetInstructionBudget");
  return env.Undefined();
}

// simSetSanitize(flags): sanitizers for the launches queued from now on (bit 0 racecheck, 1
// synccheck, 2 initcheck), on top of TESSERA_SIM_*CHECK. E_NO_SYMBOL on the real driver.
Napi::Value Driver::simSetSanitize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simSetSanitize");
  DriverRef d = state_;
  uint64_t flags = toU64(a[0], a.where("flags"), 7);
  auto set = d->need(d->api().tesseraSimSetSanitize, "tesseraSimSetSanitize");
  d->check(set(static_cast<unsigned>(flags)), "tesseraSimSetSanitize");
  return env.Undefined();
}

}  // namespace tcu
