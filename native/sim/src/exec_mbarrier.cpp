// mbarrier: the split arrive/wait barrier object in shared memory (sm_80; PTX ISA "Parallel
// synchronization: mbarrier"), and cp.async.mbarrier.arrive. The 64-bit object is opaque to the
// program; the sim keeps it as
//   bits  0..19  pending arrivals of the current phase
//   bits 20..39  expected arrivals per phase (set by init, lowered by arrive_drop)
//   bits 40..62  the current phase's number (its parity is bit 40)
// and an arrive's state is (phase number << 40) | pending count after it, so test_wait(state)
// completes once the barrier's phase number has moved past the state's.
// Memory ordering: the sim makes every store visible at once, so .release/.acquire/.relaxed and
// the .cta scope need no work. Transaction counts (sm_90): the tx-count of the current phase is kept
// beside the object (Cta::mbarTx); a phase completes when its pending arrivals and its tx-count are
// both zero. .shared::cluster addresses (exec_cluster.cpp) may name another CTA of the cluster for
// mbarrier.arrive{.expect_tx} (the ISA's remote forms); the other operations need the CTA's own.
#include "exec_core.h"
#include "exec_mem.h"

namespace tsim {

namespace {

constexpr uint64_t kCountMask = (1ull << 20) - 1;
constexpr int kExpectedShift = 20, kPhaseShift = 40;
constexpr uint64_t kPhaseMask = (1ull << 23) - 1;

inline uint64_t pending(uint64_t v) { return v & kCountMask; }
inline uint64_t expected(uint64_t v) { return (v >> kExpectedShift) & kCountMask; }
inline uint64_t phase(uint64_t v) { return (v >> kPhaseShift) & kPhaseMask; }
inline uint64_t pack(uint64_t pend, uint64_t exp, uint64_t ph) {
  return (pend & kCountMask) | (exp & kCountMask) << kExpectedShift | (ph & kPhaseMask) << kPhaseShift;
}

// The barrier object of each lane: its shared-memory offset (8-byte aligned, inside the CTA's
// shared memory, or a fault naming the problem).
// With `remote`, a lane's object may be in another CTA of the cluster: remote[l] names it (null:
// the executing CTA's).
bool barriers(Ctx& c, const Inst& in, uint32_t exec, bool write, uint32_t* off, Cta** remote = nullptr) {
  uint8_t* p[kWarp];
  Inst atomic = in;  // sanitizers: mbarrier objects are updated atomically
  atomic.flags |= kfSanAtomic;
  if (!resolve(c, atomic, exec, 8, write, p, false)) return false;
  uint8_t* lo = c.cta->shared.data();
  FOR_LANES(exec) {
    if (remote) remote[l] = nullptr;
    if (remote && (p[l] < lo || p[l] >= lo + c.cta->shared.size())) {
      Cluster& cl = *c.cta->cluster;
      for (unsigned k = 0; k < cl.size; k++) {
        Cta& t = cl.ctas[k];
        if (&t != c.cta && p[l] >= t.shared.data() && p[l] + 8 <= t.shared.data() + t.shared.size()) {
          remote[l] = &t;
          off[l] = (uint32_t)(p[l] - t.shared.data());
        }
      }
      if (remote[l]) continue;
    }
    if (p[l] < lo || p[l] + 8 > lo + c.cta->shared.size()) {
      bool other = false;
      Cluster& cl = *c.cta->cluster;
      for (unsigned k = 0; k < cl.size; k++)
        other |= p[l] >= cl.ctas[k].shared.data() && p[l] < cl.ctas[k].shared.data() + cl.ctas[k].shared.size();
      raise(c, Fault::OutOfBounds, (int)l, slot(c, in.s[0])[l] + (uint64_t)in.imm, 8, write,
            other ? "this mbarrier operation needs an object in the executing CTA's shared memory (not another CTA's)"
                  : "an mbarrier object must be in shared memory");
      return false;
    }
    off[l] = (uint32_t)(p[l] - lo);
  }
  return true;
}

inline uint64_t& word(Ctx& c, uint32_t off) { return *reinterpret_cast<uint64_t*>(c.cta->shared.data() + off); }

int64_t& txOf(Ctx& c, uint32_t off) {
  for (auto& e : c.cta->mbarTx)
    if (e.first == off) return e.second;
  c.cta->mbarTx.emplace_back(off, 0);
  return c.cta->mbarTx.back().second;
}
void dropTx(Ctx& c, uint32_t off) {
  auto& v = c.cta->mbarTx;
  for (size_t i = 0; i < v.size(); i++)
    if (v[i].first == off) { v.erase(v.begin() + (long)i); return; }
}
constexpr int64_t kTxLimit = (1 << 20) - 1;

// One arrival of `count` on the barrier at off; drop also lowers the expected count. Returns the
// state, or false after raising a fault (an arrival the phase has no room for is undefined in the
// ISA: the sim says so instead of wrapping the count).
bool arrive(Ctx& c, int lane, uint32_t off, uint64_t count, bool drop, bool noComplete, uint64_t& state) {
  uint64_t v = word(c, off);
  uint64_t pend = pending(v), exp = expected(v), ph = phase(v);
  if (count > pend) {
    raise(c, Fault::IllegalInstruction, lane, 0, 0, false,
          "mbarrier arrive of " + std::to_string(count) + " with only " + std::to_string(pend) + " arrivals pending (an arrive too many, or an uninitialised mbarrier)");
    return false;
  }
  if (drop) {
    if (exp == 0) {
      raise(c, Fault::IllegalInstruction, lane, 0, 0, false, "mbarrier.arrive_drop with no expected arrivals left");
      return false;
    }
    exp -= 1;
  }
  pend -= count;
  state = pack(pend, 0, ph);
  if (pend == 0 && (c.cta->mbarTx.empty() || txOf(c, off) == 0)) {
    if (noComplete) {
      raise(c, Fault::IllegalInstruction, lane, 0, 0, false, "mbarrier arrive .noComplete would complete the phase");
      return false;
    }
    ph += 1;
    pend = exp;
  }
  word(c, off) = pack(pend, exp, ph);
  return true;
}

// Lands the copies of the pending cp.async.mbarrier.arrive records on the barrier at off (all of
// them when off == ~0u) and performs their arrivals, oldest first.
bool settleAsyncArrives(Ctx& c, uint32_t off) {
  auto& recs = c.cta->mbarArrives;
  size_t keep = 0;
  for (size_t i = 0; i < recs.size(); i++) {
    MbarArrive r = recs[i];
    if (off != ~0u && r.barOff != off) {
      recs[keep++] = r;
      continue;
    }
    Warp& w = c.cta->warps[r.warp];
    size_t k = 0;
    for (size_t j = 0; j < w.copies.size(); j++) {
      AsyncCopy& cp = w.copies[j];
      if (cp.lane == r.lane && cp.seq <= r.seq) {
        if (cp.dstOff + cp.bytes <= c.cta->shared.size()) memcpy(c.cta->shared.data() + cp.dstOff, cp.data, cp.bytes);
        if (c.san) sanLand(c, r.warp, r.lane, cp.dstOff, cp.bytes, true);
      } else {
        w.copies[k++] = cp;
      }
    }
    w.copies.resize(k);
    uint64_t state;
    if (!arrive(c, r.lane, r.barOff, 1, false, false, state)) {
      recs.clear();
      return false;
    }
  }
  recs.resize(keep);
  return true;
}

// mbarrier.init.b64 [addr], count   (s[1] = count)
void initOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  if (!barriers(c, in, exec, true, off)) return;
  const uint64_t* n = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint64_t count = (uint32_t)n[l];
    if (count < 1 || count > kCountMask) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "mbarrier.init count must be in [1, 2^20 - 1], got " + std::to_string(count));
      return;
    }
    word(c, off[l]) = pack(count, count, 0);
    dropTx(c, off[l]);
  }
}

