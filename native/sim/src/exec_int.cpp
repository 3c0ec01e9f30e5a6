// Integer, logic, comparison and move instructions.
#include <chrono>

#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {

template <class T> using U = std::make_unsigned_t<T>;
template <class T> using Wide = std::conditional_t<
    sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
    std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                       std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>>;

struct Add { template <class T> static T f(T a, T b) { return (T)((U<T>)a + (U<T>)b); } };
struct Sub { template <class T> static T f(T a, T b) { return (T)((U<T>)a - (U<T>)b); } };
struct MulLo { template <class T> static T f(T a, T b) { return (T)((U<T>)a * (U<T>)b); } };
struct MulHi {
  template <class T> static T f(T a, T b) { return (T)(((Wide<T>)a * (Wide<T>)b) >> (8 * sizeof(T))); }
};
struct MulWide { template <class T> static Wide<T> f(T a, T b) { return (Wide<T>)a * (Wide<T>)b; } };
struct MadLo { template <class T> static T f(T a, T b, T c) { return (T)((U<T>)a * (U<T>)b + (U<T>)c); } };
struct MadHi { template <class T> static T f(T a, T b, T c) { return (T)((U<T>)MulHi::f(a, b) + (U<T>)c); } };
struct Div {
  template <class T> static T f(T a, T b) {
    if (b == 0) return (T)~(U<T>)0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return (T)(0 - (U<T>)a);
    return a / b;
  }
};
struct Rem {
  template <class T> static T f(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return a % b;
  }
};
struct Min { template <class T> static T f(T a, T b) { return a < b ? a : b; } };
struct Max { template <class T> static T f(T a, T b) { return a < b ? b : a; } };
// min/max.relu (s32): a negative result becomes 0
struct MinRelu { template <class T> static T f(T a, T b) { T r = a < b ? a : b; return r < 0 ? 0 : r; } };
struct MaxRelu { template <class T> static T f(T a, T b) { T r = a < b ? b : a; return r < 0 ? 0 : r; } };
struct Abs { template <class T> static T f(T a) { return a < 0 ? (T)(0 - (U<T>)a) : a; } };
struct Neg { template <class T> static T f(T a) { return (T)(0 - (U<T>)a); } };
struct And { template <class T> static T f(T a, T b) { return a & b; } };
struct Or { template <class T> static T f(T a, T b) { return a | b; } };
struct Xor { template <class T> static T f(T a, T b) { return a ^ b; } };
struct Not {
  template <class T> static T f(T a) {
    if constexpr (std::is_same_v<T, bool>) return !a; else return (T)~a;
  }
};
struct CNot { template <class T> static T f(T a) { return a == 0 ? 1 : 0; } };
struct Popc { template <class T> static uint32_t f(T a) { return (uint32_t)__builtin_popcountll((uint64_t)(U<T>)a); } };
struct Clz {
  template <class T> static uint32_t f(T a) {
    uint64_t v = (uint64_t)(U<T>)a;
    return v == 0 ? 8 * sizeof(T) : (uint32_t)(__builtin_clzll(v) - (64 - 8 * sizeof(T)));
  }
};
struct Brev {
  template <class T> static T f(T a) {
    U<T> v = (U<T>)a, r = 0;
    for (unsigned i = 0; i < 8 * sizeof(T); i++) r |= (U<T>)((v >> i) & 1) << (8 * sizeof(T) - 1 - i);
    return (T)r;
  }
};
struct Bfind {
  template <class T> static uint32_t f(T a) {
    uint64_t v = (uint64_t)(U<T>)a;
    if constexpr (std::is_signed_v<T>)
      if (a < 0) v = (uint64_t)(U<T>)~a;
    if (v == 0) return ~0u;
    return 63 - __builtin_clzll(v);
  }
};
struct BfindShift {
  template <class T> static uint32_t f(T a) {
    uint32_t r = Bfind::f(a);
    return r == ~0u ? r : (uint32_t)(8 * sizeof(T) - 1) - r;
  }
};
struct AddSat {
  template <class T> static T f(T a, T b) {
    int64_t r = (int64_t)a + (int64_t)b;
    return (T)std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
  }
};
struct SubSat {
  template <class T> static T f(T a, T b) {
    int64_t r = (int64_t)a - (int64_t)b;
    return (T)std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
  }
};

template <class T> void madWide(Ctx& c, const Inst& in, uint32_t exec) {
  using W = Wide<T>;
  using UW = std::make_unsigned_t<W>;
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  FOR_LANES(exec) d[l] = wr((W)((UW)MulWide::f(rd<T>(a[l]), rd<T>(b[l])) + (UW)rd<W>(e[l])));
}

// add.cc/addc/sub.cc/subc: the carry flag is a hidden per-lane register (kCarry).
template <class T, bool Sub, bool UseCarry, bool SetCarry> void carryOp(Ctx& c, const Inst& in, uint32_t exec) {
  using UT = std::make_unsigned_t<T>;
  uint64_t* d = slot(c, in.d[0]);
  uint64_t* cf = slot(c, kCarry);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  FOR_LANES(exec) {
    UT x = (UT)rd<T>(a[l]), y = (UT)rd<T>(b[l]);
    UT cin = UseCarry ? (UT)(cf[l] & 1) : 0;
    UT r;
    bool cout;
    if (!Sub) {
      r = (UT)(x + y + cin);
      cout = (UT)(x + y) < x || (UT)(x + y + cin) < (UT)(x + y);
    } else {  // borrow: x - y - cin < 0 as unsigned
      r = (UT)(x - y - cin);
      cout = x < y || (UT)(x - y) < cin;
    }
    d[l] = wr((T)r);
    if (SetCarry) cf[l] = cout;
  }
}

