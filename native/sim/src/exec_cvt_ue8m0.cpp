// cvt to and from the packed unsigned power-of-two scale pair ue8m0x2 (sm_100a; PTX ISA "cvt",
// "Alternate floating point data formats": ue8m0 is 8 exponent bits, no sign, no mantissa, the
// value 2^(e - 127) for e in 0..254, 0xff NaN), decoded from the `cvt` entry:
//   cvt.{rz,rp}{.satfinite}.ue8m0x2.f32     d(b16), a, b   d[15:8] = cvt(a), d[7:0] = cvt(b)
//   cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2  d(b16), a(b32) d[15:8] from a.hi, d[7:0] from a.lo
//   cvt.rn.bf16x2.ue8m0x2                    d(b32), a(b16) d.hi from a[15:8] (exact)
// .rz rounds a positive input down to a power of two, .rp up (a positive input below 2^-127 gives
// 2^-127); NaN gives NaN (0xff); with .satfinite a magnitude above the largest value 2^127
// (infinities too, of either sign) gives 2^127 (0xfe), as the ISA's .satfinite rule says. What
// the ISA leaves open is a named fault rather than a guess: zero, other negative inputs, .rz of a
// positive input below 2^-127, and an overflow without .satfinite. Widening: 2^(e - 127) as bf16
// (e = 0 is the subnormal 0x0040), 0xff the canonical bf16 NaN 0x7fff.
#include <cmath>

#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {

// in.mode: bit 0 .rp (else .rz), bit 1 .satfinite
bool toUe8m0(Ctx& c, const Inst& in, unsigned lane, float x, uint32_t& code) {
  const bool rp = in.mode & 1, satf = in.mode & 2;
  auto open = [&](const char* why) {
    raise(c, Fault::IllegalInstruction, (int)lane, 0, 0, false,
          "cvt to ue8m0x2 (PTX line " + std::to_string(in.line) + "): " + why + " (the ISA does not define the result)");
    return false;
  };
  if (x != x) { code = 0xff; return true; }
  if (satf && std::fabs(x) > 0x1p127f) { code = 0xfe; return true; }  // infinities included
  if (x == 0) return open("a zero input");
  if (x < 0) return open("a negative input");
  if (std::isinf(x)) return open("an infinite input without .satfinite");
  int ex;
  float m = std::frexp(x, &ex);  // x = m * 2^ex, m in [0.5, 1)
  int e = ex - 1 + (rp && m != 0.5f ? 1 : 0);  // floor / ceil of log2 x
  int cd = e + 127;
  if (cd < 0) {
    if (!rp) return open(".rz of an input below 2^-127, the smallest value");
    cd = 0;
  }
  if (cd > 254) return open("a result above 2^127 without .satfinite");
  code = (uint32_t)cd;
  return true;
}

void fromF32(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint32_t hi, lo;
    if (!toUe8m0(c, in, l, bitsf32((uint32_t)a[l]), hi) || !toUe8m0(c, in, l, bitsf32((uint32_t)b[l]), lo)) return;
    d[l] = hi << 8 | lo;
  }
}

void fromBf16x2(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  FOR_LANES(exec) {
    uint32_t v = (uint32_t)a[l], hi, lo;
    if (!toUe8m0(c, in, l, bf16ToF32((uint16_t)(v >> 16)), hi) || !toUe8m0(c, in, l, bf16ToF32((uint16_t)v), lo)) return;
    d[l] = hi << 8 | lo;
  }
}

uint32_t ue8m0ToBf16(uint32_t e) { return e == 0xff ? 0x7fff : e == 0 ? 0x0040 : e << 7; }

void toBf16x2(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  FOR_LANES(exec) {
    uint32_t v = (uint32_t)a[l];
    d[l] = (uint64_t)(ue8m0ToBf16((v >> 8) & 0xff) << 16 | ue8m0ToBf16(v & 0xff));
  }
}

}  // namespace

bool isCvtUe8m0(const Stmt& st) { return st.has("ue8m0x2"); }

bool decodeCvtUe8m0(Decoder& dc, const Stmt& st, Inst& in) {
  std::vector<std::string> tys;
  for (auto& m : st.mods)
    if (m == "ue8m0x2" || m == "f32" || m == "bf16x2") tys.push_back(m);
    else if (m != "rz" && m != "rp" && m != "rn" && m != "satfinite") return dc.fail("modifier ." + m + " on a ue8m0x2 cvt");
  if (tys.size() != 2) return dc.fail("expected cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2} or cvt.rn.bf16x2.ue8m0x2");
  in.cls = kFloat;
  in.d[0] = st.ops.empty() ? 0 : dc.dst(st.ops[0]);
  if (tys[0] == "ue8m0x2") {
    if (st.has("rn") || st.has("rz") == st.has("rp")) return dc.fail("a cvt to ue8m0x2 rounds with .rz or .rp");
    in.mode = (uint8_t)((st.has("rp") ? 1 : 0) | (st.has("satfinite") ? 2 : 0));
    if (tys[1] == "f32") {
      if (st.ops.size() != 3) return dc.fail("expected cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b");
      in.s[0] = dc.src(st.ops[1], Ty::F32);
      in.s[1] = dc.src(st.ops[2], Ty::F32);
      in.fn = &fromF32;
      return true;
    }
    if (st.ops.size() != 2) return dc.fail("expected cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2 d, a");
    in.s[0] = dc.src(st.ops[1], Ty::B32);
    in.fn = &fromBf16x2;
    return true;
  }
  if (tys[0] != "bf16x2" || !st.has("rn") || st.has("satfinite") || st.ops.size() != 2) return dc.fail("expected cvt.rn.bf16x2.ue8m0x2 d, a");
  in.s[0] = dc.src(st.ops[1], Ty::B16);
  in.fn = &toBf16x2;
  return true;
}

}  // namespace tsim
