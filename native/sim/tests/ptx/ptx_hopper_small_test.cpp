// Smaller sm_89/sm_90 forms from the PTX ISA, bit for bit:
// - cvt to e4m3x2/e5m2x2 (from f32 pairs and from f16x2; .satfinite, .relu; nearest even with ties
//   to even, subnormals, saturation of large values and infinities, NaN -> 0x7f) and back to f16x2
//   (exact; NaN -> 0x7fff), with packing order d = {hi: a, lo: b};
// - stmatrix .x4 and .x4.trans: where each lane's fragment element lands (matrix i row r = lane/4,
//   columns 2*(lane%4)+{0,1}; transposed with .trans), against the row addresses of lanes 8i..8i+7;
// - setmaxnreg (range and multiple-of-8 checks at load), applypriority (no effect, alignment
//   checked), discard (the line reads as the indeterminate value 0xdb afterwards);
// - the fence forms of Hopper code (proxy.async with each space, mbarrier_init, acq_rel/sc with
//   cluster scope, proxy.tensormap::generic) load; malformed ones are refused.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry cvt8(.param .u64 out, .param .u64 in)
{
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
  cvt.rn.satfinite.e5m2x2.f32 %h2, %f1, %f2;
  cvt.rn.satfinite.relu.e4m3x2.f32 %h3, %f1, %f2;
  cvt.rn.satfinite.relu.e5m2x2.f32 %h4, %f1, %f2;
  // f16x2 source: {hi: f1, lo: f2} rounded to f16 first
  cvt.rn.f16x2.f32 %r2, %f1, %f2;
  cvt.rn.satfinite.e4m3x2.f16x2 %h5, %r2;
  cvt.rn.satfinite.e5m2x2.f16x2 %h6, %r2;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd6, %rd1, %rd5;
  st.global.b16 [%rd6], %h1;
  st.global.b16 [%rd6+2], %h2;
  st.global.b16 [%rd6+4], %h3;
  st.global.b16 [%rd6+6], %h4;
  st.global.b16 [%rd6+8], %h5;
  st.global.b16 [%rd6+10], %h6;
  ret;
}

.visible .entry back(.param .u64 out, .param .u64 in)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 2;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.b16 %h1, [%rd4];
  cvt.rn.f16x2.e4m3x2 %r2, %h1;
  cvt.rn.f16x2.e5m2x2 %r3, %h1;
  cvt.rn.relu.f16x2.e4m3x2 %r4, %h1;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd6, %rd1, %rd5;
  st.global.b32 [%rd6], %r2;
  st.global.b32 [%rd6+4], %r3;
  st.global.b32 [%rd6+8], %r4;
  ret;
}

// stmatrix: lane L gives the row address of row (L%8) of matrix L/8 (16-byte rows, 4 matrices);
// register i of lane L = {lo: 1000i + 10(L/4) + 2(L%4), hi: that + 1}
.visible .entry stm(.param .u64 out, .param .u32 trans)
{
  .reg .pred %p<2>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[512];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r20, [trans];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  mul.lo.u32 %r4, %r2, 10;
  shl.b32 %r5, %r3, 1;
  add.u32 %r6, %r4, %r5;        // 10(L/4) + 2(L%4)
  add.u32 %r7, %r6, 1;
  shl.b32 %r7, %r7, 16;
  or.b32 %r8, %r6, %r7;         // register 0
  add.u32 %r9, %r8, 0x03e803e8;  // + 1000 in both halves
  add.u32 %r10, %r9, 0x03e803e8;
  add.u32 %r11, %r10, 0x03e803e8;
  mov.u32 %r12, sm;
  shl.b32 %r13, %r1, 4;
  add.u32 %r14, %r12, %r13;
  setp.ne.u32 %p1, %r20, 0;
  @!%p1 stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r14], {%r8, %r9, %r10, %r11};
  @%p1 stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%r14], {%r8, %r9, %r10, %r11};
  bar.sync 0;
  // copy the 512 bytes out: lane L copies 16 bytes
  add.s64 %rd2, %rd1, 0;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.shared.v4.b32 {%r15, %r16, %r17, %r18}, [%r14];
  st.global.v4.b32 [%rd4], {%r15, %r16, %r17, %r18};
  ret;
}