template <class T> Fn carryFor(bool sub, bool use, bool set) {
  if (!sub) {
    if (use) return set ? &carryOp<T, false, true, true> : &carryOp<T, false, true, false>;
    return &carryOp<T, false, false, true>;
  }
  if (use) return set ? &carryOp<T, true, true, true> : &carryOp<T, true, true, false>;
  return &carryOp<T, true, false, true>;
}

// mad.lo.cc/mad.hi.cc/madc.{lo,hi}{.cc}: d = lo|hi(a*b) + c (+ CF); the carry out is that of the
// unsigned addition (signed types only change how the high half of the product is formed).
template <class T, bool Hi, bool UseCarry, bool SetCarry> void madCarryOp(Ctx& c, const Inst& in, uint32_t exec) {
  using UT = std::make_unsigned_t<T>;
  uint64_t* d = slot(c, in.d[0]);
  uint64_t* cf = slot(c, kCarry);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  FOR_LANES(exec) {
    T x = rd<T>(a[l]), y = rd<T>(b[l]);
    UT p = Hi ? (UT)MulHi::f(x, y) : (UT)MulLo::f(x, y);
    UT z = (UT)rd<T>(e[l]), cin = UseCarry ? (UT)(cf[l] & 1) : 0;
    UT s = (UT)(p + z), r = (UT)(s + cin);
    d[l] = wr((T)r);
    if (SetCarry) cf[l] = s < p || r < s;
  }
}

template <class T, bool Hi> Fn madCarryFor(bool use, bool set) {
  if (use) return set ? &madCarryOp<T, Hi, true, true> : &madCarryOp<T, Hi, true, false>;
  return &madCarryOp<T, Hi, false, true>;
}

bool madCarryDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  bool use = st.op == "madc", set = st.has("cc"), hi = st.has("hi");
  if (!hi && !st.has("lo")) return dc.fail("carry mad needs .lo or .hi");
  in.d[0] = dc.dst(st.ops[0]);
  for (int i = 0; i < 3; i++) in.s[i] = dc.src(st.ops[i + 1], t);
  switch (t) {
    case Ty::U32: in.fn = hi ? madCarryFor<uint32_t, true>(use, set) : madCarryFor<uint32_t, false>(use, set); break;
    case Ty::S32: in.fn = hi ? madCarryFor<int32_t, true>(use, set) : madCarryFor<int32_t, false>(use, set); break;
    case Ty::U64: in.fn = hi ? madCarryFor<uint64_t, true>(use, set) : madCarryFor<uint64_t, false>(use, set); break;
    case Ty::S64: in.fn = hi ? madCarryFor<int64_t, true>(use, set) : madCarryFor<int64_t, false>(use, set); break;
    default: return dc.fail("carry mad needs u32/s32/u64/s64");
  }
  return true;
}

bool carryDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 3) return dc.fail("wrong operand count");
  bool use = st.op == "addc" || st.op == "subc", sub = st.op == "sub" || st.op == "subc";
  bool set = st.has("cc");
  if (!use && !set) return false;
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  switch (t) {
    case Ty::U32: case Ty::S32: case Ty::B32: in.fn = carryFor<uint32_t>(sub, use, set); break;
    case Ty::U64: case Ty::S64: case Ty::B64: in.fn = carryFor<uint64_t>(sub, use, set); break;
    default: return dc.fail("carry arithmetic needs 32- or 64-bit integers");
  }
  return true;
}

// Shifts take the amount as u32 whatever the data type; amounts past the width saturate.
template <class T, bool Left> void shiftOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  constexpr unsigned W = 8 * sizeof(T);
  FOR_LANES(exec) {
    T x = rd<T>(a[l]);
    uint32_t n = (uint32_t)b[l];
    T r;
    if (Left) r = n >= W ? 0 : (T)((U<T>)x << n);
    else if (std::is_signed_v<T>) r = (T)(x >> (n >= W ? W - 1 : n));
    else r = n >= W ? 0 : (T)((U<T>)x >> n);
    d[l] = wr(r);
  }
}

template <class T> void lop3(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  unsigned lut = (unsigned)in.imm;
  FOR_LANES(exec) {
    T x = rd<T>(a[l]), y = rd<T>(b[l]), z = rd<T>(e[l]), r = 0;
    for (int i = 0; i < 8; i++)
      if (lut >> i & 1) r |= (i & 4 ? x : (T)~x) & (i & 2 ? y : (T)~y) & (i & 1 ? z : (T)~z);
    d[l] = wr(r);
  }
}

template <class T> void bfe(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  constexpr int msb = 8 * sizeof(T) - 1;
  FOR_LANES(exec) {
    U<T> x = (U<T>)rd<T>(a[l]);
    int pos = (int)(b[l] & 0xff), len = (int)(e[l] & 0xff);
    U<T> sbit = 0;
    if (std::is_signed_v<T> && len > 0) sbit = (x >> std::min(pos + len - 1, msb)) & 1;
    U<T> r = 0;
    for (int i = 0; i <= msb; i++) {
      U<T> bit = (i < len && pos + i <= msb) ? (x >> (pos + i)) & 1 : sbit;
      r |= bit << i;
    }
    d[l] = wr((T)r);
  }
}

template <class T> void bfi(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *f = slot(c, in.s[0]), *b = slot(c, in.s[1]), *p = slot(c, in.s[2]), *n = slot(c, in.s[3]);
  constexpr int msb = 8 * sizeof(T) - 1;
  FOR_LANES(exec) {
    T x = rd<T>(f[l]), r = rd<T>(b[l]);
    int pos = (int)(p[l] & 0xff), len = (int)(n[l] & 0xff);
    for (int i = 0; i < len && pos + i <= msb; i++) r = (T)((r & ~((T)1 << (pos + i))) | (((x >> i) & 1) << (pos + i)));
    d[l] = wr(r);
  }
}

