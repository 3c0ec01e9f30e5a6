// tcgen05 .cta_group::2 (sm_100a; PTX ISA "CTA pair", "tcgen05.mma", "tcgen05.commit"): the
// pieces of the CTA-pair forms that are not the single-CTA code with a second CTA plugged in.
//
// (The rule that every tcgen05 instruction of a kernel names the same .cta_group is checked at
// load, across calls: ptx_parse.cpp.)
// - tcgen05.mma.cta_group::2's pair (pairMmaPeer): issued by the even CTA of the pair (the CTAs
//   of a cluster whose %cluster_ctarank differ only in bit 0), the accumulator columns allocated
//   with .cta_group::2 in both CTAs. The MMA itself is exec_tcgen05_mma.cpp's: it sits in the
//   issuing CTA's queue and, when a covering commit arrives, reads A's rows 128-255 and B's
//   columns N/2..N-1 from the odd CTA's shared memory and writes rows 128-255 into its tensor
//   memory.
// - tcgen05.commit{.cta_group::2}...multicast::cluster [mbar], ctaMask and the .cta_group::2
//   commit to one mbarrier, which may be in the peer CTA: the arrive-on is recorded with the CTA
//   whose mbarrier it arrives on and names the issuing CTA (Tcgen05Commit::src), so a wait in the
//   odd CTA completes the even CTA's MMAs first.
#include "exec_mem.h"
#include "exec_tcgen05.h"

namespace tsim {

namespace {

// The 32-column chunks of [col, col + n) as a mask of Tmem::allocated bits.
uint32_t chunkMask(uint32_t col, uint32_t n) {
  uint32_t m = 0;
  for (uint32_t i = col / 32; i <= (col + n - 1) / 32 && i < 16; i++) m |= 1u << i;
  return m;
}

}  // namespace

Cta* pairMmaPeer(Ctx& c, uint32_t col, uint32_t n) {
  if (c.cta->rank & 1) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "tcgen05.mma.cta_group::2 issued by the odd CTA of the pair (%cluster_ctarank " + std::to_string(c.cta->rank) +
              "): the even CTA (%cluster_ctarank " + std::to_string(c.cta->rank ^ 1) + ") issues the pair's MMA for both");
    return nullptr;
  }
  Cta* peer = tcgen05PairPeer(c, "tcgen05.mma.cta_group::2");
  if (!peer) return nullptr;
  const uint32_t need = chunkMask(col, n);
  const std::string cols = "columns " + std::to_string(col) + ".." + std::to_string(col + n - 1);
  if ((c.cta->tmem.pairCols & need) != need) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "tcgen05.mma.cta_group::2: the accumulator's " + cols + " were not allocated with tcgen05.alloc.cta_group::2 in this CTA");
    return nullptr;
  }
  if ((peer->tmem.allocated & need) != need || (peer->tmem.pairCols & need) != need) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "tcgen05.mma.cta_group::2: the accumulator's " + cols + " are not allocated with tcgen05.alloc.cta_group::2 in the peer CTA (%cluster_ctarank " +
              std::to_string(peer->rank) + "), whose tensor memory holds rows 128-255");
    return nullptr;
  }
  return peer;
}

// tcgen05.dealloc in the odd CTA while the even CTA's tcgen05.mma.cta_group::2 (which writes rows
// 128-255 here) is in flight: a named fault, as for the CTA's own MMAs.
// Also the tcgen05.cp / tcgen05.shift .cta_group::2 either CTA issues (exec_tcgen05_pair_move.cpp).
bool pairMmaInFlight(Ctx& c) {
  if (!c.cta->cluster || (c.cta->rank ^ 1) >= c.cta->cluster->size) return false;
  const Cta& even = c.cta->cluster->ctas[c.cta->rank ^ 1];
  for (const Tcgen05Mma& op : even.tmem.mmas)
    if (op.peer == c.cta) {
      const char* name = op.cp ? "tcgen05.cp" : op.shift ? "tcgen05.shift" : "tcgen05.mma";
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
            "tcgen05.dealloc while the peer CTA's (%cluster_ctarank " + std::to_string(even.rank) + ") " + name +
                ".cta_group::2, which writes this CTA's tensor memory, is still in flight (no mbarrier wait saw the arrival of its tcgen05.commit)");
      return true;
    }
  return false;
}