// mbarrier.inval.b64 [addr]: the object is plain memory again (zeroed here).
void invalOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  if (!barriers(c, in, exec, true, off)) return;
  FOR_LANES(exec) {
    word(c, off[l]) = 0;
    dropTx(c, off[l]);
  }
}

// mbarrier.arrive{_drop}{.noComplete}.b64 state, [addr]{, count}: mode bit 1 drop, bit 2
// noComplete; s[1] = count slot (0: one arrival).
// Runs f with c.cta set to the CTA holding the mbarrier (another CTA of the cluster for a remote
// arrival); a fault keeps naming the executing CTA.
template <class F> bool onCta(Ctx& c, Cta* target, F f) {
  if (!target) return f();
  Cta* self = c.cta;
  c.cta = target;
  bool ok = f();
  c.cta = self;
  if (c.faulted) {
    for (int i = 0; i < 3; i++) c.fault.ctaid[i] = self->ctaid[i];
    c.fault.detail += " (the mbarrier of cluster rank " + std::to_string(target->rank) + ")";
  }
  return ok;
}

void arriveOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  Cta* remote[kWarp];
  if (!barriers(c, in, exec, true, off, remote)) return;
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* n = in.s[1] ? slot(c, in.s[1]) : nullptr;
  FOR_LANES(exec) {
    uint64_t count = n ? (uint32_t)n[l] : 1;
    if (count < 1 || count > kCountMask) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "mbarrier arrive count must be in [1, 2^20 - 1]");
      return;
    }
    uint64_t state;
    if (!onCta(c, remote[l], [&] { return arrive(c, (int)l, off[l], count, in.mode & 1, in.mode & 2, state); })) return;
    d[l] = state;
  }
}