void prmt(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *s = slot(c, in.s[2]);
  FOR_LANES(exec) {
    uint64_t v = (uint32_t)a[l] | ((uint64_t)(uint32_t)b[l] << 32);
    uint32_t sel = (uint32_t)s[l], r = 0;
    unsigned idx[4];
    switch (in.mode) {
      case 0: for (int i = 0; i < 4; i++) idx[i] = (sel >> (4 * i)) & 15; break;
      // the moded forms select with c[1:0] only (PTX ISA, prmt)
      case 1: { unsigned k = sel & 3; for (int i = 0; i < 4; i++) idx[i] = (k + i) & 7; break; }  // f4e
      case 2: { unsigned k = sel & 3; for (int i = 0; i < 4; i++) idx[i] = (k - i) & 7; break; }  // b4e
      case 3: { unsigned k = sel & 3; for (int i = 0; i < 4; i++) idx[i] = k; break; }            // rc8
      case 4: { unsigned k = sel & 3; for (int i = 0; i < 4; i++) idx[i] = (unsigned)i > k ? (unsigned)i : k; break; }  // ecl
      case 5: { unsigned k = sel & 3; for (int i = 0; i < 4; i++) idx[i] = (unsigned)i < k ? (unsigned)i : k; break; }  // ecr
      default: { unsigned k = sel & 1; idx[0] = idx[2] = 2 * k; idx[1] = idx[3] = 2 * k + 1; break; }  // rc16
    }
    for (int i = 0; i < 4; i++) {
      uint32_t byte = (uint32_t)(v >> (8 * (idx[i] & 7))) & 0xff;
      if (in.mode == 0 && (idx[i] & 8)) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    d[l] = r;
  }
}

// setp: in.mode = bool op (0 none, 1 and, 2 or, 3 xor); d[0]=p, d[1]=q; s[2] = c (negated: flags)
enum { kCmpEq, kCmpNe, kCmpLt, kCmpLe, kCmpGt, kCmpGe, kCmpEqu, kCmpNeu, kCmpLtu, kCmpLeu, kCmpGtu,
       kCmpGeu, kCmpNum, kCmpNan };
template <class T, int C> inline bool cmp(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool un = a != a || b != b;
    switch (C) {
      case kCmpEq: return !un && a == b;
      case kCmpNe: return !un && a != b;
      case kCmpLt: return !un && a < b;
      case kCmpLe: return !un && a <= b;
      case kCmpGt: return !un && a > b;
      case kCmpGe: return !un && a >= b;
      case kCmpEqu: return un || a == b;
      case kCmpNeu: return un || a != b;
      case kCmpLtu: return un || a < b;
      case kCmpLeu: return un || a <= b;
      case kCmpGtu: return un || a > b;
      case kCmpGeu: return un || a >= b;
      case kCmpNum: return !un;
      default: return un;
    }
  } else {
    switch (C) {
      case kCmpEq: return a == b;
      case kCmpNe: return a != b;
      case kCmpLt: return a < b;
      case kCmpLe: return a <= b;
      case kCmpGt: return a > b;
      default: return a >= b;
    }
  }
}
template <class T> inline T loadCmp(uint64_t v, bool ftz) {
  if constexpr (std::is_same_v<T, float>) return ftz ? flushF32(rd<float>(v)) : rd<float>(v);
  else return rd<T>(v);
}
// Half types compare through float (exact).
struct HalfTag {};
struct BHalfTag {};
template <class T> struct CmpVal { using type = T; };
template <> struct CmpVal<HalfTag> { using type = float; };
template <> struct CmpVal<BHalfTag> { using type = float; };
template <class T> inline typename CmpVal<T>::type cmpLoad(uint64_t v, bool ftz) {
  if constexpr (std::is_same_v<T, HalfTag>) return ftz && !(v & 0x7c00) ? ((v & 0x8000) ? -0.0f : 0.0f) : f16ToF32((uint16_t)v);
  else if constexpr (std::is_same_v<T, BHalfTag>) return bf16ToF32((uint16_t)v);
  else return loadCmp<T>(v, ftz);
}

template <class T, int C> void setp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t *p = slot(c, in.d[0]), *q = slot(c, in.d[1]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  bool ftz = in.flags & 0x100, negc = in.flags & 0x200;
  using V = typename CmpVal<T>::type;
  if (in.mode == 0) {
    LANE_LOOP(exec, bool t = cmp<V, C>(cmpLoad<T>(a[l], ftz), cmpLoad<T>(b[l], ftz)); p[l] = t; q[l] = !t);
    return;
  }
  FOR_LANES(exec) {
    bool t = cmp<V, C>(cmpLoad<T>(a[l], ftz), cmpLoad<T>(b[l], ftz));
    bool cv = (e[l] & 1) ^ negc;
    bool r1 = t, r2 = !t;
    switch (in.mode) {
      case 1: r1 = t && cv; r2 = !t && cv; break;
      case 2: r1 = t || cv; r2 = !t || cv; break;
      case 3: r1 = t != cv; r2 = (!t) != cv; break;
    }
    p[l] = r1;
    q[l] = r2;
  }
}

