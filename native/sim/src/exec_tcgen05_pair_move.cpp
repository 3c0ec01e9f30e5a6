// tcgen05.cp.cta_group::2 and tcgen05.shift.cta_group::2 (sm_100a; PTX ISA "tcgen05.cp",
// "tcgen05.shift", "Issue Granularity", "CTA pair"): issued by one thread of either CTA of a pair,
// the operation is done in the tensor memory of both: the copy reads the issuing CTA's shared
// memory (its descriptor) and writes the same cells in both CTAs; the shift moves the rows of both
// CTAs' tensor memory at the same address. The operation sits in the issuing CTA's queue like its
// .cta_group::1 form (exec_tcgen05_cp.cpp, exec_tcgen05_mma.cpp: Tcgen05Mma::peer names the other
// CTA) and is done when a covering tcgen05.commit arrives. The columns must be allocated with
// tcgen05.alloc.cta_group::2 in both CTAs (a named fault otherwise), as for the pair's MMA.
#include "exec_mem.h"
#include "exec_tcgen05.h"

namespace tsim {

Cta* tcgen05PairMovePeer(Ctx& c, uint32_t col, uint32_t n, const char* what) {
  Cta* peer = tcgen05PairPeer(c, what);
  if (!peer) return nullptr;
  uint32_t need = 0;  // the 32-column chunks of [col, col + n)
  for (uint32_t i = col / 32; i <= (col + n - 1) / 32 && i < 16; i++) need |= 1u << i;
  const std::string cols = "columns " + std::to_string(col) + ".." + std::to_string(col + n - 1);
  if ((c.cta->tmem.pairCols & need) != need) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, std::string(what) + ": " + cols + " were not allocated with tcgen05.alloc.cta_group::2 in this CTA");
    return nullptr;
  }
  if ((peer->tmem.allocated & need) != need || (peer->tmem.pairCols & need) != need) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          std::string(what) + ": " + cols + " are not allocated with tcgen05.alloc.cta_group::2 in the peer CTA (%cluster_ctarank " +
              std::to_string(peer->rank) + "), whose tensor memory it also writes");
    return nullptr;
  }
  return peer;
}

}  // namespace tsim
