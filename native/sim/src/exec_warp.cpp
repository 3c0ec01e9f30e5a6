// Warp collectives: the participating lanes are exactly the lanes executing the instruction.
#include "exec_core.h"

namespace tsim {

namespace {

enum { kUp, kDown, kBfly, kIdx };

// shfl.sync.mode.b32 d[|p], a, b, c, membermask
void shflOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t *d = slot(c, in.d[0]), *p = slot(c, in.d[1]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *cc = slot(c, in.s[2]);
  uint64_t val[kWarp];
  bool ok[kWarp];
  FOR_LANES(exec) {
    int lane = (int)l, bval = (int)(b[l] & 31), cval = (int)(cc[l] & 31), seg = (int)((cc[l] >> 8) & 31);
    int maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg, j;
    bool pval;
    switch (in.mode) {
      case kUp: j = lane - bval; pval = j >= maxLane; break;
      case kDown: j = lane + bval; pval = j <= maxLane; break;
      case kBfly: j = lane ^ bval; pval = j <= maxLane; break;
      default: j = minLane | (bval & ~seg); pval = j <= maxLane; break;
    }
    if (!pval) j = lane;
    val[l] = (uint32_t)a[j];
    ok[l] = pval;
  }
  FOR_LANES(exec) {
    d[l] = val[l];
    p[l] = ok[l];
  }
}

uint32_t predBits(const uint64_t* p, uint32_t exec, bool neg) {
  uint32_t r = 0;
  FOR_LANES(exec) r |= (uint32_t)(((p[l] & 1) ^ neg) & 1) << l;
  return r;
}

// vote.sync.{all,any,uni}.pred d, {!}a, mask; vote.sync.ballot.b32 d, {!}a, mask
void voteOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  uint32_t bits = predBits(slot(c, in.s[0]), exec, in.flags & 0x100);
  uint64_t r;
  switch (in.mode) {
    case 0: r = bits == exec; break;            // all
    case 1: r = bits != 0; break;               // any
    case 2: r = bits == 0 || bits == exec; break;  // uni
    default: r = bits; break;                   // ballot
  }
  FOR_LANES(exec) d[l] = r;
}

void activemaskOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  FOR_LANES(exec) d[l] = exec;
}

// match.sync.any: lanes with equal values; match.sync.all: mask if all equal else 0 (p = all equal)
template <class T> void matchOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t *d = slot(c, in.d[0]), *p = slot(c, in.d[1]);
  const uint64_t* a = slot(c, in.s[0]);
  uint32_t res[kWarp];
  bool allEq = true;
  uint32_t first = exec ? __builtin_ctz(exec) : 0;
  FOR_LANES(exec) {
    uint32_t m = 0;
    for (uint32_t k = exec; k; k &= k - 1) {
      unsigned j = __builtin_ctz(k);
      if (rd<T>(a[j]) == rd<T>(a[l])) m |= 1u << j;
    }
    res[l] = m;
    if (rd<T>(a[l]) != rd<T>(a[first])) allEq = false;
  }
  FOR_LANES(exec) {
    if (in.mode == 0) d[l] = res[l];
    else { d[l] = allEq ? exec : 0; p[l] = allEq; }
  }
}

// redux.sync.op.type d, a, mask
enum { kRAdd, kRMin, kRMax, kRAnd, kROr, kRXor };
template <class T> void reduxOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  if (!exec) return;
  T acc = rd<T>(a[__builtin_ctz(exec)]);
  bool firstDone = false;
  FOR_LANES(exec) {
    T v = rd<T>(a[l]);
    if (!firstDone) { firstDone = true; continue; }
    switch (in.mode) {
      case kRAdd: acc = (T)((uint32_t)acc + (uint32_t)v); break;
      case kRMin: acc = v < acc ? v : acc; break;
      case kRMax: acc = v > acc ? v : acc; break;
      case kRAnd: acc &= v; break;
      case kROr: acc |= v; break;
      default: acc ^= v; break;
    }
  }
  FOR_LANES(exec) d[l] = wr(acc);
}

