// racecheck (shared-memory hazards between threads of a CTA, or of a cluster through distributed
// shared memory) and the sanitizers' shared parts: per-worker state, the happens-before clocks,
// hazard records and the launch report.
//
// Ordering model. Two accesses of different threads to the same shared byte, at least one a
// write (and not both atomic), are a hazard unless one is ordered before the other by:
//  - a barrier every live thread of the CTA waited at (bar.sync/barrier.sync without a count, or
//    with the count of all threads): the CTA epoch `fe` advances;
//  - a barrier some warps took part in (named barriers with counts, bar.arrive -> bar.sync): warp
//    vector clocks (wvc[b][a] >= clock of warp a at the access);
//  - within a warp (independent thread scheduling: lanes are not ordered by program order), a
//    .sync collective or bar.warp.sync over the whole warp (the warp's epoch `wse` advances) or
//    over part of it (lane vector clocks), or any CTA barrier the warp passed;
//  - a barrier.cluster phase: an access made before the thread's k-th arrival is ordered before
//    whatever a thread does after a wait that saw the phase of its own k-th (or later) arrival
//    complete; accesses between a thread's arrive and its wait are not (the only ordering between
//    threads of different CTAs besides mbarriers);
//  - a completed mbarrier wait orders everything before it, by any thread of the cluster
//    (conservatively: no false positive, and remote arrivals need no model of their own).
// cp.async destinations are "in flight" from issue to the wait that covers them: any access to
// those bytes before then is a hazard; at the wait they become a write of the issuing thread.
// Lanes of one instruction never race with each other (the hardware serialises them).
//
// Each CTA of the cluster has its own shadow (SanCta, by rank); a record names the thread by its
// rank and index, and carries the clocks of that thread's CTA, so two accesses from one CTA
// (to its own or another CTA's shared memory) are compared with that CTA's clocks.
#include <algorithm>
#include <cstdio>

#include "exec_core.h"
#include "exec_tcgen05.h"

