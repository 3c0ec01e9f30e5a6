// Warp collectives: the participating lanes are exactly the lanes executing the instruction.
#include "exec_core.h"
#include "exec_float.h"

namespace tsim {

namespace {

enum { kUp, kDown, kBfly, kIdx };

constexpr uint8_t kWarpSyncBar = 0xFF;  // Warp::barId of a lane parked in a .sync collective

// Lanes parked at pc (or, for bar.warp.sync, at any bar.warp.sync).
uint32_t parkedAt(Ctx& c, uint32_t pc, bool anyWarpSync) {
  Warp& w = *c.w;
  uint32_t r = 0;
  FOR_LANES(w.waiting) {
    if (w.barId[l] != kWarpSyncBar) continue;
    if (w.pcs[l] == pc || (anyWarpSync && c.prog->code[w.pcs[l]].fn == c.prog->code[pc].fn)) r |= 1u << l;
  }
  return r;
}

// The .sync rendezvous (PTX ISA: a lane waits until every non-exited lane of its membermask has
// executed the same collective with the same membermask). Lanes in exec, plus lanes parked here
// earlier, whose whole membermask has arrived are returned as ready, with their group in grp[];
// the others are parked until the rest of their mask arrives (or exits: exitLanes wakes them to
// look again). Also moves the warp on: ready and predicated-off lanes continue after this
// instruction. Returns 0 when a membermask is inconsistent (a fault was raised).
uint32_t rendezvous(Ctx& c, const Inst& in, uint32_t exec, uint32_t maskSlot, uint32_t* grp, bool anyPc) {
  Warp& w = *c.w;
  const uint64_t* M = slot(c, maskSlot);
  if (c.san) sanWarpCheck(c, exec, M);
  // Lanes of the running group that a guard switched off are at this instruction too: they count
  // as arrived (as in a converged warp on hardware) but take no part in the computation.
  if (!w.waiting && exec) {
    // The common case: every lane names the same mask and all its live lanes are here.
    uint32_t m0 = (uint32_t)M[__builtin_ctz(exec)], diff = 0;
    LANE_LOOP(exec, diff |= (uint32_t)M[l] ^ m0);
    if (!diff && !(m0 & w.live & ~w.mask)) {
      uint32_t g = m0 & w.live & exec;
      LANE_LOOP(exec, grp[l] = g | 1u << l);
      if (++w.pc >= w.nextPc) reschedule(w);
      if (c.san) sanWarpSync(c, exec, exec, grp, M);
      return exec;
    }
  }
  uint32_t parked = w.waiting ? parkedAt(c, w.pc, anyPc) : 0;
  uint32_t all = exec | parked, arrived = w.mask | parked, ready = 0;
  FOR_LANES(all) {
    uint32_t m = (uint32_t)M[l];
    uint32_t need = (m | 1u << l) & w.live;
    if ((need & ~arrived) == 0) {
      ready |= 1u << l;
      grp[l] = need & all;
    }
  }
  // every member of a ready lane's group must name the same membermask (otherwise undefined)
  FOR_LANES(ready) {
    FOR_LANES_J(grp[l] & ~(1u << l), j) {
      if (((uint32_t)M[j] | 1u << j) != ((uint32_t)M[l] | 1u << l)) {
        char buf[160];
        snprintf(buf, sizeof buf, "lanes %u and %u meet in a .sync collective with different membermasks 0x%08x and 0x%08x",
                 l, j, (uint32_t)M[l], (uint32_t)M[j]);
        raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, buf);
        return 0;
      }
    }
  }
  uint32_t wait = all & ~ready;
  uint32_t woken = parked & ready;
  if (!wait && !woken) {
    if (++w.pc >= w.nextPc) reschedule(w);
    if (c.san) sanWarpSync(c, exec, ready, grp, M);
    return ready;
  }
  w.waiting &= ~woken;
  FOR_LANES(woken) w.pcs[l] += 1;
  FOR_LANES(wait & w.mask) {
    w.pcs[l] = w.pc;
    w.barId[l] = kWarpSyncBar;
  }
  w.waiting |= wait & w.mask;
  w.mask &= ~wait;
  w.pc++;
  reschedule(w);
  (void)in;
  if (c.san) sanWarpSync(c, exec, ready, grp, M);
  return ready;
}

// shfl.sync.mode.b32 d[|p], a, b, c, membermask
void shflOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[3], grp, false);
  uint64_t *d = slot(c, in.d[0]), *p = slot(c, in.d[1]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *cc = slot(c, in.s[2]);
  uint64_t val[kWarp];
  bool ok[kWarp];
  FOR_LANES(run) {
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
  FOR_LANES(run) {
    d[l] = val[l];
    p[l] = ok[l];
  }
}

// vote.sync.{all,any,uni}.pred d, {!}a, mask; vote.sync.ballot.b32 d, {!}a, mask: over each
// lane's membermask group
void voteOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[1], grp, false);
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  bool neg = in.flags & 0x100;
  uint32_t bits = 0;
  FOR_LANES(run) bits |= (uint32_t)(((a[l] & 1) ^ neg) & 1) << l;
  FOR_LANES(run) {
    uint32_t g = grp[l], b = bits & g;
    uint64_t r;
    switch (in.mode) {
      case 0: r = b == g; break;             // all
      case 1: r = b != 0; break;             // any
      case 2: r = b == 0 || b == g; break;   // uni
      default: r = b; break;                 // ballot
    }
    d[l] = r;
  }
}

void activemaskOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  FOR_LANES(exec) d[l] = exec;
}

// match.sync.any: the lanes of the group with an equal value; match.sync.all: the group if all
// its values are equal, else 0 (p = all equal)
template <class T> void matchOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[1], grp, false);
  uint64_t *d = slot(c, in.d[0]), *p = slot(c, in.d[1]);
  const uint64_t* a = slot(c, in.s[0]);
  uint32_t res[kWarp];
  FOR_LANES(run) {
    uint32_t m = 0;
    T v = rd<T>(a[l]);
    FOR_LANES_J(grp[l], j) if (rd<T>(a[j]) == v) m |= 1u << j;
    res[l] = m;
  }
  FOR_LANES(run) {
    if (in.mode == 0) d[l] = res[l];
    else {
      bool allEq = res[l] == grp[l];
      d[l] = allEq ? grp[l] : 0;
      p[l] = allEq;
    }
  }
}

// redux.sync.op.type d, a, mask: over each lane's membermask group
enum { kRAdd, kRMin, kRMax, kRAnd, kROr, kRXor };
template <class T> void reduxOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[1], grp, false);
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  uint64_t out[kWarp];
  uint32_t lastGrp = 0;
  uint64_t last = 0;
  FOR_LANES(run) {
    if (grp[l] != lastGrp || l == (uint32_t)__builtin_ctz(run)) {
      uint32_t g = grp[l];
      T acc = rd<T>(a[__builtin_ctz(g)]);
      FOR_LANES_J(g & (g - 1), j) {
        T v = rd<T>(a[j]);
        switch (in.mode) {
          case kRAdd: acc = (T)((uint32_t)acc + (uint32_t)v); break;
          case kRMin: acc = v < acc ? v : acc; break;
          case kRMax: acc = v > acc ? v : acc; break;
          case kRAnd: acc &= v; break;
          case kROr: acc |= v; break;
          default: acc ^= v; break;
        }
      }
      lastGrp = g;
      last = wr(acc);
    }
    out[l] = last;
  }
  FOR_LANES(run) d[l] = out[l];
}

// redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, mask (sm_100a; PTX ISA "redux.sync"): NaN inputs
// are left out unless .NaN (then any NaN gives the canonical NaN 0x7fffffff), all NaN gives the
// canonical NaN, +0 > -0, .abs reduces the absolute values; no flushing of subnormals. in.imm:
// 1 .abs, 2 .NaN.
void reduxF32Op(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[1], grp, false);
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  const bool mx = in.mode == kRMax, abs = in.imm & 1, nanOut = in.imm & 2;
  auto isNaN = [](uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; };
  // b is better than acc (a non-NaN acc): the larger (max) / smaller (min), -0 below +0
  auto better = [&](uint32_t b, uint32_t acc) {
    float x = bitsf32(b), y = bitsf32(acc);
    if (x == y) return mx ? (acc >> 31) && !(b >> 31) : (b >> 31) && !(acc >> 31);
    return mx ? x > y : x < y;
  };
  uint64_t out[kWarp];
  uint32_t lastGrp = 0;
  uint64_t last = 0;
  FOR_LANES(run) {
    if (grp[l] != lastGrp || l == (uint32_t)__builtin_ctz(run)) {
      uint32_t g = grp[l], acc = 0;
      bool have = false, sawNaN = false;
      FOR_LANES_J(g, j) {
        uint32_t v = (uint32_t)a[j];
        if (abs) v &= 0x7fffffffu;
        if (isNaN(v)) { sawNaN = true; continue; }
        if (!have || better(v, acc)) acc = v;
        have = true;
      }
      lastGrp = g;
      last = (!have || (nanOut && sawNaN)) ? 0x7fffffffu : acc;
    }
    out[l] = last;
  }
  FOR_LANES(run) d[l] = out[l];
}