// f16x2/bf16x2: p gets the comparison of the low halves, q that of the high halves, each
// combined with c by the bool op.
template <class T, int C> void setpX2(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t *p = slot(c, in.d[0]), *q = slot(c, in.d[1]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  bool ftz = in.flags & 0x100, negc = in.flags & 0x200;
  FOR_LANES(exec) {
    bool cv = (e[l] & 1) ^ negc, r[2];
    for (int k = 0; k < 2; k++) {
      bool t = cmp<float, C>(cmpLoad<T>((a[l] >> (16 * k)) & 0xffff, ftz), cmpLoad<T>((b[l] >> (16 * k)) & 0xffff, ftz));
      r[k] = in.mode == 1 ? t && cv : in.mode == 2 ? t || cv : in.mode == 3 ? t != cv : t;
    }
    p[l] = r[0];
    q[l] = r[1];
  }
}
template <class T> Fn setpX2For(int c) {
  switch (c) {
    case kCmpEq: return &setpX2<T, kCmpEq>;
    case kCmpNe: return &setpX2<T, kCmpNe>;
    case kCmpLt: return &setpX2<T, kCmpLt>;
    case kCmpLe: return &setpX2<T, kCmpLe>;
    case kCmpGt: return &setpX2<T, kCmpGt>;
    case kCmpGe: return &setpX2<T, kCmpGe>;
    case kCmpEqu: return &setpX2<T, kCmpEqu>;
    case kCmpNeu: return &setpX2<T, kCmpNeu>;
    case kCmpLtu: return &setpX2<T, kCmpLtu>;
    case kCmpLeu: return &setpX2<T, kCmpLeu>;
    case kCmpGtu: return &setpX2<T, kCmpGtu>;
    case kCmpGeu: return &setpX2<T, kCmpGeu>;
    case kCmpNum: return &setpX2<T, kCmpNum>;
    case kCmpNan: return &setpX2<T, kCmpNan>;
  }
  return nullptr;
}

template <class T> void selp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *p = slot(c, in.s[2]);
  FOR_LANES(exec) d[l] = wr(p[l] & 1 ? rd<T>(a[l]) : rd<T>(b[l]));
}
template <class T, class C> void slct(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *p = slot(c, in.s[2]);
  bool ftz = in.flags & 0x100;
  FOR_LANES(exec) {
    C k = rd<C>(p[l]);
    if constexpr (std::is_same_v<C, float>)
      if (ftz) k = flushF32(k);
    d[l] = wr(k >= 0 ? rd<T>(a[l]) : rd<T>(b[l]));
  }
}

template <class T> void mov(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  LANE_LOOP(exec, d[l] = wr(rd<T>(a[l])));
}
// mov.bN d, {a, b, ...}: in.vec parts of in.size bytes each
void movPack(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  unsigned bits = in.size * 8;
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  FOR_LANES(exec) {
    uint64_t v = 0;
    for (int i = 0; i < in.vec; i++) v |= (c.R[(size_t)in.s[i] * kWarp + l] & mask) << (bits * i);
    d[l] = v;
  }
}
void movUnpack(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t* a = slot(c, in.s[0]);
  unsigned bits = in.size * 8;
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  FOR_LANES(exec) {
    uint64_t v = a[l];
    for (int i = 0; i < in.vec; i++)
      if (in.d[i] != kSlotSink) c.R[(size_t)in.d[i] * kWarp + l] = (v >> (bits * i)) & mask;
  }
}

// Clock-like special registers: read at run time.
void movClock(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  uint64_t v;
  if (in.mode == 2) {
    v = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now().time_since_epoch()).count();
  } else {
    v = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  if (in.mode == 0) v &= 0xffffffffu;
  if (in.mode == 3) v &= 0xffffffffu;
  if (in.mode == 4) v >>= 32;
  FOR_LANES(exec) d[l] = v;
}

// ---- decoders ----
Fn pickBin(const std::string& op, Ty t, const Stmt& st) {
  auto f = [&](auto z) -> Fn {
    using T = decltype(z);
    if (op == "add") return st.has("sat") ? (std::is_same_v<T, int32_t> ? &bin<AddSat, T> : nullptr) : &bin<Add, T>;
    if (op == "sub") return st.has("sat") ? (std::is_same_v<T, int32_t> ? &bin<SubSat, T> : nullptr) : &bin<Sub, T>;
    if (op == "div") return &bin<Div, T>;
    if (op == "rem") return &bin<Rem, T>;
    if (st.has("relu")) {
      if constexpr (!std::is_same_v<T, int32_t>) return nullptr;
      else return op == "min" ? &bin<MinRelu, T> : op == "max" ? &bin<MaxRelu, T> : nullptr;
    }
    if (op == "min") return &bin<Min, T>;
    if (op == "max") return &bin<Max, T>;
    if (op == "mul") {
      if (st.has("hi")) return &bin<MulHi, T>;
      if (st.has("wide")) {
        if constexpr (sizeof(T) == 8) return nullptr; else return &bin<MulWide, T>;
      }
      return &bin<MulLo, T>;
    }
    return nullptr;
  };
  return withInt(t, f);
}

bool arith(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("f32x2")) return decodeFloat(dc, st, in);  // sm_100 packed f32 pairs
  Ty t = st.type();
  if (tyIsFloat(t) || t == Ty::F16x2 || t == Ty::BF16x2) return decodeFloat(dc, st, in);
  const std::string& op = st.op;
  for (const char* m : {"ftz", "approx", "full", "NaN", "rn", "rz", "rm", "rp"})
    if (st.has(m)) return dc.fail("." + std::string(m) + " on an integer type");
  if (st.has("sat") && !((op == "add" || op == "sub") && t == Ty::S32)) return dc.fail(".sat exists only on add/sub.s32");
  if (st.has("relu") && !((op == "min" || op == "max") && t == Ty::S32)) return dc.fail(".relu exists only on min/max.s32");
  if ((st.has("hi") || st.has("lo")) && op != "mul" && op != "mad") return dc.fail(".hi/.lo only on mul/mad");
  if (st.has("wide") && op != "mul" && op != "mad") return dc.fail(".wide only on mul/mad");
  bool wide = st.has("wide");
  unsigned nsrc = (op == "mad") ? 3 : 2;
  if (st.ops.size() != nsrc + 1) return dc.fail("wrong operand count");
  if (op == "mad" && st.has("cc")) return madCarryDecode(dc, st, in);
  if (op == "mad") {
    Ty ct = t;
    if (wide) ct = t == Ty::U16 ? Ty::U32 : t == Ty::S16 ? Ty::S32 : t == Ty::U32 ? Ty::U64 : t == Ty::S32 ? Ty::S64 : Ty::None;
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], t);
    in.s[1] = dc.src(st.ops[2], t);
    in.s[2] = dc.src(st.ops[3], ct);
    if (wide) {
      in.fn = withInt(t, [](auto z) -> Fn {
        using T = decltype(z);
        if constexpr (sizeof(T) == 8) return nullptr; else return &madWide<T>;
      });
      return in.fn != nullptr;
    }
    in.fn = st.has("hi") ? withInt(t, [](auto z) -> Fn { return &tern<MadHi, decltype(z)>; })
                         : withInt(t, [](auto z) -> Fn { return &tern<MadLo, decltype(z)>; });
    return in.fn != nullptr;
  }
  if (st.has("cc")) {
    if (op == "add" || op == "sub") return carryDecode(dc, st, in);
    return dc.fail("carry variants of mul/mad are not supported");
  }
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  in.fn = pickBin(op, t, st);
  return in.fn != nullptr;
}

