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
// To global memory: the destination is checked at issue; shared memory is read when a
// cp.async.bulk.wait_group{.read} of the issuing thread covers the bulk group, and global memory is
// written only when a full wait_group (no .read) covers it or the CTA's threads have all exited:
// overwriting the source before the .read wait changes what is stored, and reading the destination
// back after only the .read wait sees the old bytes.
// A .shared::cluster destination may be another CTA's of the cluster (a mapa address): the bytes
// land in that CTA, with the complete_tx on its mbarrier, when that CTA tests it.
#include <climits>
#include <cmath>

#include "exec_core.h"
#include "exec_float.h"
#include "exec_mem.h"

namespace tsim {

bool decodeCpReduceBulk(Decoder& dc, const Stmt& st, Inst& in);

namespace {

// cp.reduce.async.bulk (global destination, bulk group): each element of the destination is
// updated atomically (a compare-and-swap on its aligned 32/64-bit word) with the source element.

unsigned redBytes(uint8_t t) { return t == kTF16 || t == kTBF16 ? 2 : (t == kTU64 || t == kTS64 || t == kTB64 || t == kTF64) ? 8 : 4; }

uint64_t reduceOne(uint8_t op, uint8_t t, uint64_t old, uint64_t src) {
  switch (t) {
    case kTF32: {  // add only; subnormal inputs and results flush to sign-preserving zero (ISA)
      float r = flushF32(flushF32(bitsf32((uint32_t)old)) + flushF32(bitsf32((uint32_t)src)));
      return r != r ? 0x7fffffffu : f32bits(r);
    }
    case kTF64: {
      double a, b;
      memcpy(&a, &old, 8);
      memcpy(&b, &src, 8);
      double r = a + b;
      uint64_t o;
      memcpy(&o, &r, 8);
      return o;
    }
    case kTF16: case kTBF16: {
      bool bf = t == kTBF16;
      double a = bf ? bf16ToF32((uint16_t)old) : f16ToF32((uint16_t)old), b = bf ? bf16ToF32((uint16_t)src) : f16ToF32((uint16_t)src);
      double r;
      if (op == kRAdd) r = a + b;
      else if (a != a) r = b;  // min/max: a NaN operand gives the other (both NaN: NaN)
      else if (b != b) r = a;
      else r = op == kRMin ? (b < a ? b : a) : (b > a ? b : a);
      return roundTo(r, bf ? Ty::BF16 : Ty::F16, kRn);
    }
    default: break;
  }
  bool sgn = t == kTS32 || t == kTS64;
  unsigned bits = redBytes(t) * 8;
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  int64_t so = sgn ? (bits == 32 ? (int64_t)(int32_t)old : (int64_t)old) : 0, ss = sgn ? (bits == 32 ? (int64_t)(int32_t)src : (int64_t)src) : 0;
  switch (op) {
    case kRAnd: return old & src;
    case kROr: return old | src;
    case kRXor: return old ^ src;
    case kRAdd: return (old + src) & mask;
    case kRInc: return old >= src ? 0 : old + 1;
    case kRDec: return (old == 0 || old > src) ? src : old - 1;
    case kRMin: return sgn ? (uint64_t)(ss < so ? ss : so) & mask : (src < old ? src : old);
    case kRMax: return sgn ? (uint64_t)(ss > so ? ss : so) & mask : (src > old ? src : old);
  }
  return old;
}

void reduceInto(uint8_t* dst, const uint8_t* src, uint32_t bytes, uint8_t op, uint8_t t) {
  unsigned es = redBytes(t);
  for (uint32_t o = 0; o < bytes; o += es) {
    if (es == 8) {
      uint64_t* q = reinterpret_cast<uint64_t*>(dst + o);
      uint64_t s, old = __atomic_load_n(q, __ATOMIC_RELAXED);
      memcpy(&s, src + o, 8);
      while (!__atomic_compare_exchange_n(q, &old, reduceOne(op, t, old, s), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    } else {  // 4 bytes, or a half-word inside its aligned word
      uintptr_t a = (uintptr_t)(dst + o);
      uint32_t* q = reinterpret_cast<uint32_t*>(a & ~(uintptr_t)3);
      unsigned sh = es == 2 ? (unsigned)(a & 2) * 8 : 0;
      uint32_t s = 0;
      memcpy(&s, src + o, es);
      uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
      do {
        uint32_t cur = es == 2 ? (old >> sh) & 0xffff : old;
        uint32_t r = (uint32_t)reduceOne(op, t, cur, s);
        nv = es == 2 ? (old & ~(0xffffu << sh)) | ((r & 0xffff) << sh) : r;
      } while (!__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    }
  }
}

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

}  // namespace

// The CTA whose shared memory a bulk copy's shared::cluster destination names (the executing
// CTA's for an own offset; another's for a mapa address, whose mbarrier must be in that CTA too,
// as the ISA requires); null after a fault.
Cta* remoteBulkTarget(Ctx& c, int lane, uint64_t dst, uint64_t mb, const char* what) {
  Cluster& cl = *c.cta->cluster;
  uint64_t dt = dst >> kClusterRankShift, mt = mb >> kClusterRankShift;
  if (!dt && !mt) return c.cta;
  unsigned own = c.cta->rank + 1;
  if ((dt ? dt : own) != (mt ? mt : own)) {
    raise(c, Fault::IllegalInstruction, lane, dst, 0, true,
          std::string(what) + ": the destination and the mbarrier are in different CTAs of the cluster");
    return nullptr;
  }
  uint64_t t = dt ? dt : mt;
  if (t > cl.size) {
    raise(c, Fault::SharedOutOfBounds, lane, dst, 0, true,
          std::string(what) + ": shared::cluster address names rank " + std::to_string(t - 1) + " of a cluster of " +
              std::to_string(cl.size) + " CTAs");
    return nullptr;
  }
  Cta* to = &cl.ctas[t - 1];
  if (to != c.cta && to->liveThreads == 0) {
    raise(c, Fault::SharedOutOfBounds, lane, dst, 0, true,
          std::string(what) + " into the shared memory of cluster rank " + std::to_string(to->rank) + ", whose CTA has exited");
    return nullptr;
  }
  return to;
}

namespace {

// mode: 0 global->shared, 1 shared->shared (to this or another CTA of the cluster), 2
// shared->global bulk_group.
// s[0]+imm dst, s[1]+ext src, s[2] size, s[3]+target mbarrier (addresses in the named state
// spaces); size, vec: the reduction and element type of cp.reduce.async.bulk (size 0: a copy).
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
      if (!sharedOff(c, src, false, (int)l, (unsigned)size, false, so, "cp.async.bulk source")) return;
      uint8_t* host = size ? globalRange(c, dst, size, (int)l, true) : nullptr;
      if (size && !host) return;
      BulkStore bs{dst, host, so, (uint32_t)size, kOpenGroup, (uint16_t)c.w->id, (uint8_t)l};
      bs.redOp = in.size;  // cp.reduce.async.bulk (0: a plain store)
      bs.redTy = in.vec;
      c.cta->bulkStores.push_back(bs);
      c.ctr.globalStoreRequests++;
      continue;
    }
    uint32_t dOff, bOff;
    uint64_t mb = M[l] + (uint64_t)in.target;  // target: the mbarrier's constant offset
    // the destination (and its mbarrier, in the same CTA) may be another CTA's of the cluster
    Cta* self = c.cta;
    Cta* to = remoteBulkTarget(c, (int)l, dst, mb, "cp.async.bulk");
    if (!to) return;
    c.cta = to;
    const uint64_t low = (1ull << kClusterRankShift) - 1;
    bool ok = sharedOff(c, dst & low, false, (int)l, (unsigned)size, true, dOff, "cp.async.bulk destination");
    if (ok && (mb & 7)) {
      raise(c, Fault::Misaligned, (int)l, mb, 8, true, "cp.async.bulk: the mbarrier must be 8-byte aligned");
      ok = false;
    }
    ok = ok && sharedOff(c, mb & low, false, (int)l, 8, true, bOff, "cp.async.bulk mbarrier");
    c.cta = self;
    if (!ok) {
      for (int i = 0; i < 3; i++) c.fault.ctaid[i] = self->ctaid[i];
      return;
    }
    BulkCopy bc;
    bc.dstOff = dOff;
    bc.barOff = bOff;
    if (in.mode == 0) {
      uint8_t* p = size ? globalRange(c, src, size, (int)l, false) : nullptr;
      if (p && c.san) sanAsyncGlobalRead(c, l, src, size, "cp.async.bulk");
      if (size && !p) return;
      bc.data.assign(p, p + size);
      c.ctr.globalLoadRequests++;
    } else {
      uint32_t so;
      if (!sharedOff(c, src, false, (int)l, (unsigned)size, false, so, "cp.async.bulk source")) return;
      const uint8_t* v = asyncShared(c);  // read by the async proxy
      bc.data.assign(v + so, v + so + size);
      bc.redOp = in.size;  // cp.reduce.async.bulk into shared::cluster (0: a plain copy)
      bc.redTy = in.size ? in.vec : 0;
    }
    if (to->bulkCopies.size() >= (1u << 20)) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "cp.async.bulk: more than 2^20 copies in flight (is the mbarrier ever tested?)");
      return;
    }
    to->bulkCopies.push_back(std::move(bc));  // lands when that CTA tests the mbarrier
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
    if (!settleBulkStores(c, (int)w.id, (int)l, done > n ? done - n : 0, in.mode == 1)) return;
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

// fence.proxy.async.global: global writes are visible to every proxy at once in the sim; what it
// orders is only tracked by racecheck (sanitize_proxy.cpp). fence.proxy.async (no state space)
// covers shared and global memory.
void proxyAsyncGlobalFenceOp(Ctx& c, const Inst&, uint32_t exec) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (exec) sanProxyFenceGlobal(c);
}
void proxyAsyncAllFenceOp(Ctx& c, const Inst& in, uint32_t exec) {
  proxyAsyncFenceOp(c, in, exec);
  if (exec) sanProxyFenceGlobal(c);
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
    if (b.redOp) {  // red.async: the reduction with what is there when it lands (both views agree)
      reduceElements(c.cta->shared.data() + b.dstOff, b.data.data(), (uint32_t)b.data.size(), b.redOp, b.redTy);
      memcpy(asyncShared(c) + b.dstOff, c.cta->shared.data() + b.dstOff, b.data.size());
      if (c.san) sanBulkLand(c, b.dstOff, (unsigned)b.data.size());
    } else if (!b.swizzle) {
      memcpy(c.cta->shared.data() + b.dstOff, b.data.data(), b.data.size());
      memcpy(asyncShared(c) + b.dstOff, b.data.data(), b.data.size());  // written by the async proxy
      if (c.san) sanBulkLand(c, b.dstOff, (unsigned)b.data.size());
    } else {  // TMA swizzle: each 16-byte chunk at address a lands at a ^ ((a >> 7) & mask) << 4
      uint32_t mask = (1u << b.swizzle) - 1;
      for (size_t o = 0; o < b.data.size(); o += 16) {
        uint32_t a = b.dstOff + (uint32_t)o;
        a ^= ((a >> 7) & mask) << 4;
        if ((uint64_t)a + 16 <= c.cta->shared.size()) {
          memcpy(c.cta->shared.data() + a, b.data.data() + o, 16);
          memcpy(asyncShared(c) + a, b.data.data() + o, 16);
          if (c.san) sanBulkLand(c, a, 16);
        }
      }
    }
    if (b.clcFailed) c.cta->clcFailSeen = true;
    ok = mbarrierTx(c, 0, b.barOff, -(int64_t)b.data.size());
  }
  v.resize(keep);
  return ok;
}

