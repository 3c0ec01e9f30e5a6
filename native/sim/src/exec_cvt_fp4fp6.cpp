// cvt to and from the packed 4- and 6-bit float pairs (sm_100a; PTX ISA "cvt"), decoded from the
// `cvt` entry:
//   cvt.rn.satfinite{.relu}.e2m1x2.f32            d(b8),  a, b   d[7:4] = cvt(a), d[3:0] = cvt(b)
//   cvt.rn.satfinite{.relu}.{e2m3x2,e3m2x2}.f32   d(b16), a, b   d[13:8] = cvt(a), d[5:0] = cvt(b),
//                                                                 bits 15:14 and 7:6 zero
//   cvt.rn{.relu}.f16x2.e2m1x2                    d(b32), a(b8)  d.hi from a[7:4], d.lo from a[3:0]
//   cvt.rn{.relu}.f16x2.{e2m3x2,e3m2x2}           d(b32), a(b16) d.hi from a[13:8], d.lo from a[5:0]
// Rounding to nearest even; .satfinite (required) clamps to the largest finite value (MAX_NORM)
// with the input's sign (infinities too); .relu clamps negative results to +0. The formats hold no
// NaN: a NaN input gives positive MAX_NORM (the ISA's .satfinite rule for these formats). Widening
// to f16 is exact (every value of these formats is an f16 value); the padding bits of a 6-bit
// input are ignored.
#include "exec_core.h"
#include "exec_float.h"
#include "exec_fp4fp6.h"

namespace tsim {

namespace {

// in.mode: format (0 e2m1, 1 e2m3, 2 e3m2) | .relu << 2
MiniFloat formatOf(const Inst& in) { return (in.mode & 3) == 0 ? kE2M1 : (in.mode & 3) == 1 ? kE2M3 : kE3M2; }

// NaN: positive MAX_NORM (all ones below the sign)
uint32_t toMini(float x, MiniFloat f, bool relu) {
  return x != x ? (1u << (f.ebits + f.mbits)) - 1 : toMiniSatfinite(x, f, relu);
}

void toMiniOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  const MiniFloat f = formatOf(in);
  const bool relu = in.mode & 4;
  const unsigned shift = f.mbits == 1 ? 4 : 8;
  FOR_LANES(exec) {
    float x = bitsf32((uint32_t)a[l]), y = bitsf32((uint32_t)b[l]);
    d[l] = (uint64_t)(toMini(x, f, relu) << shift | toMini(y, f, relu));
  }
}

uint16_t miniToF16(uint32_t bits, MiniFloat f, bool relu) {
  double v = miniToDouble(bits, f);
  if (relu && std::signbit(v)) return 0;
  return (uint16_t)roundTo(v, Ty::F16, kRn);  // exact
}

void fromMini(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  const MiniFloat f = formatOf(in);
  const bool relu = in.mode & 4;
  const unsigned shift = f.mbits == 1 ? 4 : 8, mask = f.mbits == 1 ? 0xf : 0x3f;
  FOR_LANES(exec) {
    uint32_t v = (uint32_t)a[l];
    d[l] = (uint64_t)miniToF16((v >> shift) & mask, f, relu) << 16 | miniToF16(v & mask, f, relu);
  }
}

const char* kMiniTypes[] = {"e2m1x2", "e2m3x2", "e3m2x2"};

}  // namespace

bool isCvtFp4Fp6(const Stmt& st) {
  for (const char* t : kMiniTypes)
    if (st.has(t)) return true;
  return false;
}

bool decodeCvtFp4Fp6(Decoder& dc, const Stmt& st, Inst& in) {
  std::vector<std::string> tys;
  int fmt = -1;
  for (auto& m : st.mods) {
    bool mini = false;
    for (int i = 0; i < 3; i++)
      if (m == kMiniTypes[i]) { fmt = i; mini = true; }
    if (mini || m == "f32" || m == "f16x2") tys.push_back(m);
    else if (m != "rn" && m != "satfinite" && m != "relu") return dc.fail("modifier ." + m + " on an e2m1x2/e2m3x2/e3m2x2 cvt (.rs and the x4 forms are not simulated)");
  }
  if (tys.size() != 2 || !st.has("rn")) return dc.fail("expected cvt.rn{.satfinite}{.relu}.dtype.atype with e2m1x2/e2m3x2/e3m2x2");
  in.mode = (uint8_t)(fmt | (st.has("relu") ? 4 : 0));
  in.cls = kFloat;
  in.d[0] = st.ops.empty() ? 0 : dc.dst(st.ops[0]);
  if (tys[0] == kMiniTypes[fmt]) {
    if (tys[1] != "f32") return dc.fail("the source of a cvt to " + tys[0] + " is .f32 (two inputs)");
    if (!st.has("satfinite")) return dc.fail("a cvt to " + tys[0] + " needs .satfinite");
    if (st.ops.size() != 3) return dc.fail("expected cvt.rn.satfinite{.relu}." + tys[0] + ".f32 d, a, b");
    in.s[0] = dc.src(st.ops[1], Ty::F32);
    in.s[1] = dc.src(st.ops[2], Ty::F32);
    in.fn = &toMiniOp;
    return true;
  }
  if (tys[0] != "f16x2" || st.has("satfinite") || st.ops.size() != 2)
    return dc.fail("expected cvt.rn{.relu}.f16x2." + tys[1] + " d, a");
  in.s[0] = dc.src(st.ops[1], fmt == 0 ? Ty::B8 : Ty::B16);
  in.fn = &fromMini;
  return true;
}

}  // namespace tsim
