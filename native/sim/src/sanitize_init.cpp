// initcheck for global memory: reads of device bytes never written since their allocation (by a
// copy, a memset or a kernel). The driver keeps one shadow byte per device byte of allocations
// made while tracking is on (GlobalMemory::initShadow); kernels mark what they store.
#include <algorithm>
#include <cstdio>

#include "exec_core.h"

namespace tsim {

void sanGlobal(Ctx& c, uint32_t lanes, const uint64_t* addr, unsigned bytes, bool write) {
  SanState& s = *c.san;
  if (write && (s.flags & kSanRace)) sanGenericGlobalWrite(c, lanes, addr, bytes);
  bool check = (s.flags & kSanInit) && !write;
  if (!lanes || (write ? !s.trackInit : !check)) return;
  FOR_LANES(lanes) {
    uint64_t a = addr[l];
    const SanState::Shadow* e = nullptr;
    for (const auto& x : s.shadows)
      if (a >= x.lo && a < x.hi) { e = &x; break; }
    if (!e) {
      SanState::Shadow n;
      n.sh = c.L->mem->initShadowOf(a, &n.lo, &n.hi);
      if (n.hi <= n.lo) continue;
      s.shadows[s.nextShadow++ % 4] = n;
      e = &s.shadows[(s.nextShadow - 1) % 4];
    }
    if (!e->sh || a + bytes > e->hi) continue;
    uint8_t* sh = e->sh + (a - e->lo);
    if (write) {
      for (unsigned k = 0; k < bytes; k++) __atomic_store_n(sh + k, (uint8_t)1, __ATOMIC_RELAXED);
      continue;
    }
    unsigned bad = bytes;
    for (unsigned k = 0; k < bytes && bad == bytes; k++)
      if (!__atomic_load_n(sh + k, __ATOMIC_RELAXED)) bad = k;
    if (bad == bytes) continue;
    char head[200];
    std::snprintf(head, sizeof head, "read of uninitialised global memory at 0x%llx: %u-byte read ",
                  (unsigned long long)addr[l], bytes);
    sanRecord(c, 2, 0, c.curPc, c.curPc,
              std::string(head) + sanWhere(c, c.w->id * kWarp + l, c.curPc) +
                  " of bytes never written since their allocation (by a copy, memset or kernel)");
  }
}

}  // namespace tsim
