// Bit-manipulation and SIMD video instructions with exact bits from the PTX ISA pseudocode and
// examples: funnel shifts (shf, wrap and clamp), bmsk, szext, fns, vadd/vsub/vavrg/vabsdiff/
// vmin/vmax in 2- and 4-element forms (signedness per operand, .sat, merge and .add accumulate),
// and rsqrt.approx.ftz.f64.
#include "ptx_cases.h"

using namespace ptxtest;

int main() {
  const Case cases[] = {
      // shf: {b, a} shifted; .l keeps the upper 32 bits, .r the lower
      {"shf.l.wrap.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 8, 0x23456789},
      {"shf.l.wrap.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 40, 0x23456789},
      {"shf.l.clamp.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 40, 0x89ABCDEF},
      {"shf.l.clamp.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 0, 0x01234567},
      {"shf.r.wrap.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 8, 0x6789ABCD},
      {"shf.r.wrap.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 36, 0x789ABCDE},
      {"shf.r.clamp.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 32, 0x01234567},
      {"shf.r.clamp.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 100, 0x01234567},
      {"shf.r.wrap.b32 %ro, %ra, %rb, %rc;", 'r', 0x89ABCDEF, 0x01234567, 32, 0x89ABCDEF},
      {"shf.l.wrap.b32 %ro, %ra, %ra, %rc;", 'r', 0x80000001, 0, 1, 0x00000003},  // rotate left
      {"shf.r.wrap.b32 %ro, %ra, %ra, 4;", 'r', 0x12345678, 0, 0, 0x81234567},       // rotate right
      // bmsk (ISA example: bmsk.wrap.b32 rd, 1, 2 is 0x6)
      {"bmsk.wrap.b32 %ro, 1, 2;", 'r', 0, 0, 0, 0x6},
      {"bmsk.clamp.b32 %ro, %ra, %rb;", 'r', 0, 32, 0, 0xFFFFFFFF},
      {"bmsk.wrap.b32 %ro, %ra, %rb;", 'r', 0, 32, 0, 0},
      {"bmsk.clamp.b32 %ro, %ra, %rb;", 'r', 32, 4, 0, 0},
      {"bmsk.wrap.b32 %ro, %ra, %rb;", 'r', 32, 4, 0, 0xF},
      {"bmsk.clamp.b32 %ro, %ra, %rb;", 'r', 28, 8, 0, 0xF0000000},
      {"bmsk.wrap.b32 %ro, %ra, %rb;", 'r', 4, 0, 0, 0},
      {"bmsk.wrap.b32 %ro, %ra, %rb;", 'r', 8, 8, 0, 0xFF00},
      // szext (ISA example: szext.wrap.u32 rd, 0xffffffff, 0 is 0)
      {"szext.wrap.u32 %ro, 0xffffffff, 0;", 'r', 0, 0, 0, 0},
      {"szext.clamp.s32 %ro, %ra, %rb;", 'r', 0x80, 8, 0, 0xFFFFFF80},
      {"szext.clamp.u32 %ro, %ra, %rb;", 'r', 0x1F0, 8, 0, 0xF0},
      {"szext.clamp.s32 %ro, %ra, %rb;", 'r', 0x80, 32, 0, 0x80},
      {"szext.wrap.s32 %ro, %ra, %rb;", 'r', 0x80, 40, 0, 0xFFFFFF80},
      {"szext.clamp.s32 %ro, %ra, %rb;", 'r', 0x80, 40, 0, 0x80},
      {"szext.clamp.s32 %ro, %ra, %rb;", 'r', 1, 1, 0, 0xFFFFFFFF},
      {"szext.clamp.s32 %ro, %ra, %rb;", 'r', 0x7F, 8, 0, 0x7F},
      // fns (ISA examples)
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 3, 1, 3},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 3, S32(-1), 3},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 2, 1, 3},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 2, S32(-1), 1},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 2, 0, 0xFFFFFFFF},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 3, 0, 3},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0xaaaaaaaa, 0, 3, 5},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0x1, 1, 1, 0xFFFFFFFF},
      {"fns.b32 %ro, %ra, %rb, %rc;", 'r', 0x80000001, 31, S32(-2), 0},
      // SIMD video
      {"vabsdiff4.u32.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0x10FF0080, 0x20000181, 0, 0x10FF0101},
      {"vabsdiff4.u32.u32.u32 %ro, %ra, %rb, %ra;", 'r', 0x10FF0080, 0x20000181, 0, 0x10FF0101},
      {"vabsdiff2.u32.u32.u32.add %ro, %ra, %rb, %rc;", 'r', 0x00050010, 0x00010020, 100, 120},
      {"vabsdiff4.u32.u32.u32.add %ro, %ra, %rb, %rc;", 'r', 0xFF000000, 0x00000000, 0xFFFFFF00, 0xFFFFFFFF},
      {"vadd4.s32.s32.s32.sat %ro, %ra, %rb, %rc;", 'r', 0x7F80FF01, 0x01FF0101, 0, 0x7F800002},
      {"vadd4.u32.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0xFF000001, 0x01000001, 0, 0x00000002},
      {"vadd4.u32.u32.u32.sat %ro, %ra, %rb, %rc;", 'r', 0xFF000001, 0x01000001, 0, 0xFF000002},
      {"vsub2.s32.s32.s32.sat %ro, %ra, %rb, %rc;", 'r', 0x80000005, 0x00010007, 0, 0x8000FFFE},
      {"vsub2.u32.u32.u32.sat %ro, %ra, %rb, %rc;", 'r', 0x00010005, 0x00020007, 0, 0},
      {"vmax2.s32.s32.s32 %ro, %ra, %rb, %rc;", 'r', 0xFFFF0001, 0x00010002, 0, 0x00010002},
      {"vmax2.u32.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0xFFFF0001, 0x00010002, 0, 0xFFFF0002},
      {"vmin4.u32.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0x01FF0203, 0x02000301, 0, 0x01000201},
      {"vmin4.s32.s32.s32 %ro, %ra, %rb, %rc;", 'r', 0x01FF0203, 0x02000301, 0, 0x01FF0201},
      {"vavrg2.u32.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0x00030001, 0x00040002, 0, 0x00040002},
      {"vavrg2.s32.s32.s32 %ro, %ra, %rb, %rc;", 'r', 0x0000FFFD, 0, 0, 0x0000FFFE},
      {"vabsdiff4.u32.s32.u32 %ro, %ra, %rb, %rc;", 'r', 0xFF, 0x01, 0, 0x2},
      {"vmax4.u32.s32.s32.sat %ro, %ra, %rb, %rc;", 'r', 0xFB, 0xFD, 0, 0},
      {"vmax4.s32.s32.s32.sat %ro, %ra, %rb, %rc;", 'r', 0xFB, 0xFD, 0, 0xFD},
      {"vmin2.s32.u32.s32.add %ro, %ra, %rb, %rc;", 'r', 0x0001FFFF, 0xFFFF0005, 10, 10 + 5 - 1},
      // rsqrt.approx.ftz.f64: subnormal inputs are zeros of the same sign
      {"rsqrt.approx.ftz.f64 %do, %da;", 'd', D(4.0), 0, 0, D(0.5)},
      {"rsqrt.approx.ftz.f64 %do, %da;", 'd', D(0.25), 0, 0, D(2.0)},
      {"rsqrt.approx.ftz.f64 %do, %da;", 'd', 1, 0, 0, 0x7FF0000000000000ull},
      {"rsqrt.approx.ftz.f64 %do, %da;", 'd', 0x8000000000000001ull, 0, 0, 0xFFF0000000000000ull},
      {"rsqrt.approx.ftz.f64 %do, %da;", 'd', D(-1.0), 0, 0, 0x7FFFFFFFFFFFFFFFull},
      {"rsqrt.approx.f64 %do, %da;", 'd', D(16.0), 0, 0, D(0.25)},
  };
  int n = runCases(cases, sizeof cases / sizeof cases[0]);
  expectRefused("shf.l.b32 %ro, %ra, %rb, %rc;", "expected shf");
  expectRefused("shf.l.wrap.b64 %ro, %ra, %rb, %rc;", "modifier .b64");
  expectRefused("vadd4.u32.u32.u32.sat.add %ro, %ra, %rb, %rc;", ".sat cannot be used");
  expectRefused("vadd4.u32.u32.u32 %ro, %ra.b3210, %rb, %rc;", "%ra.b3210");
  expectRefused("vshl.u32.u32.u32.clamp %ro, %ra, %rb;", "unsupported instruction");
  std::printf("%d cases\n", n);
  return finish("ptx_bits_test");
}
