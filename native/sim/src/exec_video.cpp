// SIMD video instructions: vadd/vsub/vavrg/vabsdiff/vmin/vmax on 2 half-words or 4 bytes, with
// .sat and the secondary SIMD merge (default mask: every element) or accumulate (.add) operation
// (PTX ISA pseudocode; what the CUDA headers' __vabsdiff4 / __vsad2 ... compile to). Element
// selectors (a.b3210 ...) and destination masks (d.b0 ...) are not parsed: an operand written with
// one fails to load as an unknown register.
#include <algorithm>

#include "exec_core.h"

namespace tsim {

namespace {

enum { kVAdd, kVSub, kVAvrg, kVAbsdiff, kVMin, kVMax };
enum { kVSignA = 1, kVSignB = 2, kVSignD = 4, kVSat = 8, kVAdd2 = 16 };

inline int64_t elem(uint32_t v, int bits, int i, bool sgn) {
  uint32_t m = (1u << bits) - 1, x = (v >> (bits * i)) & m;
  return sgn && (x >> (bits - 1)) ? (int64_t)x - ((int64_t)1 << bits) : (int64_t)x;
}

// N elements of 32/N bits; in.mode = operation, in.imm = flags
template <int N> void videoOp(Ctx& c, const Inst& in, uint32_t exec) {
  constexpr int bits = 32 / N;
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *A = slot(c, in.s[0]), *B = slot(c, in.s[1]), *C = slot(c, in.s[2]);
  int f = (int)in.imm;
  int64_t lo = (f & kVSignD) ? -((int64_t)1 << (bits - 1)) : 0;
  int64_t hi = (f & kVSignD) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
  FOR_LANES(exec) {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], cc = (uint32_t)C[l];
    uint32_t merged = 0, acc = cc;
    for (int i = 0; i < N; i++) {
      int64_t x = elem(a, bits, i, f & kVSignA), y = elem(b, bits, i, f & kVSignB), t;
      switch (in.mode) {
        case kVAdd: t = x + y; break;
        case kVSub: t = x - y; break;
        case kVAvrg: t = (x + y) >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1; break;
        case kVAbsdiff: t = x > y ? x - y : y - x; break;
        case kVMin: t = std::min(x, y); break;
        default: t = std::max(x, y); break;
      }
      if (f & kVSat) t = std::min(std::max(t, lo), hi);
      acc += (uint32_t)t;
      merged |= ((uint32_t)t & ((1u << bits) - 1)) << (bits * i);
    }
    d[l] = (f & kVAdd2) ? acc : merged;
  }
}

bool videoDecode(Decoder& dc, const Stmt& st, Inst& in) {
  static const char* names[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"};
  const std::string& op = st.op;
  int n = op.back() - '0', m = -1;
  for (int i = 0; i < 6; i++)
    if (op == std::string(names[i]) + (char)('0' + n)) m = i;
  Ty dt = st.type(0), at = st.type(1), bt = st.type(2);
  auto ok = [](Ty t) { return t == Ty::U32 || t == Ty::S32; };
  if (m < 0 || (n != 2 && n != 4)) return dc.fail("unknown SIMD video instruction");
  if (!ok(dt) || !ok(at) || !ok(bt)) return dc.fail("expected ." + op + ".dtype.atype.btype with u32/s32 types");
  if (st.has("sat") && st.has("add")) return dc.fail(".sat cannot be used with the accumulate form");
  if (st.ops.size() != 4) return dc.fail("expected d, a, b, c");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::B32);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  in.s[2] = dc.src(st.ops[3], Ty::B32);
  in.mode = (uint8_t)m;
  in.imm = (at == Ty::S32 ? kVSignA : 0) | (bt == Ty::S32 ? kVSignB : 0) | (dt == Ty::S32 ? kVSignD : 0) |
           (st.has("sat") ? kVSat : 0) | (st.has("add") ? kVAdd2 : 0);
  in.fn = n == 2 ? &videoOp<2> : &videoOp<4>;
  return true;
}

}  // namespace

void registerVideoOps(DecodeTable& t) {
  for (const char* base : {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"})
    for (const char* n : {"2", "4"})
      addOp(t, (std::string(base) + n).c_str(), videoDecode, "u32 s32 sat add",
            "SIMD merge (all elements) or `.add` accumulate; no element selectors or masks");
}

}  // namespace tsim