bool unary(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  const std::string& op = st.op;
  if ((op == "abs" || op == "neg") && (tyIsFloat(t) || t == Ty::F16x2 || t == Ty::BF16x2)) return decodeFloat(dc, st, in);
  if (st.ops.size() != 2) return dc.fail("wrong operand count");
  if (st.has("ftz")) return dc.fail(".ftz on an integer type");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  if (op == "abs") in.fn = withInt(t, [](auto z) -> Fn { return std::is_signed_v<decltype(z)> ? &un<Abs, decltype(z)> : nullptr; });
  else if (op == "neg") in.fn = withInt(t, [](auto z) -> Fn { return std::is_signed_v<decltype(z)> ? &un<Neg, decltype(z)> : nullptr; });
  else if (op == "not") in.fn = withBits(t, [](auto z) -> Fn { return &un<Not, decltype(z)>; });
  else if (op == "cnot") in.fn = withBits(t, [](auto z) -> Fn { using T = decltype(z); if constexpr (std::is_same_v<T, bool> || sizeof(T) < 2) return nullptr; else return &un<CNot, T>; });
  else if (op == "popc") in.fn = withBits(t, [](auto z) -> Fn { using T = decltype(z); if constexpr (std::is_same_v<T, bool> || sizeof(T) < 4) return nullptr; else return &un<Popc, T>; });
  else if (op == "clz") in.fn = withBits(t, [](auto z) -> Fn { using T = decltype(z); if constexpr (std::is_same_v<T, bool> || sizeof(T) < 4) return nullptr; else return &un<Clz, T>; });
  else if (op == "brev") in.fn = withBits(t, [](auto z) -> Fn { using T = decltype(z); if constexpr (std::is_same_v<T, bool> || sizeof(T) < 4) return nullptr; else return &un<Brev, T>; });
  else if (op == "bfind") {
    if (st.has("shiftamt")) in.fn = withInt(t, [](auto z) -> Fn { return sizeof(z) >= 4 ? &un<BfindShift, decltype(z)> : nullptr; });
    else in.fn = withInt(t, [](auto z) -> Fn { return sizeof(z) >= 4 ? &un<Bfind, decltype(z)> : nullptr; });
  }
  return in.fn != nullptr;
}

// and/or/xor.pred with negated sources ("!%p"): a & !b etc.
template <class Op, bool NA, bool NB> struct NegPred {
  template <class T> static T f(T a, T b) { return Op::f(NA ? T(!a) : a, NB ? T(!b) : b); }
};
template <class Op> Fn negPredFn(bool na, bool nb) {
  if (na && nb) return &bin<NegPred<Op, true, true>, bool>;
  if (na) return &bin<NegPred<Op, true, false>, bool>;
  return &bin<NegPred<Op, false, true>, bool>;
}

bool logic(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 3) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  const std::string& op = st.op;
  bool na = st.ops[1].neg, nb = st.ops[2].neg;
  if (na || nb) {
    if (t != Ty::Pred) return dc.fail("negated operands need .pred");
    dc.negHandled = true;
    in.fn = op == "and" ? negPredFn<And>(na, nb) : op == "or" ? negPredFn<Or>(na, nb) : negPredFn<Xor>(na, nb);
    return true;
  }
  if (op == "and") in.fn = withBits(t, [](auto z) -> Fn { return &bin<And, decltype(z)>; });
  if (op == "or") in.fn = withBits(t, [](auto z) -> Fn { return &bin<Or, decltype(z)>; });
  if (op == "xor") in.fn = withBits(t, [](auto z) -> Fn { return &bin<Xor, decltype(z)>; });
  return in.fn != nullptr;
}

bool shift(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 3) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  bool left = st.op == "shl";
  in.fn = withInt(t, [&](auto z) -> Fn {
    using T = decltype(z);
    if (left) return &shiftOp<std::make_unsigned_t<T>, true>;
    return &shiftOp<T, false>;
  });
  return in.fn != nullptr;
}

int cmpCode(const Stmt& st, bool isFloat) {
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (auto& m : st.mods) {
    for (int i = 0; i < 14; i++)
      if (m == names[i]) return (i >= 6 && !isFloat) ? -1 : i;
    if (!isFloat) {
      if (m == "lo") return kCmpLt;
      if (m == "ls") return kCmpLe;
      if (m == "hi") return kCmpGt;
      if (m == "hs") return kCmpGe;
    }
  }
  return -1;
}

template <class T> Fn setpFor(int c) {
  switch (c) {
    case kCmpEq: return &setp<T, kCmpEq>;
    case kCmpNe: return &setp<T, kCmpNe>;
    case kCmpLt: return &setp<T, kCmpLt>;
    case kCmpLe: return &setp<T, kCmpLe>;
    case kCmpGt: return &setp<T, kCmpGt>;
    case kCmpGe: return &setp<T, kCmpGe>;
  }
  if constexpr (std::is_floating_point_v<typename CmpVal<T>::type>) {
    switch (c) {
      case kCmpEqu: return &setp<T, kCmpEqu>;
      case kCmpNeu: return &setp<T, kCmpNeu>;
      case kCmpLtu: return &setp<T, kCmpLtu>;
      case kCmpLeu: return &setp<T, kCmpLeu>;
      case kCmpGtu: return &setp<T, kCmpGtu>;
      case kCmpGeu: return &setp<T, kCmpGeu>;
      case kCmpNum: return &setp<T, kCmpNum>;
      case kCmpNan: return &setp<T, kCmpNan>;
    }
  }
  return nullptr;
}

