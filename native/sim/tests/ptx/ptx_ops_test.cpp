// One instruction per case: integer, logic, compare, float (rounding, NaN, -0, denormals,
// overflow, ties), half precision and conversions, each with its exact expected bits.
#include <cfloat>
#include <climits>

#include "ptx_harness.h"

using namespace ptxtest;

struct Case {
  const char* body;  // instructions; inputs %?a %?b %?c, output %?o (r=b32 l=b64 h=b16 f=f32 d=f64 p=pred)
  char out;
  uint64_t a, b, c, expect;
};

static std::string kernelFor(const Case& k) {
  std::string s = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry t(.param .u64 out, .param .u64 in)
{
  .reg .b64 %x<4>, %la, %lb, %lc, %lo;
  .reg .b32 %ra, %rb, %rc, %ro;
  .reg .b16 %ha, %hb, %hc, %ho;
  .reg .f32 %fa, %fb, %fc, %fo;
  .reg .f64 %da, %db, %dc, %do;
  .reg .pred %pa, %pb, %pc, %po, %pq;
  ld.param.u64 %x1, [in];
  ld.param.u64 %x2, [out];
  ld.global.b64 %la, [%x1]; ld.global.b64 %lb, [%x1+8]; ld.global.b64 %lc, [%x1+16];
  ld.global.b32 %ra, [%x1]; ld.global.b32 %rb, [%x1+8]; ld.global.b32 %rc, [%x1+16];
  ld.global.b16 %ha, [%x1]; ld.global.b16 %hb, [%x1+8]; ld.global.b16 %hc, [%x1+16];
  ld.global.f32 %fa, [%x1]; ld.global.f32 %fb, [%x1+8]; ld.global.f32 %fc, [%x1+16];
  ld.global.f64 %da, [%x1]; ld.global.f64 %db, [%x1+8]; ld.global.f64 %dc, [%x1+16];
  setp.ne.b32 %pa, %ra, 0; setp.ne.b32 %pb, %rb, 0; setp.ne.b32 %pc, %rc, 0;
)";
  s += std::string("  ") + k.body + "\n";
  switch (k.out) {
    case 'r': s += "  st.global.b32 [%x2], %ro;\n"; break;
    case 'l': s += "  st.global.b64 [%x2], %lo;\n"; break;
    case 'h': s += "  st.global.b16 [%x2], %ho;\n"; break;
    case 'f': s += "  st.global.f32 [%x2], %fo;\n"; break;
    case 'd': s += "  st.global.f64 [%x2], %do;\n"; break;
    default: s += "  selp.u32 %ro, 1, 0, %po;\n  st.global.b32 [%x2], %ro;\n"; break;
  }
  return s + "  ret;\n}\n";
}

static const uint64_t NANF = 0x7fc00000, CANON = 0x7fffffff;
static uint64_t F(float x) { return fbits(x); }
static uint64_t D(double x) { return dbits(x); }
static uint64_t S(int64_t x) { return (uint64_t)x; }
static uint64_t S32(int32_t x) { return (uint32_t)x; }

