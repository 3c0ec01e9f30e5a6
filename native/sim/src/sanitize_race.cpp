// racecheck (shared-memory hazards between threads of a CTA) and the sanitizers' shared parts:
// per-worker state, the happens-before clocks, hazard records and the launch report.
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
//  - a completed mbarrier wait orders everything before it (conservatively: no false positive).
// cp.async destinations are "in flight" from issue to the wait that covers them: any access to
// those bytes before then is a hazard; at the wait they become a write of the issuing thread.
// Lanes of one instruction never race with each other (the hardware serialises them).
#include <algorithm>
#include <cstdio>

#include "exec_core.h"

namespace tsim {

namespace {

inline void tidXYZ(const Ctx& c, unsigned t, unsigned* xyz) {
  const unsigned* b = c.L->cfg->block;
  xyz[0] = t % b[0];
  xyz[1] = (t / b[0]) % b[1];
  xyz[2] = t / (b[0] * b[1]);
}

inline SanAcc now(Ctx& c, unsigned tid, uint32_t pc, uint8_t kind) {
  SanState& s = *c.san;
  SanAcc a;
  unsigned w = tid / kWarp, l = tid % kWarp;
  a.fe = s.fe;
  a.wclk = s.wclk[w];
  a.wse = s.warps[w].wse;
  a.lclk = s.warps[w].lclk[l];
  a.pc = pc;
  a.stamp = s.stamp;
  a.tid = (uint16_t)tid;
  a.kind = kind;
  a.valid = 1;
  return a;
}

// Is access p (earlier) ordered before the current point of thread b?
inline bool ordered(const SanState& s, const SanAcc& p, unsigned b) {
  if (p.tid == b || p.fe < s.fe || p.kind == kSanLanded) return true;
  unsigned wa = p.tid / kWarp, wb = b / kWarp;
  if (wa != wb) return s.wvc[(size_t)wb * s.nwarps + wa] >= p.wclk;
  const SanWarp& w = s.warps[wa];
  return p.wse < w.wse || w.lvc[b % kWarp][p.tid % kWarp] >= p.lclk;
}

// Records are made once per access (a lane of one instruction instance, `stamp`) and copied
// whole, so two cells holding records of the same instances are in the same state.
inline bool sameRecord(const SanAcc& a, const SanAcc& b) {
  return a.stamp == b.stamp && a.tid == b.tid && a.valid == b.valid && a.kind == b.kind;
}
inline bool sameState(const SanCell& a, const SanCell& b) { return sameRecord(a.w, b.w) && sameRecord(a.r, b.r); }

const char* accName(uint8_t kind, bool write) {
  if (kind == kSanAsync) return "cp.async write";
  if (kind == kSanAtomic) return "atomic";
  return write ? "write" : "read";
}

}  // namespace

std::string sanWhere(Ctx& c, unsigned tid, uint32_t pc) {
  unsigned t[3];
  tidXYZ(c, tid, t);
  char buf[160];
  std::snprintf(buf, sizeof buf, "at PTX line %d by thread (%u,%u,%u) CTA (%u,%u,%u)", c.prog->code[pc].line, t[0], t[1],
                t[2], c.cta->ctaid[0], c.cta->ctaid[1], c.cta->ctaid[2]);
  return buf;
}

void sanRecord(Ctx& c, int checker, int kind, uint32_t pc1, uint32_t pc2, const std::string& text) {
  SanState& s = *c.san;
  s.total++;
  SanHazard& h = s.hazards[std::make_tuple(checker, kind, pc1, pc2)];
  if (!h.count++) h.text = text;
}

void sanBeginCta(Ctx& c, Cta& cta, unsigned sharedBytes) {
  SanState& s = *c.san;
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
  // A new CTA starts a new epoch: every record of the previous one is ordered before it.
  s.fe++;
  s.ctaStartFe = s.fe;
  for (auto& b : s.bars) b = SanState::Bar{};
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
    if (p.off + p.bytes <= c.cta->shared.size() && memcmp(c.cta->shared.data() + p.off, p.old, p.bytes) != 0)
      sanRecord(c, 0, 1, p.pc1, p.pc2, p.text);
  }
  s.pending.clear();
}

