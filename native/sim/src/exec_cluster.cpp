// Thread-block clusters: barrier.cluster, mapa and distributed shared memory (.shared::cluster).
// The CTAs of a cluster run together on one worker thread (exec_launch.cpp runCluster), so the
// cluster barrier is a phase counter over the lanes of every CTA of the cluster.
//
// shared::cluster addresses: an address below 1 << kClusterRankShift is a shared::cta offset of
// the executing CTA (the shared::cta window is part of the shared::cluster window); mapa yields
// (rank + 1) << kClusterRankShift | offset, the offset in the shared memory of the CTA of that
// rank. Generic addresses of either form are kSharedWindow + the shared::cluster address.
#include <algorithm>

#include "exec_core.h"
#include "sanitize.h"

namespace tsim {

namespace {

inline void advanceWarp(Warp& w) {
  w.pc++;
  if (w.pc >= w.nextPc) reschedule(w);
}

// barrier.cluster.arrive: mode 1; barrier.cluster.wait: mode 0.
void clusterArriveOp(Ctx& c, const Inst&, uint32_t exec) {
  Warp& w = *c.w;
  Cluster& cl = *c.cta->cluster;
  FOR_LANES(exec) {
    if (w.clArr[l]) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            "barrier.cluster.arrive again before barrier.cluster.wait completed the previous arrival");
      return;
    }
    w.clArr[l] = cl.phase + 1;
  }
  if (c.san) sanClusterArrive(c, exec, cl.phase + 1);
  advanceWarp(w);
}

void clusterWaitOp(Ctx& c, const Inst&, uint32_t exec) {
  Warp& w = *c.w;
  if (!exec) return advanceWarp(w);
  Cluster& cl = *c.cta->cluster;
  uint32_t park = 0;
  FOR_LANES(exec) {
    if (!w.clArr[l]) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            "barrier.cluster.wait without a preceding barrier.cluster.arrive");
      return;
    }
    if (cl.phase >= w.clArr[l]) {  // that phase has completed
      if (c.san) sanClusterWait(c, *c.cta, w.id, l, w.clArr[l]);
      w.clArr[l] = 0;
    } else {
      park |= 1u << l;
    }
  }
  if (!park) return advanceWarp(w);
  FOR_LANES(park) {
    w.pcs[l] = w.pc + 1;
    w.barId[l] = kClusterBarId;
  }
  w.waiting |= park;
  // the lanes that do not wait go on with the next instruction
  FOR_LANES(exec & ~park) w.pcs[l] = w.pc + 1;
  w.mask &= ~park;
  w.pc++;
  reschedule(w);
}

bool clusterBarrierDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool arrive = st.has("arrive"), wait = st.has("wait");
  if (arrive == wait) return dc.fail("barrier.cluster needs exactly one of .arrive and .wait");
  for (auto& m : st.mods) {
    bool ok = m == "cluster" || m == "aligned" || (arrive && (m == "arrive" || m == "release" || m == "relaxed")) ||
              (wait && (m == "wait" || m == "acquire"));
    if (!ok) return dc.fail("modifier ." + m + " on barrier.cluster");
  }
  if (!st.ops.empty()) return dc.fail("barrier.cluster takes no operands");
  in.fn = arrive ? &clusterArriveOp : &clusterWaitOp;
  in.flags |= kfControl;
  in.cls = kSync;
  return true;
}

// mapa{.shared::cluster}.{u32,u64} d, a, b: mode 1 = shared::cluster addresses, 0 = generic.
void mapaOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t* A = slot(c, in.s[0]);
  const uint64_t* B = slot(c, in.s[1]);
  uint64_t* D = slot(c, in.d[0]);
  unsigned n = c.cta->cluster->size;
  const uint64_t low = (1ull << kClusterRankShift) - 1;
  uint64_t out[kWarp];
  FOR_LANES(exec) {
    uint64_t a = A[l];
    if (in.size == 4) a = (uint32_t)a;
    if (in.mode == 0) {
      if ((a & kWindowMask) != kSharedWindow) {
        raise(c, Fault::OutOfBounds, (int)l, a, 0, false, "mapa: not a generic address of shared memory");
        return;
      }
      a -= kSharedWindow;
    }
    uint32_t rank = (uint32_t)B[l];
    if (rank >= n) {
      raise(c, Fault::SharedOutOfBounds, (int)l, a, 0, false,
            "mapa: rank " + std::to_string(rank) + " outside the cluster of " + std::to_string(n) + " CTAs");
      return;
    }
    if ((a >> kClusterRankShift) > n) {
      raise(c, Fault::SharedOutOfBounds, (int)l, a, 0, false, "mapa: not a shared::cluster address");
      return;
    }
    uint64_t r = ((uint64_t)(rank + 1) << kClusterRankShift) | (a & low);
    out[l] = in.mode == 0 ? r + kSharedWindow : r;
  }
  FOR_LANES(exec) D[l] = in.size == 4 ? (uint32_t)out[l] : out[l];
}