bool setpDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  bool isF = tyIsFloat(t) || t == Ty::F16x2 || t == Ty::BF16x2;
  int c = cmpCode(st, isF);
  if (c < 0) return dc.fail("unknown comparison");
  if (st.ops.size() != 3 && st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.d[1] = kSlotSink;
  if (!st.ops[0].pair.empty()) {
    Operand q;
    q.kind = Operand::Reg;
    q.name = st.ops[0].pair;
    in.d[1] = dc.dst(q);
  }
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  if (st.has("and")) in.mode = 1;
  else if (st.has("or")) in.mode = 2;
  else if (st.has("xor")) in.mode = 3;
  if (in.mode) {
    if (st.ops.size() != 4) return dc.fail("bool op needs a predicate operand");
    in.s[2] = dc.src(st.ops[3], Ty::Pred);
    if (st.ops[3].neg) in.flags |= 0x200;
    dc.negHandled = true;
  } else if (st.ops.size() != 3) {
    return dc.fail("extra operand without a bool op");
  }
  if (st.has("ftz")) in.flags |= 0x100;
  bool isSigned = tyIsSigned(t);
  bool unsignedCmp = false;
  for (auto& m : st.mods) if (m == "lo" || m == "ls" || m == "hi" || m == "hs") unsignedCmp = true;
  switch (t) {
    case Ty::F32: in.fn = setpFor<float>(c); break;
    case Ty::F64: in.fn = setpFor<double>(c); break;
    case Ty::F16: in.fn = setpFor<HalfTag>(c); break;
    case Ty::BF16: in.fn = setpFor<BHalfTag>(c); break;
    case Ty::F16x2: in.fn = setpX2For<HalfTag>(c); break;
    case Ty::BF16x2: in.fn = setpX2For<BHalfTag>(c); break;
    default:
      in.fn = withInt(t, [&](auto z) -> Fn {
        using T = decltype(z);
        if (unsignedCmp || !isSigned) return setpFor<std::make_unsigned_t<T>>(c);
        return setpFor<T>(c);
      });
  }
  return in.fn != nullptr;
}

bool selpDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  in.s[2] = dc.src(st.ops[3], Ty::Pred);
  if (st.ops[3].neg) return dc.fail("negated selector");
  switch (t) {
    case Ty::F32: in.fn = &selp<uint32_t>; break;
    case Ty::F64: in.fn = &selp<uint64_t>; break;
    case Ty::F16: case Ty::BF16: in.fn = &selp<uint16_t>; break;
    case Ty::F16x2: case Ty::BF16x2: in.fn = &selp<uint32_t>; break;
    default: in.fn = withBits(t, [](auto z) -> Fn { return &selp<decltype(z)>; });
  }
  return in.fn != nullptr;
}

bool slctDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type(0), ct = st.type(1);
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  in.s[2] = dc.src(st.ops[3], ct);
  if (st.has("ftz")) in.flags |= 0x100;
  unsigned sz = tySize(t);
  auto pick = [&](auto cz) -> Fn {
    using C = decltype(cz);
    if (sz == 2) return &slct<uint16_t, C>;
    if (sz == 4) return &slct<uint32_t, C>;
    if (sz == 8) return &slct<uint64_t, C>;
    return nullptr;
  };
  if (ct == Ty::S32) in.fn = pick(int32_t{});
  else if (ct == Ty::F32) in.fn = pick(float{});
  return in.fn != nullptr;
}

}  // namespace
bool decodeMov128(Decoder& dc, const Stmt& st, Inst& in);  // exec_b128.cpp
namespace {

bool movDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (t == Ty::B128) return decodeMov128(dc, st, in);
  if (st.ops.size() != 2) return dc.fail("wrong operand count");
  unsigned sz = tySize(t);
  const Operand& a = st.ops[1];
  if (st.ops[0].kind == Operand::Vec || a.kind == Operand::Vec) {
    const Operand& v = st.ops[0].kind == Operand::Vec ? st.ops[0] : a;
    unsigned n = (unsigned)v.elems.size();
    if ((n != 2 && n != 4) || sz % n) return dc.fail("bad vector mov");
    in.size = (uint8_t)(sz / n);
    in.vec = (uint8_t)n;
    Ty part = in.size == 1 ? Ty::B8 : in.size == 2 ? Ty::B16 : in.size == 4 ? Ty::B32 : Ty::B64;
    // As ptxas: every part must be a register of exactly the part's width.
    for (const Operand& e : v.elems) {
      unsigned rb = dc.regBytes(e);
      if (e.kind == Operand::Reg && rb != in.size)
        return dc.fail("vector mov part '" + e.name + "' is a " + std::to_string(rb * 8) + "-bit register; mov.b" +
                       std::to_string(sz * 8) + " with " + std::to_string(n) + " parts needs " +
                       std::to_string(in.size * 8) + "-bit registers");
    }
    if (st.ops[0].kind == Operand::Vec) {
      for (unsigned i = 0; i < n; i++) in.d[i] = dc.dst(v.elems[i]);
      in.s[0] = dc.src(a, t);
      in.fn = &movUnpack;
    } else {
      in.d[0] = dc.dst(st.ops[0]);
      for (unsigned i = 0; i < n; i++) in.s[i] = dc.src(v.elems[i], part);
      in.fn = &movPack;
    }
    return true;
  }
  in.d[0] = dc.dst(st.ops[0]);
  if (a.name == "%clock" || a.name == "%clock64" || a.name == "%globaltimer" || a.name == "%globaltimer_lo" ||
      a.name == "%globaltimer_hi" || a.name == "%clock_hi") {
    in.mode = a.name == "%clock" ? 0 : a.name == "%clock64" ? 1 : a.name == "%globaltimer" ? 2
            : a.name == "%globaltimer_lo" ? 3 : 4;
    if (a.name == "%globaltimer_hi" || a.name == "%globaltimer_lo") in.mode = a.name == "%globaltimer_lo" ? 3 : 4;
    in.fn = &movClock;
    return true;
  }
  if (a.kind == Operand::Sym && a.off) {
    Operand b = a;
    b.off = 0;
    // symbol+offset: materialise as the symbol address and add the offset through an immediate
    in.s[0] = dc.src(b, t);
    Operand imm;
    imm.kind = Operand::Imm;
    imm.name = std::to_string(a.off);
    in.s[1] = dc.src(imm, t);
    in.fn = sz == 8 ? &bin<Add, uint64_t> : &bin<Add, uint32_t>;
    return true;
  }
  in.s[0] = dc.src(a, t);
  switch (sz) {
    case 1: in.fn = t == Ty::Pred ? &mov<bool> : &mov<uint8_t>; break;
    case 2: in.fn = &mov<uint16_t>; break;
    case 4: in.fn = &mov<uint32_t>; break;
    case 8: in.fn = &mov<uint64_t>; break;
    default: return dc.fail("bad mov type");
  }
  return true;
}

