// Floating-point arithmetic: f32/f64 (with rounding modes, .ftz, .sat) and f16/bf16 (scalar and x2).
#include <cmath>

#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {
struct FmtInfo { int p, emin, emax; };
FmtInfo fmtInfo(Ty t) {
  switch (t) {
    case Ty::F16: return {11, -14, 15};
    case Ty::BF16: return {8, -126, 127};
    case Ty::TF32: return {11, -126, 127};
    case Ty::F32: return {24, -126, 127};
    default: return {53, -1022, 1023};
  }
}
}  // namespace

uint64_t roundTo(long double x, Ty fmt, int r) {
  FmtInfo f = fmtInfo(fmt);
  bool neg = std::signbit(x);
  long double a = std::fabs(x), res;
  if (std::isnan(x)) {
    switch (fmt) {
      case Ty::F16: case Ty::BF16: return 0x7fff;
      case Ty::F32: case Ty::TF32: return 0x7fffffff;
      default: return 0x7fffffffffffffffull;
    }
  }
  if (std::isinf(x) || a == 0) {
    res = a;
  } else {
    int e = std::ilogb(a);
    if (e < f.emin) e = f.emin;
    long double q = std::ldexp(1.0L, e - f.p + 1);
    long double m = a / q, fl = std::floor(m), rm;
    bool up;
    switch (r) {
      case kRz: up = false; break;
      case kRm: up = neg && m != fl; break;
      case kRp: up = !neg && m != fl; break;
      case kRna: up = m - fl >= 0.5L; break;
      default: up = m - fl > 0.5L || (m - fl == 0.5L && std::fmod(fl, 2.0L) != 0); break;
    }
    rm = up ? fl + 1 : fl;
    res = rm * q;
    long double maxf = std::ldexp(2.0L - std::ldexp(1.0L, 1 - f.p), f.emax);
    if (res > maxf) {
      bool toInf = r == kRn || r == kRna || (r == kRp && !neg) || (r == kRm && neg);
      res = toInf ? (long double)INFINITY : maxf;
    }
  }
  long double v = neg ? -res : res;
  switch (fmt) {
    case Ty::F64: { double d = (double)v; uint64_t b; memcpy(&b, &d, 8); return b; }
    case Ty::F32: case Ty::TF32: return f32bits((float)v);
    case Ty::BF16: return f32bits((float)v) >> 16;
    default: {  // f16
      uint16_t s = neg ? 0x8000 : 0;
      if (std::isinf(res)) return s | 0x7c00;
      if (res == 0) return s;
      int e = std::ilogb(res);
      if (e < -14) return s | (uint16_t)std::ldexp(res, 24);
      uint16_t m = (uint16_t)(std::ldexp(res, 10 - e) - 1024);
      return s | (uint16_t)((e + 15) << 10) | m;
    }
  }
}

int parseRnd(const Stmt& st, bool integerRounding) {
  for (auto& m : st.mods) {
    if (!integerRounding) {
      if (m == "rn") return kRn;
      if (m == "rz") return kRz;
      if (m == "rm") return kRm;
      if (m == "rp") return kRp;
      if (m == "rna") return kRna;
    } else {
      if (m == "rni") return kRn;
      if (m == "rzi") return kRz;
      if (m == "rmi") return kRm;
      if (m == "rpi") return kRp;
    }
  }
  return -1;
}