// mbarrier.test_wait{.parity}.b64 / try_wait{.parity}.b64 waitComplete, [addr], state|parity.
// try_wait may suspend the thread for a system-dependent time limit; the sim's limit is zero, so
// it answers at once as test_wait does (callers loop on it either way).
void testWaitOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  if (!barriers(c, in, exec, false, off)) return;
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* s = slot(c, in.s[1]);
  FOR_LANES(exec) {
    if (!c.cta->mbarArrives.empty() && !settleAsyncArrives(c, off[l])) return;
    if (!c.cta->bulkCopies.empty() && !settleBulkCopies(c, off[l])) return;
    if (!c.cta->tmem.commits.empty() && !settleTcgen05Commits(c, off[l])) return;
    uint64_t ph = phase(word(c, off[l]));
    if (in.mode == 1) d[l] = (ph & 1) != (s[l] & 1);          // .parity: that parity's phase is over
    else d[l] = ((ph - phase(s[l])) & kPhaseMask) != 0;         // state: its phase is over
    if (c.san && d[l]) sanAcquireAll(c, l);
  }
}

// mbarrier.expect_tx / complete_tx.b64 [addr], txCount (mode 0 expect, 1 complete), and
// mbarrier.arrive.expect_tx.b64 state, [addr], txCount (expect, then one arrival).
void txOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  Cta* remote[kWarp];
  if (!barriers(c, in, exec, true, off, remote)) return;
  const uint64_t* n = slot(c, in.s[1]);
  uint64_t* d = slot(c, in.d[0]);
  FOR_LANES(exec) {
    int64_t tx = (uint32_t)n[l];
    if (tx > kTxLimit) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "mbarrier txCount must be in [0, 2^20 - 1], got " + std::to_string(tx));
      return;
    }
    if (!onCta(c, remote[l], [&] { return mbarrierTx(c, (int)l, off[l], in.mode == 1 ? -tx : tx); })) return;
    if (in.mode == 2) {
      uint64_t state;
      if (!onCta(c, remote[l], [&] { return arrive(c, (int)l, off[l], 1, false, false, state); })) return;
      d[l] = state;
    }
  }
}

// mbarrier.pending_count.b64 count, state
void pendingCountOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* s = slot(c, in.s[0]);
  FOR_LANES(exec) d[l] = (uint32_t)pending(s[l]);
}

// cp.async.mbarrier.arrive{.noinc}.b64 [addr]: without .noinc the pending count goes up by one
// now (the later arrival cancels it); the arrival itself waits for the lane's earlier copies.
void cpArriveOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint32_t off[kWarp];
  if (!barriers(c, in, exec, true, off)) return;
  Warp& w = *c.w;
  FOR_LANES(exec) {
    if (!(in.mode & 1)) {
      uint64_t v = word(c, off[l]);
      if (pending(v) == kCountMask) {
        raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "cp.async.mbarrier.arrive: the pending count would overflow");
        return;
      }
      word(c, off[l]) = pack(pending(v) + 1, expected(v), phase(v));
    }
    c.cta->mbarArrives.push_back({off[l], w.copySeq, (uint16_t)w.id, (uint8_t)l});
  }
}

bool addrOperand(Decoder& dc, const Stmt& st, const Operand& o, Inst& in) {
  uint8_t sym;
  if (!dc.addr(o, in.s[0], in.imm, sym)) return false;
  in.space = st.has("shared") || st.has("shared::cta") ? kShared : st.has("shared::cluster") ? kSharedCluster : kGeneric;
  return true;
}

bool checkCommon(Decoder& dc, const Stmt& st) {
  if (st.type() != Ty::B64) return dc.fail("mbarrier operations are .b64");
  return true;
}