.visible .entry misc(.param .u64 buf)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  setmaxnreg.inc.sync.aligned.u32 240;
  setmaxnreg.dec.sync.aligned.u32 24;
  applypriority.global.L2::evict_normal [%rd1], 128;
  discard.global.L2 [%rd1+128], 128;
  fence.proxy.async;
  fence.proxy.async.global;
  fence.proxy.async.shared::cta;
  fence.proxy.async.shared::cluster;
  fence.mbarrier_init.release.cluster;
  fence.acq_rel.cluster;
  fence.sc.cluster;
  fence.acq_rel.gpu;
  fence.proxy.tensormap::generic.release.gpu;
  createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
  createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd3, 0.25;
  ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;
  st.global.b32 [%rd1+4], %r1;
  ret;
}

// min/max .xorsign.abs (ISA semantics: magnitude of the min/max of |a|, |b|; sign a ^ b; a NaN
// operand is ignored unless .NaN; a NaN result is canonical)
.visible .entry xs(.param .u64 out)
{
  .reg .f32 %f<12>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0fC0400000;   // -3
  mov.f32 %f2, 0f40000000;   // 2
  mov.f32 %f3, 0fC0000000;   // -2
  mov.f32 %f4, 0f7FC00000;   // NaN
  min.xorsign.abs.f32 %f5, %f1, %f2;
  max.xorsign.abs.f32 %f6, %f1, %f2;
  min.xorsign.abs.f32 %f7, %f1, %f3;
  min.xorsign.abs.f32 %f8, %f4, %f3;
  min.NaN.xorsign.abs.f32 %f9, %f4, %f3;
  st.global.f32 [%rd1], %f5;
  st.global.f32 [%rd1+4], %f6;
  st.global.f32 [%rd1+8], %f7;
  st.global.f32 [%rd1+12], %f8;
  st.global.f32 [%rd1+16], %f9;
  mov.b32 %r1, 0xBE004400;   // f16x2 {hi: -1.5, lo: 4}
  mov.b32 %r2, 0x4000B800;   // {hi: 2, lo: -0.5}
  min.xorsign.abs.f16x2 %r3, %r1, %r2;
  max.ftz.xorsign.abs.f16x2 %r4, %r1, %r2;
  mov.b32 %r5, 0xBFC04080;   // bf16x2 {hi: -1.5, lo: 4}
  mov.b32 %r6, 0x4000BF00;   // {hi: 2, lo: -0.5}
  min.xorsign.abs.bf16x2 %r7, %r5, %r6;
  max.NaN.xorsign.abs.bf16x2 %r8, %r5, %r6;
  st.global.b32 [%rd1+20], %r3;
  st.global.b32 [%rd1+24], %r4;
  st.global.b32 [%rd1+28], %r7;
  st.global.b32 [%rd1+32], %r8;
  ret;
}

