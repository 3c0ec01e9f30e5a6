// callCustomCall(libraryPath, symbol, stream | null, buffers, opaque): calls an XLA custom-call
// target through the legacy GPU ABI
//   void f(CUstream stream, void** buffers, const char* opaque, size_t opaque_len,
//          XlaCustomCallStatus* status)
// then, when the library exports `const char* tessera_xla_last_error(void)` and it returns
// non-null, throws E_CUSTOM_CALL with that message. Libraries are dlopen'ed once per driver.
#include <dlfcn.h>

#include <cstring>
#include <vector>

#include "addon.h"

namespace tcu {

namespace {

using CustomCallFn = void (*)(CUstream, void**, const char*, size_t, void*);

// XLA's XlaCustomCallStatus is opaque to the target (it only passes it to XLA's setters, which
// do not exist outside XLA); a zeroed block stands in for it.
struct StatusStandIn {
  uint64_t words[8] = {};
};

DriverState::CustomCallLib& openLibrary(DriverState& d, const std::string& path, const std::string& where) {
  auto it = d.customCallLibs.find(path);
  if (it != d.customCallLibs.end()) return it->second;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = dlerror();
    fail("E_NO_LIBRARY", where + ": cannot load '" + path + "': " + (why ? why : "unknown error"));
  }
  DriverState::CustomCallLib lib;
  lib.handle = h;
  lib.lastError = reinterpret_cast<const char* (*)()>(dlsym(h, "tessera_xla_last_error"));
  return d.customCallLibs.emplace(path, std::move(lib)).first->second;
}

}  // namespace

Napi::Value Driver::callCustomCall(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "callCustomCall");
  DriverRef d = state_;
  std::string path = toStr(a[0], a.where("libraryPath"));
  std::string symbol = toStr(a[1], a.where("symbol"));
  auto s = optStream(a[2], d, a.where("stream"));
  Napi::Array list = toArray(a[3], a.where("buffers"), "an array of bigint device addresses");
  uint32_t n = list.Length();
  std::vector<void*> buffers(n);
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Value e = list.Get(i);
    std::string w = a.where("buffers") + "[" + std::to_string(i) + "]";
    if (!e.IsBigInt()) failArg(w + ": expected a bigint device address");
    buffers[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(toU64(e, w, UINT64_MAX)));
  }
  if (!a[4].IsObject() || !isBytes(a[4])) {
    failArg(a.where("opaque") + ": expected a Uint8Array");
  }
  Bytes opaque = toBytes(a[4], a.where("opaque"));
  if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
  auto& lib = openLibrary(*d, path, a.where("libraryPath"));
  auto sym = lib.symbols.find(symbol);
  if (sym == lib.symbols.end()) {
    void* f = dlsym(lib.handle, symbol.c_str());
    if (f == nullptr) fail("E_NO_SYMBOL", a.where("symbol") + ": '" + path + "' does not export '" + symbol + "'");
    sym = lib.symbols.emplace(symbol, f).first;
  }
  // A copy, so the target may not write into the caller's bytes, NUL-terminated for C targets.
  std::vector<char> desc(opaque.length + 1, 0);
  if (opaque.length) std::memcpy(desc.data(), opaque.data, opaque.length);
  StatusStandIn status;
  d->bind();
  reinterpret_cast<CustomCallFn>(sym->second)(s ? s->stream : nullptr, buffers.empty() ? nullptr : buffers.data(),
                                              desc.data(), opaque.length, &status);
  if (lib.lastError) {
    if (const char* msg = lib.lastError()) {
      fail("E_CUSTOM_CALL", "custom call '" + symbol + "' (" + path + ") failed: " + msg);
    }
  }
  return env.Undefined();
}

}  // namespace tcu
