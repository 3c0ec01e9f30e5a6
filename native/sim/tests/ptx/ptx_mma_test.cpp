// mma.sync shapes beyond f16/tf32: integer m16n8k16/m16n8k32 (s8/u8, wrapping or .satfinite),
// bf16 m16n8k8 and f64 m8n8k4. Fragments are packed here from the PTX ISA's layout tables
// (groupID g = lane/4, threadID_in_group t = lane%4) and results compared with a CPU matmul.
#include <climits>

#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
// frag: per lane 12 words a0..a3, b0 b1, 2 unused, c0..c3; out: per lane d0..d3
.visible .entry s8k32(.param .u64 frag, .param .u64 out)
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
  ld.global.v4.b32 {%r7, %r8, %r9, %r10}, [%rd4+32];
  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r11, %r12, %r13, %r14}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8, %r9, %r10};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.b32 [%rd5], {%r11, %r12, %r13, %r14};
  ret;
}
.visible .entry s8k32sat(.param .u64 frag, .param .u64 out)
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
  ld.global.v4.b32 {%r7, %r8, %r9, %r10}, [%rd4+32];
  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r11, %r12, %r13, %r14}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8, %r9, %r10};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.b32 [%rd5], {%r11, %r12, %r13, %r14};
  ret;
}
.visible .entry u8s8k16(.param .u64 frag, .param .u64 out)
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
  ld.global.v4.b32 {%r7, %r8, %r9, %r10}, [%rd4+32];
  mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%r11, %r12, %r13, %r14}, {%r1, %r2}, {%r5}, {%r7, %r8, %r9, %r10};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.b32 [%rd5], {%r11, %r12, %r13, %r14};
  ret;
}
.visible .entry bf16k8(.param .u64 frag, .param .u64 out)
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
  mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f4, %f5, %f6, %f7}, {%r1, %r2}, {%r5}, {%f0, %f1, %f2, %f3};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.f32 [%rd5], {%f4, %f5, %f6, %f7};
  ret;
}
// frag: per lane a, b, c0, c1 (f64); out: per lane d0, d1
.visible .entry f64k4(.param .u64 frag, .param .u64 out)
{
  .reg .f64 %d<8>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [frag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r0, %laneid;
  mul.wide.u32 %rd3, %r0, 32;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v2.f64 {%d0, %d1}, [%rd4];
  ld.global.v2.f64 {%d2, %d3}, [%rd4+16];
  mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d4, %d5}, {%d0}, {%d1}, {%d2, %d3};
  mul.wide.u32 %rd3, %r0, 16;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v2.f64 [%rd5], {%d4, %d5};
  ret;
}
)";

static uint32_t rng = 12345;
static uint32_t next() { rng = rng * 1664525u + 1013904223u; return rng >> 8; }

// Integer mma: A is 16xK (row), B is Kx8 (col), C/D 16x8.
static void intCase(Kernel& k, Arena& mem, const char* name, unsigned K, bool sa, bool sb, bool sat, bool big) {
  int32_t A[16][32], B[32][8], C[16][8];
  for (auto& r : A) for (auto& x : r) x = big ? (sa ? 127 : 255) : sa ? (int8_t)next() : (uint8_t)next();
  for (auto& r : B) for (auto& x : r) x = big ? 127 : sb ? (int8_t)next() : (uint8_t)next();
  for (auto& r : C) for (auto& x : r) x = big ? INT32_MAX - 100 : (int32_t)next() - (1 << 23);
  std::vector<uint32_t> frag(32 * 12, 0);
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l / 4, t = l % 4, na = K / 8, nb = K / 16;
    uint32_t* f = &frag[l * 12];
    for (unsigned i = 0; i < 4 * na; i++) {  // a_i: row g (i%8 < 4) or g+8; col 4t + (i&3) (+16 for i >= 8)
      unsigned row = (i % 8) < 4 ? g : g + 8, col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
      f[i / 4] |= (uint32_t)(uint8_t)A[row][col] << (8 * (i % 4));
    }
    for (unsigned i = 0; i < 4 * nb; i++) {  // b_i: row 4t + (i&3) (+16 for i >= 4), col g
      unsigned row = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
      f[4 + i / 4] |= (uint32_t)(uint8_t)B[row][g] << (8 * (i % 4));
    }
    for (unsigned i = 0; i < 4; i++) f[8 + i] = (uint32_t)C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)];
  }
  uint64_t fb = mem.alloc(frag.size() * 4), ob = mem.alloc(32 * 16);
  mem.put(fb, frag);
  CHECK(k.run(mem, name, {fb, ob}, 1, 32).kind == tsim::Fault::None);
  auto d = mem.get<uint32_t>(ob, 32 * 4);
  int bad = 0;
  for (unsigned l = 0; l < 32; l++)
    for (unsigned i = 0; i < 4; i++) {
      unsigned m = l / 4 + (i >= 2 ? 8 : 0), n = 2 * (l % 4) + (i & 1);
      int64_t acc = C[m][n];
      for (unsigned q = 0; q < K; q++) acc += (int64_t)A[m][q] * B[q][n];
      uint32_t want = sat ? (uint32_t)(int32_t)std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX) : (uint32_t)acc;
      if (d[l * 4 + i] != want && bad++ < 4) std::printf("%s lane %u d%u: got 0x%x want 0x%x\n", name, l, i, d[l * 4 + i], want);
    }
  CHECK_EQ(bad, 0);
}