bool lop3Decode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 5 || st.ops[4].kind != Operand::Imm) return dc.fail("lop3 needs 3 sources and an immediate LUT");
  Ty t = st.type();
  in.d[0] = dc.dst(st.ops[0]);
  for (int i = 0; i < 3; i++) in.s[i] = dc.src(st.ops[i + 1], t);
  int64_t lut;
  if (!immInt(st.ops[4].name, lut) || lut < 0 || lut > 255) return dc.fail("lop3 LUT must be an integer 0..255");
  in.imm = lut;
  in.fn = t == Ty::B32 ? &lop3<uint32_t> : t == Ty::B64 ? &lop3<uint64_t> : nullptr;
  return in.fn != nullptr;
}

bool bfeDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  in.s[2] = dc.src(st.ops[3], Ty::U32);
  in.fn = withInt(t, [](auto z) -> Fn { return sizeof(z) >= 4 ? &bfe<decltype(z)> : nullptr; });
  return in.fn != nullptr;
}
bool bfiDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 5) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  in.s[2] = dc.src(st.ops[3], Ty::U32);
  in.s[3] = dc.src(st.ops[4], Ty::U32);
  in.fn = t == Ty::B32 ? &bfi<uint32_t> : t == Ty::B64 ? &bfi<uint64_t> : nullptr;
  return in.fn != nullptr;
}
bool prmtDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  for (int i = 0; i < 3; i++) in.s[i] = dc.src(st.ops[i + 1], Ty::B32);
  static const char* modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  for (int i = 0; i < 6; i++)
    if (st.has(modes[i])) in.mode = (uint8_t)(i + 1);
  in.fn = &prmt;
  return true;
}

// set: a setp into the destination (0/1), then this widens it to all ones (integer), 1.0f, or
// 1.0 in f16/bf16.
template <uint32_t One> struct SetTo { template <class T> static T f(T a) { return a ? (T)One : 0; } };

// Packed set (f16x2/bf16x2 sources): each half of d is One or 0 for its half of a and b.
template <class T, int C, uint32_t One> void setX2(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  bool ftz = in.flags & 0x100, negc = in.flags & 0x200;
  FOR_LANES(exec) {
    bool cv = (e[l] & 1) ^ negc;
    uint32_t r = 0;
    for (int k = 0; k < 2; k++) {
      bool t = cmp<float, C>(cmpLoad<T>((a[l] >> (16 * k)) & 0xffff, ftz), cmpLoad<T>((b[l] >> (16 * k)) & 0xffff, ftz));
      t = in.mode == 1 ? t && cv : in.mode == 2 ? t || cv : in.mode == 3 ? t != cv : t;
      if (t) r |= One << (16 * k);
    }
    d[l] = r;
  }
}
template <class T, uint32_t One> Fn setX2For(int c) {
  switch (c) {
    case kCmpEq: return &setX2<T, kCmpEq, One>;
    case kCmpNe: return &setX2<T, kCmpNe, One>;
    case kCmpLt: return &setX2<T, kCmpLt, One>;
    case kCmpLe: return &setX2<T, kCmpLe, One>;
    case kCmpGt: return &setX2<T, kCmpGt, One>;
    case kCmpGe: return &setX2<T, kCmpGe, One>;
    case kCmpEqu: return &setX2<T, kCmpEqu, One>;
    case kCmpNeu: return &setX2<T, kCmpNeu, One>;
    case kCmpLtu: return &setX2<T, kCmpLtu, One>;
    case kCmpLeu: return &setX2<T, kCmpLeu, One>;
    case kCmpGtu: return &setX2<T, kCmpGtu, One>;
    case kCmpGeu: return &setX2<T, kCmpGeu, One>;
    case kCmpNum: return &setX2<T, kCmpNum, One>;
    case kCmpNan: return &setX2<T, kCmpNan, One>;
  }
  return nullptr;
}