// The async proxy reads a bulk store's shared source (what fence.proxy.async last published): the
// bytes, or for a tensor store every 128-byte line the swizzled box touches (swizzling permutes
// 16-byte chunks inside a line; the box starts on a line), clipped to the window.
void takeBulkSource(Ctx& c, BulkStore& s) {
  if (s.taken) return;
  s.taken = true;
  uint64_t lo = s.srcOff, hi = s.tensor ? (s.srcOff + (uint64_t)s.bytes + 127) & ~127ull : s.srcOff + (uint64_t)s.bytes;
  hi = std::min<uint64_t>(hi, c.cta->shared.size());
  s.srcLo = (uint32_t)lo;
  if (hi > lo) s.src.assign(asyncShared(c) + lo, asyncShared(c) + hi);
}

bool settleBulkStores(Ctx& c, int warp, int lane, uint32_t upto, bool readOnly) {
  auto& v = c.cta->bulkStores;
  size_t keep = 0;
  for (size_t i = 0; i < v.size(); i++) {
    BulkStore& s = v[i];
    bool mine = lane < 0 || (s.warp == warp && s.lane == lane && s.group != kOpenGroup && s.group < upto);
    if (mine) takeBulkSource(c, s);
    if (!mine || readOnly) {
      if (keep != i) v[keep] = std::move(s);
      keep++;
      continue;
    }
    if (s.tensor) {
      if (!tmaStore(c, s)) {
        v.clear();
        return false;
      }
    } else if (s.bytes && s.redOp) {
      reduceInto(s.host, s.src.data(), s.bytes, s.redOp, s.redTy);
    } else if (s.bytes) {
      memcpy(s.host, s.src.data(), s.bytes);
    }
  }
  v.resize(keep);
  return true;
}

