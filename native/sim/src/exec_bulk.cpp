// Bulk asynchronous copies (sm_90; PTX ISA "cp.async.bulk"): non-tensor copies between global and
// shared memory done by the async proxy.
//   cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
//   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
//   cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size
//   cp.async.bulk.commit_group;  cp.async.bulk.wait_group{.read} N
// size is a multiple of 16 and both addresses are 16-byte aligned (a fault otherwise).
// To shared memory: the source is read at issue; the bytes land, and perform complete_tx of their
// size on the mbarrier, when that mbarrier is next tested (test_wait/try_wait) by any thread of the
// CTA, so a consumer that reads without waiting sees stale shared memory, as on hardware.
// To global memory: the destination is checked at issue; shared memory is read and global memory
// written when a cp.async.bulk.wait_group of the issuing thread covers the bulk group (or when the
// CTA's threads have all exited), so overwriting the source before the wait changes what is stored.
// Clusters have one CTA here (cluster launches are refused), so a .shared::cluster address is one
// of the executing CTA's shared memory.
#include <climits>

#include "exec_core.h"
#include "exec_mem.h"

namespace tsim {

namespace {

// Shared offset of [s[k] + imm] for lane l in a shared window (generic or shared addresses).
bool sharedOff(Ctx& c, uint64_t a, bool generic, int lane, unsigned bytes, bool write, uint32_t& off, const char* what) {
  if (generic) {
    if ((a & kWindowMask) != kSharedWindow) {
      raise(c, Fault::OutOfBounds, lane, a, bytes, write, std::string(what) + " is not a shared-memory address");
      return false;
    }
    a -= kSharedWindow;
  }
  if (a + bytes > c.cta->shared.size() || a >= c.cta->shared.size()) {
    raise(c, Fault::SharedOutOfBounds, lane, a, bytes, write,
          std::string(what) + " outside the shared window of " + std::to_string(c.cta->shared.size()) + " bytes");
    return false;
  }
  off = (uint32_t)a;
  return true;
}

bool aligned16(Ctx& c, uint64_t a, uint64_t size, int lane, bool write, const char* what) {
  if (a & 15) {
    raise(c, Fault::Misaligned, lane, a, (unsigned)size, write, std::string("cp.async.bulk: ") + what + " must be 16-byte aligned");
    return false;
  }
  return true;
}

uint8_t* globalRange(Ctx& c, uint64_t a, uint64_t size, int lane, bool write) {
  Fault f;
  uint8_t* p = translateRange(c, a, size, write, f);
  if (!p) raise(c, f.kind == Fault::None ? Fault::OutOfBounds : f.kind, lane, a, (unsigned)size, write,
                "cp.async.bulk: " + (f.detail.empty() ? std::string("global range outside every allocation") : f.detail));
  return p;
}

// mode: 0 global->shared, 1 shared->shared (own CTA), 2 shared->global bulk_group.
// s[0]+imm dst, s[1] src, s[2] size, s[3]+target mbarrier; flags bit 0x100: dst generic, 0x200
// src generic, 0x400 mbarrier generic.
void bulkCopyOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t *D = slot(c, in.s[0]), *S = slot(c, in.s[1]), *N = slot(c, in.s[2]), *M = slot(c, in.s[3]);
  FOR_LANES(exec) {
    uint64_t dst = D[l] + (uint64_t)in.imm, src = S[l] + (uint64_t)(int64_t)(int32_t)in.ext, size = (uint32_t)N[l];
    if (size % 16 != 0) {
      raise(c, Fault::Misaligned, (int)l, dst, (unsigned)size, true, "cp.async.bulk: size " + std::to_string(size) + " is not a multiple of 16");
      return;
    }
    if (!aligned16(c, dst, size, (int)l, true, "the destination") || !aligned16(c, src, size, (int)l, false, "the source")) return;
    if (in.mode == 2) {
      uint32_t so;
      if (!sharedOff(c, src, in.flags & 0x200, (int)l, (unsigned)size, false, so, "cp.async.bulk source")) return;
      uint8_t* host = size ? globalRange(c, dst, size, (int)l, true) : nullptr;
      if (size && !host) return;
      c.cta->bulkStores.push_back({dst, host, so, (uint32_t)size, kOpenGroup, (uint16_t)c.w->id, (uint8_t)l});
      c.ctr.globalStoreRequests++;
      continue;
    }
    uint32_t dOff, bOff;
    if (!sharedOff(c, dst, in.flags & 0x100, (int)l, (unsigned)size, true, dOff, "cp.async.bulk destination")) return;
    uint64_t mb = M[l] + (uint64_t)in.target;  // target: the mbarrier's constant offset
    if (mb & 7) {
      raise(c, Fault::Misaligned, (int)l, mb, 8, true, "cp.async.bulk: the mbarrier must be 8-byte aligned");
      return;
    }
    if (!sharedOff(c, mb, in.flags & 0x400, (int)l, 8, true, bOff, "cp.async.bulk mbarrier")) return;
    BulkCopy bc;
    bc.dstOff = dOff;
    bc.barOff = bOff;
    if (in.mode == 0) {
      uint8_t* p = size ? globalRange(c, src, size, (int)l, false) : nullptr;
      if (size && !p) return;
      bc.data.assign(p, p + size);
      c.ctr.globalLoadRequests++;
    } else {
      uint32_t so;
      if (!sharedOff(c, src, in.flags & 0x200, (int)l, (unsigned)size, false, so, "cp.async.bulk source")) return;
      const uint8_t* v = asyncShared(c);  // read by the async proxy
      bc.data.assign(v + so, v + so + size);
    }
    if (c.cta->bulkCopies.size() >= (1u << 20)) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "cp.async.bulk: more than 2^20 copies in flight (is the mbarrier ever tested?)");
      return;
    }
    c.cta->bulkCopies.push_back(std::move(bc));
  }
}

