#include "status.h"

#include <dlfcn.h>

#include <cstdio>

namespace tx {
namespace {
// Per thread, so concurrent calls from XLA's thread pool do not see each other's failures.
thread_local std::string t_last_error;
thread_local bool t_has_error = false;
}  // namespace

void clear_last_error() {
  t_has_error = false;
  t_last_error.clear();
}

void set_last_error(const std::string& message) {
  t_last_error = message;
  t_has_error = true;
}

void legacy_fail(void* status, const std::string& target, const std::string& message) {
  const std::string full = target + ": " + message;
  set_last_error(full);
  using SetFailure = void (*)(void*, const char*, size_t);
  // jaxlib exports it from its extension module; a plain C host may not, so look it up each time
  // (cheap, and only on the error path).
  auto fn = reinterpret_cast<SetFailure>(dlsym(RTLD_DEFAULT, "XlaCustomCallStatusSetFailure"));
  if (fn && status) fn(status, full.data(), full.size());
  else std::fprintf(stderr, "tessera_xla: %s\n", full.c_str());
}

XLA_FFI_Error* ffi_fail(const XLA_FFI_Api* api, XLA_FFI_Error_Code code, const std::string& target, const std::string& message) {
  const std::string full = target + ": " + message;
  set_last_error(full);
  if (!api || !api->XLA_FFI_Error_Create) {
    std::fprintf(stderr, "tessera_xla: %s\n", full.c_str());
    return nullptr;
  }
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = TX_FFI_STRUCT_SIZE(XLA_FFI_Error_Create_Args, errc);
  args.message = full.c_str();  // copied by the runtime
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

}  // namespace tx

extern "C" __attribute__((visibility("default"))) const char* tessera_xla_last_error(void) {
  return tx::t_has_error ? tx::t_last_error.c_str() : nullptr;
}
