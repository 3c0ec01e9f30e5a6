// The legacy targets' error channel when the host process exports XlaCustomCallStatusSetFailure
// (as an XLA runtime linked into the executable does): the failure goes to the caller's status
// object through it, with the message, and not to stderr. This executable exports the symbol
// (ENABLE_EXPORTS), so the library's dlsym(RTLD_DEFAULT, ...) finds it.
#include <string>

#include "xla_test.h"

using namespace xt;

namespace {
struct Status {
  int calls = 0;
  std::string message;
};
}  // namespace

extern "C" __attribute__((visibility("default"))) void XlaCustomCallStatusSetFailure(void* status, const char* message, size_t len) {
  auto* s = static_cast<Status*>(status);
  s->calls++;
  s->message.assign(message, len);
}

int main() {
  Status status;
  Buf x(F32, 8), w(F32, 4), out(F32, 8), iv(F32, 2);
  fill(x, 3);
  fill(w, 4);
  const void* in[2] = {x.data(), w.data()};
  void* outs[2] = {out.data(), iv.data()};
  auto d = descriptor(2, 0, 1e-5, F32, F32, 0);  // n2 == 0
  rms_forward_affine_mixed_dtype_cpu(outs, in, reinterpret_cast<const char*>(d.data()), d.size(), reinterpret_cast<XlaCustomCallStatus*>(&status));
  CHECK(status.calls == 1);
  CHECK(status.message.find("rms_forward_affine_mixed_dtype_cpu") != std::string::npos);
  CHECK(status.message.find("n2 must be >= 1") != std::string::npos);
  CHECK(untouched(out) && untouched(iv));
  // a good call leaves the status alone
  auto ok = descriptor(2, 4, 1e-5, F32, F32, 0);
  rms_forward_affine_mixed_dtype_cpu(outs, in, reinterpret_cast<const char*>(ok.data()), ok.size(), reinterpret_cast<XlaCustomCallStatus*>(&status));
  CHECK(status.calls == 1);
  CHECK(!untouched(out));
  if (g_failures) { std::fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
  std::printf("xla status channel: ok\n");
  return 0;
}
