// cvt to and from ue8m0x2 (sm_100a) against the PTX ISA, bit for bit. ue8m0 code e is 2^(e-127)
// (e = 0..254), 0xff NaN. The reference searches the codes: .rz the largest code whose value is
// <= x, .rp the smallest whose value is >= x (2^-127 for anything positive below it); NaN -> 0xff;
// .satfinite: a magnitude above 2^127 (infinities, negative ones too) -> 0xfe. Packing: a (or the
// high bf16) in d[15:8]. Widening to bf16x2: 2^(e-127) exactly (0x0040 for e = 0), 0xff -> 0x7fff.
// Inputs the ISA leaves open are named faults: zero, a negative input, .rz below 2^-127, an
// overflow without .satfinite.
// `sim_ptx_ptx_cvt_ue8m0_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include <cmath>
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
  .reg .b32 %r<32>;
  .reg .b16 %h<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %r2, [%rd4];
  ld.global.f32 %r3, [%rd4+4];
  ld.global.u32 %r4, [%rd4+8];
  ld.global.u32 %r5, [%rd4+12];
  cvt.rz.satfinite.ue8m0x2.f32 %h1, %r2, %r3;
  cvt.rp.satfinite.ue8m0x2.f32 %h2, %r2, %r3;
  cvt.rz.ue8m0x2.bf16x2 %h3, %r4;
  cvt.rp.satfinite.ue8m0x2.bf16x2 %h4, %r4;
  cvt.u16.u32 %h5, %r5;
  cvt.rn.bf16x2.ue8m0x2 %r6, %h5;
  cvt.u32.u16 %r7, %h1;
  cvt.u32.u16 %r8, %h2;
  cvt.u32.u16 %r9, %h3;
  cvt.u32.u16 %r10, %h4;
  mul.wide.u32 %rd5, %r1, 32;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.b32 [%rd6], {%r7, %r8, %r9, %r10};
  st.global.b32 [%rd6+16], %r6;
  ret;
}
)";

long double value(unsigned e) { return std::ldexp(1.0L, (int)e - 127); }
// -1: the ISA leaves it open (the sim faults)
int ref(float x, bool rp, bool satf) {
  if (x != x) return 0xff;
  if (satf && std::fabs((long double)x) > value(254)) return 0xfe;
  if (x <= 0 || std::isinf(x)) return -1;
  int best = -1;
  if (!rp) {
    for (unsigned e = 0; e < 255; e++)
      if (value(e) <= x) best = (int)e;
  } else {
    for (int e = 254; e >= 0; e--)
      if (value((unsigned)e) >= x) best = e;
    if (best < 0 && !satf) return -1;
  }
  return best;
}
uint32_t bfBits(float f) { return fbits(f) >> 16; }

}  // namespace

int main(int argc, char** argv) {
  // powers of two across the range and their neighbours, f32 subnormals, NaN
  std::vector<float> pos;
  for (int e = -149; e <= 127; e += 3) {
    float p = std::ldexp(1.0f, e);
    pos.push_back(p);
    pos.push_back(std::nextafter(p, 0.0f));
    pos.push_back(std::nextafter(p, INFINITY));
    pos.push_back(p * 1.5f);
  }
  for (float v : {0x1p-127f, 0x1p-128f, 0x1.8p-127f, 0x1p127f, 0x1.000002p127f, 3.0e38f, 1.0f, 0.75f}) pos.push_back(v);
  // bf16 inputs: exactly representable ones (the low 16 bits zero)
  std::vector<uint32_t> in;
  unsigned n = 0;
  for (size_t i = 0; i < pos.size(); i++) {
    float a = pos[i], b = pos[(i * 5 + 1) % pos.size()];
    bool bad = false;
    for (float v : {a, b})
      for (bool rp : {false, true})
        if (ref(v, rp, false) < 0) bad = true;  // the .rz form without .satfinite must be defined
    float ba = bitsf(fbits(a) & 0xffff0000u), bb = bitsf(fbits(b) & 0xffff0000u);
    for (float v : {ba, bb})
      if (ref(v, false, false) < 0 || ref(v, true, true) < 0) bad = true;
    if (bad) continue;
    in.push_back(fbits(a));
    in.push_back(fbits(b));
    in.push_back(bfBits(ba) << 16 | bfBits(bb));
    in.push_back((uint32_t)(i * 37) & 0xffff);
    n++;
  }
  for (unsigned w = 0; w < 256; w++) {  // every code pair comes up in the widening
    in.push_back(fbits(NAN)); in.push_back(fbits(1.0f)); in.push_back(bfBits(2.0f) << 16 | bfBits(NAN)); in.push_back(w << 8 | (255 - w));
    n++;
  }
  Kernel k(kPtx);
  CHECK(k.ok());
  Arena mem(1 << 22);
  uint64_t din = mem.alloc(in.size() * 4), dout = mem.alloc((size_t)n * 32);
  mem.put(din, in);
  for (unsigned base = 0; base < n; base += 256) {
    tsim::Fault f = k.run(mem, "k", {din + base * 16ull, dout + base * 32ull}, 1, std::min(256u, n - base));
    if (f.kind != tsim::Fault::None) std::printf("fault: %s\n", f.detail.c_str());
    CHECK_EQ((int)f.kind, 0);
  }
  std::vector<uint32_t> out = mem.get<uint32_t>(dout, (size_t)n * 8);
  int bad = 0;
  for (unsigned i = 0; i < n; i++) {
    float a = bitsf(in[4 * i]), b = bitsf(in[4 * i + 1]);
    uint32_t bf = in[4 * i + 2], w = in[4 * i + 3];
    float ba = bitsf(bf & 0xffff0000u), bb = bitsf(bf << 16);
    auto wide = [](uint32_t e) -> uint32_t { return e == 0xff ? 0x7fffu : (uint32_t)(fbits((float)value(e)) >> 16); };
    uint32_t want[5] = {(uint32_t)(ref(a, false, true) << 8 | ref(b, false, true)), (uint32_t)(ref(a, true, true) << 8 | ref(b, true, true)),
                        (uint32_t)(ref(ba, false, false) << 8 | ref(bb, false, false)), (uint32_t)(ref(ba, true, true) << 8 | ref(bb, true, true)),
                        wide((w >> 8) & 0xff) << 16 | wide(w & 0xff)};
    for (int j = 0; j < 5; j++)
      if (out[8 * i + j] != want[j] && bad++ < 8)
        std::printf("inputs %a %a 0x%08x 0x%04x, result %d: got 0x%x, want 0x%x\n", a, b, bf, w, j, out[8 * i + j], want[j]);
  }
  if (bad) failures++;
  // the open cases: named faults
  for (float x : {0.0f, -1.0f, 0x1p-130f, INFINITY}) {
    std::vector<uint32_t> one = {fbits(x), fbits(1.0f), bfBits(1.0f) << 16 | bfBits(1.0f), 0};
    std::string src = kPtx;
    src.replace(src.find("cvt.rz.satfinite.ue8m0x2.f32"), 28, "cvt.rz.ue8m0x2.f32          ");
    Kernel k2(src);
    uint64_t d1 = mem.alloc(16), d2 = mem.alloc(32);
    mem.put(d1, one);
    tsim::Fault f = k2.run(mem, "k", {d1, d2}, 1, 1);
    if (f.kind == tsim::Fault::None || f.detail.find("the ISA does not define the result") == std::string::npos) {
      std::printf("input %a: expected a named fault, got kind %d: %s\n", x, (int)f.kind, f.detail.c_str());
      failures++;
    }
  }
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_cvt_ue8m0_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_cvt_ue8m0_test");
}
