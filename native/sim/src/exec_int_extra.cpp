// Less common integer instructions: mul24/mad24, sad, dp4a/dp2a (byte and half-word dot products),
// funnel shifts (shf), bit-field masks and extension (bmsk, szext), find n-th set bit (fns).
#include <algorithm>

#include "exec_core.h"

namespace tsim {

namespace {

// 24-bit operands (sign- or zero-extended from bit 23), 48-bit product; .lo keeps bits 31..0,
// .hi bits 47..16. Mad adds the third source (mod 2^32).
template <bool Signed, bool Hi, bool Mad> void mul24Op(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  auto ext = [](uint64_t v) -> int64_t {
    uint32_t x = (uint32_t)v & 0xffffffu;
    return Signed && (x & 0x800000u) ? (int64_t)x - 0x1000000 : (int64_t)x;
  };
  LANE_LOOP(exec, {
    uint64_t p = (uint64_t)(ext(a[l]) * ext(b[l]));
    uint32_t r = Hi ? (uint32_t)(p >> 16) : (uint32_t)p;
    if (Mad) r += (uint32_t)e[l];
    d[l] = r;
  });
}

// sad: d = c + |a - b| (the difference taken in the signedness of the type, result mod 2^n).
template <class T> void sadOp(Ctx& c, const Inst& in, uint32_t exec) {
  using UT = std::make_unsigned_t<T>;
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  LANE_LOOP(exec, {
    T x = rd<T>(a[l]), y = rd<T>(b[l]);
    UT diff = x < y ? (UT)((UT)y - (UT)x) : (UT)((UT)x - (UT)y);
    d[l] = wr((T)(UT)((UT)rd<T>(e[l]) + diff));
  });
}

// dp4a: c + sum of the 4 byte products; dp2a: c + two products of a's half-words with bytes
// 0,1 (.lo) or 2,3 (.hi) of b. Bytes/half-words are sign-extended for an .s32 operand type.
inline int64_t part(uint32_t v, int bits, int k, bool s) {
  uint32_t m = (1u << bits) - 1, x = (v >> (bits * k)) & m;
  return s && (x >> (bits - 1)) ? (int64_t)x - ((int64_t)1 << bits) : (int64_t)x;
}
template <bool SA, bool SB, int Mode> void dotOp(Ctx& c, const Inst& in, uint32_t exec) {
  // Mode 0: dp4a, 1: dp2a.lo, 2: dp2a.hi
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  LANE_LOOP(exec, {
    uint32_t x = (uint32_t)a[l], y = (uint32_t)b[l];
    int64_t s = 0;
    if (Mode == 0) {
      for (int k = 0; k < 4; k++) s += part(x, 8, k, SA) * part(y, 8, k, SB);
    } else {
      int b0 = Mode == 1 ? 0 : 2;
      for (int k = 0; k < 2; k++) s += part(x, 16, k, SA) * part(y, 8, b0 + k, SB);
    }
    d[l] = (uint32_t)((uint32_t)e[l] + (uint32_t)(uint64_t)s);
  });
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the 64-bit value {b, a} shifted by n = c & 31 (wrap) or
// min(c, 32) (clamp); .l keeps the upper 32 bits, .r the lower 32.
template <bool Left, bool Clamp> void shfOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  LANE_LOOP(exec, {
    uint32_t n = Clamp ? std::min<uint32_t>((uint32_t)e[l], 32) : (uint32_t)e[l] & 31;
    uint64_t v = ((uint64_t)(uint32_t)b[l] << 32) | (uint32_t)a[l];
    d[l] = Left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
  });
}

// bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA pseudocode)
template <bool Clamp> void bmskOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *A = slot(c, in.s[0]), *B = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool over = sum >= 32;
    if (Clamp) {
      if (a >= 32) { over = true; mask0 = 0; }
      if (b >= 32) over = true;
    }
    if (over) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    d[l] = mask0 & ~mask1;
  }
}

// szext.{clamp,wrap}.{u32,s32} d, a, b: extend the low N = b bits of a (PTX ISA pseudocode)
template <bool Clamp, bool Signed> void szextOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *A = slot(c, in.s[0]), *B = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], b1 = b & 31;
    bool tooLarge = Clamp && b >= 32;
    uint32_t mask = tooLarge ? 0 : ~0u << b1;
    bool sign = Signed && b1 != 0 && !tooLarge && ((a >> ((b1 - 1) & 31)) & 1);
    d[l] = (a & ~mask) | (sign ? mask : 0);
  }
}

// fns.b32 d, mask, base, offset: position of the offset-th set bit counting from base (up for a
// positive offset, down for a negative one); 0xffffffff when there is none.
void fnsOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *M = slot(c, in.s[0]), *Bs = slot(c, in.s[1]), *O = slot(c, in.s[2]);
  FOR_LANES(exec) {
    uint32_t mask = (uint32_t)M[l], base = (uint32_t)Bs[l], r = ~0u;
    int32_t off = (int32_t)O[l];
    if (off == 0) {
      if (base < 32 && (mask >> base & 1)) r = base;
    } else {
      int64_t count = (off > 0 ? (int64_t)off : -(int64_t)off) - 1;
      int inc = off > 0 ? 1 : -1;
      for (int64_t pos = base; pos >= 0 && pos < 32; pos += inc) {
        if (mask >> pos & 1) {
          if (count == 0) { r = (uint32_t)pos; break; }
          count--;
        }
      }
    }
    d[l] = r;
  }
}

