// mma.sync fragment layouts against a CPU matmul; ldmatrix (.trans) and cp.async (zero fill).
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// frag: per lane 12 words (2 unused) a0..a3 b0 b1 c0..c3; out: per lane d0..d3
.visible .entry mma16(.param .u64 frag, .param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [frag];
    ld.param.u64 %rd2, [out];
    mov.u32 %r0, %laneid;
    mul.wide.u32 %rd3, %r0, 48;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
    ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
    ld.global.v2.f32 {%f0, %f1}, [%rd4+24];
    ld.global.v2.f32 {%f2, %f3}, [%rd4+32];
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};
    mul.wide.u32 %rd3, %r0, 16;
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.f32 [%rd5], {%f4, %f5, %f6, %f7};
    ret;
}

.visible .entry mmatf32(.param .u64 frag, .param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [frag];
    ld.param.u64 %rd2, [out];
    mov.u32 %r0, %laneid;
    mul.wide.u32 %rd3, %r0, 48;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
    ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
    ld.global.v2.f32 {%f0, %f1}, [%rd4+24];
    ld.global.v2.f32 {%f2, %f3}, [%rd4+32];
    mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};
    mul.wide.u32 %rd3, %r0, 16;
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.f32 [%rd5], {%f4, %f5, %f6, %f7};
    ret;
}

// 4 matrices of 8x8 b16 (512 bytes) copied to shared with cp.async (16 bytes per lane), the
// last 16 bytes with src-size 6 (zero fill); then ldmatrix.x4 and ldmatrix.x4.trans.
.visible .entry ldm(.param .u64 src, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 tile[512];
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [out];
    mov.u32 %r0, %laneid;
    shl.b32 %r1, %r0, 4;
    mov.u32 %r2, tile;
    add.s32 %r3, %r2, %r1;
    cvt.u64.u32 %rd3, %r1;
    add.s64 %rd4, %rd1, %rd3;
    setp.eq.u32 %p1, %r0, 31;
    selp.u32 %r4, 6, 16, %p1;
    cp.async.ca.shared.global [%r3], [%rd4], 16, %r4;
    @!%p1 cp.async.cg.shared.global [%r3], [%rd4], 16;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    // lane L points at row L%8 of matrix L/8
    add.s32 %r5, %r2, %r1;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6, %r7, %r8, %r9}, [%r5];
    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r10, %r11, %r12, %r13}, [%r5];
    mul.wide.u32 %rd5, %r0, 32;
    add.s64 %rd6, %rd2, %rd5;
    st.global.v4.b32 [%rd6], {%r6, %r7, %r8, %r9};
    st.global.v4.b32 [%rd6+16], {%r10, %r11, %r12, %r13};
    ret;
}
)";