void bulkCommitOp(Ctx& c, const Inst&, uint32_t exec) {
  Warp& w = *c.w;
  FOR_LANES(exec) {
    for (auto& s : c.cta->bulkStores)
      if (s.warp == w.id && s.lane == l && s.group == kOpenGroup) s.group = w.bulkCommitted[l];
    w.bulkCommitted[l]++;
  }
}

void bulkWaitOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  FOR_LANES(exec) {
    uint32_t n = (uint32_t)in.imm, done = w.bulkCommitted[l];
    if (!settleBulkStores(c, (int)w.id, (int)l, done > n ? done - n : 0)) return;
  }
}

bool addrOf(Decoder& dc, const Operand& o, uint32_t& base, int64_t& off, bool& generic) {
  uint8_t sp;
  if (!dc.addr(o, base, off, sp)) return false;
  generic = sp == kGeneric;
  return true;
}

}  // namespace

uint8_t* asyncShared(Ctx& c) {
  auto& v = c.cta->asyncView;
  if (v.size() != c.cta->shared.size()) v.assign(c.cta->shared.size(), 0);
  return v.data();
}

void proxyAsyncFenceOp(Ctx& c, const Inst&, uint32_t exec) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!exec || c.cta->shared.empty()) return;
  asyncShared(c);
  memcpy(c.cta->asyncView.data(), c.cta->shared.data(), c.cta->shared.size());
}

uint8_t* translateRange(Ctx& c, uint64_t addr, uint64_t size, bool write, Fault& f) {
  if (size == 0 || size >= (1u << 30) || addr + size < addr) {
    f.kind = Fault::OutOfBounds;
    f.addr = addr;
    f.size = (unsigned)size;
    return nullptr;
  }
  // the first and the last byte (1-byte accesses: no alignment rule) in one allocation
  uint8_t* lo = c.L->mem->translate(addr, 1, write, f);
  if (!lo) return nullptr;
  uint8_t* hi = c.L->mem->translate(addr + size - 1, 1, write, f);
  if (!hi) return nullptr;
  if (hi != lo + (size - 1)) {
    f.kind = Fault::OutOfBounds;
    f.addr = addr;
    f.size = (unsigned)size;
    f.detail = "the range spans more than one allocation";
    return nullptr;
  }
  return lo;
}

bool settleBulkCopies(Ctx& c, uint32_t off) {
  auto& v = c.cta->bulkCopies;
  size_t keep = 0;
  bool ok = true;
  for (size_t i = 0; i < v.size(); i++) {
    if (!ok || (off != ~0u && v[i].barOff != off)) {
      if (keep != i) v[keep] = std::move(v[i]);
      keep++;
      continue;
    }
    BulkCopy& b = v[i];
    if (!b.swizzle) {
      memcpy(c.cta->shared.data() + b.dstOff, b.data.data(), b.data.size());
      memcpy(asyncShared(c) + b.dstOff, b.data.data(), b.data.size());  // written by the async proxy
    } else {  // TMA swizzle: each 16-byte chunk at address a lands at a ^ ((a >> 7) & mask) << 4
      uint32_t mask = (1u << b.swizzle) - 1;
      for (size_t o = 0; o < b.data.size(); o += 16) {
        uint32_t a = b.dstOff + (uint32_t)o;
        a ^= ((a >> 7) & mask) << 4;
        if ((uint64_t)a + 16 <= c.cta->shared.size()) {
          memcpy(c.cta->shared.data() + a, b.data.data() + o, 16);
          memcpy(asyncShared(c) + a, b.data.data() + o, 16);
        }
      }
    }
    ok = mbarrierTx(c, 0, b.barOff, -(int64_t)b.data.size());
  }
  v.resize(keep);
  return ok;
}

