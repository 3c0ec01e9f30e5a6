// cvt between integer and floating types, with rounding, .sat, .ftz, .relu and .satfinite;
// cvt.*x2 packing.
#include <cmath>
#include <limits>
#include <type_traits>

#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {

enum { kCvtSat = 1, kCvtFtz = 2, kCvtIntRnd = 4, kCvtRelu = 8, kCvtSatFinite = 16 };

// .satfinite (PTX ISA, cvt): a NaN input gives NaN; an input whose magnitude exceeds the largest
// finite value of the destination (infinities included) gives that value with the input's sign.
long double satFinite(long double v, Ty dt) {
  long double maxNorm = dt == Ty::F16 ? 65504.0L
                      : dt == Ty::BF16 ? std::ldexp(2.0L - std::ldexp(1.0L, -7), 127)
                                       : std::ldexp(2.0L - std::ldexp(1.0L, -10), 127);  // tf32
  return v == v && std::fabs(v) > maxNorm ? std::copysign(maxNorm, v) : v;
}

// Integer to integer: the hot case (index arithmetic), one template per pair.
template <class From, class To, bool Sat> void cvtInt(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  FOR_LANES(exec) {
    From x = rd<From>(a[l]);
    To r;
    if constexpr (Sat) {
      __int128 v = (__int128)x, lo = (__int128)std::numeric_limits<To>::min(), hi = (__int128)std::numeric_limits<To>::max();
      r = (To)(v < lo ? lo : v > hi ? hi : v);
    } else {
      r = (To)x;
    }
    // A destination register wider than the type gets the value sign-extended for signed types
    // and zero-extended otherwise (PTX ISA: relaxed type-checking rules for destination operands).
    if constexpr (std::is_signed_v<To>) d[l] = (uint64_t)(int64_t)r;
    else d[l] = wr(r);
  }
}

long double readAs(uint64_t v, Ty t, bool ftz) {
  switch (t) {
    case Ty::U8: return (uint8_t)v;
    case Ty::S8: return (int8_t)v;
    case Ty::U16: return (uint16_t)v;
    case Ty::S16: return (int16_t)v;
    case Ty::U32: return (uint32_t)v;
    case Ty::S32: return (int32_t)v;
    case Ty::U64: return (uint64_t)v;
    case Ty::S64: return (int64_t)v;
    case Ty::F16: return f16ToF32((uint16_t)v);
    case Ty::BF16: return bf16ToF32((uint16_t)v);
    case Ty::F32: case Ty::TF32: { float f = bitsf32((uint32_t)v); return ftz ? flushF32(f) : f; }
    default: return rd<double>(v);
  }
}

bool isIntTy(Ty t) { return !tyIsFloat(t) && t != Ty::TF32 && t != Ty::F16x2 && t != Ty::BF16x2; }

uint64_t intLimits(Ty t, long double v) {
  long double lo, hi;
  switch (t) {
    case Ty::U8: lo = 0; hi = 255; break;
    case Ty::S8: lo = -128; hi = 127; break;
    case Ty::U16: lo = 0; hi = 65535; break;
    case Ty::S16: lo = -32768; hi = 32767; break;
    case Ty::U32: lo = 0; hi = 4294967295.0L; break;
    case Ty::S32: lo = -2147483648.0L; hi = 2147483647.0L; break;
    case Ty::U64: lo = 0; hi = 18446744073709551615.0L; break;
    default: lo = -9223372036854775808.0L; hi = 9223372036854775807.0L; break;
  }
  if (v != v) return 0;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  if (t == Ty::U64) return (uint64_t)v;
  uint64_t r = (uint64_t)(int64_t)v;
  unsigned sz = tySize(t);
  // signed: sign-extended to the register (see cvtInt); unsigned: zero-extended
  bool isSigned = t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64;
  return sz < 8 && !isSigned ? r & ((1ull << (8 * sz)) - 1) : r;
}

long double roundIntMag(long double v, int r) {
  switch (r) {
    case kRz: return std::trunc(v);
    case kRm: return std::floor(v);
    case kRp: return std::ceil(v);
    default: {
      long double f = std::floor(v), d = v - f;
      if (d > 0.5L || (d == 0.5L && std::fmod(f, 2.0L) != 0)) f += 1;
      return f;
    }
  }
}

// Rounds to an integral value; a zero result keeps the sign of the input (cvt.rni.f32.f32 of -0.3
// is -0.0, as IEEE roundToIntegral).
long double roundInt(long double v, int r) {
  return std::copysign(roundIntMag(v, r), v);
}

