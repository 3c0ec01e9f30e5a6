// Packed f32 pairs of sm_100 (PTX ISA 8.6: `add/sub/mul{.rnd}{.ftz}{.sat}.f32x2 d, a, b` and
// `fma.rnd{.ftz}{.sat}.f32x2 d, a, b, c` on .b64 registers; Triton 3.8 emits `add.f32x2` in its
// cc 100 attention), bit for bit: each 32-bit half (element 0 in the low bits) is what the .f32
// instruction gives with the same rounding mode (default .rn) and .ftz (subnormal inputs and
// results flushed to zero of the same sign); there is no .sat form (ptxas refuses it). The expected values
// are IEEE operations on the host in the same rounding mode.
// `sim_ptx_ptx_f32x2_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include <cfenv>
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
  .reg .b32 %r<4>;
  .reg .b64 %rd<24>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 24;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.b64 %rd5, [%rd4];
  ld.global.b64 %rd6, [%rd4+8];
  ld.global.b64 %rd7, [%rd4+16];
  add.f32x2 %rd10, %rd5, %rd6;
  add.rz.ftz.f32x2 %rd11, %rd5, %rd6;
  sub.rm.f32x2 %rd12, %rd5, %rd6;
  mul.rp.f32x2 %rd13, %rd5, %rd6;
  mul.f32x2 %rd14, %rd5, %rd6;
  fma.rn.f32x2 %rd15, %rd5, %rd6, %rd7;
  fma.rz.ftz.f32x2 %rd16, %rd5, %rd6, %rd7;
  mul.wide.u32 %rd8, %r1, 64;
  add.s64 %rd9, %rd2, %rd8;
  st.global.v2.b64 [%rd9], {%rd10, %rd11};
  st.global.v2.b64 [%rd9+16], {%rd12, %rd13};
  st.global.v2.b64 [%rd9+32], {%rd14, %rd15};
  st.global.b64 [%rd9+48], %rd16;
  ret;
}
)";

uint32_t canon(float r) { return r != r ? 0x7fffffffu : fbits(r); }
float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
// One half of each result, computed on the host in rounding mode `mode`.
uint32_t want(int op, float a, float b, float c) {
  volatile float x = a, y = b, z = c, r = 0;
  switch (op) {
    case 0: r = x + y; break;
    case 1: std::fesetround(FE_TOWARDZERO); r = ftz(x) + ftz(y); std::fesetround(FE_TONEAREST); return canon(ftz(r));
    case 2: std::fesetround(FE_DOWNWARD); r = x - y; break;
    case 3: std::fesetround(FE_UPWARD); r = x * y; std::fesetround(FE_TONEAREST); return canon(r);
    case 4: r = x * y; break;
    case 5: r = std::fma((float)x, (float)y, (float)z); break;
    case 6: std::fesetround(FE_TOWARDZERO); r = std::fma(ftz(x), ftz(y), ftz(z)); std::fesetround(FE_TONEAREST); return canon(ftz(r));
  }
  std::fesetround(FE_TONEAREST);
  return canon(r);
}

}  // namespace

int main(int argc, char** argv) {
  const float vals[] = {1.0f, -2.5f, 0.1f, 3.0e38f, -3.0e38f, 1e-40f, -1e-40f, NAN, INFINITY, 0.3333333f, 1.0e-20f, -0.0f};
  std::vector<float> in;
  for (float a : vals)
    for (float b : vals) {
      float c = a * 0.5f - b;
      // element 0 and element 1 differ (b and a swapped in element 1)
      in.insert(in.end(), {a, b, b, a, c, -c});
    }
  const unsigned n = (unsigned)in.size() / 6;
  Kernel k(kPtx);
  CHECK(k.ok());
  Arena mem;
  uint64_t din = mem.alloc(in.size() * 4), dout = mem.alloc(n * 64);
  mem.put(din, in);
  tsim::Fault f = k.run(mem, "k", {din, dout}, 1, n);
  CHECK_EQ((int)f.kind, 0);
  if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
  std::vector<uint32_t> out = mem.get<uint32_t>(dout, n * 16);
  int bad = 0;
  for (unsigned i = 0; i < n; i++)
    for (int op = 0; op < 7; op++)
      for (int h = 0; h < 2; h++) {
        float a = in[6 * i + h], b = in[6 * i + 2 + h], c = in[6 * i + 4 + h];
        uint32_t w = want(op, a, b, c), g = out[16 * i + 2 * op + h];
        if (g != w && bad++ < 5) std::printf("op %d half %d (%g, %g, %g): got 0x%08x, want 0x%08x\n", op, h, a, b, c, g, w);
      }
  if (bad) failures++;
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_f32x2_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_f32x2_test");
}
