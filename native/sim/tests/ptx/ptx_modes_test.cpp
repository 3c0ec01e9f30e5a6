// Instruction modes with exact bits from the PTX ISA text: every prmt mode and selector (the moded
// forms use c[1:0] only), the sign of zero through every cvt rounding mode, .relu on half
// fma, min/max.relu.s32, cvt.relu and cvt.satfinite; and modifiers the sim does not implement refused at
// load by name (never accepted and ignored).
#include "ptx_cases.h"

using namespace ptxtest;

static const uint64_t A = 0x33221100, B = 0x77665544;  // bytes 0..7 = 00 11 22 33 44 55 66 77

int main() {
  const Case cases[] = {
      // prmt: f4e d.b[i] = byte (c + i), b4e d.b[i] = byte (c - i) mod 8
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 0, 0x33221100},
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 1, 0x44332211},
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x55443322},
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x66554433},
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 4, 0x33221100},  // c[2] ignored
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', A, B, 0xfffffff5, 0x44332211},
      {"prmt.b32.b4e %ro, %ra, %rb, %rc;", 'r', A, B, 0, 0x55667700},
      {"prmt.b32.b4e %ro, %ra, %rb, %rc;", 'r', A, B, 1, 0x66770011},
      {"prmt.b32.b4e %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x77001122},
      {"prmt.b32.b4e %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x00112233},
      {"prmt.b32.b4e %ro, %ra, %rb, %rc;", 'r', A, B, 7, 0x00112233},
      {"prmt.b32.rc8 %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x22222222},
      {"prmt.b32.rc8 %ro, %ra, %rb, %rc;", 'r', A, B, 6, 0x22222222},
      {"prmt.b32.rc8 %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x33333333},
      // ecl: edge clamp left, d.b[i] = max(i, c); ecr: edge clamp right, d.b[i] = min(i, c)
      {"prmt.b32.ecl %ro, %ra, %rb, %rc;", 'r', A, B, 0, 0x33221100},
      {"prmt.b32.ecl %ro, %ra, %rb, %rc;", 'r', A, B, 1, 0x33221111},
      {"prmt.b32.ecl %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x33222222},
      {"prmt.b32.ecl %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x33333333},
      {"prmt.b32.ecr %ro, %ra, %rb, %rc;", 'r', A, B, 0, 0x00000000},
      {"prmt.b32.ecr %ro, %ra, %rb, %rc;", 'r', A, B, 1, 0x11111100},
      {"prmt.b32.ecr %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x22221100},
      {"prmt.b32.ecr %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x33221100},
      {"prmt.b32.rc16 %ro, %ra, %rb, %rc;", 'r', A, B, 0, 0x11001100},
      {"prmt.b32.rc16 %ro, %ra, %rb, %rc;", 'r', A, B, 1, 0x33223322},
      {"prmt.b32.rc16 %ro, %ra, %rb, %rc;", 'r', A, B, 2, 0x11001100},
      {"prmt.b32.rc16 %ro, %ra, %rb, %rc;", 'r', A, B, 3, 0x33223322},
      // generic: sign replication (msb of the nibble) from the selected byte
      {"prmt.b32 %ro, %ra, %rb, %rc;", 'r', 0x00800000, B, 0x8888, 0x00000000},
      {"prmt.b32 %ro, %ra, %rb, %rc;", 'r', 0x00800000, B, 0xaaaa, 0xffffffff},
      {"prmt.b32 %ro, %ra, %rb, %rc;", 'r', A, 0x80665544, 0x7f04, 0x80FF0044},
      // cvt: integral rounding keeps the sign of a zero result
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(-0.3f), 0, 0, 0x80000000},
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(-0.5f), 0, 0, 0x80000000},
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(-2.5f), 0, 0, F(-2.0f)},
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(-0.0f), 0, 0, 0x80000000},
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(0.3f), 0, 0, 0},
      {"cvt.rzi.f32.f32 %fo, %fa;", 'f', F(-0.7f), 0, 0, 0x80000000},
      {"cvt.rpi.f32.f32 %fo, %fa;", 'f', F(-0.7f), 0, 0, 0x80000000},
      {"cvt.rmi.f32.f32 %fo, %fa;", 'f', F(0.7f), 0, 0, 0},
      {"cvt.rmi.f32.f32 %fo, %fa;", 'f', F(-0.7f), 0, 0, F(-1.0f)},
      {"cvt.rni.f64.f64 %do, %da;", 'd', D(-0.4), 0, 0, 0x8000000000000000ull},
      {"cvt.rzi.f64.f64 %do, %da;", 'd', D(-0.9), 0, 0, 0x8000000000000000ull},
      {"cvt.rni.f16.f16 %ho, %ha;", 'h', 0xB666, 0, 0, 0x8000},  // -0.4
      {"cvt.rpi.f16.f16 %ho, %ha;", 'h', 0xB666, 0, 0, 0x8000},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(-1e-10f), 0, 0, 0x8000},
      {"cvt.rn.bf16.f32 %ho, %fa;", 'h', F(-1e-45f), 0, 0, 0x8000},
      {"cvt.rzi.s32.f32 %ro, %fa;", 'r', F(-0.5f), 0, 0, 0},
      {"cvt.rni.ftz.f32.f32 %fo, %fa;", 'f', 0x80000001, 0, 0, 0x80000000},
      // .relu: negative results become +0, NaN stays the canonical NaN
      {"fma.rn.relu.f16 %ho, %ha, %hb, %hc;", 'h', 0x3C00, 0xC000, 0x3C00, 0x0000},
      {"fma.rn.relu.f16 %ho, %ha, %hb, %hc;", 'h', 0x3C00, 0x4000, 0x3C00, 0x4200},
      {"fma.rn.relu.f16 %ho, %ha, %hb, %hc;", 'h', 0x7E00, 0x3C00, 0, 0x7FFF},
      {"fma.rn.relu.f16x2 %ro, %ra, %rb, %rc;", 'r', 0x3C003C00, 0xC0004000, 0, 0x00004000},
      {"fma.rn.relu.bf16 %ho, %ha, %hb, %hc;", 'h', 0x3F80, 0xC000, 0, 0x0000},
      {"fma.rn.relu.bf16x2 %ro, %ra, %rb, %rc;", 'r', 0x3F803F80, 0xC0004000, 0x3F800000, 0x00004000},
      {"max.relu.s32 %ro, %ra, %rb;", 'r', S32(-5), S32(-3), 0, 0},
      {"max.relu.s32 %ro, %ra, %rb;", 'r', S32(-5), 7, 0, 7},
      {"min.relu.s32 %ro, %ra, %rb;", 'r', S32(-5), 3, 0, 0},
      {"cvt.rn.relu.f16.f32 %ho, %fa;", 'h', F(-3.0f), 0, 0, 0},
      {"cvt.rn.relu.f16.f32 %ho, %fa;", 'h', F(1.5f), 0, 0, 0x3E00},
      {"cvt.rn.relu.bf16.f32 %ho, %fa;", 'h', 0x7FC00000, 0, 0, 0x7FFF},
      {"cvt.rn.relu.bf16x2.f32 %ro, %fa, %fb;", 'r', F(-1.0f), F(2.0f), 0, 0x00004000},
      // .satfinite: |input| above the largest finite value (infinities too) gives that value with
      // the input's sign; NaN stays NaN; everything else converts as without it
      {"cvt.rn.satfinite.f16.f32 %ho, %fa;", 'h', F(1e6f), 0, 0, 0x7BFF},
      {"cvt.rn.satfinite.f16.f32 %ho, %fa;", 'h', F(65520.0f), 0, 0, 0x7BFF},  // rn alone: +inf
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(65520.0f), 0, 0, 0x7C00},
      {"cvt.rn.satfinite.f16.f32 %ho, %fa;", 'h', 0xFF800000, 0, 0, 0xFBFF},
      {"cvt.rn.satfinite.f16.f32 %ho, %fa;", 'h', 0x7FC00000, 0, 0, 0x7FFF},
      {"cvt.rn.satfinite.f16.f32 %ho, %fa;", 'h', F(1.5f), 0, 0, 0x3E00},
      {"cvt.rz.satfinite.f16.f32 %ho, %fa;", 'h', 0x7F800000, 0, 0, 0x7BFF},
      {"cvt.rn.satfinite.bf16.f32 %ho, %fa;", 'h', 0x7F7FC99E, 0, 0, 0x7F7F},  // rn alone: +inf
      {"cvt.rn.bf16.f32 %ho, %fa;", 'h', 0x7F7FC99E, 0, 0, 0x7F80},
      {"cvt.rn.satfinite.bf16.f32 %ho, %fa;", 'h', 0xFF800000, 0, 0, 0xFF7F},
      {"cvt.rn.relu.satfinite.bf16.f32 %ho, %fa;", 'h', 0xFF800000, 0, 0, 0x0000},
      {"cvt.rna.satfinite.tf32.f32 %ro, %fa;", 'r', 0x7F7FFFFF, 0, 0, 0x7F7FE000},
      {"cvt.rna.tf32.f32 %ro, %fa;", 'r', 0x7F7FFFFF, 0, 0, 0x7F800000},
      {"cvt.rna.satfinite.tf32.f32 %ro, %fa;", 'r', 0xFF800000, 0, 0, 0xFF7FE000},
      {"cvt.rna.satfinite.tf32.f32 %ro, %fa;", 'r', 0x7FC00000, 0, 0, 0x7FFFFFFF},
      {"cvt.rn.satfinite.relu.f16x2.f32 %ro, %fa, %fb;", 'r', F(-1e6f), F(1e6f), 0, 0x00007BFF},
      {"cvt.rn.satfinite.bf16x2.f32 %ro, %fa, %fb;", 'r', 0xFF800000, F(1.0f), 0, 0xFF7F3F80},
      // .rz on the packing and .relu forms (cvt.frnd2 = .rn, .rz)
      {"cvt.rz.f16x2.f32 %ro, %fa, %fb;", 'r', F(1.0009f), F(-1.0009f), 0, 0x3C00BC00},
      {"cvt.rn.f16x2.f32 %ro, %fa, %fb;", 'r', F(1.0009f), F(-1.0009f), 0, 0x3C01BC01},
      {"cvt.rz.relu.bf16.f32 %ho, %fa;", 'h', F(-2.0f), 0, 0, 0x0000},
      // .L2::cache_hint policies (createpolicy) steer only the cache: loads and stores are unchanged
      {"createpolicy.fractional.L2::evict_first.b64 %lb, 1.0; ld.global.L1::evict_first.L2::cache_hint.b32 %ro, [%x1], %lb;",
       'r', 0x1234, 0, 0, 0x1234},
      {"createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %lc, 0.5; st.global.L2::cache_hint.b32 [%x1+16], %rb, %lc; "
       "ld.global.b32 %ro, [%x1+16];", 'r', 0, 0x77, 0, 0x77},
      // .ftz on half abs/neg: a subnormal input is a zero of its sign
      {"neg.ftz.f16 %ho, %ha;", 'h', 0x0001, 0, 0, 0x8000},
      {"abs.ftz.f16 %ho, %ha;", 'h', 0x8001, 0, 0, 0x0000},
      {"neg.f16 %ho, %ha;", 'h', 0x0001, 0, 0, 0x8001},
      {"neg.ftz.f16x2 %ro, %ra;", 'r', 0x80023C00, 0, 0, 0x0000BC00},
  };
  int n = runCases(cases, sizeof cases / sizeof cases[0]);
  // modifiers without an implementation are refused by name
  expectRefused("max.relu.f32 %fo, %fa, %fb;", ".relu exists only on half-precision fma");
  expectRefused("max.relu.f16 %ho, %ha, %hb;", ".relu exists only on half-precision fma");  // ptxas too
  expectRefused("add.relu.s32 %ro, %ra, %rb;", "modifier .relu is not implemented for add");
  expectRefused("min.relu.u32 %ro, %ra, %rb;", ".relu exists only on min/max.s32");
  expectRefused("mad.hi.sat.s32 %ro, %ra, %rb, %rc;", ".sat exists only on add/sub.s32");
  expectRefused("red.global.min.v2.f32 [%x2], {%fa, %fb};", "vector .f32 atomics are .add only");  // .v2 add: ptx_b128_test
  expectRefused("ld.global.L2::evict_first.L2::cache_hint.v8.b32 %ro, [%x1], %la;", "modifier .v8");
  expectRefused("min.xorsign.f16 %ho, %ha, %hb;", ".xorsign and .abs go together");  // .xorsign.abs: ptx_hopper_small_test
  expectRefused("add.cc.f32 %fo, %fa, %fb;", ".cc on a float type");
  expectRefused("mul.wide.f32 %fo, %fa, %fb;", ".wide on a float type");
  expectRefused("add.rn.s32 %ro, %ra, %rb;", ".rn on an integer type");
  expectRefused("abs.ftz.s32 %ro, %ra;", ".ftz on an integer type");
  expectRefused("cvt.rn.relu.f32.f64 %fo, %da;", ".relu needs cvt.{rn,rz}.relu");
  expectRefused("cvt.rn.satfinite.f32.f64 %fo, %da;", ".satfinite needs");
  expectRefused("cvt.rzi.satfinite.s32.f32 %ro, %fa;", ".satfinite needs");
  expectRefused("cvt.rm.satfinite.f16.f32 %ho, %fa;", ".satfinite needs");
  expectRefused("add.f32.bogus %fo, %fa, %fb;", "modifier .bogus is not implemented for add");
  std::printf("%d cases\n", n);
  return finish("ptx_modes_test");
}