namespace tsim {

namespace {

inline void tidXYZ(const Ctx& c, unsigned t, unsigned* xyz) {
  const unsigned* b = c.L->cfg->block;
  xyz[0] = t % b[0];
  xyz[1] = (t / b[0]) % b[1];
  xyz[2] = t / (b[0] * b[1]);
}

inline uint16_t tagged(unsigned rank, unsigned tid) { return (uint16_t)(rank << kSanRankShift | tid); }

// A record of thread tid (of the CTA being run) now.
inline SanAcc now(Ctx& c, const SanCta& s, unsigned tid, uint32_t pc, uint8_t kind) {
  SanAcc a;
  unsigned w = tid / kWarp, l = tid % kWarp;
  a.fe = s.fe;
  a.wclk = s.wclk[w];
  a.wse = s.warps[w].wse;
  a.lclk = s.warps[w].lclk[l];
  a.pc = pc;
  a.stamp = c.san->stamp;
  a.ca = s.clArr[tid];
  a.tid = tagged(c.cta->rank, tid);
  a.kind = kind;
  a.valid = 1;
  return a;
}

// Made in the cluster being run (not left over from an earlier one on this worker), whose epochs
// start at base?
inline bool live(uint32_t base, const SanAcc& p) { return p.valid && p.fe >= base; }

// Is access p (earlier) ordered before the current point of thread b of the CTA of rank rb (whose
// state is B)?
inline bool ordered(const SanCta& B, const SanAcc& p, unsigned rb, unsigned b) {
  if (p.kind == kSanLanded) return true;
  if ((unsigned)(p.tid >> kSanRankShift) == rb) {  // a thread of the same CTA: its clocks first
    unsigned pt = p.tid & kSanTidMask;
    if (pt == b || p.fe < B.fe) return true;
    unsigned wa = pt / kWarp, wb = b / kWarp;
    if (wa != wb) {
      if (B.wvc[(size_t)wb * B.nwarps + wa] >= p.wclk) return true;
    } else {
      const SanWarp& w = B.warps[wa];
      if (p.wse < w.wse || w.lvc[b % kWarp][pt % kWarp] >= p.lclk) return true;
    }
  }
  return p.ca < B.clWait[b] || p.stamp < B.acq[b];  // barrier.cluster, a completed mbarrier wait
}

// Records are made once per access (a lane of one instruction instance, `stamp`) and copied
// whole, so two cells holding records of the same instances are in the same state.
// A cell's state in brief (the instances of its two records), to compare without copying cells.
struct CellKey {
  uint32_t ws, rs;
  uint16_t wt, rt;
  uint8_t wv, wk, rv, rk;
  bool operator==(const CellKey& o) const {
    return ws == o.ws && rs == o.rs && wt == o.wt && rt == o.rt && wv == o.wv && wk == o.wk && rv == o.rv && rk == o.rk;
  }
};
inline CellKey keyOf(const SanCell& c) { return {c.w.stamp, c.r.stamp, c.w.tid, c.r.tid, c.w.valid, c.w.kind, c.r.valid, c.r.kind}; }

const char* accName(uint8_t kind, bool write) {
  if (kind == kSanAsync) return "cp.async write";
  if (kind == kSanAtomic) return "atomic";
  return write ? "write" : "read";
}

// Where a record's access was made: its thread and CTA (any CTA of the cluster).
std::string whereRec(Ctx& c, const SanAcc& p) {
  unsigned rank = p.tid >> kSanRankShift, t[3];
  tidXYZ(c, p.tid & kSanTidMask, t);
  const Cta& cta = rank < c.cta->cluster->size ? c.cta->cluster->ctas[rank] : *c.cta;
  char buf[160];
  std::snprintf(buf, sizeof buf, "at PTX line %d by thread (%u,%u,%u) CTA (%u,%u,%u)", c.prog->code[p.pc].line, t[0], t[1],
                t[2], cta.ctaid[0], cta.ctaid[1], cta.ctaid[2]);
  return buf;
}

// The in-flight wgmma whose operands include a byte of [o, o + bytes) of t, if any.
const SanCta::WgRead* wgReader(const SanCta& t, uint64_t o, unsigned bytes) {
  if (o + bytes > t.wgCount.size()) return nullptr;
  for (unsigned k = 0; k < bytes; k++) {
    if (!t.wgCount[o + k]) continue;
    for (auto& r : t.wgReads)
      if (std::binary_search(r.bytes.begin(), r.bytes.end(), (uint32_t)(o + k))) return &r;
  }
  return nullptr;
}

// A write (described by `what`, e.g. "4-byte write at PTX line ...") to the operands of wgmma r.
void wgHazard(Ctx& c, const SanCta::WgRead& r, uint64_t o, unsigned bytes, unsigned trank, uint32_t pc,
              const std::string& what) {
  SanAcc p;
  p.tid = r.tid;
  p.pc = r.pc;
  char head[200];
  std::snprintf(head, sizeof head, "write-after-read hazard on shared memory [0x%llx, +%u)%s: ", (unsigned long long)o,
                bytes, trank == c.cta->rank ? "" : (" of cluster rank " + std::to_string(trank)).c_str());
  sanRecord(c, 0, 5, r.pc, pc,
            std::string(head) + what +
                (r.tcgen05 == 2 ? " conflicts with tcgen05.cp source read " : r.tcgen05 ? " conflicts with tcgen05.mma operand read " : " conflicts with wgmma operand read ") +
                whereRec(c, p) +
                (r.tcgen05 ? ", before the tcgen05.commit that covers it has arrived on its mbarrier" : ", before the wgmma.wait_group that covers it"));
}

}  // namespace

namespace {

// sanWgmmaIssue, for bytes of `owner`'s shared memory (the issuer's, or the peer CTA's operand
// half of a tcgen05.mma.cta_group::2), recorded under id (0: a new one).
uint32_t wgIssue(Ctx& c, std::vector<uint32_t>&& bytes, unsigned tcgen05, unsigned lane, Cta* owner, uint32_t id) {
  SanState& S = *c.san;
  SanCta& s = S.ranks[owner->rank];
  if (s.wgCount.size() < s.cells.size()) s.wgCount.assign(s.cells.size(), 0);
  std::sort(bytes.begin(), bytes.end());
  bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
  while (!bytes.empty() && bytes.back() >= s.wgCount.size()) bytes.pop_back();  // out of bounds: faults at the wait
  for (uint32_t b : bytes) s.wgCount[b]++;
  // A TMA or bulk copy into this CTA lands when a thread tests its mbarrier (exec_mbarrier.cpp):
  // one still pending here writes bytes the MMA reads, with no wait in between. The MMA would read
  // the old bytes on the sim (a wrong result); report it too.
  for (const BulkCopy& bc : owner->bulkCopies) {
    if (bc.clcFailed || bc.data.empty()) continue;
    const uint32_t lo = bc.dstOff, hi = bc.dstOff + (uint32_t)bc.data.size();
    auto it = std::lower_bound(bytes.begin(), bytes.end(), lo);
    if (it == bytes.end() || *it >= hi) continue;
    char head[160];
    std::snprintf(head, sizeof head, "read-after-write hazard on shared memory 0x%x%s: ", *it,
                  owner == c.cta ? "" : (" of cluster rank " + std::to_string(owner->rank) + " (the peer CTA's operand half)").c_str());
    sanRecord(c, 0, 21, c.curPc, c.curPc,
              std::string(head) + (tcgen05 ? "tcgen05.mma " : "wgmma.mma_async ") + sanWhere(c, c.w->id * kWarp + lane, c.curPc) +
                  " reads an operand that an asynchronous copy (TMA / cp.async.bulk) still in flight writes: its mbarrier "
                  "(at shared 0x" + [&] { char b[16]; std::snprintf(b, sizeof b, "%x", bc.barOff); return std::string(b); }() +
                  ") was not waited on before the MMA was issued");
    break;
  }
  if (!id) id = ++S.wgId ? S.wgId : ++S.wgId;
  s.wgReads.push_back({id, c.curPc, tagged(c.cta->rank, c.w->id * kWarp + lane), std::move(bytes), (uint8_t)tcgen05});
  return id;
}

}  // namespace

uint32_t sanWgmmaIssue(Ctx& c, std::vector<uint32_t>&& bytes, unsigned tcgen05, unsigned lane) {
  return wgIssue(c, std::move(bytes), tcgen05, lane, c.cta, 0);
}

// exec_tcgen05.h: the peer CTA's operand half of a pair MMA, under the issuer's record id (ids are
// unique across the cluster, and each CTA keeps its own records)
void sanTcgen05PeerIssue(Ctx& c, uint32_t id, std::vector<uint32_t>&& bytes, unsigned lane, Cta* peer) {
  wgIssue(c, std::move(bytes), 1, lane, peer, id);
}
void sanTcgen05PeerDone(Ctx& c, uint32_t id, Cta* peer) {
  Cta* self = c.cta;
  c.cta = peer;
  sanWgmmaDone(c, id);
  c.cta = self;
}

void sanWgmmaDone(Ctx& c, uint32_t id) {
  SanCta& s = sanCta(c);
  for (size_t i = 0; i < s.wgReads.size(); i++) {
    if (s.wgReads[i].id != id) continue;
    for (uint32_t b : s.wgReads[i].bytes) s.wgCount[b]--;
    s.wgReads.erase(s.wgReads.begin() + (long)i);
    return;
  }
}

SanCta& sanCta(Ctx& c) { return c.san->ranks[c.cta->rank]; }

std::string sanWhere(Ctx& c, unsigned tid, uint32_t pc) {
  SanAcc p;
  p.tid = tagged(c.cta->rank, tid);
  p.pc = pc;
  return whereRec(c, p);
}

void sanRecord(Ctx& c, int checker, int kind, uint32_t pc1, uint32_t pc2, const std::string& text) {
  SanState& s = *c.san;
  s.total++;
  SanHazard& h = s.hazards[std::make_tuple(checker, kind, pc1, pc2)];
  if (!h.count++) h.text = text;
}

void sanBeginCta(Ctx& c, Cta& cta, unsigned sharedBytes) {
  SanState& S = *c.san;
  if (S.ranks.size() <= cta.rank) S.ranks.resize(cta.rank + 1);
  if (cta.rank == 0) {
    // A new cluster starts a new epoch, common to its CTAs: every record of an earlier cluster is
    // older than it. The cluster-wide stamp starts over (records are compared only within one).
    uint32_t base = 0;
    for (auto& r : S.ranks) base = std::max(base, r.fe);
    S.ctaStartFe = base + 1;
    S.stamp = 0;
  }
  SanCta& s = S.ranks[cta.rank];
  unsigned nthreads = cta.nthreads, nwarps = (nthreads + kWarp - 1) / kWarp;
  if (s.nthreads != nthreads || s.cells.size() < sharedBytes) {
    s.nthreads = nthreads;
    s.nwarps = nwarps;
    s.cells.assign(sharedBytes, SanCell{});
    s.warps.assign(nwarps, SanWarp{});
    for (auto& w : s.warps) {
      std::fill(std::begin(w.lclk), std::end(w.lclk), 1u);
      for (auto& row : w.lvc) std::fill(std::begin(row), std::end(row), 0u);
    }
    s.wclk.assign(nwarps, 1);
    s.wvc.assign((size_t)nwarps * nwarps, 0);
  }
  s.fe = S.ctaStartFe;
  s.clArr.assign(nthreads, 0);
  s.clWait.assign(nthreads, 0);
  s.acq.assign(nthreads, 0);
  s.wgReads.clear();  // ops left in flight by the previous CTA
  s.wgCount.clear();
  s.genGlobal.clear();  // the previous CTA's generic writes (another CTA's are not tracked)
  for (auto& b : s.bars) b = SanCta::Bar{};
}

void sanClusterArrive(Ctx& c, uint32_t lanes, uint32_t arrival) {
  SanCta& s = sanCta(c);
  FOR_LANES(lanes) {
    unsigned t = c.w->id * kWarp + l;
    if (t < s.clArr.size()) s.clArr[t] = arrival;
  }
}

void sanClusterWait(Ctx& c, const Cta& cta, unsigned warp, unsigned lane, uint32_t arrival) {
  if (cta.rank >= c.san->ranks.size()) return;
  SanCta& s = c.san->ranks[cta.rank];
  unsigned t = warp * kWarp + lane;
  if (t < s.clWait.size()) s.clWait[t] = std::max(s.clWait[t], arrival);
}

void sanMerge(Launch& L, SanState& s) {
  for (auto& [k, h] : s.hazards) {
    SanHazard& d = L.hazards[k];
    if (!d.count) d.text = h.text;
    d.count += h.count;
  }
  L.hazardCount += s.total;
}

std::string sanReport(const Launch& L) {
  if (L.hazards.empty()) return "";
  static const char* names[] = {"racecheck", "synccheck", "initcheck"};
  uint64_t per[3] = {0, 0, 0}, distinct[3] = {0, 0, 0};
  for (auto& [k, h] : L.hazards) {
    per[std::get<0>(k)] += h.count;
    distinct[std::get<0>(k)]++;
  }
  int first = std::get<0>(L.hazards.begin()->first);
  std::string out = "tessera-sim: " + std::string(names[first]) + " hazard in kernel '" + L.fn->name + "': " +
                    L.hazards.begin()->second.text;
  char buf[256];
  std::string counts;
  for (int i = 0; i < 3; i++) {
    if (!per[i]) continue;
    std::snprintf(buf, sizeof buf, "%s%s %llu hazard%s (%llu distinct)", counts.empty() ? "" : ", ", names[i],
                  (unsigned long long)per[i], per[i] == 1 ? "" : "s", (unsigned long long)distinct[i]);
    counts += buf;
  }
  out += "\n  " + counts + ":";
  for (auto& [k, h] : L.hazards) {
    std::snprintf(buf, sizeof buf, "\n  %s x%llu: ", names[std::get<0>(k)], (unsigned long long)h.count);
    out += buf + h.text;
  }
  return out;
}

void sanFlush(Ctx& c) {
  SanState& s = *c.san;
  for (auto& p : s.pending) {
    const auto& sh = p.cta->shared;
    if (p.off + p.bytes <= sh.size() && memcmp(sh.data() + p.off, p.old, p.bytes) != 0)
      sanRecord(c, 0, 1, p.pc1, p.pc2, p.text);
  }
  s.pending.clear();
}

void sanShared(Ctx& c, const Inst& in, uint32_t lanes, const uint64_t* addr, unsigned bytes, bool write) {
  SanState& S = *c.san;
  if (!S.pending.empty()) sanFlush(c);
  bool race = S.flags & kSanRace, init = S.flags & kSanInit;
  if (!race && !init) return;
  uint8_t kind = (in.flags & kfSanAtomic) ? kSanAtomic : (in.flags & kfSanAsync) ? kSanAsync : kSanPlain;
  const unsigned wid = c.w->id, rank = c.cta->rank;
  SanCta& self = S.ranks[rank];
  Cluster& cl = *c.cta->cluster;
  const uint32_t stamp = ++S.stamp, base = S.ctaStartFe;
  uint32_t pc = c.curPc;
  FOR_LANES(lanes) {
    unsigned tid = wid * kWarp + l;
    // the CTA whose shared memory this is: the address's rank tag (mapa), else the own CTA
    uint64_t tag = addr[l] >> kClusterRankShift;
    unsigned trank = tag ? (unsigned)tag - 1 : rank;
    if (tag && (trank >= S.ranks.size() || trank >= cl.size)) continue;
    SanCta& t = tag ? S.ranks[trank] : self;
    Cta* tcta = tag ? &cl.ctas[trank] : c.cta;
    uint64_t o = addr[l] & ((1ull << kClusterRankShift) - 1);
    if (o + bytes > t.cells.size()) continue;
    const char* whose = trank == rank ? "this CTA" : "the cluster";
    auto uninitText = [&] {
      char head[200];
      std::snprintf(head, sizeof head, "read of uninitialised shared memory [0x%llx, +%u)%s: ", (unsigned long long)o,
                    bytes, trank == rank ? "" : (" of cluster rank " + std::to_string(trank)).c_str());
      return std::string(head) + std::to_string(bytes) + "-byte read " + sanWhere(c, tid, pc) + " of bytes no thread of " +
             whose + " has written";
    };
    if (!race) {  // initcheck alone: only whether a thread of the cluster wrote the bytes
      if (write) {
        const SanAcc me = now(c, self, tid, pc, kind);
        for (unsigned k = 0; k < bytes; k++) t.cells[o + k].w = me;
        continue;
      }
      bool uninit = false;
      for (unsigned k = 0; k < bytes; k++) uninit |= !live(base, t.cells[o + k].w);
      if (uninit) sanRecord(c, 2, 1, pc, pc, uninitText());
      continue;
    }
    const SanAcc me = now(c, self, tid, pc, kind);
    if (write && !t.wgReads.empty())
      if (const SanCta::WgRead* r = wgReader(t, o, bytes))
        wgHazard(c, *r, o, bytes, trank, pc, std::to_string(bytes) + "-byte " + accName(kind, true) + " " + sanWhere(c, tid, pc));
    bool reported = false, uninit = false;
    // byte 0's state before the access: a later byte in the same state ends as byte 0 did
    const CellKey firstPre = keyOf(t.cells[o]);
    for (unsigned k = 0; k < bytes; k++) {
      SanCell& cell = t.cells[o + k];
      if (k && keyOf(cell) == firstPre) {
        cell = t.cells[o];
        continue;
      }
      if (!reported) {
        const SanAcc* other = nullptr;
        int hk = 0;
        bool otherWrite = false;
        if (live(base, cell.w) && cell.w.stamp != stamp) {
          if (cell.w.kind == kSanAsync && kind != kSanAsync) {
            other = &cell.w; hk = write ? 4 : 3; otherWrite = true;  // cp.async destination used before its wait
          } else if (!(cell.w.kind == kSanAtomic && kind == kSanAtomic) && !ordered(self, cell.w, rank, tid)) {
            other = &cell.w; hk = write ? 1 : 0; otherWrite = true;  // W->W, W->R
          }
        }
        if (!other && write && live(base, cell.r) && cell.r.stamp != stamp &&
            !(cell.r.kind == kSanAtomic && kind == kSanAtomic) && !ordered(self, cell.r, rank, tid)) {
          other = &cell.r; hk = 2;  // R->W
        }
        if (other) {
          static const char* kinds[] = {"read-after-write", "write-after-write", "write-after-read",
                                        "read of a cp.async destination before the wait that covers it",
                                        "overwrite of a cp.async destination before the wait that covers it"};
          char head[240];
          std::snprintf(head, sizeof head, "%s hazard on shared memory [0x%llx, +%u)%s: ", kinds[hk],
                        (unsigned long long)o, bytes,
                        trank == rank && (other->tid >> kSanRankShift) == rank
                            ? ""
                            : (" of cluster rank " + std::to_string(trank)).c_str());
          std::string text = std::string(head) + std::to_string(bytes) + "-byte " + accName(kind, write) + " " +
                             sanWhere(c, tid, pc) + " conflicts with " + accName(other->kind, otherWrite) + " " +
                             whereRec(c, *other) +
                             (hk >= 3 ? "" : ", with no barrier or .sync between them");
          if (hk == 1 && kind == kSanPlain && bytes <= 16 && o + bytes <= tcta->shared.size()) {
            SanState::PendingWaw p{tcta, (uint32_t)o, other->pc, pc, (uint8_t)bytes, {}, text};
            memcpy(p.old, tcta->shared.data() + o, bytes);
            S.pending.push_back(std::move(p));
          } else {
            sanRecord(c, 0, hk, other->pc, pc, text);
          }
          reported = true;
        }
      }
      if (init && !write && !live(base, cell.w)) uninit = true;
      if (write) {
        cell.w = me;
        cell.r.valid = 0;
      } else if (!live(base, cell.r) || ordered(self, cell.r, rank, tid)) {
        cell.r = me;
      }
    }
    if (uninit) sanRecord(c, 2, 1, pc, pc, uninitText());
  }
}

void sanLand(Ctx& c, unsigned warp, unsigned lane, uint32_t off, unsigned bytes, bool viaMbarrier) {
  SanState& S = *c.san;
  if (!(S.flags & (kSanRace | kSanInit))) return;
  if (!S.pending.empty()) sanFlush(c);
  SanCta& s = sanCta(c);
  unsigned tid = warp * kWarp + lane;
  if (off + bytes > s.cells.size() || warp >= s.nwarps) return;
  S.stamp++;
  SanAcc a = now(c, s, tid, c.curPc, viaMbarrier ? kSanLanded : kSanPlain);
  for (unsigned k = 0; k < bytes; k++) {
    SanCell& cell = s.cells[off + k];
    if (cell.w.valid && cell.w.kind == kSanAsync && cell.w.tid == a.tid) {
      a.pc = cell.w.pc;  // the copy's own instruction
      cell.w = a;
      cell.r.valid = 0;
    }
  }
}

// Bytes the async proxy writes (cp.async.bulk, TMA loads) as they land, when the mbarrier that
// tracks them completes: written (initcheck) and ordered before every later access, since a reader
// either waited on that mbarrier or reads stale data (the sim lands them only then).
void sanBulkLand(Ctx& c, uint32_t off, unsigned bytes) {
  SanState& S = *c.san;
  if (!(S.flags & (kSanRace | kSanInit))) return;
  if (!S.pending.empty()) sanFlush(c);
  SanCta& s = sanCta(c);
  if (off >= s.cells.size()) return;
  bytes = (unsigned)std::min<uint64_t>(bytes, s.cells.size() - off);
  unsigned tid = c.w && c.w->id < s.nwarps ? c.w->id * kWarp : 0;
  if ((S.flags & kSanRace) && !s.wgReads.empty())
    if (const SanCta::WgRead* r = wgReader(s, off, bytes))
      wgHazard(c, *r, off, bytes, c.cta->rank, c.curPc,
               std::to_string(bytes) + "-byte async-proxy write (cp.async.bulk/TMA landing, at the mbarrier test) " +
                   sanWhere(c, tid, c.curPc));
  S.stamp++;
  SanAcc a = now(c, s, tid, c.curPc, kSanLanded);
  for (unsigned k = 0; k < bytes; k++) {
    s.cells[off + k].w = a;
    s.cells[off + k].r.valid = 0;
  }
}

void sanAcquireAll(Ctx& c, unsigned lane) {
  SanState& S = *c.san;
  if (!(S.flags & kSanRace)) return;
  SanCta& s = sanCta(c);
  unsigned wb = c.w->id;
  for (unsigned wa = 0; wa < s.nwarps; wa++) {
    uint32_t& v = s.wvc[(size_t)wb * s.nwarps + wa];
    v = std::max(v, s.wclk[wa]);
    s.wclk[wa]++;
  }
  SanWarp& w = s.warps[wb];
  for (unsigned a = 0; a < (unsigned)kWarp; a++) {
    w.lvc[lane][a] = std::max(w.lvc[lane][a], w.lclk[a]);
    w.lclk[a]++;
  }
  // accesses of other CTAs of the cluster: everything stamped so far
  unsigned t = wb * kWarp + lane;
  if (t < s.acq.size()) s.acq[t] = S.stamp + 1;
  S.stamp++;
}

// Lanes of each ready group meet: join their lane clocks (a whole warp: the warp's epoch).
void sanWarpSyncRace(Ctx& c, uint32_t ready, const uint32_t* grp) {
  SanCta& s = sanCta(c);
  Warp& w = *c.w;
  SanWarp& sw = s.warps[w.id];
  uint32_t done = 0;
  FOR_LANES(ready) {
    if (done >> l & 1) continue;
    uint32_t g = grp[l] & ready;
    g |= 1u << l;
    done |= g;
    if ((g & w.live) == w.live) {
      sw.wse++;
      continue;
    }
    uint32_t J[kWarp] = {};
    FOR_LANES_J(g, a) {
      for (unsigned k = 0; k < (unsigned)kWarp; k++) J[k] = std::max(J[k], sw.lvc[a][k]);
      J[a] = std::max(J[a], sw.lclk[a]);
    }
    FOR_LANES_J(g, a) {
      std::copy(J, J + kWarp, sw.lvc[a]);
      sw.lclk[a]++;
    }
  }
}

}  // namespace tsim