namespace {

// The CTA of the cluster whose shared memory p points into (null when none).
Cta* ctaOf(Ctx& c, const uint8_t* p) {
  Cluster& cl = *c.cta->cluster;
  for (unsigned r = 0; r < cl.size; r++) {
    Cta& t = cl.ctas[r];
    if (!t.shared.empty() && p >= t.shared.data() && p + 8 <= t.shared.data() + t.shared.size()) return &t;
  }
  return nullptr;
}

// Records an arrive-on at the mbarrier at off of CTA `to`, due once the MMAs the executing CTA
// issued so far are complete.
void addCommit(Ctx& c, Cta* to, uint32_t off, unsigned l) {
  to->tmem.commits.push_back({off, c.cta->tmem.mmaIssued, (uint16_t)c.w->id, (uint8_t)l, to == c.cta ? nullptr : c.cta});
}

// tcgen05.commit.cta_group::{1,2}.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64
// [mbar]{, ctaMask}: in.vec the cta_group, in.mode 1 multicast (s[1] the 16-bit ctaMask: an
// arrive-on at the mbarrier at the same shared-memory offset in each CTA of the mask).
void commitPairOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!exec) return;  // predicated off in every lane: nothing is committed, no peer is needed
  if (in.vec == 2 && !tcgen05PairPeer(c, "tcgen05.commit.cta_group::2")) return;
  Cluster& cl = *c.cta->cluster;
  FOR_LANES(exec) {
    uint8_t* p = nullptr;
    if (in.space == kSharedCluster) {
      p = clusterSharedPtr(c, (int)l, slot(c, in.s[0])[l] + (uint64_t)in.imm, 8, true);
    } else {
      uint8_t* ps[kWarp];
      Inst atomic = in;
      atomic.flags |= kfSanAtomic;
      if (resolve(c, atomic, 1u << l, 8, true, ps, false)) p = ps[l];
    }
    if (!p) return;
    Cta* at = ctaOf(c, p);
    if (!at || (in.space != kSharedCluster && at != c.cta)) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.commit: the mbarrier must be in the shared memory of a CTA of the cluster");
      return;
    }
    const uint32_t off = (uint32_t)(p - at->shared.data());
    if (!(in.mode & 1)) {
      addCommit(c, at, off, l);
      continue;
    }
    const uint32_t mask = (uint32_t)slot(c, in.s[1])[l] & 0xffff;
    if (!mask) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.commit .multicast::cluster with an empty ctaMask (no CTA to arrive on)");
      return;
    }
    for (unsigned r = 0; r < 16; r++) {
      if (!((mask >> r) & 1)) continue;
      if (r >= cl.size || cl.ctas[r].done || off + 8 > cl.ctas[r].shared.size()) {
        raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
              "tcgen05.commit .multicast::cluster: ctaMask bit " + std::to_string(r) + " names " +
                  (r >= cl.size ? "no CTA (the cluster has " + std::to_string(cl.size) + ")" : cl.ctas[r].done ? std::string("a CTA that has exited") : "a CTA whose shared memory does not hold the mbarrier's offset"));
        return;
      }
      addCommit(c, &cl.ctas[r], off, l);
    }
  }
}

}  // namespace

bool decodeTcgen05CommitPair(Decoder& dc, const Stmt& st, Inst& in) {
  const bool two = st.has("cta_group::2"), multi = st.has("multicast::cluster");
  const char* form = "expected tcgen05.commit.cta_group::{1,2}.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{, ctaMask}";
  if (two == st.has("cta_group::1") || !st.has("mbarrier::arrive::one") || st.type() != Ty::B64 || st.ops.size() != (multi ? 2u : 1u) ||
      !onlyMods(dc, st, "commit cta_group::1 cta_group::2 mbarrier::arrive::one shared::cluster multicast::cluster b64"))
    return dc.fail(form);
  if (multi && !st.has("shared::cluster")) return dc.fail("tcgen05.commit .multicast::cluster needs .shared::cluster");
  if (multi && !two) return dc.fail("tcgen05.commit.cta_group::1 .multicast::cluster is not simulated yet (.cta_group::2's is)");
  uint8_t sym;
  if (st.ops[0].kind != Operand::Addr || !dc.addr(st.ops[0], in.s[0], in.imm, sym)) return dc.fail("expected the mbarrier address [mbar]");
  if (multi) in.s[1] = dc.src(st.ops[1], Ty::B16);
  in.space = st.has("shared::cluster") ? kSharedCluster : kGeneric;
  in.mode = multi ? 1 : 0;
  in.vec = two ? 2 : 1;
  in.fn = &commitPairOp;
  in.cls = kSync;
  return true;
}

}  // namespace tsim