namespace {

enum { kFtz = 1, kSat = 2, kNoCanon = 4, kRelu = 8 };

template <class T> inline T ftzIn(T x) {
  if constexpr (std::is_same_v<T, float>) return flushF32(x); else return x;
}
template <class T> inline T canonNaN() {
  if constexpr (std::is_same_v<T, float>) return bitsf32(0x7fffffffu);
  else { uint64_t b = 0x7fffffffffffffffull; double d; memcpy(&d, &b, 8); return d; }
}
template <class T, int F> inline T post(T r) {
  if constexpr (F & kFtz) r = ftzIn(r);
  if constexpr (F & kSat) r = r != r ? T(0) : r < 0 ? T(0) : r > 1 ? T(1) : r;
  if constexpr (!(F & kNoCanon))
    if (r != r) return canonNaN<T>();
  return r;
}

// One struct per operation; N = number of sources.
struct FAdd { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a + b; } };
struct FSub { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a - b; } };
struct FMul { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a * b; } };
struct FFma { static constexpr int N = 3; template <class T> static T f(T a, T b, T c) { return std::fma(a, b, c); } };
struct FDiv { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a / b; } };
struct FMin {
  static constexpr int N = 2;
  template <class T> static T f(T a, T b, T = 0) {
    if (a != a) return b != b ? canonNaN<T>() : b;
    if (b != b) return a;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct FMax {
  static constexpr int N = 2;
  template <class T> static T f(T a, T b, T = 0) {
    if (a != a) return b != b ? canonNaN<T>() : b;
    if (b != b) return a;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};
struct FMinNaN { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a != a || b != b ? canonNaN<T>() : FMin::f(a, b); } };
struct FMaxNaN { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return a != a || b != b ? canonNaN<T>() : FMax::f(a, b); } };
// Three-input min/max (f32, sm_100): the two-input operation applied twice, so the result is NaN
// only when every input is (or, with .NaN, when any is).
struct FMin3 { static constexpr int N = 3; template <class T> static T f(T a, T b, T c) { return FMin::f(FMin::f(a, b), c); } };
struct FMax3 { static constexpr int N = 3; template <class T> static T f(T a, T b, T c) { return FMax::f(FMax::f(a, b), c); } };
struct FMin3NaN { static constexpr int N = 3; template <class T> static T f(T a, T b, T c) { return FMinNaN::f(FMinNaN::f(a, b), c); } };
struct FMax3NaN { static constexpr int N = 3; template <class T> static T f(T a, T b, T c) { return FMaxNaN::f(FMaxNaN::f(a, b), c); } };
struct FCopysign { static constexpr int N = 2; template <class T> static T f(T a, T b, T = 0) { return std::copysign(b, a); } };
struct FAbs { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return std::fabs(a); } };
struct FNeg { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return -a; } };
struct FRcp { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return T(1) / a; } };
struct FSqrt { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return std::sqrt(a); } };
// Approximate functions: evaluated in double (or long double for f64) and rounded once.
struct FRsqrt { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)(1.0L / std::sqrt((long double)a)); } };
struct FEx2 { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)std::exp2((double)a); } };
struct FLg2 { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)std::log2((double)a); } };
struct FSin { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)std::sin((double)a); } };
struct FCos { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)std::cos((double)a); } };
struct FTanh { static constexpr int N = 1; template <class T> static T f(T a, T = 0, T = 0) { return (T)std::tanh((double)a); } };

template <class Op, class T, int F> void fop(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  if (in.mode == kRn && exec == ~0u) {
    // Round-to-nearest full warp: the host's default mode, so a plain loop the compiler can
    // vectorise (the volatile below only keeps directed-rounding arithmetic inside RoundScope).
    for (uint32_t l = 0; l < (uint32_t)kWarp; l++) {
      T x = rd<T>(a[l]), y = 0, z = 0;
      if constexpr (Op::N >= 2) y = rd<T>(b[l]);
      if constexpr (Op::N >= 3) z = rd<T>(e[l]);
      if constexpr (F & kFtz) { x = ftzIn(x); y = ftzIn(y); z = ftzIn(z); }
      d[l] = wr(post<T, F>(Op::f(x, y, z)));
    }
    return;
  }
  RoundScope rs(in.mode);
  FOR_LANES(exec) {
    T x = rd<T>(a[l]), y = 0, z = 0;
    if constexpr (Op::N >= 2) y = rd<T>(b[l]);
    if constexpr (Op::N >= 3) z = rd<T>(e[l]);
    if constexpr (F & kFtz) { x = ftzIn(x); y = ftzIn(y); z = ftzIn(z); }
    volatile T r = Op::f(x, y, z);
    d[l] = wr(post<T, F>(r));
  }
}

