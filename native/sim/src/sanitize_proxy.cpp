// racecheck across proxies in global memory. The PTX memory model puts the generic proxy (ld/st,
// atomics) and the async proxy (TMA and bulk copies) apart: a TMA load of bytes the kernel wrote
// with st.global reads them only if a fence.proxy.async covering global memory comes between, in
// the writer's order, ahead of the synchronization that orders the write before the copy. The sim
// makes every global write visible to every proxy at once (the data is never stale), so without
// this check a missing fence would pass silently. Rule checked, per CTA: the bytes its threads
// wrote since the last fence.proxy.async{,.global} that any of its threads executed must not be read
// by a TMA or bulk load it issues. Conservative toward silence: a fence by any thread of the CTA
// clears every earlier write, and writes by other CTAs are not tracked.
#include <algorithm>
#include <cstdio>

#include "exec_core.h"

namespace tsim {

void sanGenericGlobalWrite(Ctx& c, uint32_t lanes, const uint64_t* addr, unsigned bytes) {
  auto& v = sanCta(c).genGlobal;
  FOR_LANES(lanes) {
    uint64_t lo = addr[l], hi = lo + bytes;
    // lanes of a warp usually write consecutive words: extend the newest range
    if (!v.empty() && lo <= v.back().hi && hi >= v.back().lo) {
      v.back().lo = std::min(v.back().lo, lo);
      v.back().hi = std::max(v.back().hi, hi);
      continue;
    }
    if (v.size() >= kSanGenWindow) v.erase(v.begin(), v.begin() + kSanGenWindow / 2);
    v.push_back({lo, hi, c.curPc, (uint16_t)(c.w->id * kWarp + l)});
  }
}

void sanProxyFenceGlobal(Ctx& c) {
  if (c.san && (c.san->flags & kSanRace)) sanCta(c).genGlobal.clear();
}

void sanAsyncGlobalRead(Ctx& c, unsigned lane, uint64_t addr, uint64_t bytes, const char* what) {
  if (!(c.san->flags & kSanRace)) return;
  const auto& v = sanCta(c).genGlobal;
  for (auto it = v.rbegin(); it != v.rend(); ++it) {
    if (it->hi <= addr || it->lo >= addr + bytes) continue;
    uint64_t lo = std::max(it->lo, addr), hi = std::min(it->hi, addr + bytes);
    char head[200];
    std::snprintf(head, sizeof head, "proxy hazard on global memory [0x%llx, +%llu): ", (unsigned long long)lo,
                  (unsigned long long)(hi - lo));
    sanRecord(c, 0, 20, it->pc, c.curPc,
              std::string(head) + what + " (async proxy) " + sanWhere(c, c.w->id * kWarp + lane, c.curPc) +
                  " reads bytes that a generic-proxy store " + sanWhere(c, it->tid, it->pc) +
                  " wrote, with no fence.proxy.async (or .global) by a thread of the CTA in between");
    return;
  }
}

}  // namespace tsim
