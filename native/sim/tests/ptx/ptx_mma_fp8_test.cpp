// fp8 mma.sync (m16n8k32, .e4m3/.e5m2, same or mixed, f32 and f16 accumulators). Fragments are
// packed from the PTX ISA's m16n8k32 layout (the 8-bit one: a_i row g or g+8, col 4t + (i&3)
// (+16 for i >= 8); b_i row 4t + (i&3) (+16 for i >= 4), col g). Inputs keep their exponents in a
// narrow range so the double sum below is exact; the expected D is that sum rounded once.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.7
.target sm_89
.address_size 64
// frag: per lane 12 words a0..a3, b0 b1, 2 unused, c0..c3 (f32) or c0 c1 (f16x2); out: d
.visible .entry e4e5f32(.param .u64 frag, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [frag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mul.wide.u32 %rd3, %r0, 48;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
  ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd4+32];
  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.f32 [%rd5], {%f4, %f5, %f6, %f7};
  ret;
}
.visible .entry e5e5f32(.param .u64 frag, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [frag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mul.wide.u32 %rd3, %r0, 48;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
  ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd4+32];
  mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.f32 [%rd5], {%f4, %f5, %f6, %f7};
  ret;
}
.visible .entry e4e4f16(.param .u64 frag, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [frag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mul.wide.u32 %rd3, %r0, 48;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
  ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
  ld.global.v2.b32 {%r7, %r8}, [%rd4+32];
  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r9, %r10}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v2.b32 [%rd5], {%r9, %r10};
  ret;
}
)";

static uint32_t rng = 4242;
static uint32_t next() { rng = rng * 1664525u + 1013904223u; return rng >> 8; }

// A random fp8 byte with its exponent field in [lo, hi] (no NaN, no infinity, no subnormal).
static uint8_t fp8(bool e5, unsigned lo, unsigned hi) {
  unsigned s = next() & 1, e = lo + next() % (hi - lo + 1), m = next() % (e5 ? 4 : 8);
  return (uint8_t)(s << 7 | e << (e5 ? 2 : 3) | m);
}
static double fp8Value(uint8_t b, bool e5) {
  int s = b >> 7, e = e5 ? (b >> 2) & 31 : (b >> 3) & 15, m = e5 ? b & 3 : b & 7;
  double v = std::ldexp(1.0 + m / (e5 ? 4.0 : 8.0), e - (e5 ? 15 : 7));
  return s ? -v : v;
}

static void runCase(Kernel& k, Arena& mem, const char* name, bool aE5, bool bE5, bool f16) {
  uint8_t A[16][32], B[32][8];
  double C[16][8];
  for (auto& r : A) for (auto& x : r) x = aE5 ? fp8(true, 12, 18) : fp8(false, 4, 10);
  for (auto& r : B) for (auto& x : r) x = bE5 ? fp8(true, 12, 18) : fp8(false, 4, 10);
  for (auto& r : C) for (auto& x : r) x = (double)((int)(next() % 801) - 400) / 16;  // exact in f16 and f32
  std::vector<uint32_t> frag(32 * 12, 0);
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l / 4, t = l % 4;
    uint32_t* f = &frag[l * 12];
    for (unsigned i = 0; i < 16; i++) {
      unsigned row = (i % 8) < 4 ? g : g + 8, col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
      f[i / 4] |= (uint32_t)A[row][col] << (8 * (i % 4));
    }
    for (unsigned i = 0; i < 8; i++) {
      unsigned row = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
      f[4 + i / 4] |= (uint32_t)B[row][g] << (8 * (i % 4));
    }
    for (unsigned i = 0; i < 4; i++) {
      double cv = C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)];
      _Float16 h = (_Float16)cv;
      uint16_t hb;
      std::memcpy(&hb, &h, 2);
      if (f16) f[8 + i / 2] |= (uint32_t)hb << (16 * (i & 1));
      else f[8 + i] = fbits((float)cv);
    }
  }
  uint64_t fb = mem.alloc(frag.size() * 4), ob = mem.alloc(32 * 16);
  mem.put(fb, frag);
  CHECK(k.run(mem, name, {fb, ob}, 1, 32).kind == tsim::Fault::None);
  auto d = mem.get<uint32_t>(ob, 32 * 4);
  int bad = 0;
  for (unsigned l = 0; l < 32; l++)
    for (unsigned i = 0; i < 4; i++) {
      unsigned m = l / 4 + (i >= 2 ? 8 : 0), n = 2 * (l % 4) + (i & 1);
      double acc = C[m][n];  // exact: products have <= 8 significant bits within 2^-14..2^14
      for (unsigned q = 0; q < 32; q++) acc += fp8Value(A[m][q], aE5) * fp8Value(B[q][n], bE5);
      uint32_t got, want;
      if (f16) {
        _Float16 h = (_Float16)acc;  // one rounding, nearest even
        uint16_t hb;
        std::memcpy(&hb, &h, 2);
        got = (d[l * 4 + i / 2] >> (16 * (i & 1))) & 0xffff;  // lane l stored {d0, d1} at word 4l
        want = hb;
      } else {
        got = d[l * 4 + i];
        want = fbits((float)acc);
      }
      if (got != want && bad++ < 4) std::printf("%s lane %u d%u: got 0x%x want 0x%x\n", name, l, i, got, want);
    }
  CHECK_EQ(bad, 0);
}

int main() {
  Kernel k(kPtx);
  if (!k.ok()) return finish("ptx_mma_fp8_test");
  Arena mem;
  runCase(k, mem, "e4e5f32", false, true, false);
  runCase(k, mem, "e5e5f32", true, true, false);
  runCase(k, mem, "e4e4f16", false, false, true);
  // forms the ISA does not have are refused at load, named
  const char* bad[][2] = {
      {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.s8.f32 {%f0,%f1,%f2,%f3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%f0,%f1,%f2,%f3};", "go with e4m3/e5m2"},
      {"mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f0,%f1,%f2,%f3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%f0,%f1,%f2,%f3};", "is m16n8k32"},
      {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f16 {%f0,%f1,%f2,%f3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r0,%r1};", "are the same"},
  };
  for (auto& b : bad) {
    std::string log;
    auto mod = tsim::parsePtx(std::string(".version 8.7\n.target sm_89\n.address_size 64\n.visible .entry t(){\n.reg .b32 %r<12>;\n.reg .f32 %f<4>;\n") +
                                  b[0] + "\nret;\n}\n",
                              log);
    CHECK(!mod && log.find(b[1]) != std::string::npos);
    if (mod || log.find(b[1]) == std::string::npos) std::printf("log: %s\n", log.c_str());
  }
  return finish("ptx_mma_fp8_test");
}