// a*b+c for halves as a double that rounds to the half correctly: the product of two halves is
// exact in double, the sum may not be (bf16's exponent range is wide), so the sum is rounded to
// odd (TwoSum gives its exact error): with 53 >= 11+2 bits, rounding that to the half format
// once is the single rounding of the exact a*b+c the ISA defines.
inline double fmaRoundToOdd(double a, double b, double c) {
  double p = a * b, s = p + c;
  if (!std::isfinite(s)) return s;
  double pv = s - c, cv = s - pv;
  double err = (p - pv) + (c - cv);
  if (err == 0) return s;
  double lo = err > 0 ? s : std::nextafter(s, -INFINITY);
  double hi = err > 0 ? std::nextafter(s, INFINITY) : s;
  uint64_t bits;
  memcpy(&bits, &lo, 8);
  return (bits & 1) ? lo : hi;
}

// f16/bf16 (x2): each half widened to double, computed, rounded to nearest even.
template <class Op, bool BF, int Halves, int F> void hop(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  constexpr Ty fmt = BF ? Ty::BF16 : Ty::F16;
  auto widen = [](uint64_t v, int k) -> double {
    uint16_t h = (uint16_t)(v >> (16 * k));
    double x = BF ? bf16ToF32(h) : f16ToF32(h);
    if constexpr ((F & kFtz) && !BF)
      if ((h & 0x7c00) == 0) x = (h & 0x8000) ? -0.0 : 0.0;
    return x;
  };
  FOR_LANES(exec) {
    uint64_t out = 0;
    for (int k = 0; k < Halves; k++) {
      uint16_t hb;
      if constexpr (std::is_same_v<Op, FAbs> || std::is_same_v<Op, FNeg>) {
        uint16_t h = (uint16_t)(a[l] >> (16 * k));
        if constexpr ((F & kFtz) && !BF)
          if ((h & 0x7c00) == 0) h &= 0x8000;  // .ftz: a subnormal input is a zero of its sign
        hb = std::is_same_v<Op, FAbs> ? (uint16_t)(h & 0x7fff) : (uint16_t)(h ^ 0x8000);
      } else {
        double r;
        if constexpr (std::is_same_v<Op, FFma>) r = fmaRoundToOdd(widen(a[l], k), widen(b[l], k), widen(e[l], k));
        else r = Op::f(widen(a[l], k), widen(b[l], k), widen(e[l], k));
        if constexpr (F & kSat) r = r != r ? 0.0 : r < 0 ? 0.0 : r > 1 ? 1.0 : r;
        // .relu: a negative result becomes +0; NaN stays NaN (canonical, through roundTo)
        if constexpr (F & kRelu) r = r < 0 ? 0.0 : r;
        hb = (uint16_t)roundTo(r, fmt, kRn);
        if constexpr ((F & kFtz) && !BF)
          if ((hb & 0x7c00) == 0) hb &= 0x8000;
      }
      out |= (uint64_t)hb << (16 * k);
    }
    d[l] = out;
  }
}

// f32x2 (sm_100: add/sub/mul/fma .f32x2 on .b64 registers): each 32-bit half (element 0 in the
// low bits) computed as the f32 instruction would, with the same rounding and .ftz (no .sat form).
template <class Op, int F> void f32x2op(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  RoundScope rs(in.mode);
  FOR_LANES(exec) {
    uint64_t out = 0;
    for (int k = 0; k < 2; k++) {
      float x = bitsf32((uint32_t)(a[l] >> (32 * k))), y = 0, z = 0;
      if constexpr (Op::N >= 2) y = bitsf32((uint32_t)(b[l] >> (32 * k)));
      if constexpr (Op::N >= 3) z = bitsf32((uint32_t)(e[l] >> (32 * k)));
      if constexpr (F & kFtz) { x = ftzIn(x); y = ftzIn(y); z = ftzIn(z); }
      volatile float r = Op::f(x, y, z);
      out |= (uint64_t)f32bits(post<float, F>(r)) << (32 * k);
    }
    d[l] = out;
  }
}
template <class Op> Fn pickF32x2(int flags) {
  switch (flags) {
    case 0: return &f32x2op<Op, 0>;
    case kFtz: return &f32x2op<Op, kFtz>;
    case kSat: return &f32x2op<Op, kSat>;
    case kFtz | kSat: return &f32x2op<Op, kFtz | kSat>;
    default: return nullptr;
  }
}