bool settleBulkStores(Ctx& c, int warp, int lane, uint32_t upto) {
  auto& v = c.cta->bulkStores;
  size_t keep = 0;
  for (size_t i = 0; i < v.size(); i++) {
    BulkStore& s = v[i];
    bool mine = lane < 0 || (s.warp == warp && s.lane == lane && s.group != kOpenGroup && s.group < upto);
    if (!mine) {
      v[keep++] = s;
      continue;
    }
    if (s.tensor) {
      if (!tmaStore(c, s)) {
        v.clear();
        return false;
      }
    } else if (s.bytes) {
      memcpy(s.host, asyncShared(c) + s.srcOff, s.bytes);
    }
  }
  v.resize(keep);
  return true;
}

bool decodeCpAsyncBulk(Decoder& dc, const Stmt& st, Inst& in) {
  in.cls = kMemGlobal;
  if (st.has("tensor")) return decodeCpAsyncBulkTensor(dc, st, in);
  if (st.has("commit_group")) {
    if (!st.ops.empty() || st.mods.size() != 3) return dc.fail("expected cp.async.bulk.commit_group");
    in.cls = kSync;
    in.fn = &bulkCommitOp;
    return true;
  }
  if (st.has("wait_group")) {
    if (st.ops.size() != 1 || st.ops[0].kind != Operand::Imm || !immInt(st.ops[0].name, in.imm) || in.imm < 0)
      return dc.fail("cp.async.bulk.wait_group{.read} needs an integer constant N");
    in.cls = kSync;
    in.fn = &bulkWaitOp;
    return true;
  }
  // the state spaces in order: cp.async.bulk.<dst>.<src>.<completion>
  std::vector<std::string> sp;
  for (auto& m : st.mods)
    if (m == "global" || m == "shared::cluster" || m == "shared::cta" || m == "shared") sp.push_back(m);
  bool toShared = sp.size() == 2 && sp[0] == "shared::cluster" && st.has("mbarrier::complete_tx::bytes");
  bool toGlobal = sp.size() == 2 && sp[0] == "global" && sp[1] == "shared::cta" && st.has("bulk_group");
  if (!toShared && !toGlobal) return dc.fail("expected cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes or cp.async.bulk.global.shared::cta.bulk_group");
  if (toShared && sp[1] != "global" && sp[1] != "shared::cta") return dc.fail("source space");
  if (st.has("read")) return dc.fail(".read is a wait_group modifier");
  const auto& o = st.ops;
  if (o.size() != (toShared ? 4u : 3u)) return dc.fail("wrong operand count");
  bool g0, g1, g3 = false;
  int64_t srcOff;
  if (!addrOf(dc, o[0], in.s[0], in.imm, g0)) return false;
  if (!addrOf(dc, o[1], in.s[1], srcOff, g1)) return false;
  in.s[2] = dc.src(o[2], Ty::U32);
  if (toShared) {
    int64_t mOff;
    if (!addrOf(dc, o[3], in.s[3], mOff, g3)) return false;
    in.target = (uint32_t)mOff;
    if (mOff < 0 || mOff > 0x7fffffff) return dc.fail("mbarrier offset");
  }
  if (srcOff < INT32_MIN || srcOff > INT32_MAX) return dc.fail("source offset out of range");
  in.ext = (uint32_t)(int32_t)srcOff;  // the source's constant offset (Inst::imm is the destination's)
  // a register operand holds an address in the instruction's state space; a symbol is a shared
  // variable's offset (shared) or a global's address
  (void)g0; (void)g1; (void)g3;
  in.mode = toGlobal ? 2 : sp[1] == "global" ? 0 : 1;
  in.flags = 0;  // addresses are in the named state spaces (shared offsets, global addresses)
  in.fn = &bulkCopyOp;
  return true;
}

}  // namespace tsim
