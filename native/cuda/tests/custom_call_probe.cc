// A tiny custom-call library for the addon's callCustomCall tests (test/native/custom-call.test.ts).
// `tessera_probe_expect` checks that the arguments arrived as the test encoded them in `opaque`:
//   struct { uint64_t stream; uint64_t count; uint64_t buffers[count]; }
// and reports a mismatch through tessera_xla_last_error (so a wrong call fails the test).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
thread_local std::string lastError;
thread_local bool failed = false;

void setError(const std::string& m) {
  lastError = m;
  failed = true;
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* tessera_xla_last_error(void) {
  return failed ? lastError.c_str() : nullptr;
}

__attribute__((visibility("default"))) void tessera_probe_expect(void* stream, void** buffers, const char* opaque,
                                                                 size_t len, void* status) {
  failed = false;
  if (status == nullptr) return setError("status is null");
  if (len < 16) return setError("opaque too short: " + std::to_string(len) + " bytes");
  uint64_t want[2];
  std::memcpy(want, opaque, 16);
  if (reinterpret_cast<uintptr_t>(stream) != want[0]) return setError("stream differs");
  if (len != 16 + 8 * want[1]) return setError("opaque length " + std::to_string(len) + " does not match count");
  for (uint64_t i = 0; i < want[1]; ++i) {
    uint64_t w = 0;
    std::memcpy(&w, opaque + 16 + 8 * i, 8);
    if (reinterpret_cast<uintptr_t>(buffers[i]) != w) {
      char m[96];
      std::snprintf(m, sizeof m, "buffer %llu is 0x%llx, expected 0x%llx", static_cast<unsigned long long>(i),
                    static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(buffers[i])),
                    static_cast<unsigned long long>(w));
      return setError(m);
    }
  }
}

__attribute__((visibility("default"))) void tessera_probe_fail(void*, void**, const char*, size_t, void*) {
  setError("probe asked to fail");
}
}