// Everything else: one generic lane body driven by the decoded types.
void cvtGeneric(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  Ty dt = (Ty)(in.imm & 0xff), at = (Ty)((in.imm >> 8) & 0xff);
  int flags = (int)(in.imm >> 16);
  bool ftz = flags & kCvtFtz, sat = flags & kCvtSat, intRnd = flags & kCvtIntRnd;
  FOR_LANES(exec) {
    long double v = readAs(a[l], at, ftz);
    uint64_t out;
    if (isIntTy(dt)) {
      if (!isIntTy(at)) v = roundInt(v, in.mode);
      out = intLimits(dt, v);
    } else {
      if (intRnd) v = roundInt(v, in.mode);
      if (sat) v = v != v ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
      if (flags & kCvtRelu) v = v < 0 ? 0 : v;  // NaN stays NaN (canonical, through roundTo)
      if (flags & kCvtSatFinite) v = satFinite(v, dt);
      out = roundTo(v, dt, intRnd ? (int)kRn : (int)in.mode);
      if (ftz && dt == Ty::F32) out = f32bits(flushF32(bitsf32((uint32_t)out)));
      if (sat && dt == Ty::F32 && (out & 0x7fffffff) > 0x3f800000u) out = (out >> 31) ? 0 : 0x3f800000u;
    }
    d[l] = out;
  }
}

// cvt.rn.f16x2.f32 d, a, b: a goes to the upper half.
void cvtPack(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  Ty half = (Ty)(in.imm & 0xff);
  bool relu = in.imm & 0x100, satfinite = in.imm & 0x200;
  FOR_LANES(exec) {
    long double x = bitsf32((uint32_t)a[l]), y = bitsf32((uint32_t)b[l]);
    if (relu) { x = x != x ? x : x < 0 ? 0.0L : x; y = y != y ? y : y < 0 ? 0.0L : y; }
    if (satfinite) { x = satFinite(x, half); y = satFinite(y, half); }
    d[l] = (roundTo(x, half, in.mode) << 16) | roundTo(y, half, in.mode);
  }
}

template <class From> Fn intTo(Ty dt, bool sat) {
  auto f = [&](auto z) -> Fn {
    using To = decltype(z);
    return sat ? &cvtInt<From, To, true> : &cvtInt<From, To, false>;
  };
  switch (dt) {
    case Ty::U8: return f(uint8_t{});
    case Ty::S8: return f(int8_t{});
    case Ty::U16: return f(uint16_t{});
    case Ty::S16: return f(int16_t{});
    case Ty::U32: return f(uint32_t{});
    case Ty::S32: return f(int32_t{});
    case Ty::U64: return f(uint64_t{});
    case Ty::S64: return f(int64_t{});
    default: return nullptr;
  }
}

}  // namespace

bool isCvtFp8(const Stmt& st);                              // exec_cvt_fp8.cpp
bool decodeCvtFp8(Decoder& dc, const Stmt& st, Inst& in);
bool isCvtFp4Fp6(const Stmt& st);                           // exec_cvt_fp4fp6.cpp
bool decodeCvtFp4Fp6(Decoder& dc, const Stmt& st, Inst& in);
bool isCvtUe8m0(const Stmt& st);                            // exec_cvt_ue8m0.cpp
bool decodeCvtUe8m0(Decoder& dc, const Stmt& st, Inst& in);

