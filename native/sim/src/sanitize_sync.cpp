// synccheck (barrier and .sync collective misuse) and the barrier/collective side of racecheck's
// ordering (see sanitize_race.cpp).
#include <algorithm>
#include <cstdio>

#include "exec_core.h"

namespace tsim {

void sanWarpSyncRace(Ctx& c, uint32_t ready, const uint32_t* grp);  // sanitize_race.cpp

namespace {

std::string hex(uint32_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", m);
  return b;
}

}  // namespace

void sanBarArrive(Ctx& c, const Inst& in, uint32_t exec, unsigned id, unsigned count, bool arriveOnly) {
  SanState& s = *c.san;
  SanCta::Bar& b = sanCta(c).bars[id & 15];
  unsigned wid = c.w->id, first = __builtin_ctz(exec);
  unsigned tid = wid * kWarp + first;
  if (s.flags & kSanSync) {
    if (count % kWarp) {
      sanRecord(c, 1, 0, c.curPc, c.curPc,
                "barrier " + std::to_string(id) + " with a thread count of " + std::to_string(count) +
                    ", not a multiple of the warp size, " + sanWhere(c, tid, c.curPc));
    }
    if (b.any && b.count != count) {
      unsigned other = 0;
      for (unsigned w = 0; w < 32; w++)
        if (b.warps >> w & 1) { other = w; break; }
      uint32_t opc = b.pc[other];
      auto name = [](unsigned n) { return n ? std::to_string(n) + " threads" : std::string("no count (all threads)"); };
      sanRecord(c, 1, 1, opc, c.curPc,
                "barrier " + std::to_string(id) + " reached with different thread counts: " + name(b.count) + " " +
                    sanWhere(c, other * kWarp + __builtin_ctz(b.lanes[other] ? b.lanes[other] : 1), opc) + ", " +
                    name(count) + " " + sanWhere(c, tid, c.curPc));
    }
  }
  uint32_t off = c.w->mask & ~exec & c.w->live;
  if ((s.flags & kSanSync) && (in.flags & kfAligned) && off) {
    sanRecord(c, 1, 2, c.curPc, c.curPc,
              "barrier " + std::to_string(id) + " in divergent code: lanes " + hex(off) + " of warp " +
                  std::to_string(wid) + " are at it but predicated off, " + sanWhere(c, tid, c.curPc) +
                  " (bar.sync and barrier.sync.aligned need every thread of the warp)");
  }
  if (!b.any) {
    b.any = true;
    b.count = count;
  }
  if (!(in.flags & kfAligned)) b.aligned = false;
  if (wid < 32) {
    if (!(b.warps >> wid & 1)) b.pc[wid] = c.curPc;
    b.warps |= 1u << wid;
    if (!arriveOnly) b.syncWarps |= 1u << wid;
    b.lanes[wid] |= exec;
  }
}

void sanBarRelease(Ctx& c, Cta& cta, unsigned id) {
  const unsigned flags = c.san->flags;
  SanCta& s = c.san->ranks[cta.rank];
  SanCta::Bar& b = s.bars[id & 15];
  if (!b.any) return;
  unsigned arrived = 0;
  for (unsigned w = 0; w < s.nwarps && w < 32; w++) {
    if (!(b.warps >> w & 1)) continue;
    arrived += (unsigned)__builtin_popcount(b.lanes[w]);
    uint32_t live = cta.warps[w].live;
    if ((flags & kSanSync) && b.aligned && (b.lanes[w] & live) != live) {
      unsigned t = w * kWarp + __builtin_ctz(b.lanes[w]);
      sanRecord(c, 1, 2, b.pc[w], b.pc[w],
                "barrier " + std::to_string(id) + " in divergent code: of warp " + std::to_string(w) + "'s live lanes " +
                    hex(live) + " only " + hex(b.lanes[w]) + " reached it before it completed " + sanWhere(c, t, b.pc[w]) +
                    " (bar.sync and barrier.sync.aligned need every thread of the warp)");
    }
  }
  if (flags & kSanRace) {
    if (arrived >= cta.liveThreads && b.syncWarps == b.warps) {
      s.fe++;  // every live thread waited: everything before is ordered before everything after
    } else {
      unsigned nw = s.nwarps;
      std::vector<uint32_t> J(nw, 0);
      for (unsigned w = 0; w < nw && w < 32; w++) {
        if (!(b.warps >> w & 1)) continue;
        const uint32_t* row = &s.wvc[(size_t)w * nw];
        for (unsigned k = 0; k < nw; k++) J[k] = std::max(J[k], row[k]);
        J[w] = std::max(J[w], s.wclk[w]);
      }
      for (unsigned w = 0; w < nw && w < 32; w++) {
        if (!(b.warps >> w & 1)) continue;
        if (b.syncWarps >> w & 1) {
          uint32_t* row = &s.wvc[(size_t)w * nw];
          for (unsigned k = 0; k < nw; k++) row[k] = std::max(row[k], J[k]);
          s.warps[w].wse++;
        }
        s.wclk[w]++;
      }
    }
  }
  b = SanCta::Bar{};
}

// At the start of a .sync collective's rendezvous: the executing lanes and their membermasks.
void sanWarpCheck(Ctx& c, uint32_t exec, const uint64_t* M) {
  SanState& s = *c.san;
  if (!(s.flags & kSanSync)) return;
  Warp& w = *c.w;
  FOR_LANES(exec) {
    uint32_t m = (uint32_t)M[l];
    unsigned tid = w.id * kWarp + l;
    if (!(m >> l & 1)) {
      sanRecord(c, 1, 3, c.curPc, c.curPc,
                "lane " + std::to_string(l) + " executes a .sync collective whose membermask " + hex(m) +
                    " does not include it, " + sanWhere(c, tid, c.curPc));
      continue;
    }
    uint32_t off = m & w.mask & ~exec & w.live;
    if (off) {
      sanRecord(c, 1, 4, c.curPc, c.curPc,
                "membermask " + hex(m) + " of a .sync collective names lanes " + hex(off) +
                    " that do not execute it (predicated off) " + sanWhere(c, tid, c.curPc));
    }
  }
}

void sanWarpSync(Ctx& c, uint32_t exec, uint32_t ready, const uint32_t* grp, const uint64_t* masks) {
  (void)exec;
  (void)masks;
  if (c.san->flags & kSanRace) sanWarpSyncRace(c, ready, grp);
}

}  // namespace tsim