bool shflDecode(Decoder& dc, const Stmt& st, Inst& in) {
  static const char* modes[] = {"up", "down", "bfly", "idx"};
  int m = -1;
  for (int i = 0; i < 4; i++) if (st.has(modes[i])) m = i;
  if (m < 0 || !st.has("sync") || st.ops.size() != 5) return dc.fail("expected shfl.sync.{up,down,bfly,idx}.b32 d, a, b, c, mask");
  in.mode = (uint8_t)m;
  in.d[0] = dc.dst(st.ops[0]);
  in.d[1] = kSlotSink;
  if (!st.ops[0].pair.empty()) {
    Operand q;
    q.kind = Operand::Reg;
    q.name = st.ops[0].pair;
    in.d[1] = dc.dst(q);
  }
  in.s[0] = dc.src(st.ops[1], Ty::B32);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  in.s[2] = dc.src(st.ops[3], Ty::B32);
  in.s[3] = dc.src(st.ops[4], Ty::B32);
  in.fn = &shflOp;
  in.cls = kOther;
  return true;
}

bool voteDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || st.ops.size() != 3) return dc.fail("expected vote.sync.mode d, {!}a, mask");
  in.mode = st.has("all") ? 0 : st.has("any") ? 1 : st.has("uni") ? 2 : st.has("ballot") ? 3 : 9;
  if (in.mode == 9) return dc.fail("unknown vote mode");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::Pred);
  if (st.ops[1].neg) in.flags |= 0x100;
  dc.negHandled = true;
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  in.fn = &voteOp;
  in.cls = kOther;
  return true;
}

bool activemaskDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 1) return dc.fail("activemask.b32 d");
  in.d[0] = dc.dst(st.ops[0]);
  in.fn = &activemaskOp;
  in.cls = kOther;
  return true;
}

bool matchDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (!st.has("sync") || st.ops.size() != 3 || (t != Ty::B32 && t != Ty::B64)) return dc.fail("expected match.sync.{any,all}.b32/b64");
  in.mode = st.has("all") ? 1 : 0;
  in.d[0] = dc.dst(st.ops[0]);
  in.d[1] = kSlotSink;
  if (!st.ops[0].pair.empty()) {
    Operand q;
    q.kind = Operand::Reg;
    q.name = st.ops[0].pair;
    in.d[1] = dc.dst(q);
  }
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  in.fn = t == Ty::B32 ? &matchOp<uint32_t> : &matchOp<uint64_t>;
  in.cls = kOther;
  return true;
}

bool reduxDecode(Decoder& dc, const Stmt& st, Inst& in) {
  static const char* ops[] = {"add", "min", "max", "and", "or", "xor"};
  int m = -1;
  for (int i = 0; i < 6; i++) if (st.has(ops[i])) m = i;
  Ty t = st.type();
  if (m < 0 || !st.has("sync") || st.ops.size() != 3) return dc.fail("expected redux.sync.op.type d, a, mask");
  in.mode = (uint8_t)m;
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  if (m >= kRAnd) in.fn = t == Ty::B32 ? &reduxOp<uint32_t> : nullptr;
  else in.fn = t == Ty::U32 ? &reduxOp<uint32_t> : t == Ty::S32 ? &reduxOp<int32_t> : nullptr;
  in.cls = kOther;
  return in.fn != nullptr;
}

}  // namespace

void registerWarpOps(DecodeTable& t) {
  addOp(t, "shfl", shflDecode, "sync up down bfly idx b32", "per lane over its membermask");
  addOp(t, "vote", voteDecode, "sync all any uni ballot pred b32", "per lane over its membermask");
  addOp(t, "activemask", activemaskDecode, "b32", "");
  addOp(t, "match", matchDecode, "sync any all b32 b64", "per lane over its membermask");
  addOp(t, "redux", reduxDecode, "sync add min max and or xor u32 s32 b32", "per lane over its membermask");
}

}  // namespace tsim