int main() {
  const Case cases[] = {
      // integer arithmetic
      {"add.s32 %ro, %ra, %rb;", 'r', 0x7fffffff, 1, 0, 0x80000000},
      {"sub.u32 %ro, %ra, %rb;", 'r', 0, 1, 0, 0xffffffff},
      {"add.sat.s32 %ro, %ra, %rb;", 'r', 0x7fffffff, 1, 0, 0x7fffffff},
      {"sub.sat.s32 %ro, %ra, %rb;", 'r', 0x80000000, 1, 0, 0x80000000},
      {"mul.lo.s32 %ro, %ra, %rb;", 'r', S32(-3), 7, 0, S32(-21)},
      {"mul.hi.u32 %ro, %ra, %rb;", 'r', 0xffffffff, 0xffffffff, 0, 0xfffffffe},
      {"mul.hi.s32 %ro, %ra, %rb;", 'r', S32(-1), S32(-1), 0, 0},
      {"mul.hi.s64 %lo, %la, %lb;", 'l', S(-1), 2, 0, S(-1)},
      {"mul.hi.u64 %lo, %la, %lb;", 'l', ~0ull, ~0ull, 0, ~0ull - 1},
      {"mul.wide.s32 %lo, %ra, %rb;", 'l', S32(-2), 3, 0, S(-6)},
      {"mul.wide.u32 %lo, %ra, %rb;", 'l', 0xffffffff, 2, 0, 0x1fffffffeull},
      {"mul.wide.s16 %ro, %ha, %hb;", 'r', 0xffff, 0x7fff, 0, S32(-32767)},
      {"mad.lo.s32 %ro, %ra, %rb, %rc;", 'r', 2, 3, 4, 10},
      {"mad.hi.u32 %ro, %ra, %rb, %rc;", 'r', 0x80000000, 4, 5, 7},
      {"mad.wide.s32 %lo, %ra, %rb, %lc;", 'l', S32(-2), 3, 100, 94},
      {"mad.wide.u32 %lo, %ra, %rb, %lc;", 'l', 0xffffffff, 0xffffffff, 1, 0xfffffffe00000002ull},
      {"div.s32 %ro, %ra, %rb;", 'r', S32(-7), 2, 0, S32(-3)},
      {"rem.s32 %ro, %ra, %rb;", 'r', S32(-7), 2, 0, S32(-1)},
      {"div.u64 %lo, %la, %lb;", 'l', ~0ull, 3, 0, ~0ull / 3},
      {"rem.u32 %ro, %ra, %rb;", 'r', 17, 5, 0, 2},
      {"min.s32 %ro, %ra, %rb;", 'r', S32(-1), 1, 0, S32(-1)},
      {"min.u32 %ro, %ra, %rb;", 'r', 0xffffffff, 1, 0, 1},
      {"max.s64 %lo, %la, %lb;", 'l', S(-5), S(-9), 0, S(-5)},
      {"abs.s32 %ro, %ra;", 'r', 0x80000000, 0, 0, 0x80000000},
      {"abs.s32 %ro, %ra;", 'r', S32(-5), 0, 0, 5},
      {"neg.s64 %lo, %la;", 'l', 5, 0, 0, S(-5)},
      {"add.s16 %ho, %ha, %hb;", 'h', 0x7fff, 1, 0, 0x8000},
      {"add.cc.u32 %ro, %ra, %rb; addc.u32 %ro, %rc, 0;", 'r', 0xffffffff, 1, 5, 6},
      {"add.cc.u32 %ro, %ra, %rb; addc.cc.u32 %rc, %rc, 0; addc.u32 %ro, 0, 0;", 'r', 0xffffffff, 1, 0xffffffff, 1},
      {"sub.cc.u32 %ro, %ra, %rb; subc.u32 %ro, %rc, 0;", 'r', 0, 1, 5, 4},
      {"add.cc.u64 %lo, %la, %lb; addc.u64 %lo, %lc, 0;", 'l', ~0ull, 2, 7, 8},
      // mul24/mad24 (24-bit operands, 48-bit product), sad, dp4a/dp2a
      {"mul24.lo.u32 %ro, %ra, %rb;", 'r', 0x01000003, 5, 0, 15},
      {"mul24.lo.s32 %ro, %ra, %rb;", 'r', 0x00ffffff, 2, 0, 0xfffffffe},
      {"mul24.hi.u32 %ro, %ra, %rb;", 'r', 0xffffff, 0xffffff, 0, 0xfffffe00},
      {"mul24.hi.s32 %ro, %ra, %rb;", 'r', 0x800000, 0x800000, 0, 0x40000000},
      {"mad24.lo.s32 %ro, %ra, %rb, %rc;", 'r', 0xffffff, 3, 10, 7},
      {"mad24.hi.u32 %ro, %ra, %rb, %rc;", 'r', 0xffffff, 0xffffff, 0x200, 0},
      {"sad.u32 %ro, %ra, %rb, %rc;", 'r', 3, 10, 100, 107},
      {"sad.s32 %ro, %ra, %rb, %rc;", 'r', S32(-5), 3, 1, 9},
      {"sad.u32 %ro, %ra, %rb, %rc;", 'r', 0xffffffff, 0, 1, 0},
      {"sad.s64 %lo, %la, %lb, %lc;", 'l', S(-7), 2, 0, 9},
      {"sad.u16 %ho, %ha, %hb, %hc;", 'h', 0xffff, 1, 3, 1},
      {"dp4a.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0x01020304, 0x05060708, 10, 80},
      {"dp4a.s32.s32 %ro, %ra, %rb, %rc;", 'r', 0xff02ff04, 0x01ff0302, S32(-10), S32(-8)},
      {"dp4a.u32.s32 %ro, %ra, %rb, %rc;", 'r', 0xff, 0xff, 0, 0xffffff01},
      {"dp2a.lo.s32.u32 %ro, %ra, %rb, %rc;", 'r', 0xffff0002, 0x0000ff03, 0, S32(-249)},
      {"dp2a.hi.u32.u32 %ro, %ra, %rb, %rc;", 'r', 0x00030002, 0x05040000, 1, 24},
      // set: compare into an all-ones mask (integer) or 1.0f
      {"set.lt.u32.s32 %ro, %ra, %rb;", 'r', S32(-1), 1, 0, 0xffffffff},
      {"set.lt.u32.u32 %ro, %ra, %rb;", 'r', 0xffffffff, 1, 0, 0},
      {"set.gtu.f32.f32 %ro, %ra, %rb;", 'r', NANF, F(1.0f), 0, F(1.0f)},
      {"set.gt.f32.f32 %ro, %ra, %rb;", 'r', NANF, F(1.0f), 0, 0},
      {"set.eq.and.s32.u32 %ro, %ra, %rb, %pc;", 'r', 4, 4, 0, 0},
      {"set.eq.or.s32.u32 %ro, %ra, %rb, !%pc;", 'r', 4, 5, 0, 0xffffffff},
      {"set.ne.f32.f64 %ro, %la, %lb;", 'r', D(1.0), D(2.0), 0, F(1.0f)},
      {"set.lt.f16x2.f16x2 %ro, %ra, %rb;", 'r', 0x3c004000, 0x40003c00, 0, 0x3c000000},
      {"set.lt.u32.f16x2 %ro, %ra, %rb;", 'r', 0x3c004000, 0x40003c00, 0, 0xffff0000},
      {"set.gtu.bf16x2.bf16x2 %ro, %ra, %rb;", 'r', 0x7fc03f80, 0x3f803f80, 0, 0x3f800000},
      {"set.eq.f16.f32 %ho, %fa, %fb;", 'h', F(1.0f), F(1.0f), 0, 0x3c00},
      {"set.ne.u16.s32 %ho, %ra, %rb;", 'h', 1, 2, 0, 0xffff},
      // carry-chain mad: lo/hi(a*b) + c (+ CF), CF = carry of that unsigned addition
      {"mad.lo.cc.u32 %ro, %ra, %rb, %rc; addc.u32 %ro, %ro, 100;", 'r', 0xffffffff, 0xffffffff, 0xffffffff, 101},
      {"mad.hi.cc.u32 %ro, %ra, %rb, %rc; addc.u32 %ro, %ro, 100;", 'r', 0xffffffff, 0xffffffff, 2, 101},
      {"mad.hi.cc.u32 %ro, %ra, %rb, %rc; addc.u32 %ro, %ro, 100;", 'r', 0xffffffff, 0xffffffff, 1, 99},
      {"mad.hi.cc.s32 %ro, %ra, %rb, %rc; addc.u32 %ro, %ro, 100;", 'r', S32(-1), 1, 0x80000000, 0x80000064},
      {"add.cc.u32 %ro, %ra, %ra; madc.lo.u32 %ro, %rb, %rb, %rc;", 'r', 0x80000000, 3, 4, 14},
      {"add.cc.u32 %ro, %ra, %ra; madc.lo.u32 %ro, %rb, %rb, %rc;", 'r', 0x7fffffff, 3, 4, 13},
      {"add.cc.u64 %lo, %la, %la; madc.hi.cc.u64 %lo, %lb, %lb, %lc; addc.u64 %lo, %lo, 0;", 'l', 1ull << 63, ~0ull, 1, 1},
      {"add.cc.u64 %lo, %la, %lb; madc.lo.cc.s64 %lo, %la, %lb, %lc; addc.u64 %lo, %lo, 0;", 'l', 3, S(-1), 3, 2},
      {"mad.lo.cc.u64 %lo, %la, %lb, %lc; addc.u64 %lo, %lo, %lo;", 'l', 5, 6, 7, 74},
      {"mad.hi.cc.s64 %lo, %la, %lb, %lc; addc.s64 %lo, %lo, 0;", 'l', S(-1), 1, 1, 1},
      // shifts and logic
      {"shl.b32 %ro, %ra, %rb;", 'r', 1, 31, 0, 0x80000000},
      {"shl.b32 %ro, %ra, %rb;", 'r', 1, 32, 0, 0},
      {"shr.s32 %ro, %ra, %rb;", 'r', S32(-8), 1, 0, S32(-4)},
      {"shr.s32 %ro, %ra, %rb;", 'r', S32(-1), 40, 0, S32(-1)},
      {"shr.u32 %ro, %ra, %rb;", 'r', 0x80000000, 31, 0, 1},
      {"shr.u32 %ro, %ra, %rb;", 'r', 0x80000000, 32, 0, 0},
      {"shr.b64 %lo, %la, %rb;", 'l', 0x8000000000000000ull, 63, 0, 1},
      {"and.b32 %ro, %ra, %rb;", 'r', 0xff00ff00, 0x0ff00ff0, 0, 0x0f000f00},
      {"or.b64 %lo, %la, %lb;", 'l', 0xf0, 0x0f00000000ull, 0, 0x0f000000f0ull},
      {"xor.b32 %ro, %ra, %rb;", 'r', 0xffff0000, 0xff00ff00, 0, 0x00ffff00},
      {"not.b32 %ro, %ra;", 'r', 0x0f0f0f0f, 0, 0, 0xf0f0f0f0},
      {"cnot.b32 %ro, %ra;", 'r', 7, 0, 0, 0},
      {"cnot.b32 %ro, %ra;", 'r', 0, 0, 0, 1},
      {"and.pred %po, %pa, %pb;", 'p', 1, 0, 0, 0},
      {"xor.pred %po, %pa, %pb;", 'p', 1, 0, 0, 1},
      {"not.pred %po, %pa;", 'p', 0, 0, 0, 1},
      {"lop3.b32 %ro, %ra, %rb, %rc, 0xE8;", 'r', 0xff00ff00, 0xf0f0f0f0, 0xcccccccc, (0xff00ff00u & 0xf0f0f0f0u) | (0xff00ff00u & 0xccccccccu) | (0xf0f0f0f0u & 0xccccccccu)},
      {"lop3.b32 %ro, %ra, %rb, %rc, 0x96;", 'r', 0xff00ff00, 0xf0f0f0f0, 0xcccccccc, 0xff00ff00u ^ 0xf0f0f0f0u ^ 0xccccccccu},
      {"bfe.u32 %ro, %ra, %rb, %rc;", 'r', 0x12345678, 8, 8, 0x56},
      {"bfe.s32 %ro, %ra, %rb, %rc;", 'r', 0x0000ff00, 8, 8, 0xffffffff},
      {"bfe.s32 %ro, %ra, %rb, %rc;", 'r', 0x0000ff00, 8, 0, 0},
      {"bfe.u32 %ro, %ra, %rb, %rc;", 'r', 0xf0000000, 28, 8, 0xf},
      {"bfe.s32 %ro, %ra, %rb, %rc;", 'r', 0x80000000, 40, 4, 0xffffffff},
      {"bfi.b32 %ro, %ra, %rb, %rc, 4;", 'r', 0xff, 0x12345678, 8, 0x12345f78},
      {"prmt.b32 %ro, %ra, %rb, %rc;", 'r', 0x33221100, 0x77665544, 0x5140, 0x55114400},
      {"prmt.b32 %ro, %ra, %rb, %rc;", 'r', 0x80221100, 0x77665544, 0x000b, 0x000000ff},
      {"prmt.b32.f4e %ro, %ra, %rb, %rc;", 'r', 0x33221100, 0x77665544, 1, 0x44332211},
      {"popc.b32 %ro, %ra;", 'r', 0xf0f0, 0, 0, 8},
      {"popc.b64 %ro, %la;", 'r', ~0ull, 0, 0, 64},
      {"clz.b32 %ro, %ra;", 'r', 1, 0, 0, 31},
      {"clz.b32 %ro, %ra;", 'r', 0, 0, 0, 32},
      {"clz.b64 %ro, %la;", 'r', 1, 0, 0, 63},
      {"brev.b32 %ro, %ra;", 'r', 1, 0, 0, 0x80000000},
      {"bfind.u32 %ro, %ra;", 'r', 0x100, 0, 0, 8},
      {"bfind.s32 %ro, %ra;", 'r', S32(-1), 0, 0, 0xffffffff},
      {"bfind.shiftamt.u32 %ro, %ra;", 'r', 0x100, 0, 0, 23},
      // comparisons and selection
      {"setp.lt.s32 %po, %ra, %rb;", 'p', S32(-1), 0, 0, 1},
      {"setp.lt.u32 %po, %ra, %rb;", 'p', 0xffffffff, 0, 0, 0},
      {"setp.hi.u32 %po, %ra, %rb;", 'p', 0xffffffff, 0, 0, 1},
      {"setp.ge.s64 %po, %la, %lb;", 'p', S(-1), S(-1), 0, 1},
      {"setp.lt.and.s32 %po, %ra, %rb, %pc;", 'p', 1, 2, 0, 0},
      {"setp.lt.or.s32 %po, %ra, %rb, !%pc;", 'p', 3, 2, 1, 0},
      {"setp.lt.xor.s32 %po|%pq, %ra, %rb, %pc;", 'p', 3, 2, 1, 1},
      {"setp.lt.s32 %pq|%po, %ra, %rb;", 'p', 3, 2, 0, 1},
      {"setp.lt.f32 %po, %fa, %fb;", 'p', NANF, F(1), 0, 0},
      {"setp.ltu.f32 %po, %fa, %fb;", 'p', NANF, F(1), 0, 1},
      {"setp.ne.f32 %po, %fa, %fb;", 'p', NANF, F(1), 0, 0},
      {"setp.neu.f32 %po, %fa, %fb;", 'p', NANF, F(1), 0, 1},
      {"setp.num.f32 %po, %fa, %fb;", 'p', F(1), F(2), 0, 1},
      {"setp.nan.f64 %po, %da, %db;", 'p', D(1), D(NAN), 0, 1},
      {"setp.eq.f32 %po, %fa, %fb;", 'p', F(-0.0f), F(0.0f), 0, 1},
      {"setp.gt.ftz.f32 %po, %fa, %fb;", 'p', 1, F(0.0f), 0, 0},
      {"setp.gt.f32 %po, %fa, %fb;", 'p', 1, F(0.0f), 0, 1},
      {"setp.lt.f16 %po, %ha, %hb;", 'p', 0xbc00, 0x3c00, 0, 1},
      {"selp.b32 %ro, %ra, %rb, %pc;", 'r', 10, 20, 0, 20},
      {"selp.f64 %do, %da, %db, %pc;", 'd', D(1.5), D(2.5), 1, D(1.5)},
      {"slct.s32.s32 %ro, %ra, %rb, %rc;", 'r', 10, 20, S32(-1), 20},
      {"slct.f32.f32 %fo, %fa, %fb, %fc;", 'f', F(1), F(2), F(-0.0f), F(1)},
      {"mov.b64 %lo, {%ra, %rb};", 'l', 0x11111111, 0x22222222, 0, 0x2222222211111111ull},
      {"mov.b64 {%ro, %rc}, %la;", 'r', 0x2222222211111111ull, 0, 0, 0x11111111},
      {"mov.b32 {%ho, %hc}, %ra;", 'h', 0xabcd1234, 0, 0, 0x1234},
      {"mov.b32 %ro, {%ha, %hb};", 'r', 0x1234, 0xabcd, 0, 0xabcd1234},
      {"mov.f32 %fo, 0f3F800000;", 'f', 0, 0, 0, F(1)},
      {"mov.f64 %do, 0dC000000000000000;", 'd', 0, 0, 0, D(-2)},
      {"mov.u32 %ro, -1;", 'r', 0, 0, 0, 0xffffffff},
      {"mov.u64 %lo, 0xFFFFFFFFFF;", 'l', 0, 0, 0, 0xffffffffffull},
      {"add.s32 %ro, %ra, -0x10;", 'r', 0x20, 0, 0, 0x10},
      // f32 / f64 arithmetic: rounding ties, directed rounding, ftz, sat, NaN, -0
      {"add.f32 %fo, %fa, %fb;", 'f', F(1), F(ldexpf(1, -24)), 0, F(1)},
      {"add.rn.f32 %fo, %fa, %fb;", 'f', F(1), F(3 * ldexpf(1, -24)), 0, F(1 + ldexpf(1, -22))},
      {"add.rp.f32 %fo, %fa, %fb;", 'f', F(1), F(ldexpf(1, -24)), 0, 0x3f800001},
      {"add.rz.f32 %fo, %fa, %fb;", 'f', F(-1), F(-ldexpf(1, -24)), 0, 0xbf800000},
      {"add.rm.f32 %fo, %fa, %fb;", 'f', F(-1), F(-ldexpf(1, -24)), 0, 0xbf800001},
      {"add.f32 %fo, %fa, %fb;", 'f', F(INFINITY), F(-INFINITY), 0, CANON},
      {"add.f32 %fo, %fa, %fb;", 'f', F(-0.0f), F(-0.0f), 0, 0x80000000},
      {"add.f32 %fo, %fa, %fb;", 'f', F(-0.0f), F(0.0f), 0, 0},
      {"sub.f32 %fo, %fa, %fb;", 'f', F(1), F(1), 0, 0},
      {"mul.f32 %fo, %fa, %fb;", 'f', 1, F(1), 0, 1},
      {"mul.ftz.f32 %fo, %fa, %fb;", 'f', 0x80000001, F(1), 0, 0x80000000},
      {"mul.ftz.f32 %fo, %fa, %fb;", 'f', F(ldexpf(1, -100)), F(ldexpf(1, -30)), 0, 0},
      {"mul.f32 %fo, %fa, %fb;", 'f', F(ldexpf(1, -100)), F(ldexpf(1, -30)), 0, F(ldexpf(1, -130))},
      {"mul.f32 %fo, %fa, %fb;", 'f', F(FLT_MAX), F(2), 0, F(INFINITY)},
      {"mul.rz.f32 %fo, %fa, %fb;", 'f', F(FLT_MAX), F(2), 0, F(FLT_MAX)},
      {"add.sat.f32 %fo, %fa, %fb;", 'f', F(0.5f), F(0.7f), 0, F(1)},
      {"add.sat.f32 %fo, %fa, %fb;", 'f', NANF, F(1), 0, 0},
      {"mul.sat.f32 %fo, %fa, %fb;", 'f', F(-2), F(3), 0, 0},
      {"fma.rn.f32 %fo, %fa, %fb, %fc;", 'f', 0x3f800800, 0x3f800800, F(-(1 + ldexpf(1, -11))), 0x33800000},
      {"mad.rn.f32 %fo, %fa, %fb, %fc;", 'f', 0x3f800800, 0x3f800800, F(-(1 + ldexpf(1, -11))), 0x33800000},
      {"fma.rn.f64 %do, %da, %db, %dc;", 'd', D(1 + ldexp(1, -30)), D(1 + ldexp(1, -30)), D(-(1 + ldexp(1, -29))), D(ldexp(1, -60))},
      {"div.rn.f32 %fo, %fa, %fb;", 'f', F(1), F(3), 0, 0x3eaaaaab},
      {"div.rn.f64 %do, %da, %db;", 'd', D(1), D(3), 0, 0x3fd5555555555555ull},
      {"div.full.f32 %fo, %fa, %fb;", 'f', F(6), F(3), 0, F(2)},
      {"div.approx.f32 %fo, %fa, %fb;", 'f', F(1), F(4), 0, F(0.25f)},
      {"div.rn.f32 %fo, %fa, %fb;", 'f', F(1), F(0), 0, F(INFINITY)},
      {"div.rn.f32 %fo, %fa, %fb;", 'f', F(0), F(0), 0, CANON},
      {"sqrt.rn.f32 %fo, %fa;", 'f', F(2), 0, 0, 0x3fb504f3},
      {"sqrt.rn.f32 %fo, %fa;", 'f', F(-1), 0, 0, CANON},
      {"sqrt.rn.f32 %fo, %fa;", 'f', F(-0.0f), 0, 0, 0x80000000},
      {"sqrt.approx.f32 %fo, %fa;", 'f', F(16), 0, 0, F(4)},
      {"rcp.rn.f64 %do, %da;", 'd', D(3), 0, 0, 0x3fd5555555555555ull},
      {"rcp.rn.f32 %fo, %fa;", 'f', F(-0.0f), 0, 0, F(-INFINITY)},
      // rcp.approx.ftz.f64: correctly rounded here; subnormal inputs and results flush to signed zero
      {"rcp.approx.ftz.f64 %do, %da;", 'd', D(3), 0, 0, 0x3fd5555555555555ull},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', D(-0.25), 0, 0, D(-4.0)},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', 1, 0, 0, D(INFINITY)},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', 0x8000000000000001ull, 0, 0, D(-INFINITY)},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', D(DBL_MAX), 0, 0, 0},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', D(-DBL_MAX), 0, 0, 0x8000000000000000ull},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', D(INFINITY), 0, 0, 0},
      {"rcp.approx.ftz.f64 %do, %da;", 'd', 0x7ff8000000000001ull, 0, 0, 0x7fffffffffffffffull},
      {"rsqrt.approx.f32 %fo, %fa;", 'f', F(4), 0, 0, F(0.5f)},
      {"ex2.approx.f32 %fo, %fa;", 'f', F(3), 0, 0, F(8)},
      {"ex2.approx.ftz.f32 %fo, %fa;", 'f', F(-INFINITY), 0, 0, 0},
      {"lg2.approx.f32 %fo, %fa;", 'f', F(8), 0, 0, F(3)},
      {"lg2.approx.f32 %fo, %fa;", 'f', F(0), 0, 0, F(-INFINITY)},
      {"sin.approx.f32 %fo, %fa;", 'f', F(0), 0, 0, F(0)},
      {"cos.approx.f32 %fo, %fa;", 'f', F(0), 0, 0, F(1)},
      {"tanh.approx.f32 %fo, %fa;", 'f', F(INFINITY), 0, 0, F(1)},
      {"min.f32 %fo, %fa, %fb;", 'f', NANF, F(1), 0, F(1)},
      {"min.f32 %fo, %fa, %fb;", 'f', NANF, NANF, 0, CANON},
      {"max.f32 %fo, %fa, %fb;", 'f', F(1), NANF, 0, F(1)},
      {"min.f32 %fo, %fa, %fb;", 'f', F(0.0f), F(-0.0f), 0, 0x80000000},
      {"max.f32 %fo, %fa, %fb;", 'f', F(-0.0f), F(0.0f), 0, 0},
      {"min.NaN.f32 %fo, %fa, %fb;", 'f', NANF, F(1), 0, CANON},
      {"max.f64 %do, %da, %db;", 'd', D(-3), D(2), 0, D(2)},
      {"abs.f32 %fo, %fa;", 'f', F(-0.0f), 0, 0, 0},
      {"neg.f32 %fo, %fa;", 'f', F(0.0f), 0, 0, 0x80000000},
      {"neg.f64 %do, %da;", 'd', D(2), 0, 0, D(-2)},
      {"copysign.f32 %fo, %fa, %fb;", 'f', F(-1), F(2), 0, F(-2)},
      {"testp.subnormal.f32 %po, %fa;", 'p', 1, 0, 0, 1},
      {"testp.normal.f32 %po, %fa;", 'p', 1, 0, 0, 0},
      {"testp.infinite.f64 %po, %da;", 'p', D(-INFINITY), 0, 0, 1},
      {"testp.notanumber.f32 %po, %fa;", 'p', NANF, 0, 0, 1},
      {"testp.finite.f32 %po, %fa;", 'p', NANF, 0, 0, 0},
      // half precision
      {"add.f16 %ho, %ha, %hb;", 'h', 0x3c00, 0x1000, 0, 0x3c00},
      {"add.f16 %ho, %ha, %hb;", 'h', 0x3c00, 0x1400, 0, 0x3c01},
      {"mul.f16 %ho, %ha, %hb;", 'h', 0x7bff, 0x4000, 0, 0x7c00},
      {"fma.rn.f16 %ho, %ha, %hb, %hc;", 'h', 0x4200, 0x4200, 0xbc00, 0x4800},
      {"sub.f16 %ho, %ha, %hb;", 'h', 0x0001, 0x0002, 0, 0x8001},
      {"add.ftz.f16 %ho, %ha, %hb;", 'h', 0x0001, 0x0001, 0, 0x0000},
      // half ex2/tanh (correctly rounded here) and packed comparisons (p: low halves, q: high)
      {"ex2.approx.f16 %ho, %ha;", 'h', 0x4000, 0, 0, 0x4400},
      {"ex2.approx.f16 %ho, %ha;", 'h', 0xbc00, 0, 0, 0x3800},
      {"ex2.approx.f16 %ho, %ha;", 'h', 0x34cd, 0, 0, 0x3ced},
      {"ex2.approx.f16x2 %ro, %ra;", 'r', 0x3c004200, 0, 0, 0x40004800},
      {"ex2.approx.ftz.bf16 %ho, %ha;", 'h', 0x4040, 0, 0, 0x4100},
      {"tanh.approx.f16 %ho, %ha;", 'h', 0x3800, 0, 0, 0x3765},
      {"tanh.approx.f16 %ho, %ha;", 'h', 0x8000, 0, 0, 0x8000},
      {"tanh.approx.f16 %ho, %ha;", 'h', 0x4900, 0, 0, 0x3c00},
      {"tanh.approx.f16x2 %ro, %ra;", 'r', 0xc0003800, 0, 0, 0xbbb63765},
      {"setp.lt.f16x2 %po|%pq, %ra, %rb;", 'p', 0x3c004000, 0x40003c00, 0, 0},
      {"setp.lt.f16x2 %pq|%po, %ra, %rb;", 'p', 0x3c004000, 0x40003c00, 0, 1},
      {"setp.ltu.f16x2 %po|%pq, %ra, %rb;", 'p', 0x3c007e00, 0x40003c00, 0, 1},
      {"setp.lt.f16x2 %po|%pq, %ra, %rb;", 'p', 0x3c007e00, 0x40003c00, 0, 0},
      {"setp.lt.and.bf16x2 %pq|%po, %ra, %rb, %pc;", 'p', 0x3f804000, 0x40003f80, 1, 1},
      {"setp.lt.and.bf16x2 %pq|%po, %ra, %rb, %pc;", 'p', 0x3f804000, 0x40003f80, 0, 0},
      {"setp.eq.ftz.f16 %po, %ha, %hb;", 'p', 0x0001, 0x8000, 0, 1},
      {"setp.eq.f16 %po, %ha, %hb;", 'p', 0x0001, 0x8000, 0, 0},
      {"add.f16x2 %ro, %ra, %rb;", 'r', 0x3c003c00, 0x3c000000, 0, 0x40003c00},
      {"mul.f16x2 %ro, %ra, %rb;", 'r', 0x40004200, 0xc0003c00, 0, 0xc4004200},
      {"add.bf16 %ho, %ha, %hb;", 'h', 0x3f80, 0x3f80, 0, 0x4000},
      {"fma.rn.bf16x2 %ro, %ra, %rb, %rc;", 'r', 0x3f804000, 0x40004000, 0x3f80bf80, 0x40404040},
      {"neg.bf16x2 %ro, %ra;", 'r', 0x3f80bf80, 0, 0, 0xbf803f80},
      {"abs.f16 %ho, %ha;", 'h', 0xfc00, 0, 0, 0x7c00},
      {"min.f16 %ho, %ha, %hb;", 'h', 0x7e00, 0x3c00, 0, 0x3c00},
      {"max.f16x2 %ro, %ra, %rb;", 'r', 0xbc003c00, 0x00004000, 0, 0x00004000},
      {"add.f16 %ho, %ha, %hb;", 'h', 0x7c00, 0xfc00, 0, 0x7fff},
      // conversions
      {"cvt.rni.s32.f32 %ro, %fa;", 'r', F(2.5f), 0, 0, 2},
      {"cvt.rni.s32.f32 %ro, %fa;", 'r', F(3.5f), 0, 0, 4},
      {"cvt.rni.s32.f32 %ro, %fa;", 'r', F(-2.5f), 0, 0, S32(-2)},
      {"cvt.rzi.s32.f32 %ro, %fa;", 'r', F(-2.7f), 0, 0, S32(-2)},
      {"cvt.rmi.s32.f32 %ro, %fa;", 'r', F(-2.1f), 0, 0, S32(-3)},
      {"cvt.rpi.s32.f32 %ro, %fa;", 'r', F(2.1f), 0, 0, 3},
      {"cvt.rzi.s32.f32 %ro, %fa;", 'r', NANF, 0, 0, 0},
      {"cvt.rzi.s32.f32 %ro, %fa;", 'r', F(1e10f), 0, 0, 0x7fffffff},
      {"cvt.rzi.s32.f32 %ro, %fa;", 'r', F(-1e10f), 0, 0, 0x80000000},
      {"cvt.rzi.u32.f32 %ro, %fa;", 'r', F(-5), 0, 0, 0},
      // a destination register wider than the type: signed types sign-extend, unsigned zero-extend
      {"cvt.rzi.s8.f32 %ro, %fa;", 'r', F(-3.5f), 0, 0, 0xfffffffd},
      {"cvt.rzi.s16.f32 %ro, %fa;", 'r', F(-2.0f), 0, 0, 0xfffffffe},
      {"cvt.rzi.s8.f32 %ro, %fa;", 'r', F(-1000.0f), 0, 0, 0xffffff80},
      {"cvt.rzi.u8.f32 %ro, %fa;", 'r', F(300.0f), 0, 0, 0xff},
      {"cvt.s8.s32 %ro, %ra;", 'r', 0x1fe, 0, 0, 0xfffffffe},
      {"cvt.u8.s32 %ro, %ra;", 'r', 0x1fe, 0, 0, 0xfe},
      {"cvt.s16.s32 %ro, %ra;", 'r', 0x18000, 0, 0, 0xffff8000},
      {"cvt.rzi.u64.f64 %lo, %da;", 'l', D(1e300), 0, 0, ~0ull},
      {"cvt.rzi.s64.f64 %lo, %da;", 'l', D(-3.99), 0, 0, S(-3)},
      {"cvt.rn.f32.s32 %fo, %ra;", 'f', 16777217, 0, 0, F(16777216)},
      {"cvt.rz.f32.s32 %fo, %ra;", 'f', 16777219, 0, 0, F(16777218)},
      {"cvt.rp.f32.s32 %fo, %ra;", 'f', 16777217, 0, 0, F(16777218)},
      {"cvt.rm.f32.s32 %fo, %ra;", 'f', S32(-16777217), 0, 0, F(-16777218)},
      {"cvt.rn.f32.u64 %fo, %la;", 'f', ~0ull, 0, 0, 0x5f800000},
      {"cvt.rn.f64.s64 %do, %la;", 'd', (uint64_t)((1ll << 53) + 1), 0, 0, D(9007199254740992.0)},
      {"cvt.rn.f32.u32 %fo, %ra;", 'f', 0xffffffff, 0, 0, 0x4f800000},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(65520.0f), 0, 0, 0x7c00},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(65519.0f), 0, 0, 0x7bff},
      {"cvt.rz.f16.f32 %ho, %fa;", 'h', F(1e6f), 0, 0, 0x7bff},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(ldexpf(1, -25)), 0, 0, 0x0000},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(ldexpf(3, -26)), 0, 0, 0x0001},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', NANF, 0, 0, 0x7fff},
      {"cvt.rn.f16.f32 %ho, %fa;", 'h', F(-0.0f), 0, 0, 0x8000},
      {"cvt.f32.f16 %fo, %ha;", 'f', 0x0001, 0, 0, F(ldexpf(1, -24))},
      {"cvt.f32.f16 %fo, %ha;", 'f', 0xfc00, 0, 0, F(-INFINITY)},
      {"cvt.f32.bf16 %fo, %ha;", 'f', 0x3fc0, 0, 0, F(1.5f)},
      {"cvt.rn.bf16.f32 %ho, %fa;", 'h', F(1.00390625f), 0, 0, 0x3f80},
      {"cvt.rn.bf16.f32 %ho, %fa;", 'h', F(1.01171875f), 0, 0, 0x3f82},
      {"cvt.rna.tf32.f32 %ro, %fa;", 'r', F(1 + ldexpf(1, -11)), 0, 0, 0x3f802000},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(NAN), 0, 0, CANON},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(1e300), 0, 0, F(INFINITY)},
      {"cvt.rz.f32.f64 %fo, %da;", 'f', D(1e300), 0, 0, F(FLT_MAX)},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(1 + ldexp(1, -24)), 0, 0, F(1)},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(1 + ldexp(1, -24) + ldexp(1, -50)), 0, 0, 0x3f800001},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(ldexp(1, -149) * 0.5), 0, 0, 0},
      {"cvt.rn.f32.f64 %fo, %da;", 'f', D(ldexp(1, -149) * 0.75), 0, 0, 1},
      {"cvt.rn.ftz.f32.f64 %fo, %da;", 'f', D(1.5), 0, 0, F(1.5f)},
      {"cvt.f64.f32 %do, %fa;", 'd', F(0.1f), 0, 0, D((double)0.1f)},
      {"cvt.rni.f32.f32 %fo, %fa;", 'f', F(2.5f), 0, 0, F(2)},
      {"cvt.rmi.f64.f64 %do, %da;", 'd', D(-0.5), 0, 0, D(-1)},
      {"cvt.sat.f32.f32 %fo, %fa;", 'f', F(1.5f), 0, 0, F(1)},
      {"cvt.s32.s8 %ro, %ra;", 'r', 0x80, 0, 0, 0xffffff80},
      {"cvt.u8.u32 %ro, %ra;", 'r', 0x1ff, 0, 0, 0xff},
      {"cvt.sat.u8.s32 %ro, %ra;", 'r', S32(-5), 0, 0, 0},
      {"cvt.sat.s8.s32 %ro, %ra;", 'r', 300, 0, 0, 127},
      {"cvt.sat.s32.u32 %ro, %ra;", 'r', 0x80000000, 0, 0, 0x7fffffff},
      {"cvt.s64.s32 %lo, %ra;", 'l', 0xffffffff, 0, 0, ~0ull},
      {"cvt.u64.u32 %lo, %ra;", 'l', 0xffffffff, 0, 0, 0xffffffff},
      {"cvt.u32.u64 %ro, %la;", 'r', 0x1234567890ull, 0, 0, 0x34567890},
      {"cvt.s16.s32 %ho, %ra;", 'h', 0x12345, 0, 0, 0x2345},
      {"cvt.rn.f16x2.f32 %ro, %fa, %fb;", 'r', F(1), F(2), 0, 0x3c004000},
      {"cvt.rn.relu.f16x2.f32 %ro, %fa, %fb;", 'r', F(-1), F(2), 0, 0x00004000},
  };
  Arena mem;
  uint64_t in = mem.alloc(24), out = mem.alloc(8);
  int n = 0;
  for (const Case& k : cases) {
    Kernel kern(kernelFor(k));
    if (!kern.ok()) { std::printf("  in case: %s\n", k.body); failures++; continue; }
    mem.put(in, std::vector<uint64_t>{k.a, k.b, k.c});
    mem.put(out, std::vector<uint64_t>{0xdeadbeefdeadbeefull});
    tsim::Fault f = kern.run(mem, "t", {out, in}, 1, 1);
    uint64_t got = mem.get<uint64_t>(out, 1)[0];
    unsigned bytes = k.out == 'l' || k.out == 'd' ? 8 : k.out == 'h' ? 2 : 4;
    if (bytes < 8) got &= (1ull << (8 * bytes)) - 1;
    uint64_t want = bytes < 8 ? k.expect & ((1ull << (8 * bytes)) - 1) : k.expect;
    if (f.kind != tsim::Fault::None || got != want) {
      std::printf("FAIL %-45s a=%llx b=%llx c=%llx: got %llx want %llx (fault %d)\n", k.body,
                  (unsigned long long)k.a, (unsigned long long)k.b, (unsigned long long)k.c,
                  (unsigned long long)got, (unsigned long long)want, (int)f.kind);
      failures++;
    }
    n++;
  }
  std::printf("%d cases\n", n);
  return finish("ptx_ops_test");
}
