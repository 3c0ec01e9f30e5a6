// Errors inside the library: a Status is empty on success or carries the message. Each target
// turns a failure into its ABI's channel (ffi_fail / legacy_fail) and records it as this thread's
// last error (tessera_xla_last_error).
#pragma once
#include <string>

#include "ffi_abi.h"

namespace tx {

struct Status {
  bool ok = true;
  std::string message;
  static Status error(std::string m) { return Status{false, std::move(m)}; }
};

#define TX_RETURN_IF_ERROR(expr) \
  do {                           \
    ::tx::Status _s = (expr);    \
    if (!_s.ok) return _s;       \
  } while (0)

void clear_last_error();
void set_last_error(const std::string& message);

// Legacy targets: XlaCustomCallStatusSetFailure when the process exports it, else one stderr line.
void legacy_fail(void* status, const std::string& target, const std::string& message);
// Typed FFI: an XLA_FFI_Error made by the runtime's API (nullptr api: nullptr, message recorded).
XLA_FFI_Error* ffi_fail(const XLA_FFI_Api* api, XLA_FFI_Error_Code code, const std::string& target, const std::string& message);

}  // namespace tx