bool mbarrierDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!checkCommon(dc, st)) return false;
  in.cls = kSync;
  const auto& o = st.ops;
  if (st.has("init")) {
    if (o.size() != 2) return dc.fail("expected mbarrier.init.b64 [addr], count");
    if (!addrOperand(dc, st, o[0], in)) return false;
    in.s[1] = dc.src(o[1], Ty::U32);
    in.fn = &initOp;
    return true;
  }
  if (st.has("inval")) {
    if (o.size() != 1) return dc.fail("expected mbarrier.inval.b64 [addr]");
    if (!addrOperand(dc, st, o[0], in)) return false;
    in.fn = &invalOp;
    return true;
  }
  if (st.has("expect_tx") || st.has("complete_tx")) {
    bool arr = st.has("arrive");
    if (st.has("arrive_drop") || st.has("noComplete") || (st.has("expect_tx") && st.has("complete_tx")))
      return dc.fail("expected mbarrier{.arrive}.expect_tx or mbarrier.complete_tx");
    if (arr && st.has("complete_tx")) return dc.fail("mbarrier.arrive.complete_tx is not a PTX form");
    if (o.size() != (arr ? 3u : 2u)) return dc.fail(arr ? "expected mbarrier.arrive.expect_tx.b64 state, [addr], txCount" : "expected mbarrier.{expect,complete}_tx.b64 [addr], txCount");
    if (arr) in.d[0] = dc.dst(o[0]);
    if (!addrOperand(dc, st, o[arr ? 1 : 0], in)) return false;
    in.s[1] = dc.src(o[arr ? 2 : 1], Ty::U32);
    in.mode = arr ? 2 : st.has("complete_tx") ? 1 : 0;
    in.fn = &txOp;
    return true;
  }
  if (st.has("arrive") || st.has("arrive_drop")) {
    if (o.size() != 2 && o.size() != 3) return dc.fail("expected mbarrier.arrive.b64 state, [addr]{, count}");
    if (st.has("noComplete") && o.size() != 3) return dc.fail(".noComplete needs a count");
    in.d[0] = dc.dst(o[0]);
    if (!addrOperand(dc, st, o[1], in)) return false;
    if (o.size() == 3) in.s[1] = dc.src(o[2], Ty::U32);
    in.mode = (st.has("arrive_drop") ? 1 : 0) | (st.has("noComplete") ? 2 : 0);
    in.fn = &arriveOp;
    return true;
  }
  if (st.has("test_wait") || st.has("try_wait")) {
    if (o.size() != 3 && !(st.has("try_wait") && o.size() == 4)) return dc.fail("expected mbarrier.test_wait.b64 waitComplete, [addr], state");
    in.d[0] = dc.dst(o[0]);
    if (!addrOperand(dc, st, o[1], in)) return false;
    in.mode = st.has("parity") ? 1 : 0;
    in.s[1] = dc.src(o[2], in.mode ? Ty::U32 : Ty::B64);
    if (o.size() == 4) in.s[2] = dc.src(o[3], Ty::U32);  // suspendTimeHint: read, no effect
    in.fn = &testWaitOp;
    return true;
  }
  if (st.has("pending_count")) {
    if (o.size() != 2) return dc.fail("expected mbarrier.pending_count.b64 count, state");
    in.cls = kIntAlu;
    in.d[0] = dc.dst(o[0]);
    in.s[0] = dc.src(o[1], Ty::B64);
    in.fn = &pendingCountOp;
    return true;
  }
  return dc.fail("expected init, inval, arrive, arrive_drop, test_wait, try_wait or pending_count");
}

}  // namespace

bool mbarrierTx(Ctx& c, int lane, uint32_t off, int64_t delta) {
  int64_t& tx = txOf(c, off);
  int64_t nt = tx + delta;
  if (nt > kTxLimit || nt < -kTxLimit) {
    raise(c, Fault::IllegalInstruction, lane, 0, 0, false, "mbarrier tx-count out of range [-(2^20-1), 2^20-1] (" + std::to_string(nt) + ")");
    return false;
  }
  tx = nt;
  uint64_t v = word(c, off);
  if (nt == 0 && pending(v) == 0 && expected(v) != 0) {  // the last bytes of a phase whose arrivals are done
    word(c, off) = pack(expected(v), expected(v), phase(v) + 1);
  }
  return true;
}

bool mbarrierInitialised(const Cta& t, uint32_t off) {
  uint64_t v;
  memcpy(&v, t.shared.data() + off, 8);
  return expected(v) != 0;  // init's count is at least 1; inval and fresh memory leave 0
}

bool mbarrierArriveOne(Ctx& c, int lane, uint32_t off) {
  uint64_t state;
  return arrive(c, lane, off, 1, false, false, state);
}

bool decodeCpAsyncMbarrierArrive(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("arrive") || st.type() != Ty::B64 || st.ops.size() != 1) return dc.fail("expected cp.async.mbarrier.arrive{.noinc}.b64 [addr]");
  in.cls = kSync;
  if (!addrOperand(dc, st, st.ops[0], in)) return false;
  in.mode = st.has("noinc") ? 1 : 0;
  in.fn = &cpArriveOp;
  return true;
}

void registerMbarrierOps(DecodeTable& t) {
  addOp(t, "mbarrier", mbarrierDecode,
        "init inval arrive arrive_drop noComplete test_wait try_wait parity pending_count expect_tx complete_tx shared shared::cta shared::cluster release acquire relaxed cta cluster b64",
        "phases, pending and expected counts and tx-counts as in the ISA (a phase completes when both reach zero); try_wait answers at once (the suspend hint is read); bulk copies signalling an mbarrier land when it is tested; an arrival with none pending, an init count or tx-count out of range faults; `.shared::cluster` arrive / arrive.expect_tx / expect_tx / complete_tx reach another CTA of the cluster (exec_cluster.cpp); the other operations need the CTA's own object");
}

}  // namespace tsim