template <class Op, int F> Fn pickF(Ty t) {
  switch (t) {
    case Ty::F32: if constexpr (F & kRelu) return nullptr; else return &fop<Op, float, F>;
    case Ty::F64: if constexpr (F & (kFtz | kSat | kRelu)) return nullptr; else return &fop<Op, double, F>;
    case Ty::F16: return &hop<Op, false, 1, F>;
    case Ty::F16x2: return &hop<Op, false, 2, F>;
    case Ty::BF16: return &hop<Op, true, 1, F & ~kFtz>;
    case Ty::BF16x2: return &hop<Op, true, 2, F & ~kFtz>;
    default: return nullptr;
  }
}
template <class Op> Fn pickFlags(Ty t, int flags) {
  switch (flags) {
    case 0: return pickF<Op, 0>(t);
    case kFtz: return pickF<Op, kFtz>(t);
    case kSat: return pickF<Op, kSat>(t);
    case kFtz | kSat: return pickF<Op, kFtz | kSat>(t);
    case kNoCanon: return pickF<Op, kNoCanon>(t);
    case kNoCanon | kFtz: return pickF<Op, kNoCanon | kFtz>(t);
    case kRelu: return pickF<Op, kRelu>(t);
    case kRelu | kFtz: return pickF<Op, kRelu | kFtz>(t);
    default: return nullptr;
  }
}

template <class T, int F> void testp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  (void)F;
  FOR_LANES(exec) {
    int k = std::fpclassify(rd<T>(a[l]));
    bool r = false;
    switch (in.mode) {
      case 0: r = k != FP_NAN && k != FP_INFINITE; break;   // finite
      case 1: r = k == FP_INFINITE; break;
      case 2: r = k != FP_NAN; break;                        // number
      case 3: r = k == FP_NAN; break;                        // notanumber
      case 4: r = k == FP_NORMAL; break;
      default: r = k == FP_SUBNORMAL; break;
    }
    d[l] = r;
  }
}

// rcp.approx.ftz.f64: subnormal inputs and results become zeros of the same sign; the value is the
// correctly rounded reciprocal (better than the ISA's approximation bound).
void rcpApproxFtzF64(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  auto flush = [](double x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0, x) : x; };
  FOR_LANES(exec) {
    double r = flush(1.0 / flush(rd<double>(a[l])));
    d[l] = wr(post<double, 0>(r));
  }
}

// rsqrt.approx.ftz.f64: subnormal inputs and results become zeros of the same sign; the value is
// 1/sqrt(x) in long double rounded once (within the ISA's bound).
void rsqrtApproxFtzF64(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  auto flush = [](double x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0, x) : x; };
  FOR_LANES(exec) {
    double x = flush(rd<double>(a[l]));
    double r = flush((double)(1.0L / std::sqrt((long double)x)));
    d[l] = wr(post<double, 0>(r));
  }
}

}  // namespace

bool decodeMinMaxXorsign(Decoder& dc, const Stmt& st, Inst& in);  // exec_minmax_xorsign.cpp