static uint16_t bf16(float x) { return (uint16_t)(fbits(x) >> 16); }  // values chosen exact in bf16

int main() {
  Kernel k(kPtx);
  if (!k.ok()) return finish("ptx_mma_test");
  Arena mem;
  intCase(k, mem, "s8k32", 32, true, true, false, false);
  intCase(k, mem, "s8k32", 32, true, true, false, true);     // wraps past INT32_MAX
  intCase(k, mem, "s8k32sat", 32, true, true, true, true);   // clamps
  intCase(k, mem, "u8s8k16", 16, false, true, false, false);

  {  // bf16 m16n8k8: a_i row g (i<2) / g+8, col 2t + (i&1); b_i row 2t+i, col g
    float A[16][8], B[8][8], C[16][8];
    for (auto& r : A) for (auto& x : r) x = (float)((int)(next() % 17) - 8) / 4;
    for (auto& r : B) for (auto& x : r) x = (float)((int)(next() % 17) - 8) / 8;
    for (auto& r : C) for (auto& x : r) x = (float)((int)(next() % 100) - 50);
    std::vector<uint32_t> frag(32 * 12, 0);
    for (unsigned l = 0; l < 32; l++) {
      unsigned g = l / 4, t = l % 4;
      uint32_t* f = &frag[l * 12];
      for (unsigned i = 0; i < 4; i++) f[i / 2] |= (uint32_t)bf16(A[i < 2 ? g : g + 8][2 * t + (i & 1)]) << (16 * (i & 1));
      for (unsigned i = 0; i < 2; i++) f[4] |= (uint32_t)bf16(B[2 * t + i][g]) << (16 * i);
      for (unsigned i = 0; i < 4; i++) f[8 + i] = fbits(C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)]);
    }
    uint64_t fb = mem.alloc(frag.size() * 4), ob = mem.alloc(32 * 16);
    mem.put(fb, frag);
    CHECK(k.run(mem, "bf16k8", {fb, ob}, 1, 32).kind == tsim::Fault::None);
    auto d = mem.get<float>(ob, 32 * 4);
    int bad = 0;
    for (unsigned l = 0; l < 32; l++)
      for (unsigned i = 0; i < 4; i++) {
        unsigned m = l / 4 + (i >= 2 ? 8 : 0), n = 2 * (l % 4) + (i & 1);
        double acc = C[m][n];
        for (unsigned q = 0; q < 8; q++) acc += (double)A[m][q] * B[q][n];  // exact: small dyadic values
        bad += fbits(d[l * 4 + i]) != fbits((float)acc);
      }
    CHECK_EQ(bad, 0);
  }
  {  // f64 m8n8k4: a (row g, col t), b (row t, col g), c_i (row g, col 2t+i)
    double A[8][4], B[4][8], C[8][8];
    for (auto& r : A) for (auto& x : r) x = (double)((int)(next() % 2001) - 1000) / 7;
    for (auto& r : B) for (auto& x : r) x = (double)((int)(next() % 2001) - 1000) / 3;
    for (auto& r : C) for (auto& x : r) x = (double)((int)(next() % 2001) - 1000) / 11;
    std::vector<double> frag(32 * 4);
    for (unsigned l = 0; l < 32; l++) {
      unsigned g = l / 4, t = l % 4;
      frag[l * 4] = A[g][t];
      frag[l * 4 + 1] = B[t][g];
      frag[l * 4 + 2] = C[g][2 * t];
      frag[l * 4 + 3] = C[g][2 * t + 1];
    }
    uint64_t fb = mem.alloc(frag.size() * 8), ob = mem.alloc(32 * 16);
    mem.put(fb, frag);
    CHECK(k.run(mem, "f64k4", {fb, ob}, 1, 32).kind == tsim::Fault::None);
    auto d = mem.get<double>(ob, 32 * 2);
    int bad = 0;
    for (unsigned l = 0; l < 32; l++)
      for (unsigned i = 0; i < 2; i++) {
        unsigned m = l / 4, n = 2 * (l % 4) + i;
        double acc = C[m][n];
        for (unsigned q = 0; q < 4; q++) acc = std::fma(A[m][q], B[q][n], acc);
        bad += dbits(d[l * 2 + i]) != dbits(acc);
      }
    CHECK_EQ(bad, 0);
  }
  std::string log;
  auto bad1 = tsim::parsePtx(std::string(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry t(){\n.reg .b32 %r<12>;\n"
                                         "mma.sync.aligned.m16n8k32.row.col.s32.e4m3.e4m3.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r0,%r1,%r2,%r3};\nret;\n}\n"),
                             log);
  CHECK(!bad1 && log.find("e4m3/e5m2 accumulate in f32 or f16") != std::string::npos);  // fp8 mma: exec_mma_fp8.cpp
  return finish("ptx_mma_test");
}