bool onlyMods(Decoder& dc, const Stmt& st, const char* allowed) {
  for (const std::string& m : st.mods) {
    bool ok = false;
    for (const char* p = allowed; *p && !ok;) {
      const char* q = p;
      while (*q && *q != ' ') q++;
      ok = m.size() == (size_t)(q - p) && m.compare(0, m.size(), p, (size_t)(q - p)) == 0;
      p = *q ? q + 1 : q;
    }
    if (!ok) return dc.fail("modifier ." + m + " is not part of this cp form");
  }
  return true;
}

bool decodeCpAsyncBulk(Decoder& dc, const Stmt& st, Inst& in) {
  in.cls = kMemGlobal;
  if (st.has("reduce")) return decodeCpReduceBulk(dc, st, in);
  if (!onlyMods(dc, st, "async bulk tensor 1d 2d 3d 4d 5d tile tile::gather4 tile::scatter4 im2col im2col::w im2col::w::128 shared::cluster shared::cta global mbarrier::complete_tx::bytes multicast::cluster "
                        "bulk_group commit_group wait_group read L2::cache_hint"))
    return false;
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
    in.mode = st.has("read") ? 1 : 0;  // .read: the sources are read, the global writes may still be pending
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
  in.size = 0;  // no reduction (cp.reduce.async.bulk sets size = op, vec = type after this decoder)
  in.vec = 0;
  in.fn = &bulkCopyOp;
  return true;
}

// cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.redOp{.noftz}.type
// [dstMem], [srcMem], size: a bulk store whose elements are reduced into the destination, with
// the combinations of the ISA's table (the .shared::cluster destination and the tensor form are
// not implemented).
void reduceElements(uint8_t* dst, const uint8_t* src, uint32_t bytes, uint8_t op, uint8_t type) {
  reduceInto(dst, src, bytes, op, type);
}

// CUtensorMapDataType -> the element type of a tensor reduction, where the ISA allows op on it
int reduceTypeOfTensorMap(unsigned dtype, uint8_t op) {
  int t;
  switch (dtype) {
    case 2: t = kTU32; break;   // UINT32
    case 3: t = kTS32; break;   // INT32
    case 4: t = kTU64; break;   // UINT64
    case 5: t = kTS64; break;   // INT64
    case 6: t = kTF16; break;   // FLOAT16
    case 7: t = kTF32; break;   // FLOAT32
    case 8: t = kTF64; break;   // FLOAT64
    case 9: t = kTBF16; break;  // BFLOAT16
    default: return -1;
  }
  switch (op) {
    case kRAdd: return t == kTS64 ? -1 : t;
    case kRMin: case kRMax: return t == kTF32 || t == kTF64 ? -1 : t;
    case kRInc: case kRDec: return t == kTU32 ? t : -1;
    case kRAnd: case kROr: case kRXor:
      return t == kTU32 || t == kTS32 ? kTB32 : t == kTU64 || t == kTS64 ? kTB64 : -1;
  }
  return -1;
}