namespace {

bool cvtDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (isCvtFp8(st)) return decodeCvtFp8(dc, st, in);
  if (isCvtFp4Fp6(st)) return decodeCvtFp4Fp6(dc, st, in);
  if (isCvtUe8m0(st)) return decodeCvtUe8m0(dc, st, in);
  Ty dt = st.type(0), at = st.type(1);
  if (dt == Ty::None || at == Ty::None || st.ops.size() < 2) return dc.fail("cvt needs two types");
  bool sat = st.has("sat"), ftz = st.has("ftz");
  int fr = parseRnd(st, false), ir = parseRnd(st, true);
  in.d[0] = dc.dst(st.ops[0]);
  bool satfinite = st.has("satfinite");
  if (dt == Ty::F16x2 || dt == Ty::BF16x2) {
    if (at != Ty::F32 || st.ops.size() != 3 || (fr != kRn && fr != kRz) || sat || ftz)
      return dc.fail("expected cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b");
    in.s[0] = dc.src(st.ops[1], Ty::F32);
    in.s[1] = dc.src(st.ops[2], Ty::F32);
    in.imm = (int64_t)(dt == Ty::F16x2 ? Ty::F16 : Ty::BF16) | (st.has("relu") ? 0x100 : 0) | (satfinite ? 0x200 : 0);
    in.mode = (uint8_t)fr;
    in.fn = &cvtPack;
    return true;
  }
  if (st.ops.size() != 2) return dc.fail("wrong operand count");
  in.s[0] = dc.src(st.ops[1], at);
  auto norm = [](Ty t) {
    switch (t) {
      case Ty::B8: return Ty::U8;
      case Ty::B16: return Ty::U16;
      case Ty::B32: return Ty::U32;
      case Ty::B64: return Ty::U64;
      default: return t;
    }
  };
  dt = norm(dt);
  at = norm(at);
  if (isIntTy(dt) && isIntTy(at)) {
    if (fr >= 0 || ir >= 0 || st.has("relu") || st.has("ftz") || satfinite) return dc.fail("rounding, .relu, .satfinite or .ftz on an integer cvt");
    switch (at) {
      case Ty::U8: in.fn = intTo<uint8_t>(dt, sat); break;
      case Ty::S8: in.fn = intTo<int8_t>(dt, sat); break;
      case Ty::U16: in.fn = intTo<uint16_t>(dt, sat); break;
      case Ty::S16: in.fn = intTo<int16_t>(dt, sat); break;
      case Ty::U32: in.fn = intTo<uint32_t>(dt, sat); break;
      case Ty::S32: in.fn = intTo<int32_t>(dt, sat); break;
      case Ty::U64: in.fn = intTo<uint64_t>(dt, sat); break;
      case Ty::S64: in.fn = intTo<int64_t>(dt, sat); break;
      default: break;
    }
    return in.fn != nullptr;
  }
  bool dInt = isIntTy(dt), aInt = isIntTy(at);
  if (dInt && !aInt && ir < 0) return dc.fail("float to int needs .rni/.rzi/.rmi/.rpi");
  if (!dInt && aInt && fr < 0) return dc.fail("int to float needs a rounding mode");
  if (!dInt && !aInt) {
    // The ISA makes the rounding modifier mandatory for float-to-float conversions to a smaller
    // type only: cvt.bf16.f16 / cvt.f16.bf16 (same size, sm_90) may omit it, and ptxas then emits
    // the same code as for .rn (the default below).
    bool narrowing = tySize(dt) < tySize(at) || dt == Ty::TF32;
    if (narrowing && fr < 0) return dc.fail("narrowing cvt needs a rounding mode");
    if (ir >= 0 && dt != at) return dc.fail("integer rounding between different float types");
  }
  bool relu = st.has("relu");
  // .relu and .satfinite: cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32, cvt.rna.satfinite.tf32.f32
  // and (sm_90) cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32.
  bool halfDst = (dt == Ty::F16 || dt == Ty::BF16) && at == Ty::F32 && (fr == kRn || fr == kRz);
  bool tf32Dst = dt == Ty::TF32 && at == Ty::F32 && (fr == kRn || fr == kRz || fr == kRna);
  if (relu && !(halfDst || (tf32Dst && fr != kRna))) return dc.fail(".relu needs cvt.{rn,rz}.relu.{f16,bf16,tf32}.f32");
  if (satfinite && !(halfDst || tf32Dst)) return dc.fail(".satfinite needs cvt.{rn,rz}.satfinite.{f16,bf16,tf32}.f32 or cvt.rna.satfinite.tf32.f32");
  if (satfinite && (sat || ftz)) return dc.fail(".satfinite with .sat or .ftz");
  in.mode = (uint8_t)(ir >= 0 ? ir : fr >= 0 ? fr : kRn);
  in.imm = (int64_t)dt | ((int64_t)at << 8) | ((int64_t)((sat ? kCvtSat : 0) | (ftz ? kCvtFtz : 0) | (ir >= 0 ? kCvtIntRnd : 0) | (relu ? kCvtRelu : 0) | (satfinite ? kCvtSatFinite : 0)) << 16);
  in.fn = &cvtGeneric;
  in.cls = kFloat;
  return true;
}

}  // namespace

void registerCvtOps(DecodeTable& t) {
  addOp(t, "cvt", cvtDecode, "rn rz rm rp rna rni rzi rmi rpi sat ftz relu satfinite u8 u16 u32 u64 s8 s16 s32 s64 b8 b16 b32 b64 f16 bf16 tf32 f32 f64 f16x2 bf16x2 e4m3x2 e5m2x2 e2m1x2 e2m3x2 e3m2x2 ue8m0x2",
        "every integer/float pair; `.relu` on f16/bf16/tf32 results; `.satfinite` clamps f16/bf16/tf32 results to the largest finite value (NaN stays NaN); `.f16x2/.bf16x2` packs two f32; `.e4m3x2/.e5m2x2` (sm_89): nearest even with `.satfinite` to, exact from (via `.f16x2`); `.e2m1x2/.e2m3x2/.e3m2x2` (sm_100a): from two f32 nearest even with `.satfinite` (NaN gives +MAX_NORM, as the ISA says), exact to `.f16x2`; `.ue8m0x2` (sm_100a): `.rz`/`.rp` from two f32 or a bf16x2 (zero, negative and other inputs the ISA leaves open are named faults), exact to `.bf16x2`");
}

}  // namespace tsim