// elect.sync d|p, membermask: the lowest lane of each membermask group is the leader (the ISA
// only asks for a deterministic choice among the active lanes); d = its lane id, p = (lane == it).
void electOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  uint32_t run = rendezvous(c, in, exec, in.s[0], grp, false);
  uint64_t *d = slot(c, in.d[0]), *p = slot(c, in.d[1]);
  FOR_LANES(run) {
    uint32_t leader = (uint32_t)__builtin_ctz(grp[l] & run);
    d[l] = leader;
    p[l] = l == leader;
  }
}

// bar.warp.sync membermask: only the rendezvous (lanes may meet at different bar.warp.sync
// instructions, as on sm_70 and later).
void barWarpOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t grp[kWarp];
  rendezvous(c, in, exec, in.s[0], grp, true);
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
  in.flags |= kfControl;
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
  in.flags |= kfControl;
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
  in.flags |= kfControl;
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
  if (t == Ty::F32 || st.has("abs") || st.has("NaN")) {
    if (t != Ty::F32 || (m != kRMin && m != kRMax)) return dc.fail("expected redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, mask (.abs and .NaN are for f32 min/max)");
    in.imm = (st.has("abs") ? 1 : 0) | (st.has("NaN") ? 2 : 0);
    in.d[0] = dc.dst(st.ops[0]);
    in.s[0] = dc.src(st.ops[1], Ty::B32);
    in.s[1] = dc.src(st.ops[2], Ty::B32);
    in.fn = &reduxF32Op;
    in.flags |= kfControl;
    in.cls = kOther;
    return true;
  }
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::B32);
  if (m >= kRAnd) in.fn = t == Ty::B32 ? &reduxOp<uint32_t> : nullptr;
  else in.fn = t == Ty::U32 ? &reduxOp<uint32_t> : t == Ty::S32 ? &reduxOp<int32_t> : nullptr;
  in.flags |= kfControl;
  in.cls = kOther;
  return in.fn != nullptr;
}

bool electDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || st.ops.size() != 2 || st.ops[0].pair.empty()) return dc.fail("expected elect.sync d|p, membermask");
  in.d[0] = dc.dst(st.ops[0]);
  Operand q;
  q.kind = Operand::Reg;
  q.name = st.ops[0].pair;
  in.d[1] = dc.dst(q);
  in.s[0] = dc.src(st.ops[1], Ty::B32);
  in.fn = &electOp;
  in.flags |= kfControl;
  in.cls = kOther;
  return true;
}

bool barWarpDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || st.ops.size() != 1) return dc.fail("expected bar.warp.sync membermask");
  in.s[0] = dc.src(st.ops[0], Ty::B32);
  in.fn = &barWarpOp;
  in.flags |= kfControl;
  in.cls = kSync;
  return true;
}

}  // namespace

bool decodeBarWarpSync(Decoder& dc, const Stmt& st, Inst& in) { return barWarpDecode(dc, st, in); }

void registerWarpOps(DecodeTable& t) {
  addOp(t, "shfl", shflDecode, "sync up down bfly idx b32", "per lane over its membermask");
  addOp(t, "vote", voteDecode, "sync all any uni ballot pred b32", "per lane over its membermask");
  addOp(t, "activemask", activemaskDecode, "b32", "");
  addOp(t, "match", matchDecode, "sync any all b32 b64", "per lane over its membermask");
  addOp(t, "elect", electDecode, "sync", "leader: the lowest lane of each membermask group (sm_90)");
  addOp(t, "redux", reduxDecode, "sync add min max and or xor abs NaN u32 s32 b32 f32", "per lane over its membermask; f32 min/max (.abs, .NaN) as on sm_100a");
}

}  // namespace tsim