void sanShared(Ctx& c, const Inst& in, uint32_t lanes, const uint64_t* off, unsigned bytes, bool write) {
  SanState& s = *c.san;
  if (!s.pending.empty()) sanFlush(c);
  bool race = s.flags & kSanRace, init = s.flags & kSanInit;
  if (!race && !init) return;
  uint8_t kind = (in.flags & kfSanAtomic) ? kSanAtomic : (in.flags & kfSanAsync) ? kSanAsync : kSanPlain;
  unsigned wid = c.w->id;
  s.stamp++;
  uint32_t pc = c.curPc;
  if (!race) {  // initcheck alone: only whether this CTA wrote the bytes
    FOR_LANES(lanes) {
      uint64_t o = off[l];
      if (o + bytes > s.cells.size()) continue;
      unsigned tid = wid * kWarp + l;
      if (write) {
        SanAcc me = now(c, tid, pc, kind);
        for (unsigned k = 0; k < bytes; k++) s.cells[o + k].w = me;
        continue;
      }
      bool uninit = false;
      for (unsigned k = 0; k < bytes; k++) {
        const SanAcc& w = s.cells[o + k].w;
        uninit |= !(w.valid && w.fe >= s.ctaStartFe);
      }
      if (uninit) {
        char head[160];
        std::snprintf(head, sizeof head, "read of uninitialised shared memory [0x%llx, +%u): ", (unsigned long long)o, bytes);
        sanRecord(c, 2, 1, pc, pc, std::string(head) + std::to_string(bytes) + "-byte read " + sanWhere(c, tid, pc) +
                                       " of bytes no thread of this CTA has written");
      }
    }
    return;
  }
  FOR_LANES(lanes) {
    unsigned tid = wid * kWarp + l;
    uint64_t o = off[l];
    if (o + bytes > s.cells.size()) continue;
    SanAcc me = now(c, tid, pc, kind);
    bool reported = false, uninit = false;
    SanCell firstPre, firstPost;  // byte 0 before and after: later bytes in the same state end the same
    for (unsigned k = 0; k < bytes; k++) {
      SanCell& cell = s.cells[o + k];
      if (k && sameState(cell, firstPre)) {
        cell = firstPost;
        continue;
      }
      if (!k) firstPre = cell;
      if (race && !reported) {
        const SanAcc* other = nullptr;
        int hk = 0;
        bool otherWrite = false;
        if (cell.w.valid && cell.w.fe >= s.ctaStartFe && cell.w.stamp != s.stamp) {
          if (cell.w.kind == kSanAsync && kind != kSanAsync) {
            other = &cell.w; hk = write ? 4 : 3; otherWrite = true;  // cp.async destination used before its wait
          } else if (!(cell.w.kind == kSanAtomic && kind == kSanAtomic) && !ordered(s, cell.w, tid)) {
            other = &cell.w; hk = write ? 1 : 0; otherWrite = true;  // W->W, W->R
          }
        }
        if (!other && write && cell.r.valid && cell.r.stamp != s.stamp &&
            !(cell.r.kind == kSanAtomic && kind == kSanAtomic) && !ordered(s, cell.r, tid)) {
          other = &cell.r; hk = 2;  // R->W
        }
        if (other) {
          static const char* kinds[] = {"read-after-write", "write-after-write", "write-after-read",
                                        "read of a cp.async destination before the wait that covers it",
                                        "overwrite of a cp.async destination before the wait that covers it"};
          char head[200];
          std::snprintf(head, sizeof head, "%s hazard on shared memory [0x%llx, +%u): ", kinds[hk],
                        (unsigned long long)o, bytes);
          std::string text = std::string(head) + std::to_string(bytes) + "-byte " + accName(kind, write) + " " +
                             sanWhere(c, tid, pc) + " conflicts with " + accName(other->kind, otherWrite) + " " +
                             sanWhere(c, other->tid, other->pc) +
                             (hk >= 3 ? "" : ", with no barrier or .sync between them");
          if (hk == 1 && kind == kSanPlain && bytes <= 16 && o + bytes <= c.cta->shared.size()) {
            SanState::PendingWaw p{(uint32_t)o, other->pc, pc, (uint8_t)bytes, {}, text};
            memcpy(p.old, c.cta->shared.data() + o, bytes);
            s.pending.push_back(std::move(p));
          } else {
            sanRecord(c, 0, hk, other->pc, pc, text);
          }
          reported = true;
        }
      }
      if (init && !write && !(cell.w.valid && cell.w.fe >= s.ctaStartFe)) uninit = true;
      if (write) {
        cell.w = me;
        cell.r.valid = 0;
      } else if (!cell.r.valid || cell.r.fe < s.ctaStartFe || ordered(s, cell.r, tid)) {
        cell.r = me;
      }
      if (!k) firstPost = cell;
    }
    if (uninit) {
      char head[160];
      std::snprintf(head, sizeof head, "read of uninitialised shared memory [0x%llx, +%u): ", (unsigned long long)o, bytes);
      sanRecord(c, 2, 1, pc, pc, std::string(head) + std::to_string(bytes) + "-byte read " + sanWhere(c, tid, pc) +
                                     " of bytes no thread of this CTA has written");
    }
  }
}

void sanLand(Ctx& c, unsigned warp, unsigned lane, uint32_t off, unsigned bytes, bool viaMbarrier) {
  SanState& s = *c.san;
  if (!(s.flags & (kSanRace | kSanInit))) return;
  if (!s.pending.empty()) sanFlush(c);
  unsigned tid = warp * kWarp + lane;
  if (off + bytes > s.cells.size() || warp >= s.nwarps) return;
  s.stamp++;
  SanAcc a = now(c, tid, c.curPc, viaMbarrier ? kSanLanded : kSanPlain);
  for (unsigned k = 0; k < bytes; k++) {
    SanCell& cell = s.cells[off + k];
    if (cell.w.valid && cell.w.kind == kSanAsync && cell.w.tid == tid) {
      a.pc = cell.w.pc;  // the copy's own instruction
      cell.w = a;
      cell.r.valid = 0;
    }
  }
}

void sanAcquireAll(Ctx& c, unsigned lane) {
  SanState& s = *c.san;
  if (!(s.flags & kSanRace)) return;
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
}

// Lanes of each ready group meet: join their lane clocks (a whole warp: the warp's epoch).
void sanWarpSyncRace(Ctx& c, uint32_t ready, const uint32_t* grp) {
  SanState& s = *c.san;
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