bool decodeF32x2(Decoder& dc, const Stmt& st, Inst& in) {
  const std::string& op = st.op;
  for (const char* m : {"approx", "relu", "NaN", "cc", "wide", "hi", "lo", "rna", "sat"})
    if (st.has(m)) return dc.fail("." + std::string(m) + " is not a form of " + op + ".f32x2");
  unsigned n = op == "fma" ? 3 : 2;
  if (op != "add" && op != "sub" && op != "mul" && op != "fma") return dc.fail(".f32x2 exists on add, sub, mul and fma");
  if (st.ops.size() != n + 1) return dc.fail("wrong operand count");
  int r = parseRnd(st, false);
  if (op == "fma" && r < 0) return dc.fail("fma.f32x2 needs a rounding mode");
  in.mode = (uint8_t)(r < 0 ? kRn : r);
  int flags = st.has("ftz") ? kFtz : 0;
  in.fn = op == "add" ? pickF32x2<FAdd>(flags) : op == "sub" ? pickF32x2<FSub>(flags) : op == "mul" ? pickF32x2<FMul>(flags) : pickF32x2<FFma>(flags);
  in.cls = kFloat;
  in.d[0] = dc.dst(st.ops[0]);
  for (unsigned i = 0; i < n; i++) in.s[i] = dc.src(st.ops[i + 1], Ty::B64);
  return in.fn != nullptr;
}

bool decodeFloat(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("f32x2")) return decodeF32x2(dc, st, in);
  if (st.has("xorsign")) return decodeMinMaxXorsign(dc, st, in);
  Ty t = st.type();
  const std::string& op = st.op;
  int flags = (st.has("ftz") ? kFtz : 0) | (st.has("sat") ? kSat : 0) | (st.has("relu") ? kRelu : 0);
  int r = parseRnd(st, false);
  bool isHalf = t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2;
  if (r > 0 && (isHalf || r == kRna)) return dc.fail("rounding mode not supported for this type");
  in.mode = (uint8_t)(r < 0 ? kRn : r);
  in.cls = kFloat;
  if (op == "testp") {
    static const char* modes[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
    int m = -1;
    for (int i = 0; i < 6; i++) if (st.has(modes[i])) m = i;
    if (m < 0 || st.ops.size() != 2) return dc.fail("bad testp");
    in.mode = (uint8_t)m;
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], t);
    in.fn = t == Ty::F32 ? &testp<float, 0> : t == Ty::F64 ? &testp<double, 0> : nullptr;
    return in.fn != nullptr;
  }
  struct Entry { const char* name; int n; Fn (*pick)(Ty, int); bool halfOk; };
  static const Entry table[] = {
      {"add", 2, &pickFlags<FAdd>, true},      {"sub", 2, &pickFlags<FSub>, true},
      {"mul", 2, &pickFlags<FMul>, true},      {"fma", 3, &pickFlags<FFma>, true},
      {"mad", 3, &pickFlags<FFma>, false},     {"div", 2, &pickFlags<FDiv>, false},
      {"min", 2, &pickFlags<FMin>, true},      {"max", 2, &pickFlags<FMax>, true},
      {"abs", 1, &pickFlags<FAbs>, true},      {"neg", 1, &pickFlags<FNeg>, true},
      {"copysign", 2, &pickFlags<FCopysign>, false}, {"rcp", 1, &pickFlags<FRcp>, false},
      {"sqrt", 1, &pickFlags<FSqrt>, false},   {"rsqrt", 1, &pickFlags<FRsqrt>, false},
      {"ex2", 1, &pickFlags<FEx2>, true},     {"lg2", 1, &pickFlags<FLg2>, false},
      {"sin", 1, &pickFlags<FSin>, false},     {"cos", 1, &pickFlags<FCos>, false},
      {"tanh", 1, &pickFlags<FTanh>, true},
  };
  const Entry* e = nullptr;
  for (auto& x : table) if (op == x.name) e = &x;
  if (!e) return false;
  if (isHalf && !e->halfOk) return dc.fail("not supported for half types");
  const bool three = (op == "min" || op == "max") && t == Ty::F32 && st.ops.size() == 4;  // sm_100: min/max of 3
  if ((int)st.ops.size() != e->n + 1 && !three) return dc.fail("wrong operand count");
  bool approxOnly = op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" || op == "cos" || op == "tanh";
  if (approxOnly && !st.has("approx")) return dc.fail("needs .approx");
  if ((op == "rcp" || op == "sqrt" || op == "div") && t == Ty::F32 && !st.has("approx") && !st.has("full") && r < 0)
    return dc.fail("needs a rounding mode or .approx");
  if (op == "rsqrt" && t == Ty::F64 && flags == kFtz) {
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], t);
    in.fn = &rsqrtApproxFtzF64;
    return true;
  }
  if (op == "rcp" && t == Ty::F64 && st.has("approx")) {
    if (flags != kFtz) return dc.fail("rcp.approx.f64 needs .ftz (and no .sat)");
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], t);
    in.fn = &rcpApproxFtzF64;
    return true;
  }
  for (const char* m : {"cc", "wide", "hi", "lo"})
    if (st.has(m)) return dc.fail("." + std::string(m) + " on a float type");
  if (st.has("NaN") && op != "min" && op != "max") return dc.fail(".NaN only on min/max");
  if (st.has("full") && op != "div") return dc.fail(".full only on div");
  if (st.has("approx") && (op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "mad" || op == "min" ||
                           op == "max" || op == "abs" || op == "neg"))
    return dc.fail(".approx is not a form of " + op);
  if (op == "abs" || op == "neg" || op == "copysign") flags |= kNoCanon;
  if ((flags & kRelu) && !(isHalf && op == "fma")) return dc.fail(".relu exists only on half-precision fma");
  if (three) {
    bool nan = st.has("NaN");
    auto pk = op == "min" ? (nan ? &pickFlags<FMin3NaN> : &pickFlags<FMin3>) : (nan ? &pickFlags<FMax3NaN> : &pickFlags<FMax3>);
    in.fn = pk(t, flags);
  } else if ((op == "min" || op == "max") && st.has("NaN")) {
    auto pk = op == "min" ? &pickFlags<FMinNaN> : &pickFlags<FMaxNaN>;
    in.fn = pk(t, flags);
  } else {
    in.fn = e->pick(t, flags);
  }
  in.d[0] = dc.dst(st.ops[0]);
  for (int i = 0; i < (three ? 3 : e->n); i++) in.s[i] = dc.src(st.ops[i + 1], t);
  return in.fn != nullptr;
}

