// Less common integer instructions: mul24/mad24, sad, dp4a/dp2a (byte and half-word dot products).
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
}

}  // namespace tsim
