// redux.sync.{min,max}{.abs}{.NaN}.f32 (sm_100a) against the PTX ISA's definition, bit for bit:
// the minimum / maximum over the lanes of each membermask group; NaN inputs are left out unless
// .NaN is given (then any NaN input gives the canonical NaN 0x7fffffff); all inputs NaN gives the
// canonical NaN; +0 > -0; .abs reduces the absolute values (so -0 counts as +0); subnormals are
// kept. The reference orders floats by an integer key (no float comparison). Also: two membermask
// groups in one warp, and the integer forms refusing .abs/.NaN by name.
// `sim_ptx_ptx_redux_f32_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include <cstdlib>
#include <fstream>
#include <random>
#include <unistd.h>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

const char* kPtx = R"(.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  mov.u32 %r20, %tid.x;
  mov.u32 %r21, %ctaid.x;
  mov.u32 %r22, %ntid.x;
  mad.lo.u32 %r1, %r21, %r22, %r20;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  redux.sync.min.f32 %r3, %r2, 0xffffffff;
  redux.sync.max.f32 %r4, %r2, 0xffffffff;
  redux.sync.min.abs.f32 %r5, %r2, 0xffffffff;
  redux.sync.max.abs.f32 %r6, %r2, 0xffffffff;
  redux.sync.min.NaN.f32 %r7, %r2, 0xffffffff;
  redux.sync.max.NaN.f32 %r8, %r2, 0xffffffff;
  redux.sync.min.abs.NaN.f32 %r9, %r2, 0xffffffff;
  redux.sync.max.abs.NaN.f32 %r10, %r2, 0xffffffff;
  // two groups: lanes 0-11 and lanes 12-31
  and.b32 %r11, %r1, 31;
  setp.lt.u32 %p1, %r11, 12;
  selp.b32 %r12, 0x00000fff, 0xfffff000, %p1;
  redux.sync.max.f32 %r13, %r2, %r12;
  mul.wide.u32 %rd5, %r1, 48;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.b32 [%rd6], {%r3, %r4, %r5, %r6};
  st.global.v4.b32 [%rd6+16], {%r7, %r8, %r9, %r10};
  st.global.b32 [%rd6+32], %r13;
  ret;
}
)";

constexpr uint32_t kCanon = 0x7fffffffu;
bool isNaN(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
// A key whose unsigned order is the float order with -0 < +0 (non-NaN inputs).
uint32_t key(uint32_t b) { return (b >> 31) ? ~b : b | 0x80000000u; }
uint32_t reduce(const uint32_t* v, uint32_t mask, bool mx, bool abs, bool nan) {
  bool have = false, sawNaN = false;
  uint32_t best = 0;
  for (int l = 0; l < 32; l++) {
    if (!((mask >> l) & 1)) continue;
    uint32_t x = abs ? v[l] & 0x7fffffffu : v[l];
    if (isNaN(x)) { sawNaN = true; continue; }
    if (!have || (mx ? key(x) > key(best) : key(x) < key(best))) best = x;
    have = true;
  }
  return !have || (nan && sawNaN) ? kCanon : best;
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 g(29);
  const uint32_t specials[] = {0x80000000u, 0u, 0x7fc00001u, 0xffc00000u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                               0x00000003u, 0x80000003u, 0x7f7fffffu, 0xff7fffffu, fbits(1.5f), fbits(-1.5f)};
  const unsigned kWarps = 40;
  std::vector<uint32_t> in(32 * kWarps);
  for (unsigned w = 0; w < kWarps; w++)
    for (unsigned l = 0; l < 32; l++) {
      uint32_t& x = in[w * 32 + l];
      switch (w % 8) {
        case 0: x = fbits((float)((int)(g() % 2001) - 1000) / 8.0f); break;       // plain values
        case 1: x = specials[g() % 13]; break;                                    // mixed specials
        case 2: x = (g() & 1) ? 0x80000000u : 0u; break;                          // only zeros
        case 3: x = (g() & 1) ? 0x7fc00000u : 0xffbadbadu; break;                 // only NaNs
        case 4: x = l == 7 ? 0x7fc00000u : fbits((float)(g() % 100) - 50); break; // one NaN
        case 5: x = g() & 1 ? (0x00000001u + g() % 8) : (0x80000001u + g() % 8); break;  // subnormals
        case 6: x = l < 12 ? 0x7fc00000u : fbits(-(float)(g() % 9)); break;       // group 0 all NaN
        default: x = g(); break;                                                  // any bits
      }
    }
  Kernel k(kPtx);
  CHECK(k.ok());
  Arena mem;
  uint64_t din = mem.alloc(in.size() * 4), dout = mem.alloc(in.size() * 48);
  mem.put(din, in);
  tsim::Fault f = k.run(mem, "k", {din, dout}, kWarps / 8, 256);
  if (f.kind != tsim::Fault::None) std::printf("fault: %s\n", f.detail.c_str());
  CHECK_EQ((int)f.kind, 0);
  std::vector<uint32_t> out = mem.get<uint32_t>(dout, in.size() * 12);
  int bad = 0;
  for (unsigned w = 0; w < kWarps; w++) {
    const uint32_t* v = &in[w * 32];
    for (unsigned l = 0; l < 32; l++) {
      uint32_t want[9];
      for (int j = 0; j < 8; j++) want[j] = reduce(v, ~0u, j & 1, j & 2, j & 4);
      want[8] = reduce(v, l < 12 ? 0xfffu : 0xfffff000u, true, false, false);
      for (int j = 0; j < 9; j++)
        if (out[(w * 32 + l) * 12 + j] != want[j] && bad++ < 6)
          std::printf("warp %u lane %u result %d: got 0x%08x, want 0x%08x\n", w, l, j, out[(w * 32 + l) * 12 + j], want[j]);
    }
  }
  if (bad) failures++;
  // .abs / .NaN belong to the f32 form; u32 min has no f32 semantics to borrow
  for (const char* line : {"redux.sync.min.abs.u32 %r3, %r2, 0xffffffff;", "redux.sync.add.f32 %r3, %r2, 0xffffffff;"}) {
    std::string bad2 = std::string(kPtx);
    bad2.replace(bad2.find("redux.sync.min.f32 %r3, %r2, 0xffffffff;"), 40, line);
    std::string log;
    auto m = tsim::parsePtx(bad2, log);
    if (m || log.find("redux.sync.{min,max}{.abs}{.NaN}.f32") == std::string::npos) {
      std::printf("%s: expected a load error naming the f32 form, got \"%s\"\n", line, log.c_str());
      failures++;
    }
  }
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_redux_f32_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_redux_f32_test");
}
