// Immediate operands and module initialisers in every literal form of the PTX ISA (decimal, hex,
// octal, binary, U suffix, 0f/0d float bit patterns, decimal floats), typed by the instruction as
// ptxas types them: float hex patterns stay raw bits in bit-typed operands, and are converted
// between f32 and f64 by value; forms ptxas rejects are refused at load with the reason.
#include "ptx_cases.h"

using namespace ptxtest;

static void initialisers() {
  const char* ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.global .b32 gb[3] = {0f3F800000, 0x10, 0b11};
.global .f32 gf[4] = {0f3F800000, 1.5, 0d4000000000000000, 0fBF800000};
.global .f64 gd[2] = {0f3F800000, 0.1};
.global .b64 gl = 0d3FF0000000000000;
.global .u8 gu[4] = {0b1, 0x2, 017, 4U};
.global .s32 gs = -0x1;
.const .align 4 .b32 coef[2] = {0fBF800000, 0F40490FDB};
.visible .entry t(.param .u64 out)
{
  .reg .b64 %a, %v;
  .reg .b32 %r;
  ld.param.u64 %a, [out];
  ld.global.b32 %r, [gb]; st.global.b32 [%a], %r;
  ld.global.b32 %r, [gb+4]; st.global.b32 [%a+4], %r;
  ld.global.b32 %r, [gb+8]; st.global.b32 [%a+8], %r;
  ld.global.b32 %r, [gf]; st.global.b32 [%a+12], %r;
  ld.global.b32 %r, [gf+4]; st.global.b32 [%a+16], %r;
  ld.global.b32 %r, [gf+8]; st.global.b32 [%a+20], %r;
  ld.global.b32 %r, [gf+12]; st.global.b32 [%a+24], %r;
  ld.global.b64 %v, [gd]; st.global.b64 [%a+32], %v;
  ld.global.b64 %v, [gd+8]; st.global.b64 [%a+40], %v;
  ld.global.b64 %v, [gl]; st.global.b64 [%a+48], %v;
  ld.global.b32 %r, [gu]; st.global.b32 [%a+56], %r;
  ld.global.b32 %r, [gs]; st.global.b32 [%a+60], %r;
  ld.const.b32 %r, [coef]; st.global.b32 [%a+64], %r;
  ld.const.b32 %r, [coef+4]; st.global.b32 [%a+68], %r;
  ret;
}
)";
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem;
  uint64_t out = mem.alloc(72);
  CHECK(k.run(mem, "t", {out}, 1, 1).kind == tsim::Fault::None);
  auto w = mem.get<uint32_t>(out, 18);
  CHECK_EQ(w[0], 0x3F800000u);
  CHECK_EQ(w[1], 0x10u);
  CHECK_EQ(w[2], 3u);
  CHECK_EQ(w[3], 0x3F800000u);
  CHECK_EQ(w[4], fbits(1.5f));
  CHECK_EQ(w[5], fbits(2.0f));
  CHECK_EQ(w[6], 0xBF800000u);
  auto d = mem.get<uint64_t>(out, 9);
  CHECK_EQ(d[4], dbits(1.0));
  CHECK_EQ(d[5], dbits(0.1));
  CHECK_EQ(d[6], 0x3FF0000000000000ull);
  CHECK_EQ(w[14], 0x040F0201u);
  CHECK_EQ(w[15], 0xFFFFFFFFu);
  CHECK_EQ(w[16], 0xBF800000u);
  CHECK_EQ(w[17], 0x40490FDBu);

  // initialisers ptxas rejects are refused, naming the variable
  auto refused = [](const char* decl, const char* why) {
    std::string ptx = std::string(".version 8.0\n.target sm_80\n.address_size 64\n") + decl +
                      "\n.visible .entry t() { ret; }\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m || log.find(why) == std::string::npos) {
      std::printf("FAIL refusal of '%s': %s\n", decl, log.c_str());
      failures++;
    }
  };
  refused(".global .f32 g = 1;", "integer literal is not a float operand");
  refused(".global .f32 g[2] = {1.0, 2};", "'g'");
  refused(".global .u32 g = 0f3F800000;", "0f literal needs");
  refused(".global .b64 g = 0f3F800000;", "0f literal needs");
  refused(".global .u32 g = 1.5;", "decimal float literal");
  refused(".global .f16 g = 0x3C00;", "half-precision");
}

