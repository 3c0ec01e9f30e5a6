// Single-instruction cases with exact expected bits: each case is a body run by one thread on
// inputs %?a %?b %?c loaded from memory, and one output register stored back. Shared by the
// per-family test programs.
#pragma once
#include <string>

#include "ptx_harness.h"

namespace ptxtest {

struct Case {
  const char* body;  // instructions; inputs %?a %?b %?c, output %?o (r=b32 l=b64 h=b16 f=f32 d=f64 p=pred)
  char out;
  uint64_t a, b, c, expect;
};

inline std::string kernelFor(const Case& k) {
  std::string s = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry t(.param .u64 out, .param .u64 in)
{
  .reg .b64 %x<4>, %la, %lb, %lc, %lo;
  .reg .b32 %ra, %rb, %rc, %ro;
  .reg .b16 %ha, %hb, %hc, %ho;
  .reg .f32 %fa, %fb, %fc, %fo;
  .reg .f64 %da, %db, %dc, %do;
  .reg .pred %pa, %pb, %pc, %po, %pq;
  ld.param.u64 %x1, [in];
  ld.param.u64 %x2, [out];
  ld.global.b64 %la, [%x1]; ld.global.b64 %lb, [%x1+8]; ld.global.b64 %lc, [%x1+16];
  ld.global.b32 %ra, [%x1]; ld.global.b32 %rb, [%x1+8]; ld.global.b32 %rc, [%x1+16];
  ld.global.b16 %ha, [%x1]; ld.global.b16 %hb, [%x1+8]; ld.global.b16 %hc, [%x1+16];
  ld.global.f32 %fa, [%x1]; ld.global.f32 %fb, [%x1+8]; ld.global.f32 %fc, [%x1+16];
  ld.global.f64 %da, [%x1]; ld.global.f64 %db, [%x1+8]; ld.global.f64 %dc, [%x1+16];
  setp.ne.b32 %pa, %ra, 0; setp.ne.b32 %pb, %rb, 0; setp.ne.b32 %pc, %rc, 0;
)";
  s += std::string("  ") + k.body + "\n";
  switch (k.out) {
    case 'r': s += "  st.global.b32 [%x2], %ro;\n"; break;
    case 'l': s += "  st.global.b64 [%x2], %lo;\n"; break;
    case 'h': s += "  st.global.b16 [%x2], %ho;\n"; break;
    case 'f': s += "  st.global.f32 [%x2], %fo;\n"; break;
    case 'd': s += "  st.global.f64 [%x2], %do;\n"; break;
    default: s += "  selp.u32 %ro, 1, 0, %po;\n  st.global.b32 [%x2], %ro;\n"; break;
  }
  return s + "  ret;\n}\n";
}

inline const uint64_t NANF = 0x7fc00000, CANON = 0x7fffffff;
inline uint64_t F(float x) { return fbits(x); }
inline uint64_t D(double x) { return dbits(x); }
inline uint64_t S(int64_t x) { return (uint64_t)x; }
inline uint64_t S32(int32_t x) { return (uint32_t)x; }


// Runs every case; returns how many ran (failures are counted in ptxtest::failures).
inline int runCases(const Case* cases, size_t count) {
  const Case* begin = cases;
  const Case* end = cases + count;
  Arena mem;
  uint64_t in = mem.alloc(24), out = mem.alloc(8);
  int n = 0;
  for (const Case* kp = begin; kp != end; kp++) {
    const Case& k = *kp;
    Kernel kern(kernelFor(k));
    if (!kern.ok()) { std::printf("  in case: %s\n", k.body); failures++; continue; }
    mem.put(in, std::vector<uint64_t>{k.a, k.b, k.c});
    mem.put(out, std::vector<uint64_t>{0xdeadbeefdeadbeefull});
    tsim::Fault f = kern.run(mem, "t", {out, in}, 1, 1);
    uint64_t got = mem.get<uint64_t>(out, 1)[0];
    unsigned bytes = k.out == 'l' || k.out == 'd' ? 8 : k.out == 'h' ? 2 : 4;
    if (bytes < 8) got &= (1ull << (8 * bytes)) - 1;
    uint64_t want = bytes < 8 ? k.expect & ((1ull << (8 * bytes)) - 1) : k.expect;
    if (f.kind != tsim::Fault::None || got != want) {
      std::printf("FAIL %-45s a=%llx b=%llx c=%llx: got %llx want %llx (fault %d)\n", k.body,
                  (unsigned long long)k.a, (unsigned long long)k.b, (unsigned long long)k.c,
                  (unsigned long long)got, (unsigned long long)want, (int)f.kind);
      failures++;
    }
    n++;
  }
  return n;
}

// A kernel body (same registers as kernelFor) must fail to load, with `why` in the log.
inline void expectRefused(const char* body, const char* why) {
  Case k{body, 'r', 0, 0, 0, 0};
  std::string log;
  auto mod = tsim::parsePtx(kernelFor(k), log);
  if (mod || log.find(why) == std::string::npos) {
    std::printf("FAIL refusal of '%s': %s (log: %s)\n", body, mod ? "loaded" : "wrong reason", log.c_str());
    failures++;
  }
}

}  // namespace ptxtest