bool decodeCpReduceBulk(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("tensor")) {
    // cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<op>{.tile}.bulk_group [tensorMap, {..}],
    // [srcMem]: the element type is the tensor map's (checked when it runs)
    static const char* tops[] = {"and", "or", "xor", "add", "inc", "dec", "min", "max"};
    int op = -1, n = 0;
    for (int i = 0; i < 8; i++) if (st.has(tops[i])) { op = i + 1; n++; }
    if (n != 1) return dc.fail("expected one reduction");
    Stmt plain = st;
    plain.mods.clear();
    for (auto& m : st.mods)
      if (m != "reduce" && m != tops[op - 1]) plain.mods.push_back(m);
    if (!decodeCpAsyncBulk(dc, plain, in)) return false;
    if (in.mode != 1) return dc.fail("cp.reduce.async.bulk.tensor reduces into global memory (.global.shared::cta.bulk_group)");
    in.size = (uint8_t)op;
    return true;
  }
  if (st.has("shared::cluster")) {
    // cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.<op>.<type>:
    // a shared-to-shared bulk copy (this or another CTA of the cluster) whose elements are reduced
    // into the destination as they land (settleBulkCopies)
    if (!onlyMods(dc, st, "reduce async bulk shared::cluster shared::cta mbarrier::complete_tx::bytes and or xor add inc dec min max u32 s32 u64 b32"))
      return false;
    static const char* cops[] = {"and", "or", "xor", "add", "inc", "dec", "min", "max"};
    int op = -1, nop = 0;
    for (int i = 0; i < 8; i++) if (st.has(cops[i])) { op = i + 1; nop++; }
    Ty t = st.type();
    if (nop != 1 || t == Ty::None) return dc.fail("expected one reduction and one type");
    int ty = t == Ty::U32 ? kTU32 : t == Ty::S32 ? kTS32 : t == Ty::U64 ? kTU64 : t == Ty::B32 ? kTB32 : -1;
    // the ISA's valid combinations for a .shared::cluster destination
    bool ok = false;
    switch (op) {
      case kRAdd: ok = ty == kTU32 || ty == kTS32 || ty == kTU64; break;
      case kRMin: case kRMax: ok = ty == kTU32 || ty == kTS32; break;
      case kRInc: case kRDec: ok = ty == kTU32; break;
      default: ok = ty == kTB32; break;
    }
    if (!ok) return dc.fail("." + std::string(cops[op - 1]) + " on this type is not a reduction into shared::cluster");
    Stmt plain = st;
    plain.mods.clear();
    for (auto& m : st.mods)
      if (m != "reduce" && m != cops[op - 1] && m != "u32" && m != "s32" && m != "u64" && m != "b32") plain.mods.push_back(m);
    if (!decodeCpAsyncBulk(dc, plain, in)) return false;
    if (in.mode != 1) return dc.fail("cp.reduce.async.bulk into shared::cluster reads .shared::cta");
    in.size = (uint8_t)op;
    in.vec = (uint8_t)ty;
    return true;
  }
  if (!st.has("global") || !st.has("shared::cta") || !st.has("bulk_group"))
    return dc.fail("cp.reduce.async.bulk is implemented for .global.shared::cta.bulk_group and .shared::cluster.shared::cta.mbarrier::complete_tx::bytes");
  if (!onlyMods(dc, st, "reduce async bulk global shared::cta bulk_group L2::cache_hint and or xor add inc dec min max noftz "
                        "u32 s32 u64 s64 b32 b64 f32 f64 f16 bf16"))
    return false;
  static const char* ops[] = {"and", "or", "xor", "add", "inc", "dec", "min", "max"};
  static const char* tys[] = {"u32", "s32", "u64", "s64", "b32", "b64", "f32", "f64", "f16", "bf16"};
  int op = -1, ty = -1, nop = 0, nty = 0;
  for (int i = 0; i < 8; i++) if (st.has(ops[i])) { op = i + 1; nop++; }
  for (int i = 0; i < 10; i++) if (st.has(tys[i])) { ty = i; nty++; }
  if (nop != 1 || nty != 1) return dc.fail("expected one reduction and one type");
  // the ISA's valid combinations for a .global destination
  bool ok = false;
  switch (op) {
    case kRAdd: ok = ty == kTU32 || ty == kTS32 || ty == kTU64 || ty == kTF32 || ty == kTF64 || ty == kTF16 || ty == kTBF16; break;
    case kRMin: case kRMax: ok = ty == kTU32 || ty == kTS32 || ty == kTU64 || ty == kTS64 || ty == kTF16 || ty == kTBF16; break;
    case kRInc: case kRDec: ok = ty == kTU32; break;
    default: ok = ty == kTB32 || ty == kTB64; break;
  }
  if (!ok) return dc.fail("." + std::string(ops[op - 1]) + " is not a reduction of ." + tys[ty]);
  bool half = ty == kTF16 || ty == kTBF16;
  if (half && op == kRAdd && !st.has("noftz")) return dc.fail("add.f16/bf16 needs .noftz");
  if (st.has("noftz") && !(half && op == kRAdd)) return dc.fail(".noftz is a form of add.f16/bf16");
  Stmt plain = st;
  plain.mods.clear();
  for (auto& m : st.mods)
    if (m != "reduce" && m != "noftz" && m != ops[op - 1] && m != tys[ty]) plain.mods.push_back(m);
  if (!decodeCpAsyncBulk(dc, plain, in)) return false;
  in.size = (uint8_t)op;
  in.vec = (uint8_t)ty;
  return true;
}

}  // namespace tsim