bool setDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty dt = st.type(0), srcT = st.type(1);
  if (srcT == Ty::None) return dc.fail("set needs a destination and a source type");
  if (!st.ops.empty() && !st.ops[0].pair.empty()) return dc.fail("set has one destination");
  if (!setpDecode(dc, st, in)) return false;
  if (srcT == Ty::F16x2 || srcT == Ty::BF16x2) {
    bool bf = srcT == Ty::BF16x2;
    int c = cmpCode(st, true);
    if (dt == Ty::U32 || dt == Ty::S32) in.fn = bf ? setX2For<BHalfTag, 0xffff>(c) : setX2For<HalfTag, 0xffff>(c);
    else if (dt == srcT) in.fn = bf ? setX2For<BHalfTag, 0x3f80>(c) : setX2For<HalfTag, 0x3c00>(c);
    else return dc.fail("packed set needs a .u32/.s32 or matching packed destination");
    return in.fn != nullptr;
  }
  Fn widen = nullptr;
  switch (dt) {
    case Ty::U32: case Ty::S32: widen = &un<SetTo<0xffffffffu>, uint32_t>; break;
    case Ty::F32: widen = &un<SetTo<0x3f800000u>, uint32_t>; break;
    case Ty::U16: case Ty::S16: widen = &un<SetTo<0xffffu>, uint16_t>; break;
    case Ty::F16: widen = &un<SetTo<0x3c00u>, uint16_t>; break;
    case Ty::BF16: widen = &un<SetTo<0x3f80u>, uint16_t>; break;
    default: return dc.fail("set destination type");
  }
  Inst w;
  w.d[0] = in.d[0];
  w.s[0] = in.d[0];
  w.guard = in.guard;
  w.guardNeg = in.guardNeg;
  w.fn = widen;
  dc.emitAfter.push_back(w);
  return true;
}

}  // namespace

// mad.wide: sources are narrow; widen them in the handler via flags (kept small: separate handler)
void registerIntOps(DecodeTable& t) {
  const std::string ints = "u16 u32 u64 s16 s32 s64", half = "f16 f16x2 bf16 bf16x2", rnd = "rn rz rm rp";
  addOp(t, "add", arith, ints + " sat cc f32 f64 ftz f32x2 " + rnd + " " + half, "`.sat` on s32 and f32/f16; `.cc` carry out; halves computed exactly, rounded once; `.f32x2` (sm_100): two f32 in a .b64, each rounded as `.f32`");
  addOp(t, "sub", arith, ints + " sat cc f32 f64 ftz f32x2 " + rnd + " " + half, "as `add`");
  addOp(t, "mul", arith, "lo hi wide " + ints + " f32 f64 ftz sat f32x2 " + rnd + " " + half, "`.wide` on 16/32-bit integers; `.f32x2` as `add`");
  addOp(t, "mad", arith, "lo hi wide cc " + ints + " f32 f64 ftz sat " + rnd, "`mad.f32` is fused; `.cc` carry out; no `mad.hi.sat`");
  addOp(t, "div", arith, ints + " f32 f64 ftz approx full " + rnd, "integer division by zero: all ones; `.approx/.full` correctly rounded");
  addOp(t, "rem", arith, ints, "remainder by zero: the dividend");
  addOp(t, "min", arith, ints + " relu f32 f64 ftz NaN xorsign abs " + half, "`.relu` on s32; NaN operands ignored unless `.NaN`; `.xorsign.abs` on f32 and halves; three-input `.f32` form (sm_100)");
  addOp(t, "max", arith, ints + " relu f32 f64 ftz NaN xorsign abs " + half, "as `min`");
  addOp(t, "abs", unary, "s16 s32 s64 f32 f64 ftz " + half, "float forms touch only the sign bit");
  addOp(t, "neg", unary, "s16 s32 s64 f32 f64 ftz " + half, "as `abs`");
  addOp(t, "not", unary, "b16 b32 b64 pred", "");
  addOp(t, "cnot", unary, "b16 b32 b64", "");
  addOp(t, "popc", unary, "b32 b64", "");
  addOp(t, "clz", unary, "b32 b64", "");
  addOp(t, "brev", unary, "b32 b64", "");
  addOp(t, "bfind", unary, "u32 u64 s32 s64 shiftamt", "no bit found: 0xffffffff");
  for (const char* op : {"and", "or", "xor"})
    addOp(t, op, logic, "b16 b32 b64 pred", "`.pred` with negated sources");
  addOp(t, "addc", carryDecode, "cc u32 s32 u64 s64", "carry flag is a hidden per-lane register");
  addOp(t, "subc", carryDecode, "cc u32 s32 u64 s64", "borrow: a - (b + CF)");
  addOp(t, "madc", madCarryDecode, "lo hi cc u32 s32 u64 s64", "");
  addOp(t, "shl", shift, "b16 b32 b64", "amounts past the width give 0");
  addOp(t, "shr", shift, "b16 b32 b64 " + ints, "arithmetic for signed types; amounts clamp at the width");
  addOp(t, "setp", setpDecode, "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor ftz b16 b32 b64 u16 u32 u64 s16 s32 s64 f32 f64 f16 f16x2 bf16 bf16x2", "`p|q` destinations; x2 types: p low half, q high half");
  addOp(t, "set", setDecode, "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor ftz b16 b32 b64 u16 u32 u64 s16 s32 s64 f32 f64 f16 f16x2 bf16 bf16x2", "true: all ones (integers) or 1.0 (floats)");
  addOp(t, "selp", selpDecode, "b16 b32 b64 " + ints + " f32 f64", "");
  addOp(t, "slct", slctDecode, "b16 b32 b64 " + ints + " f32 f64 ftz", "selector s32 or f32");
  addOp(t, "mov", movDecode, "pred b16 b32 b64 b128 " + ints + " f32 f64", "vector pack/unpack; `%clock*`, `%globaltimer*` from host clocks");
  addOp(t, "lop3", lop3Decode, "b32", "");
  addOp(t, "bfe", bfeDecode, "u32 u64 s32 s64", "");
  addOp(t, "bfi", bfiDecode, "b32 b64", "");
  addOp(t, "prmt", prmtDecode, "b32 f4e b4e rc8 ecl ecr rc16", "moded forms select with c[1:0]");
}

}  // namespace tsim
