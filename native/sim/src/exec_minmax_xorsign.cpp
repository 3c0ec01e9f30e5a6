// min/max{.ftz}{.NaN}.xorsign.abs on .f32, .f16, .f16x2, .bf16, .bf16x2 (PTX ISA: half-precision
// and floating-point min/max). Per element: xorsign = sign(a) ^ sign(b); a = |a|, b = |b| (after
// .ftz flushes subnormal inputs, f32/f16 only); both NaN, or either with .NaN: canonical NaN;
// one NaN: the other; else the smaller (larger) magnitude, whose sign bit becomes xorsign. A NaN
// result keeps no xorsign.
#include <cmath>

#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {

// in.mode: bit 0 max, bit 1 .NaN, bit 2 .ftz; in.size: element bits (16/32); in.vec halves (1/2);
// in.flags bit 0x100: bf16.
struct Elem { double v; bool nan; };

template <int Bits, bool BF> double value(uint32_t b, bool ftz) {
  if constexpr (Bits == 32) {
    float x = bitsf32(b);
    if (ftz && std::fpclassify(x) == FP_SUBNORMAL) x = 0.0f;
    return x;
  } else if constexpr (BF) {
    return bf16ToF32((uint16_t)b);
  } else {
    if (ftz && (b & 0x7c00) == 0) return 0.0;
    return f16ToF32((uint16_t)b);
  }
}

template <int Bits, bool BF> uint32_t one(uint32_t a, uint32_t b, bool isMax, bool nanMode, bool ftz) {
  const uint32_t sign = Bits == 32 ? 0x80000000u : 0x8000u, mag = sign - 1;
  const uint32_t canon = Bits == 32 ? 0x7fffffffu : 0x7fffu;
  uint32_t xs = (a ^ b) & sign;
  double x = std::fabs(value<Bits, BF>(a & mag, ftz)), y = std::fabs(value<Bits, BF>(b & mag, ftz));
  bool xn = x != x, yn = y != y;
  if ((xn && yn) || (nanMode && (xn || yn))) return canon;
  uint32_t ma = a & mag, mb = b & mag;
  if (ftz && Bits == 32 && std::fpclassify(bitsf32(ma)) == FP_SUBNORMAL) ma = 0;
  if (ftz && Bits == 16 && !BF && (ma & 0x7c00) == 0) ma = 0;
  if (ftz && Bits == 32 && std::fpclassify(bitsf32(mb)) == FP_SUBNORMAL) mb = 0;
  if (ftz && Bits == 16 && !BF && (mb & 0x7c00) == 0) mb = 0;
  uint32_t r;
  if (xn) r = mb;
  else if (yn) r = ma;
  else r = isMax ? (x > y ? ma : mb) : (x < y ? ma : mb);
  return r | xs;
}

template <int Bits, bool BF, int N> void xorsignOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  bool isMax = in.mode & 1, nanMode = in.mode & 2, ftz = in.mode & 4;
  FOR_LANES(exec) {
    if constexpr (Bits == 32) {
      d[l] = one<32, false>((uint32_t)a[l], (uint32_t)b[l], isMax, nanMode, ftz);
    } else {
      uint64_t out = 0;
      for (int k = 0; k < N; k++)
        out |= (uint64_t)one<16, BF>((uint32_t)(a[l] >> (16 * k)) & 0xffff, (uint32_t)(b[l] >> (16 * k)) & 0xffff, isMax, nanMode, ftz) << (16 * k);
      d[l] = out;
    }
  }
}

}  // namespace

bool decodeMinMaxXorsign(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.op != "min" && st.op != "max") return dc.fail(".xorsign exists only on min/max");
  if (!st.has("abs")) return dc.fail(".xorsign and .abs go together");
  Ty t = st.type();
  bool ftz = st.has("ftz");
  if (ftz && (t == Ty::BF16 || t == Ty::BF16x2)) return dc.fail(".ftz is not a form of bf16 min/max");
  if (st.ops.size() != 3) return dc.fail("expected d, a, b");
  switch (t) {
    case Ty::F32: in.fn = &xorsignOp<32, false, 1>; break;
    case Ty::F16: in.fn = &xorsignOp<16, false, 1>; break;
    case Ty::F16x2: in.fn = &xorsignOp<16, false, 2>; break;
    case Ty::BF16: in.fn = &xorsignOp<16, true, 1>; break;
    case Ty::BF16x2: in.fn = &xorsignOp<16, true, 2>; break;
    default: return dc.fail(".xorsign.abs is a form of f32, f16, f16x2, bf16 and bf16x2 min/max");
  }
  in.mode = (uint8_t)((st.op == "max" ? 1 : 0) | (st.has("NaN") ? 2 : 0) | (ftz ? 4 : 0));
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  in.cls = kFloat;
  return true;
}

}  // namespace tsim