.visible .entry misal(.param .u64 buf)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  discard.global.L2 [%rd1+64], 128;
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_hopper_small_test");
  Arena mem;
  {
    const float inf = INFINITY, nan = NAN;
    // {a, b} -> want {e4m3x2, e5m2x2, e4m3x2.relu, e5m2x2.relu}
    struct Row { float a, b; uint16_t e4, e5, e4r, e5r; };
    const Row rows[] = {
        {1.0f, -2.0f, 0x38c0, 0x3cc0, 0x3800, 0x3c00},
        {448.0f, 57344.0f, 0x7e7e, 0x5f7b, 0x7e7e, 0x5f7b},      // e4m3 max; e5m2 max (448 = 0x5f in e5m2)
        {500.0f, 60000.0f, 0x7e7e, 0x607b, 0x7e7e, 0x607b},      // e4m3 saturates; e5m2: 500 -> 512, 60000 saturates
        {inf, -inf, 0x7efe, 0x7bfb, 0x7e00, 0x7b00},
        {nan, 0.0f, 0x7f00, 0x7f00, 0x7f00, 0x7f00},
        {0x1p-9f, 0x1p-16f, 0x0100, 0x1801, 0x0100, 0x1801},     // smallest subnormals (e4m3 2^-16 -> 0; 2^-9 is normal in e5m2)
        {0x1p-10f, 0x1.8p-9f, 0x0002, 0x141a, 0x0002, 0x141a},   // e4m3 ties: 0.5 ulp -> 0 (even), 1.5 ulp -> 2; e5m2 exact
        {1.0625f, 1.1875f, 0x383a, 0x3c3d, 0x383a, 0x3c3d},      // e4m3 ties to even: 1.0 and 1.25; e5m2: 1.0, 1.25 (nearest)
        {1.125f, 1.375f, 0x393b, 0x3c3e, 0x393b, 0x3c3e},        // e5m2 ties: 1.125 -> 1.0 (even), 1.375 -> 1.5
        {-0.0f, -1.0f, 0x80b8, 0x80bc, 0x0000, 0x0000},
    };
    const unsigned n = sizeof rows / sizeof rows[0];
    std::vector<float> in;
    for (auto& r : rows) { in.push_back(r.a); in.push_back(r.b); }
    uint64_t ib = mem.alloc(in.size() * 4), ob = mem.alloc(n * 12);
    mem.put(ib, in);
    CHECK_EQ((int)k.run(mem, "cvt8", {ob, ib}, 1, n).kind, 0);
    auto got = mem.get<uint16_t>(ob, n * 6);
    for (unsigned i = 0; i < n; i++) {
      const Row& r = rows[i];
      uint16_t w[4] = {r.e4, r.e5, r.e4r, r.e5r};
      for (int j = 0; j < 4; j++) {
        if (got[i * 6 + j] != w[j]) std::printf("row %u form %d: got 0x%04x want 0x%04x\n", i, j, got[i * 6 + j], w[j]);
        CHECK_EQ(got[i * 6 + j], w[j]);
      }
    }
    // from f16x2 (the f32 values rounded to f16 first): the rows whose values f16 holds
    for (unsigned i : {0u, 5u, 7u, 8u, 9u}) {
      CHECK_EQ(got[i * 6 + 4], rows[i].e4);
      CHECK_EQ(got[i * 6 + 5], rows[i].e5);
    }
    CHECK_EQ(got[1 * 6 + 4], 0x7e7e);  // 448, 57344 (f16 holds both): e4m3 saturates 57344
    CHECK_EQ(got[1 * 6 + 5], 0x5f7b);
    CHECK_EQ(got[4 * 6 + 5], 0x7f00);  // NaN
  }
  {
    // back to f16x2: {hi, lo} bytes
    const uint16_t in[] = {0x7e38, 0x7f01, 0xb8c0, 0x7b01, 0x0000};
    uint64_t ib = mem.alloc(64), ob = mem.alloc(5 * 12);
    mem.put(ib, std::vector<uint16_t>(in, in + 5));
    CHECK_EQ((int)k.run(mem, "back", {ob, ib}, 1, 5).kind, 0);
    auto got = mem.get<uint32_t>(ob, 15);
    // e4m3 column: 0x7e = 448, 0x38 = 1, 0x7f = NaN, 0x01 = 2^-9 (f16 0x1800), 0xb8 = -1, 0xc0 = -2, 0x7b = 1.375 * 2^8 = 352
    CHECK_EQ(got[0], 0x5f003c00u);   // 448, 1.0
    CHECK_EQ(got[3], 0x7fff1800u);   // NaN, 2^-9
    CHECK_EQ(got[6], 0xbc00c000u);   // -1.0, -2.0
    CHECK_EQ(got[9], 0x5d801800u);   // 352 (f16 0x5d80), 2^-9
    CHECK_EQ(got[12], 0u);
    // e5m2 column: the byte is an f16's high byte, except NaNs (canonical 0x7fff)
    CHECK_EQ(got[1], 0x7fff3800u);   // 0x7e: exponent 31, mantissa 2: NaN; 0x38 -> 0x3800
    CHECK_EQ(got[4], 0x7fff0100u);   // 0x7f NaN; 0x01 -> 0x0100
    CHECK_EQ(got[7], 0xb800c000u);
    CHECK_EQ(got[10], 0x7b000100u);
    // .relu (e4m3): negatives become +0, NaN stays NaN
    CHECK_EQ(got[2], 0x5f003c00u);
    CHECK_EQ(got[5], 0x7fff1800u);
    CHECK_EQ(got[8], 0x00000000u);
  }
  for (int trans = 0; trans < 2; trans++) {
    uint64_t ob = mem.alloc(512);
    tsim::Fault f = k.run(mem, "stm", {ob, (uint64_t)trans}, 1, 32);
    CHECK_EQ((int)f.kind, 0);
    auto got = mem.get<uint16_t>(ob, 256);
    unsigned bad = 0;
    for (unsigned i = 0; i < 4; i++)
      for (unsigned r = 0; r < 8; r++)
        for (unsigned c = 0; c < 8; c++) {
          // fragment element (row r, col c) of matrix i is 1000i + 10r + c; it lands in row r
          // (row c with .trans), column c (r), of matrix i, whose rows are lanes 8i.. addresses
          unsigned row = trans ? c : r, col = trans ? r : c;
          uint16_t v = got[(8 * i + row) * 8 + col];
          if (v != 1000 * i + 10 * r + c) bad++;
        }
    if (bad) std::printf("stmatrix trans=%d: %u wrong\n", trans, bad);
    CHECK_EQ(bad, 0u);
  }
  {
    uint64_t b = mem.alloc(512);
    mem.put(b, std::vector<uint32_t>(128, 0x01020304));
    CHECK_EQ((int)k.run(mem, "misc", {b}, 1, 32).kind, 0);
    auto got = mem.get<uint8_t>(b, 512);
    CHECK_EQ(got[4], 4);  // the cache-hinted load read the unchanged word
    unsigned db = 0, kept = 0;
    for (unsigned i = 128; i < 256; i++) db += got[i] == 0xdb;
    for (unsigned i = 256; i < 512; i++) kept += got[i] == (uint8_t)(4 - i % 4);
    CHECK_EQ(db, 128u);
    CHECK_EQ(kept, 256u);
    CHECK_EQ((int)k.run(mem, "misal", {b}, 1, 1).kind, (int)tsim::Fault::Misaligned);
  }
  {
    // `.param .u64 .ptr .global .align 1 p`: the .align after .ptr is the pointee's (Triton's
    // scratch pointers), so the parameter keeps its natural 8-byte alignment
    std::string lg;
    auto m = tsim::parsePtx(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u32 a, .param .u32 b, .param .u32 c,"
                            " .param .u64 .ptr .global .align 1 d, .param .align 16 .b8 e[4])\n{\n ret;\n}\n", lg);
    CHECK(m != nullptr);
    if (m) {
      CHECK_EQ(m->kernels()[0].params[3].offset, 16u);
      CHECK_EQ(m->kernels()[0].params[4].offset, 32u);
    }
  }
  {
    uint64_t o = mem.alloc(64);
    CHECK_EQ((int)k.run(mem, "xs", {o}, 1, 1).kind, 0);
    auto r = mem.get<uint32_t>(o, 9);
    const uint32_t want[9] = {0xc0000000u, 0xc0400000u, 0x40000000u, 0xc0000000u, 0x7fffffffu,
                              0xbe00b800u, 0xc000c400u, 0xbfc0bf00u, 0xc000c080u};
    for (int i = 0; i < 9; i++) {
      if (r[i] != want[i]) std::printf("xorsign[%d] = 0x%08x want 0x%08x\n", i, r[i], want[i]);
      CHECK_EQ(r[i], want[i]);
    }
  }
  const char* refused[] = {
      "setmaxnreg.inc.sync.aligned.u32 20;",
      "min.xorsign.f32 %f1, %f1, %f1;",
      "max.ftz.xorsign.abs.bf16 %h1, %h1, %h1;",
      "add.xorsign.abs.f32 %f1, %f1, %f1;",
      "setmaxnreg.dec.sync.aligned.u32 100;",
      "setmaxnreg.sync.aligned.u32 64;",
      "discard.global.L2 [%rd1], 64;",
      "applypriority.global.L2::evict_last [%rd1], 128;",
      "cvt.rn.e4m3x2.f32 %h1, %f1, %f1;",
      "cvt.rz.satfinite.e4m3x2.f32 %h1, %f1, %f1;",
      "cvt.rn.satfinite.f16x2.e4m3x2 %r1, %h1;",
      "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1;",
  };
  for (const char* b : refused) {
    std::string ptx = std::string(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b16 %h<2>;\n .reg .f32 %f<2>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ") + b + "\n ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m) std::printf("accepted: %s\n", b);
    CHECK(!m);
  }
  return finish("ptx_hopper_small_test");
}
