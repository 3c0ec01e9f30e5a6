// The three-input f32 min / max of sm_100 (PTX ISA 8.8: `min{.ftz}{.NaN}.f32 d, a, b, c`, likewise
// max; Triton 3.8 emits `max.f32 d, a, b, c` for its cc 100 softmax), bit for bit: d is the
// minimum / maximum of the three; NaN inputs are ignored unless every input is NaN (the canonical
// NaN 0x7fffffff), and with .NaN any NaN input gives the canonical NaN; -0 < +0; .ftz flushes
// subnormal inputs (and results) to zero of the same sign.
// `sim_ptx_ptx_minmax3_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

const char* kPtx = R"(.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 12;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  ld.global.b32 %r3, [%rd4+4];
  ld.global.b32 %r4, [%rd4+8];
  max.f32 %r5, %r2, %r3, %r4;
  min.f32 %r6, %r2, %r3, %r4;
  max.NaN.f32 %r7, %r2, %r3, %r4;
  min.NaN.f32 %r8, %r2, %r3, %r4;
  max.ftz.f32 %r9, %r2, %r3, %r4;
  min.ftz.NaN.f32 %r10, %r2, %r3, %r4;
  mul.wide.u32 %rd5, %r1, 24;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v2.b32 [%rd6], {%r5, %r6};
  st.global.v2.b32 [%rd6+8], {%r7, %r8};
  st.global.v2.b32 [%rd6+16], {%r9, %r10};
  ret;
}
)";

constexpr uint32_t kNaN = 0x7fffffffu, kQ = 0x7fc00001u, kNegZ = 0x80000000u, kSub = 0x00000005u, kNegSub = 0x80000005u;

bool isNaN(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu); }
uint32_t ftz(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }
// The ISA's two-input rule (NaN ignored, -0 < +0), applied twice.
uint32_t pick2(uint32_t a, uint32_t b, bool mx) {
  if (isNaN(a)) return isNaN(b) ? kNaN : b;
  if (isNaN(b)) return a;
  float x = bitsf(a), y = bitsf(b);
  if (x == y) return ((a >> 31) != mx) ? a : b;  // max prefers +0, min -0
  return (mx ? x > y : x < y) ? a : b;
}
uint32_t pick3(uint32_t a, uint32_t b, uint32_t c, bool mx, bool nan, bool flush) {
  if (flush) { a = ftz(a); b = ftz(b); c = ftz(c); }
  if (nan && (isNaN(a) || isNaN(b) || isNaN(c))) return kNaN;
  return pick2(pick2(a, b, mx), c, mx);
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t vals[] = {fbits(1.5f), fbits(-2.0f), fbits(7.25f), kQ, kNegZ, 0u, kSub, kNegSub, fbits(-1e30f), 0x7f800000u};
  std::vector<uint32_t> in;
  for (uint32_t a : vals)
    for (uint32_t b : vals)
      for (uint32_t c : vals) { in.push_back(a); in.push_back(b); in.push_back(c); }
  const unsigned n = (unsigned)in.size() / 3;
  Kernel k(kPtx);
  CHECK(k.ok());
  Arena mem;
  uint64_t din = mem.alloc(in.size() * 4), dout = mem.alloc(n * 24);
  mem.put(din, in);
  // one block of n threads would exceed 1024: slices of 100 threads
  std::vector<uint32_t> out;
  for (unsigned base = 0; base < n; base += 100) {
    unsigned cnt = std::min(100u, n - base);
    tsim::Fault g = k.run(mem, "k", {din + base * 12ull, dout + base * 24ull}, 1, cnt);
    CHECK_EQ((int)g.kind, 0);
  }
  out = mem.get<uint32_t>(dout, n * 6);
  int bad = 0;
  for (unsigned i = 0; i < n; i++) {
    uint32_t a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
    const uint32_t want[6] = {pick3(a, b, c, true, false, false),  pick3(a, b, c, false, false, false),
                              pick3(a, b, c, true, true, false),   pick3(a, b, c, false, true, false),
                              pick3(a, b, c, true, false, true),   pick3(a, b, c, false, true, true)};
    for (int j = 0; j < 6; j++)
      if (out[6 * i + j] != want[j] && bad++ < 5)
        std::printf("inputs 0x%08x 0x%08x 0x%08x, result %d: got 0x%08x, want 0x%08x\n", a, b, c, j, out[6 * i + j], want[j]);
  }
  if (bad) failures++;
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_minmax3_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_minmax3_test");
}