bool mapaDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (t != Ty::U32 && t != Ty::U64) return dc.fail("mapa needs .u32 or .u64");
  if (st.ops.size() != 3) return dc.fail("mapa d, a, b");
  bool cluster = st.has("shared::cluster");
  if (!cluster && t != Ty::U64) return dc.fail("generic mapa needs .u64");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.s[1] = dc.src(st.ops[2], Ty::U32);
  in.size = (uint8_t)tySize(t);
  in.mode = cluster ? 1 : 0;
  in.fn = &mapaOp;
  in.cls = kIntAlu;
  return true;
}

}  // namespace

bool decodeClusterBarrier(Decoder& dc, const Stmt& st, Inst& in) { return clusterBarrierDecode(dc, st, in); }

bool releaseClusterBarrier(Ctx& c, Cluster& cl) {
  bool anyArrived = false;
  for (unsigned k = 0; k < cl.size; k++) {
    for (auto& w : cl.ctas[k].warps) {
      FOR_LANES(w.live) {
        if (w.clArr[l] != cl.phase + 1) return false;  // a non-exited thread has not arrived
        anyArrived = true;
      }
    }
  }
  if (!anyArrived) return false;
  cl.phase++;
  for (unsigned k = 0; k < cl.size; k++) {
    Cta& cta = cl.ctas[k];
    for (auto& w : cta.warps) {
      uint32_t rel = 0;
      FOR_LANES(w.waiting) if (w.barId[l] == kClusterBarId) rel |= 1u << l;
      if (!rel) continue;
      FOR_LANES(rel) {
        if (c.san) sanClusterWait(c, cta, w.id, l, w.clArr[l]);  // racecheck: the phase orders (sanitize_race.cpp)
        w.clArr[l] = 0;
      }
      w.waiting &= ~rel;
      reschedule(w);
    }
  }
  c.ctr.barriers++;
  return true;
}

uint8_t* clusterSharedPtr(Ctx& c, int lane, uint64_t addr, unsigned bytes, bool write) {
  Cluster& cl = *c.cta->cluster;
  uint64_t tag = addr >> kClusterRankShift;
  Cta* t = c.cta;
  uint64_t off = addr;
  if (tag) {
    if (tag > cl.size) {
      raise(c, Fault::SharedOutOfBounds, lane, addr, bytes, write,
            "shared::cluster address names rank " + std::to_string(tag - 1) + " of a cluster of " +
                std::to_string(cl.size) + " CTAs");
      return nullptr;
    }
    t = &cl.ctas[tag - 1];
    off = addr & ((1ull << kClusterRankShift) - 1);
  }
  if (off & (bytes - 1)) {
    raise(c, Fault::Misaligned, lane, addr, bytes, write, "access not aligned to its size");
    return nullptr;
  }
  if (t != c.cta && t->liveThreads == 0) {
    raise(c, Fault::SharedOutOfBounds, lane, addr, bytes, write,
          "distributed shared memory of cluster rank " + std::to_string(t->rank) + ", whose CTA has exited");
    return nullptr;
  }
  size_t n = t->shared.size();
  if (off >= n || off + bytes > n) {
    raise(c, Fault::SharedOutOfBounds, lane, addr, bytes, write,
          "shared window of cluster rank " + std::to_string(t->rank) + " is " + std::to_string(n) + " bytes");
    return nullptr;
  }
  return t->shared.data() + off;
}

void registerClusterOps(DecodeTable& t) {
  addOp(t, "mapa", mapaDecode, "shared::cluster u32 u64",
        "a shared::cluster address is the CTA's own shared offset, or (rank + 1) << 24 | offset as mapa "
        "makes it; generic: the shared window plus that; a rank outside the cluster faults");
}

}  // namespace tsim