static uint16_t toHalf(float x) {  // exact for the small integers and halves used here
  uint32_t b = fbits(x);
  if (x == 0) return (uint16_t)(b >> 16);
  int e = (int)((b >> 23) & 255) - 127;
  return (uint16_t)((b >> 16 & 0x8000) | ((e + 15) << 10) | ((b >> 13) & 1023));
}

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_tensor_test");
  Arena mem;
  uint64_t frag = mem.alloc(32 * 48), out = mem.alloc(32 * 16);
  {  // m16n8k16 f16 -> f32
    float A[16][16], B[16][8], C[16][8];
    for (int m = 0; m < 16; m++)
      for (int kk = 0; kk < 16; kk++) A[m][kk] = (float)((m * 3 + kk * 5) % 7 - 3) * 0.5f;
    for (int kk = 0; kk < 16; kk++)
      for (int n = 0; n < 8; n++) B[kk][n] = (float)((kk * 2 + n * 7) % 5 - 2);
    for (int m = 0; m < 16; m++)
      for (int n = 0; n < 8; n++) C[m][n] = (float)(m - n) * 0.25f;
    std::vector<uint32_t> f(32 * 12);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, t = l % 4;
      auto pack = [](float lo, float hi) { return (uint32_t)toHalf(lo) | ((uint32_t)toHalf(hi) << 16); };
      f[l * 12 + 0] = pack(A[g][2 * t], A[g][2 * t + 1]);
      f[l * 12 + 1] = pack(A[g + 8][2 * t], A[g + 8][2 * t + 1]);
      f[l * 12 + 2] = pack(A[g][2 * t + 8], A[g][2 * t + 9]);
      f[l * 12 + 3] = pack(A[g + 8][2 * t + 8], A[g + 8][2 * t + 9]);
      f[l * 12 + 4] = pack(B[2 * t][g], B[2 * t + 1][g]);
      f[l * 12 + 5] = pack(B[2 * t + 8][g], B[2 * t + 9][g]);
      f[l * 12 + 6] = fbits(C[g][2 * t]);
      f[l * 12 + 7] = fbits(C[g][2 * t + 1]);
      f[l * 12 + 8] = fbits(C[g + 8][2 * t]);
      f[l * 12 + 9] = fbits(C[g + 8][2 * t + 1]);
    }
    mem.put(frag, f);
    CHECK_EQ(k.run(mem, "mma16", {frag, out}, 1, 32).kind, tsim::Fault::None);
    auto d = mem.get<float>(out, 128);
    int bad = 0;
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4; i++) {
        int m = l / 4 + 8 * (i / 2), n = 2 * (l % 4) + (i % 2);
        float want = C[m][n];
        for (int kk = 0; kk < 16; kk++) want += A[m][kk] * B[kk][n];
        bad += d[l * 4 + i] != want;
      }
    CHECK_EQ(bad, 0);
  }
  {  // m16n8k8 tf32 -> f32; inputs carry low mantissa bits that tf32 must ignore
    float A[16][8], B[8][8];
    for (int m = 0; m < 16; m++)
      for (int kk = 0; kk < 8; kk++) A[m][kk] = (float)(m + 2 * kk - 9);
    for (int kk = 0; kk < 8; kk++)
      for (int n = 0; n < 8; n++) B[kk][n] = (float)((kk * n) % 4 - 1);
    std::vector<uint32_t> f(32 * 12, 0);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, t = l % 4;
      auto noisy = [](float x) { return fbits(x) | (x != 0 ? 0x1fffu : 0u); };
      f[l * 12 + 0] = noisy(A[g][t]);
      f[l * 12 + 1] = noisy(A[g + 8][t]);
      f[l * 12 + 2] = noisy(A[g][t + 4]);
      f[l * 12 + 3] = noisy(A[g + 8][t + 4]);
      f[l * 12 + 4] = noisy(B[t][g]);
      f[l * 12 + 5] = noisy(B[t + 4][g]);
    }
    mem.put(frag, f);
    CHECK_EQ(k.run(mem, "mmatf32", {frag, out}, 1, 32).kind, tsim::Fault::None);
    auto d = mem.get<float>(out, 128);
    int bad = 0;
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4; i++) {
        int m = l / 4 + 8 * (i / 2), n = 2 * (l % 4) + (i % 2);
        float want = 0;
        for (int kk = 0; kk < 8; kk++) want += A[m][kk] * B[kk][n];
        bad += d[l * 4 + i] != want;
      }
    CHECK_EQ(bad, 0);
  }
  {  // ldmatrix + cp.async
    uint64_t src = mem.alloc(512), o = mem.alloc(32 * 32);
    std::vector<uint16_t> v(256);
    for (int i = 0; i < 256; i++) v[i] = (uint16_t)(0x1000 + i);
    mem.put(src, v);
    CHECK_EQ(k.run(mem, "ldm", {src, o}, 1, 32).kind, tsim::Fault::None);
    // shared tile: element i = v[i], except bytes 6..15 of lane 31's 16-byte chunk (elements 251..255)
    auto tileAt = [&](int mat, int row, int col) -> uint16_t {
      int i = mat * 64 + row * 8 + col;
      return i >= 251 ? 0 : v[i];
    };
    auto r = mem.get<uint32_t>(o, 32 * 8);
    int bad = 0;
    for (int l = 0; l < 32; l++)
      for (int m = 0; m < 4; m++) {
        int row = l / 4, col = 2 * (l % 4);
        uint32_t plain = tileAt(m, row, col) | ((uint32_t)tileAt(m, row, col + 1) << 16);
        uint32_t trans = tileAt(m, col, row) | ((uint32_t)tileAt(m, col + 1, row) << 16);
        if (r[l * 8 + m] != plain) { bad++; std::printf("ldmatrix lane %d m %d: %x want %x\n", l, m, r[l * 8 + m], plain); }
        if (r[l * 8 + 4 + m] != trans) { bad++; std::printf("ldmatrix.trans lane %d m %d: %x want %x\n", l, m, r[l * 8 + 4 + m], trans); }
      }
    CHECK_EQ(bad, 0);
  }
  return finish("ptx_tensor_test");
}