bool shfDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool left = st.has("l"), clamp = st.has("clamp");
  if (left == st.has("r") || clamp == st.has("wrap")) return dc.fail("expected shf.{l,r}.{wrap,clamp}.b32");
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::B32);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  in.s[2] = dc.src(st.ops[3], Ty::U32);
  in.fn = left ? (clamp ? &shfOp<true, true> : &shfOp<true, false>) : (clamp ? &shfOp<false, true> : &shfOp<false, false>);
  return true;
}

bool bmskDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool clamp = st.has("clamp");
  if (clamp == st.has("wrap")) return dc.fail("expected bmsk.{clamp,wrap}.b32");
  if (st.ops.size() != 3) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::U32);
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  in.fn = clamp ? &bmskOp<true> : &bmskOp<false>;
  return true;
}

bool szextDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool clamp = st.has("clamp"), sgn = st.type() == Ty::S32;
  if (clamp == st.has("wrap")) return dc.fail("expected szext.{clamp,wrap}.{u32,s32}");
  if (st.ops.size() != 3) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], st.type());
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  in.fn = clamp ? (sgn ? &szextOp<true, true> : &szextOp<true, false>) : (sgn ? &szextOp<false, true> : &szextOp<false, false>);
  return true;
}

bool fnsDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 4) return dc.fail("expected fns.b32 d, mask, base, offset");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::B32);
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  in.s[2] = dc.src(st.ops[3], Ty::S32);
  in.fn = &fnsOp;
  return true;
}

bool mul24Decode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  bool mad = st.op == "mad24", hi = st.has("hi");
  if (!hi && !st.has("lo")) return dc.fail("needs .lo or .hi");
  if (st.has("sat")) return dc.fail(".sat is not supported");
  if (t != Ty::U32 && t != Ty::S32) return dc.fail("needs .u32 or .s32");
  if (st.ops.size() != (mad ? 4u : 3u)) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], t);
  if (mad) in.s[2] = dc.src(st.ops[3], t);
  bool s = t == Ty::S32;
  Fn table[2][2][2] = {{{&mul24Op<false, false, false>, &mul24Op<false, false, true>},
                        {&mul24Op<false, true, false>, &mul24Op<false, true, true>}},
                       {{&mul24Op<true, false, false>, &mul24Op<true, false, true>},
                        {&mul24Op<true, true, false>, &mul24Op<true, true, true>}}};
  in.fn = table[s][hi][mad];
  return true;
}

bool sadDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  in.d[0] = dc.dst(st.ops[0]);
  for (int i = 0; i < 3; i++) in.s[i] = dc.src(st.ops[i + 1], t);
  in.fn = withInt(t, [](auto z) -> Fn { return &sadOp<decltype(z)>; });
  if (t == Ty::B16 || t == Ty::B32 || t == Ty::B64) return dc.fail("needs a signed or unsigned type");
  return in.fn != nullptr;
}

template <int Mode> Fn dotFor(bool sa, bool sb) {
  if (sa) return sb ? &dotOp<true, true, Mode> : &dotOp<true, false, Mode>;
  return sb ? &dotOp<false, true, Mode> : &dotOp<false, false, Mode>;
}

bool dotDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty ta = st.type(0), tb = st.type(1);
  auto ok = [](Ty t) { return t == Ty::U32 || t == Ty::S32; };
  if (!ok(ta) || !ok(tb)) return dc.fail("needs two of .u32/.s32");
  if (st.ops.size() != 4) return dc.fail("wrong operand count");
  Ty tc = (ta == Ty::S32 || tb == Ty::S32) ? Ty::S32 : Ty::U32;
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], ta);
  in.s[1] = dc.src(st.ops[2], tb);
  in.s[2] = dc.src(st.ops[3], tc);
  bool sa = ta == Ty::S32, sb = tb == Ty::S32;
  if (st.op == "dp4a") {
    in.fn = dotFor<0>(sa, sb);
  } else {
    bool hi = st.has("hi");
    if (!hi && !st.has("lo")) return dc.fail("dp2a needs .lo or .hi");
    in.fn = hi ? dotFor<2>(sa, sb) : dotFor<1>(sa, sb);
  }
  return true;
}

}  // namespace

void registerIntExtraOps(DecodeTable& t) {
  addOp(t, "mul24", mul24Decode, "lo hi u32 s32", "24-bit operands, 48-bit product");
  addOp(t, "mad24", mul24Decode, "lo hi u32 s32", "no `.sat`");
  addOp(t, "sad", sadDecode, "u16 u32 u64 s16 s32 s64", "c + |a - b|");
  addOp(t, "dp4a", dotDecode, "u32 s32", "");
  addOp(t, "dp2a", dotDecode, "lo hi u32 s32", "");
  addOp(t, "shf", shfDecode, "l r wrap clamp b32", "funnel shift of {b, a}");
  addOp(t, "bmsk", bmskDecode, "clamp wrap b32", "");
  addOp(t, "szext", szextDecode, "clamp wrap u32 s32", "");
  addOp(t, "fns", fnsDecode, "b32", "");
}

}  // namespace tsim