int main() {
  const Case cases[] = {
      // float bit patterns: raw bits in bit types, values in float types
      {"mov.b32 %ro, 0f3F800000;", 'r', 0, 0, 0, 0x3F800000},
      {"mov.b32 %ro, 0F3F800000;", 'r', 0, 0, 0, 0x3F800000},
      {"mov.f32 %fo, 0f3F800000;", 'f', 0, 0, 0, 0x3F800000},
      {"mov.f32 %fo, 0f7FC00001;", 'f', 0, 0, 0, 0x7FC00001},  // NaN payload kept by mov
      {"mov.b64 %lo, 0d3FF0000000000000;", 'l', 0, 0, 0, 0x3FF0000000000000ull},
      {"mov.b64 %lo, 0D8000000000000000;", 'l', 0, 0, 0, 0x8000000000000000ull},
      {"mov.f64 %do, 0f3F800000;", 'd', 0, 0, 0, D(1.0)},
      {"mov.f64 %do, 0f3DCCCCCD;", 'd', 0, 0, 0, D((double)0.1f)},
      {"mov.f32 %fo, 0d3FF0000000000001;", 'f', 0, 0, 0, F(1.0f)},
      {"mov.f32 %fo, 0d3FB999999999999A;", 'f', 0, 0, 0, F(0.1f)},
      {"mov.f32 %fo, 1.5;", 'f', 0, 0, 0, F(1.5f)},
      {"mov.f32 %fo, 1e3;", 'f', 0, 0, 0, F(1000.0f)},
      {"mov.f32 %fo, 2.5E-1;", 'f', 0, 0, 0, F(0.25f)},
      {"mov.f32 %fo, 0.1;", 'f', 0, 0, 0, F((float)0.1)},
      {"mov.f64 %do, 0.1;", 'd', 0, 0, 0, D(0.1)},
      {"mov.f64 %do, -0.0;", 'd', 0, 0, 0, 0x8000000000000000ull},
      {"and.b32 %ro, %ra, 0f7FFFFFFF;", 'r', 0xBF800000, 0, 0, 0x3F800000},
      {"or.b32 %ro, %ra, 0f80000000;", 'r', 0x40000000, 0, 0, 0xC0000000},
      {"xor.b64 %lo, %la, 0d8000000000000000;", 'l', D(2.0), 0, 0, D(-2.0)},
      {"setp.eq.b32 %po, %ra, 0f3F800000;", 'p', 0x3F800000, 0, 0, 1},
      {"setp.lt.f32 %po, %fa, 0f00000000;", 'p', F(-0.5f), 0, 0, 1},
      {"setp.gt.f64 %po, %da, 0f3F800000;", 'p', D(1.5), 0, 0, 1},
      {"selp.b32 %ro, 0f3F800000, 0f40000000, %pa;", 'r', 1, 0, 0, 0x3F800000},
      {"selp.b32 %ro, 0f3F800000, 0f40000000, %pa;", 'r', 0, 0, 0, 0x40000000},
      {"selp.f32 %fo, 0f3F800000, 0f00000000, %pa;", 'f', 1, 0, 0, F(1.0f)},
      {"selp.b64 %lo, 0d3FF0000000000000, 0, %pa;", 'l', 1, 0, 0, 0x3FF0000000000000ull},
      {"div.rn.f32 %fo, 0f3F800000, %fa;", 'f', F(4.0f), 0, 0, F(0.25f)},
      {"rcp.rn.f32 %fo, %fa;", 'f', F(4.0f), 0, 0, F(0.25f)},
      {"fma.rn.f32 %fo, %fa, 0f40000000, 0f3F800000;", 'f', F(3.0f), 0, 0, F(7.0f)},
      {"add.f64 %do, %da, 0f3F800000;", 'd', D(0.5), 0, 0, D(1.5)},
      {"mul.f64 %do, %da, 0d4000000000000000;", 'd', D(0.75), 0, 0, D(1.5)},
      {"min.f32 %fo, %fa, 0f00000000;", 'f', F(-3.0f), 0, 0, F(-3.0f)},
      {"set.gt.u32.f32 %ro, %fa, 0f3F800000;", 'r', F(2.0f), 0, 0, 0xFFFFFFFF},
      {"mov.b32 %ro, 0f3F800000; mov.b32 %rb, %ro; mov.b32 %fo, %rb;", 'f', 0, 0, 0, F(1.0f)},
      // integer literal forms
      {"mov.b32 %ro, 0b101U;", 'r', 0, 0, 0, 5},
      {"mov.b32 %ro, 0B11;", 'r', 0, 0, 0, 3},
      {"mov.b32 %ro, 017;", 'r', 0, 0, 0, 15},
      {"mov.b32 %ro, 017U;", 'r', 0, 0, 0, 15},
      {"mov.b32 %ro, 0XFFU;", 'r', 0, 0, 0, 255},
      {"mov.b32 %ro, 0;", 'r', 0, 0, 0, 0},
      {"mov.u32 %ro, 4294967295U;", 'r', 0, 0, 0, 0xFFFFFFFF},
      {"mov.b64 %lo, 0xFFFFFFFFFFFFFFFF;", 'l', 0, 0, 0, ~0ull},
      {"mov.b64 %lo, 18446744073709551615U;", 'l', 0, 0, 0, ~0ull},
      {"mov.b64 %lo, 0b1000000000000000000000000000000000000000000000000000000000000001;", 'l', 0, 0, 0,
       0x8000000000000001ull},
      {"add.u32 %ro, %ra, -1;", 'r', 5, 0, 0, 4},
      {"add.u32 %ro, %ra, 0x1FFFFFFFF;", 'r', 5, 0, 0, 4},
      {"add.s64 %lo, %la, -0b1;", 'l', 10, 0, 0, 9},
      {"sub.s32 %ro, %ra, 010;", 'r', 10, 0, 0, 2},
      {"mul.wide.u32 %lo, %ra, 0x10U;", 'l', 3, 0, 0, 48},
      {"mul.lo.s16 %ho, %ha, -0x2;", 'h', 3, 0, 0, 0xFFFA},
      {"shl.b32 %ro, %ra, 0b11;", 'r', 1, 0, 0, 8},
      {"bfe.u32 %ro, %ra, 0x4, 0b100;", 'r', 0xABCD, 0, 0, 0xC},
      {"bfi.b32 %ro, 0xF, %ra, 010, 4U;", 'r', 0, 0, 0, 0xF00},
      {"lop3.b32 %ro, %ra, %rb, %rc, 0x96;", 'r', 0xF0F0, 0xFF00, 0x1234, 0xF0F0 ^ 0xFF00 ^ 0x1234},
      {"lop3.b32 %ro, %ra, %rb, %rc, 0b10000000;", 'r', 0xF0F0, 0xFF00, 0xFFFF, 0xF000},
      {"prmt.b32 %ro, %ra, %rb, 0x3210;", 'r', 0x11223344, 0x55667788, 0, 0x11223344},
      {"prmt.b32 %ro, %ra, %rb, 0x7654;", 'r', 0x11223344, 0x55667788, 0, 0x55667788},
      {"mov.pred %po, 1;", 'p', 0, 0, 0, 1},
      {"setp.eq.u32 %po, %ra, 0x10U;", 'p', 16, 0, 0, 1},
      {"setp.lt.s32 %po, %ra, -0x10;", 'p', S32(-17), 0, 0, 1},
      {"cvt.rn.f32.s32 %fo, -3;", 'f', 0, 0, 0, F(-3.0f)},
      {"selp.u32 %ro, 0x10, 0b10, %pa;", 'r', 0, 0, 0, 2},
      {"mov.b16 %ho, 0x3C00;", 'h', 0, 0, 0, 0x3C00},
      {"add.u16 %ho, %ha, 0xFFFF;", 'h', 2, 0, 0, 1},
      {"ld.global.b32 %ro, [%x1+0b100];", 'r', 0x1111111122222222ull, 0, 0, 0x11111111},
      {"ld.global.b32 %ro, [%x1+0x8];", 'r', 0, 0x33, 0, 0x33},
  };
  int n = runCases(cases, sizeof cases / sizeof cases[0]);
  // forms ptxas rejects: refused, with the reason
  expectRefused("add.f32 %fo, %fa, 1;", "integer literal is not a float operand");
  expectRefused("add.s32 %ro, %ra, 0f3F800000;", "0f literal needs a .b32 or float operand");
  expectRefused("setp.eq.s32 %po, %ra, 0f3F800000;", "0f literal needs");
  expectRefused("mov.b64 %lo, 0f3F800000;", "0f literal needs");
  expectRefused("mov.b32 %ro, 0d3FF0000000000000;", "0d literal needs a .b64 or float operand");
  expectRefused("mov.b32 %ro, 1.0;", "decimal float literal needs an .f32 or .f64 operand");
  expectRefused("mov.b32 %ro, 0f3F80000;", "0f needs exactly 8 hex digits");
  expectRefused("mov.b64 %lo, 0d3FF000000000000;", "0d needs exactly 16 hex digits");
  expectRefused("mov.b32 %ro, 09;", "malformed integer literal");
  expectRefused("mov.b32 %ro, 0b102;", "malformed integer literal");
  expectRefused("mov.b64 %lo, 0x1FFFFFFFFFFFFFFFF;", "malformed integer literal");
  expectRefused("add.f16 %ho, %ha, 0x3C00;", "half-precision operands take no immediate");
  expectRefused("lop3.b32 %ro, %ra, %rb, %rc, 0x100;", "LUT");
  initialisers();
  std::printf("%d cases\n", n);
  return finish("ptx_imm_test");
}