void registerFloatOps(DecodeTable& t) {
  addOp(t, "fma", decodeFloat, "f32 f64 f16 f16x2 bf16 bf16x2 f32x2 rn rz rm rp ftz sat relu", "`.relu` on halves: negative results become +0; `.f32x2` (sm_100): two f32 in a .b64, a rounding mode required");
  addOp(t, "copysign", decodeFloat, "f32 f64", "");
  addOp(t, "rcp", decodeFloat, "f32 f64 rn rz rm rp approx ftz", "`.approx` correctly rounded; `rcp.approx.ftz.f64` flushes subnormals");
  addOp(t, "sqrt", decodeFloat, "f32 f64 rn rz rm rp approx ftz", "`.approx` correctly rounded");
  addOp(t, "rsqrt", decodeFloat, "f32 f64 approx ftz", "within 1 ulp");
  addOp(t, "ex2", decodeFloat, "f32 f16 f16x2 bf16 bf16x2 approx ftz", "within 1 ulp (f32); halves correctly rounded");
  addOp(t, "lg2", decodeFloat, "f32 approx ftz", "within 1 ulp");
  addOp(t, "sin", decodeFloat, "f32 approx ftz", "within 1 ulp");
  addOp(t, "cos", decodeFloat, "f32 approx ftz", "within 1 ulp");
  addOp(t, "tanh", decodeFloat, "f32 f16 f16x2 bf16 bf16x2 approx", "within 1 ulp (f32); halves correctly rounded");
  addOp(t, "testp", decodeFloat, "f32 f64 finite infinite number notanumber normal subnormal", "");
}

}  // namespace tsim
