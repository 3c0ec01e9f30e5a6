// cvt to and from the packed 8-bit float pairs (sm_89; PTX ISA "cvt", "Alternate floating point
// data formats"), decoded from the `cvt` entry:
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32   d(b16), a, b   d = {hi: cvt(a), lo: cvt(b)}
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d(b16), a      d.hi from a.hi, d.lo from a.lo
//   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}           d(b32), a(b16) d.hi from a.hi (exact)
// Rounding to the 8-bit formats: nearest even; .satfinite (required by the ISA) turns a magnitude
// above the largest finite value into that value and NaN into NaN (0x7f); .relu clamps negative
// results to +0 (NaN stays NaN). Widening to f16 is exact; an e4m3/e5m2 NaN gives the canonical
// f16 NaN 0x7fff.
#include "exec_core.h"
#include "exec_float.h"
#include "exec_fp8.h"

namespace tsim {

namespace {

// in.mode bit 0: e5m2 (else e4m3), bit 1: .relu
void toFp8FromF32(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  bool e5 = in.mode & 1, relu = in.mode & 2;
  FOR_LANES(exec) {
    uint8_t hi = toFp8Satfinite(bitsf32((uint32_t)a[l]), e5, relu), lo = toFp8Satfinite(bitsf32((uint32_t)b[l]), e5, relu);
    d[l] = (uint64_t)hi << 8 | lo;
  }
}

void toFp8FromF16x2(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  bool e5 = in.mode & 1, relu = in.mode & 2;
  FOR_LANES(exec) {
    uint32_t v = (uint32_t)a[l];
    uint8_t hi = toFp8Satfinite(f16ToF32((uint16_t)(v >> 16)), e5, relu), lo = toFp8Satfinite(f16ToF32((uint16_t)v), e5, relu);
    d[l] = (uint64_t)hi << 8 | lo;
  }
}

uint16_t fp8ToF16(uint8_t b, bool e5, bool relu) {
  double v = e5 ? e5m2ToDouble(b) : e4m3ToDouble(b);
  if (v != v) return 0x7fff;
  if (relu && (v < 0 || (v == 0 && (b & 0x80)))) return 0;
  return (uint16_t)roundTo(v, Ty::F16, kRn);  // exact: every e4m3/e5m2 value is an f16 value
}

void fromFp8(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  bool e5 = in.mode & 1, relu = in.mode & 2;
  FOR_LANES(exec) {
    uint32_t v = (uint32_t)a[l];
    d[l] = (uint64_t)fp8ToF16((uint8_t)(v >> 8), e5, relu) << 16 | fp8ToF16((uint8_t)v, e5, relu);
  }
}

}  // namespace

bool isCvtFp8(const Stmt& st) { return st.has("e4m3x2") || st.has("e5m2x2"); }

bool decodeCvtFp8(Decoder& dc, const Stmt& st, Inst& in) {
  // the two type modifiers in order (destination, source)
  std::vector<std::string> tys;
  for (auto& m : st.mods)
    if (m == "e4m3x2" || m == "e5m2x2" || m == "f32" || m == "f16x2") tys.push_back(m);
    else if (m != "rn" && m != "satfinite" && m != "relu") return dc.fail("modifier ." + m + " on an e4m3x2/e5m2x2 cvt");
  if (tys.size() != 2 || !st.has("rn")) return dc.fail("expected cvt.rn{.satfinite}{.relu}.dtype.atype with e4m3x2/e5m2x2");
  bool toFp8 = tys[0] == "e4m3x2" || tys[0] == "e5m2x2";
  const std::string& f8 = toFp8 ? tys[0] : tys[1];
  in.mode = (f8 == "e5m2x2" ? 1 : 0) | (st.has("relu") ? 2 : 0);
  in.cls = kFloat;
  in.d[0] = st.ops.empty() ? 0 : dc.dst(st.ops[0]);
  if (toFp8) {
    if (!st.has("satfinite")) return dc.fail("a cvt to e4m3x2/e5m2x2 needs .satfinite");
    if (tys[1] == "f32") {
      if (st.ops.size() != 3) return dc.fail("expected cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b");
      in.s[0] = dc.src(st.ops[1], Ty::F32);
      in.s[1] = dc.src(st.ops[2], Ty::F32);
      in.fn = &toFp8FromF32;
      return true;
    }
    if (tys[1] == "f16x2") {
      if (st.ops.size() != 2) return dc.fail("expected cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a");
      in.s[0] = dc.src(st.ops[1], Ty::B32);
      in.fn = &toFp8FromF16x2;
      return true;
    }
    return dc.fail("the source of a cvt to e4m3x2/e5m2x2 is .f32 or .f16x2");
  }
  if (tys[0] != "f16x2" || st.has("satfinite")) return dc.fail("expected cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a");
  if (st.ops.size() != 2) return dc.fail("expected cvt.rn{.relu}.f16x2.f8x2 d, a");
  in.s[0] = dc.src(st.ops[1], Ty::B16);
  in.fn = &fromFp8;
  return true;
}

}  // namespace tsim
