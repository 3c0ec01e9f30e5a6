// libFuzzer target for the PTX parser: any byte string must either parse or be rejected with a
// log; it must never crash, hang or read out of bounds (built with ASan/UBSan).
//   cmake -S . -B build-fuzz -DTESSERA_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang
//   cmake --build build-fuzz --target sim_parse_fuzz
//   build-fuzz/bin/sim_parse_fuzz native/sim/fuzz/corpus -max_len=8192
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string log;
  std::unique_ptr<tsim::Module> m = tsim::parsePtx(text, log);
  if (!m && log.empty()) __builtin_trap();  // a rejection must always say why
  if (m) {
    // Everything the driver reads from a parsed module must be consistent.
    for (const auto& k : m->kernels()) {
      unsigned end = 0;
      for (const auto& p : k.params) end = p.offset + p.size > end ? p.offset + p.size : end;
      if (end > k.paramBytes) __builtin_trap();
    }
  }
  return 0;
}
