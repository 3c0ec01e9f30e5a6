// Methods over the sim library's extension symbols (absent on the real driver): launch counters,
// the per-launch instruction budget, sanitizers and the vprintf capture.
#include <cstring>
#include <vector>

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

// simSetPrintCapture(tag): vprintf of the launches queued from now on is kept under `tag` (a
// positive integer) for simTakePrints; 0 writes to stdout again. E_NO_SYMBOL on the real driver.
Napi::Value Driver::simSetPrintCapture(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simSetPrintCapture");
  DriverRef d = state_;
  uint64_t tag = toU64(a[0], a.where("tag"), (1ull << 53) - 1);
  auto set = d->need(d->api().tesseraSimSetPrintCapture, "tesseraSimSetPrintCapture");
  d->check(set(tag), "tesseraSimSetPrintCapture");
  return env.Undefined();
}

// simTakePrints(tag) -> { bytes: Uint8Array, dropped } : the records captured under `tag` by
// completed launches, serialized as tesseraSimTakePrints writes them (docs/sim.md), and taken.
Napi::Value Driver::simTakePrints(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simTakePrints");
  DriverRef d = state_;
  uint64_t tag = toU64(a[0], a.where("tag"), (1ull << 53) - 1);
  auto take = d->need(d->api().tesseraSimTakePrints, "tesseraSimTakePrints");
  std::vector<uint8_t> buf;
  unsigned long long dropped = 0;
  for (;;) {  // sized, then taken (the size only grows if a launch of this tag completes meanwhile)
    size_t size = buf.size();
    CUresult r = static_cast<CUresult>(take(tag, buf.empty() ? nullptr : buf.data(), &size, &dropped));
    if (r == CUDA_SUCCESS) {
      buf.resize(size);
      break;
    }
    if (r != CUDA_ERROR_INVALID_VALUE || size <= buf.size()) d->check(r, "tesseraSimTakePrints");
    buf.resize(size);
  }
  Napi::Uint8Array bytes = Napi::Uint8Array::New(env, buf.size());
  if (!buf.empty()) std::memcpy(bytes.Data(), buf.data(), buf.size());
  Napi::Object o = Napi::Object::New(env);
  setConst(o, "bytes", bytes);
  setConst(o, "dropped", Napi::Number::New(env, static_cast<double>(dropped)));
  return o;
}

}  // namespace tcu
