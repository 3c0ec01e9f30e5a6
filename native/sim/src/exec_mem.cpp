// Loads, stores, atomics, address conversion and fences over every state space.
#include <algorithm>
#include <atomic>

#include "exec_mem.h"
#include "exec_float.h"

namespace tsim {

namespace {

void countSectors(Ctx& c, uint32_t exec, const uint64_t* addr, unsigned bytes, bool write) {
  uint64_t distinct = 0;
  bool done = false;
  if (exec == ~0u && bytes <= 32 && (bytes & (bytes - 1)) == 0) {
    // Aligned accesses of at most 32 bytes touch one sector each; a full warp whose sectors never
    // go down (the usual coalesced pattern) is counted in one branch-free pass.
    uint64_t d = 1, down = 0;
    for (int l = 1; l < kWarp; l++) {
      uint64_t a = addr[l] >> 5, b = addr[l - 1] >> 5;
      d += (uint64_t)(a != b);
      down |= (uint64_t)(a < b);
    }
    if (!down) { distinct = d; done = true; }
  }
  if (!done) {
    uint64_t sec[64];
    int n = 0;
    FOR_LANES(exec) {
      uint64_t s0 = addr[l] >> 5, s1 = (addr[l] + bytes - 1) >> 5;
      for (uint64_t s = s0; s <= s1 && n < 64; s++) sec[n++] = s;
    }
    // Sectors within a 64-sector (2 KiB) window: a bitmap; wider: sort.
    uint64_t lo = ~0ull, hi = 0;
    for (int i = 0; i < n; i++) { lo = std::min(lo, sec[i]); hi = std::max(hi, sec[i]); }
    if (n && hi - lo < 64) {
      uint64_t bits = 0;
      for (int i = 0; i < n; i++) bits |= 1ull << (sec[i] - lo);
      distinct = (uint64_t)__builtin_popcountll(bits);
    } else {
      std::sort(sec, sec + n);
      distinct = n ? 1 : 0;
      for (int i = 1; i < n; i++) distinct += sec[i] != sec[i - 1];
    }
  }
  if (write) { c.ctr.globalStoreRequests++; c.ctr.globalStoreSectors += distinct; }
  else { c.ctr.globalLoadRequests++; c.ctr.globalLoadSectors += distinct; }
}

// Largest number of distinct 4-byte words any of the 32 banks must serve for the lanes in exec
// (lanes reading the same word share it: a broadcast).
int bankWavefronts(uint32_t exec, const uint64_t* addr, unsigned bytes) {
  uint32_t words[32][8];
  int cnt[32] = {};
  FOR_LANES(exec) {
    for (unsigned w = 0; w < (bytes + 3) / 4; w++) {
      uint32_t word = (uint32_t)((addr[l] >> 2) + w);
      int b = word & 31;
      bool seen = false;
      // only the first 8 distinct words per bank are remembered (cnt may count past 8)
      for (int i = 0; i < std::min(cnt[b], 8); i++) seen |= words[b][i] == word;
      if (!seen && cnt[b] < 8) words[b][cnt[b]++] = word;
      else if (!seen) cnt[b]++;
    }
  }
  int wave = 0;
  for (int b = 0; b < 32; b++) wave = std::max(wave, cnt[b]);
  return wave;
}

// Extra wavefronts beyond one per phase: 32 banks of 4 bytes; a warp's access is served in
// phases of 128 bytes (4-byte accesses: the whole warp; 8-byte: half-warps; 16-byte, incl.
// ldmatrix rows: quarter-warps), and each phase needs as many wavefronts as its busiest bank.
void countBanks(Ctx& c, uint32_t exec, const uint64_t* addr, unsigned bytes) {
  c.ctr.sharedAccesses++;
  if (exec == ~0u && bytes == 4) {
    // Common conflict-free full-warp patterns: consecutive words (one per bank) or one word.
    uint64_t w0 = addr[0] >> 2, seq = 0, same = 0;
    for (uint32_t l = 1; l < (uint32_t)kWarp; l++) {
      seq |= (addr[l] >> 2) ^ (w0 + l);
      same |= (addr[l] >> 2) ^ w0;
    }
    if (!seq || !same) return;
  }
  unsigned lanesPerPhase = bytes <= 4 ? 32 : 128 / bytes;
  uint32_t phaseMask = lanesPerPhase == 32 ? ~0u : (1u << lanesPerPhase) - 1;
  for (unsigned p = 0; p < 32; p += lanesPerPhase) {
    uint32_t lanes = exec & (phaseMask << p);
    if (!lanes) continue;
    int wave = bankWavefronts(lanes, addr, bytes);
    if (wave > 1) c.ctr.sharedBankConflicts += (uint64_t)(wave - 1);
  }
}

}  // namespace

// Every byte of a cached span was accepted by translate(): spans that overlap or touch merge
// directly; a span near one with the same host offset (a strided walk) merges only when
// translate() accepts the whole union, i.e. the gap lies inside the same allocation.
static void rememberSpan(Ctx& c, uint64_t lo, uint64_t hi, uint8_t* host, bool write) {
  constexpr uint64_t kNear = 1 << 20;
  uintptr_t delta = (uintptr_t)host - (uintptr_t)lo;
  for (auto& sp : c.spans) {
    if (sp.lo > sp.hi || (uintptr_t)sp.host - (uintptr_t)sp.lo != delta) continue;
    if (lo > sp.hi + kNear || hi + kNear < sp.lo) continue;
    uint64_t nlo = std::min(sp.lo, lo), nhi = std::max(sp.hi, hi);
    if (lo > sp.hi || hi < sp.lo) {
      Fault f;
      if (nhi - nlo >= (1u << 30) || c.L->mem->translate(nlo, (unsigned)(nhi - nlo), write, f) != (uint8_t*)(nlo + delta))
        continue;
    }
    sp.lo = nlo;
    sp.hi = nhi;
    sp.host = (uint8_t*)(nlo + delta);
    return;
  }
  c.spans[c.nextSpan++ % Ctx::kSpans] = Ctx::Span{lo, hi, host};
}

bool resolveGlobal(Ctx& c, uint32_t exec, const uint64_t* addr, unsigned bytes, bool write, uint8_t** ptr) {
  uint64_t lo = ~0ull, hi = 0, bad = 0;
  LANE_LOOP(exec, {
    bad |= addr[l] & (bytes - 1);
    lo = std::min(lo, addr[l]);
    hi = std::max(hi, addr[l]);
  });
  if (bad) {  // report the first misaligned lane
    FOR_LANES(exec) {
      if (addr[l] & (bytes - 1)) {
        raise(c, Fault::Misaligned, (int)l, addr[l], bytes, write, "global access not aligned to its size");
        return false;
      }
    }
  }
  if (!exec) return true;
  hi += bytes;
  uint8_t* base = nullptr;
  for (auto& sp : c.spans) {
    if (lo >= sp.lo && hi <= sp.hi) {
      base = sp.host + (lo - sp.lo);
      break;
    }
  }
  if (!base) {
    Fault f;
    base = (hi - lo) < (1u << 30) ? c.L->mem->translate(lo, (unsigned)(hi - lo), write, f) : nullptr;
    if (base) {
      rememberSpan(c, lo, hi, base, write);
    } else {
      FOR_LANES(exec) {
        Fault g;
        uint8_t* p = c.L->mem->translate(addr[l], bytes, write, g);
        if (!p) {
          raise(c, g.kind == Fault::None ? Fault::OutOfBounds : g.kind, (int)l, addr[l], bytes, write, g.detail);
          return false;
        }
        ptr[l] = p;
      }
      return true;
    }
  }
  LANE_LOOP(exec, ptr[l] = base + (addr[l] - lo));
  return true;
}

bool resolve(Ctx& c, const Inst& in, uint32_t exec, unsigned bytes, bool write, uint8_t** ptr, bool count) {
  const uint64_t* A = slot(c, in.s[0]);
  uint64_t addr[kWarp];
  LANE_LOOP(exec, addr[l] = A[l] + (uint64_t)in.imm);
  uint8_t space = in.space;
  if (space == kGeneric) {
    uint32_t glob = 0, shr = 0, loc = 0;
    FOR_LANES(exec) {
      uint64_t w = addr[l] & kWindowMask;
      if (w == kSharedWindow) { shr |= 1u << l; addr[l] -= kSharedWindow; }
      else if (w == kLocalWindow) { loc |= 1u << l; addr[l] -= kLocalWindow; }
      else if (w == kParamWindow) {  // a kernel parameter through cvta.param: read-only
        uint64_t o = addr[l] - kParamWindow;
        if (write || o + bytes > c.L->fn->info.paramBytes || !c.L->cfg->params) {
          raise(c, Fault::OutOfBounds, (int)l, addr[l], bytes, write, "outside the kernel parameters (generic param address)");
          return false;
        }
        ptr[l] = const_cast<uint8_t*>(c.L->cfg->params) + o;
      }
      else glob |= 1u << l;
    }
    if (glob) {
      if (!resolveGlobal(c, glob, addr, bytes, write, ptr)) return false;
      if (count) countSectors(c, glob, addr, bytes, write);
      if (c.san) sanGlobal(c, glob, addr, bytes, write);
    }
    exec = shr | loc;
    if (!exec) return true;
    const uint32_t shrAll = shr;  // own and (through mapa) other CTAs' shared memory, for the sanitizers
    FOR_LANES(exec) {
      bool isShared = shr >> l & 1;
      if (addr[l] & (bytes - 1)) {
        raise(c, Fault::Misaligned, (int)l, addr[l], bytes, write, "access not aligned to its size");
        return false;
      }
      if (isShared && (addr[l] >> kClusterRankShift)) {  // another CTA's, through mapa (exec_cluster.cpp)
        if (!(ptr[l] = clusterSharedPtr(c, (int)l, addr[l], bytes, write))) return false;
        shr &= ~(1u << l);
      } else if (isShared) {
        if (addr[l] + bytes > c.cta->shared.size()) {
          raise(c, Fault::SharedOutOfBounds, (int)l, addr[l], bytes, write, "shared memory window exceeded");
          return false;
        }
        ptr[l] = c.cta->shared.data() + addr[l];
      } else {
        if (addr[l] + bytes > c.cta->localBytes) {
          raise(c, Fault::SharedOutOfBounds, (int)l, addr[l], bytes, write, "local memory window exceeded");
          return false;
        }
        ptr[l] = c.cta->local.data() + (size_t)(c.w->id * kWarp + l) * c.cta->localBytes + addr[l];
      }
    }
    if (count && shr) countBanks(c, shr, addr, bytes);
    if (c.san && shrAll) sanShared(c, in, shrAll, addr, bytes, write);
    return true;
  }
  if (space == kGlobal || space == kConst) {
    if (!resolveGlobal(c, exec, addr, bytes, write, ptr)) return false;
    if (count) countSectors(c, exec, addr, bytes, write);
    if (c.san && space == kGlobal) sanGlobal(c, exec, addr, bytes, write);
    return true;
  }
  if (space == kSharedCluster) {  // distributed shared memory (exec_cluster.cpp)
    uint32_t own = 0;
    FOR_LANES(exec) {
      if (!(ptr[l] = clusterSharedPtr(c, (int)l, addr[l], bytes, write))) return false;
      if (!(addr[l] >> kClusterRankShift)) own |= 1u << l;
    }
    if (count && own) countBanks(c, own, addr, bytes);
    if (c.san) sanShared(c, in, exec, addr, bytes, write);
    return true;
  }
  FOR_LANES(exec) {
    if (addr[l] & (bytes - 1)) {
      raise(c, Fault::Misaligned, (int)l, addr[l], bytes, write, "access not aligned to its size");
      return false;
    }
  }
  if (space == kShared) {
    size_t n = c.cta->shared.size();
    FOR_LANES(exec) {
      if (addr[l] >= n || addr[l] + bytes > n) {
        raise(c, Fault::SharedOutOfBounds, (int)l, addr[l], bytes, write,
              "shared window is " + std::to_string(n) + " bytes");
        return false;
      }
      ptr[l] = c.cta->shared.data() + addr[l];
    }
    if (count) countBanks(c, exec, addr, bytes);
    if (c.san) sanShared(c, in, exec, addr, bytes, write);
    return true;
  }
  if (space == kLocal) {
    unsigned n = c.cta->localBytes;
    FOR_LANES(exec) {
      if (addr[l] >= n || addr[l] + bytes > n) {
        raise(c, Fault::SharedOutOfBounds, (int)l, addr[l], bytes, write, "local window exceeded");
        return false;
      }
      ptr[l] = c.cta->local.data() + (size_t)(c.w->id * kWarp + l) * n + addr[l];
    }
    return true;
  }
  // kernel parameters: read-only
  unsigned n = c.L->fn->info.paramBytes;
  FOR_LANES(exec) {
    if (write || addr[l] + bytes > n || !c.L->cfg->params) {
      raise(c, Fault::OutOfBounds, (int)l, addr[l], bytes, write, "outside the kernel parameters");
      return false;
    }
    ptr[l] = const_cast<uint8_t*>(c.L->cfg->params) + addr[l];
  }
  return true;
}

namespace {

template <unsigned ES> struct Bits;
template <> struct Bits<1> { using U = uint8_t; using S = int8_t; };
template <> struct Bits<2> { using U = uint16_t; using S = int16_t; };
template <> struct Bits<4> { using U = uint32_t; using S = int32_t; };
template <> struct Bits<8> { using U = uint64_t; using S = int64_t; };

// Fixed-size copies per element width (a runtime-sized memcpy per lane was the hot spot).
template <unsigned ES, class T> void ldLanes(Ctx& c, const Inst& in, uint32_t exec, uint8_t* const* p) {
  for (int k = 0; k < in.vec; k++) {
    uint64_t* d = slot(c, in.d[k]);
    LANE_LOOP(exec, {
      T v;
      memcpy(&v, p[l] + k * ES, ES);
      d[l] = (uint64_t)(int64_t)v;
    });
  }
}
template <unsigned ES> void ldSized(Ctx& c, const Inst& in, uint32_t exec, uint8_t* const* p) {
  if (in.flags & kfSigned) ldLanes<ES, typename Bits<ES>::S>(c, in, exec, p);
  else ldLanes<ES, typename Bits<ES>::U>(c, in, exec, p);
}
template <unsigned ES> void stSized(Ctx& c, const Inst& in, uint32_t exec, uint8_t* const* p) {
  for (int k = 0; k < in.vec; k++) {
    const uint64_t* s = slot(c, in.s[1 + k]);
    LANE_LOOP(exec, {
      typename Bits<ES>::U v = (typename Bits<ES>::U)s[l];
      memcpy(p[l] + k * ES, &v, ES);
    });
  }
}

void ldOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  unsigned es = in.size;
  if (!resolve(c, in, exec, es * in.vec, false, p, true)) return;
  switch (es) {
    case 1: ldSized<1>(c, in, exec, p); break;
    case 2: ldSized<2>(c, in, exec, p); break;
    case 4: ldSized<4>(c, in, exec, p); break;
    default: ldSized<8>(c, in, exec, p); break;
  }
}

void stOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  unsigned es = in.size;
  if (!resolve(c, in, exec, es * in.vec, true, p, true)) return;
  switch (es) {
    case 1: stSized<1>(c, in, exec, p); break;
    case 2: stSized<2>(c, in, exec, p); break;
    case 4: stSized<4>(c, in, exec, p); break;
    default: stSized<8>(c, in, exec, p); break;
  }
}

enum { kAtAdd, kAtMin, kAtMax, kAtInc, kAtDec, kAtCas, kAtExch, kAtAnd, kAtOr, kAtXor };

template <class T> T atomicValue(int op, T old, T b, T cmpv, T swapv) {
  switch (op) {
    case kAtAdd: if constexpr (std::is_integral_v<T>) return (T)((std::make_unsigned_t<T>)old + (std::make_unsigned_t<T>)b); else return old + b;
    case kAtMin:
      if constexpr (std::is_floating_point_v<T>) return old != old ? b : b != b ? old : (b < old || (b == old && std::signbit(b))) ? b : old;
      else return b < old ? b : old;
    case kAtMax:
      if constexpr (std::is_floating_point_v<T>) return old != old ? b : b != b ? old : (b > old || (b == old && !std::signbit(b))) ? b : old;
      else return b > old ? b : old;
    case kAtCas: return old == cmpv ? swapv : old;
    case kAtExch: return b;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case kAtInc: return old >= b ? 0 : old + 1;
      case kAtDec: return (old == 0 || old > b) ? b : old - 1;
      case kAtAnd: return old & b;
      case kAtOr: return old | b;
      case kAtXor: return old ^ b;
    }
  }
  return old;
}

// T: value type; the update is a compare-and-swap loop on the host bytes, so it is atomic across
// CTAs running on other worker threads.
template <class T> void atomOp(Ctx& c, const Inst& in, uint32_t exec) {
  using B = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  uint8_t* p[kWarp];
  if (!resolve(c, in, exec, sizeof(T), true, p, true)) return;
  const uint64_t *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  uint64_t* d = slot(c, in.d[0]);
  bool cas = in.mode == kAtCas;
  FOR_LANES(exec) {
    B* q = reinterpret_cast<B*>(p[l]);
    B oldBits = __atomic_load_n(q, __ATOMIC_RELAXED), newBits;
    T bv = rd<T>(b[l]);
    T cmpv = cas ? bv : T(0), swapv = cas ? rd<T>(e[l]) : T(0);
    do {
      T nv = atomicValue<T>(in.mode, rd<T>(oldBits), bv, cmpv, swapv);
      memcpy(&newBits, &nv, sizeof(T));
      if (cas && newBits == oldBits) break;
    } while (!__atomic_compare_exchange_n(q, &oldBits, newBits, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    d[l] = oldBits;
  }
}

// f16x2/bf16x2 add: both halves updated in one CAS.
template <bool BF> void atomHalf2(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  unsigned bytes = in.size;
  if (!resolve(c, in, exec, bytes, true, p, true)) return;
  const uint64_t* b = slot(c, in.s[1]);
  uint64_t* d = slot(c, in.d[0]);
  Ty fmt = BF ? Ty::BF16 : Ty::F16;
  FOR_LANES(exec) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p[l]);
    uint32_t shift = bytes == 2 ? ((uintptr_t)p[l] & 2) * 8 : 0;
    if (bytes == 2) q = reinterpret_cast<uint32_t*>((uintptr_t)p[l] & ~(uintptr_t)3);
    uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
    do {
      nv = old;
      for (unsigned k = 0; k < bytes / 2; k++) {
        unsigned sh = shift + 16 * k;
        uint16_t o = (uint16_t)(old >> sh), a = (uint16_t)(b[l] >> (16 * k));
        double s = BF ? (double)bf16ToF32(o) + bf16ToF32(a) : (double)f16ToF32(o) + f16ToF32(a);
        nv = (nv & ~(0xffffu << sh)) | ((uint32_t)roundTo(s, fmt, kRn) << sh);
      }
    } while (!__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    d[l] = bytes == 2 ? (old >> shift) & 0xffff : old;
  }
}

// atom.cas.b16: a CAS on the aligned 32-bit word holding the half-word (as atomHalf2), so the
// other half-word is never disturbed.
void atomCas16(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  if (!resolve(c, in, exec, 2, true, p, true)) return;
  const uint64_t *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  uint64_t* d = slot(c, in.d[0]);
  FOR_LANES(exec) {
    uint32_t shift = ((uintptr_t)p[l] & 2) * 8;
    uint32_t* q = reinterpret_cast<uint32_t*>((uintptr_t)p[l] & ~(uintptr_t)3);
    uint16_t cmpv = (uint16_t)b[l], swapv = (uint16_t)e[l];
    uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
    do {
      if ((uint16_t)(old >> shift) != cmpv) break;
      nv = (old & ~(0xffffu << shift)) | ((uint32_t)swapv << shift);
    } while (!__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    d[l] = (old >> shift) & 0xffff;
  }
}

void cvtaOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  int64_t add = in.imm;
  bool toSpace = in.mode;
  FOR_LANES(exec) {
    uint64_t v = a[l];
    if (toSpace && add) v &= ~kWindowMask;
    else v += (uint64_t)add;
    d[l] = in.size == 4 ? (uint32_t)v : v;
  }
}

void isspacepOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  FOR_LANES(exec) {
    uint64_t w = a[l] & kWindowMask;
    // shared::cta: the executing CTA's window only, not another CTA's (a generic mapa address)
    bool own = w == kSharedWindow && !((a[l] - kSharedWindow) >> kClusterRankShift);
    bool r = in.mode == kShared ? own : in.mode == kSharedCluster ? w == kSharedWindow
             : in.mode == kLocal ? w == kLocalWindow : (w != kSharedWindow && w != kLocalWindow);
    d[l] = r;
  }
}

void fenceOp(Ctx&, const Inst&, uint32_t) { std::atomic_thread_fence(std::memory_order_seq_cst); }
void nopOp(Ctx&, const Inst&, uint32_t) {}

uint8_t spaceOf(const Stmt& st) {
  if (st.has("global")) return kGlobal;
  if (st.has("shared") || st.has("shared::cta")) return kShared;
  if (st.has("shared::cluster")) return kSharedCluster;
  if (st.has("local")) return kLocal;
  if (st.has("param")) return kParam;
  if (st.has("const")) return kConst;
  return kGeneric;
}

bool knownMemMod(const std::string& m) {
  static const char* ok[] = {"global", "shared", "shared::cta", "shared::cluster", "local", "param", "const", "volatile", "relaxed",
                             "acquire", "release", "weak", "sys", "gpu", "cta", "cluster", "ca", "cg", "cs", "lu", "cv",
                             "wb", "wt", "nc", "v2", "v4", "L1::evict_normal", "L1::evict_unchanged",
                             "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
                             "L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B", "mmio"};
  for (auto* k : ok) if (m == k) return true;
  return parseTy(m) != Ty::None;
}

bool addrOperand(Decoder& dc, const Stmt& st, const Operand& o, Inst& in) {
  uint8_t symSpace;
  if (!dc.addr(o, in.s[0], in.imm, symSpace)) return false;
  in.space = spaceOf(st);
  if (in.space == kGeneric) in.space = symSpace;
  // .param symbols of device functions live in local memory
  if (in.space == kParam && symSpace == kLocal) in.space = kLocal;
  if (in.space == kConst && symSpace == kGeneric) in.space = kGlobal;
  if (in.space == kSharedCluster && symSpace != kGeneric && symSpace != kShared)
    return dc.fail(".shared::cluster access to a non-shared variable");
  in.cls = in.space == kShared || in.space == kSharedCluster ? kMemShared : kMemGlobal;
  return true;
}

// .L2::cache_hint: the last operand is a cache-eviction policy (from createpolicy). It only steers
// the L2 cache, so reading it (it must be a valid operand) and otherwise ignoring it is exact.
// Returns the statement without the hint and its operand.
Stmt withoutCacheHint(Decoder& dc, const Stmt& st) {
  Stmt s = st;
  if (!st.has("L2::cache_hint")) return s;
  if (s.ops.empty()) return s;
  dc.src(s.ops.back(), Ty::B64);
  s.ops.pop_back();
  s.mods.erase(std::remove(s.mods.begin(), s.mods.end(), std::string("L2::cache_hint")), s.mods.end());
  return s;
}

bool ldstDecodeStmt(Decoder& dc, const Stmt& st, Inst& in);
}  // namespace
bool decodeLdSt128(Decoder& dc, const Stmt& st, Inst& in);  // exec_b128.cpp
bool decodeAtom128(Decoder& dc, const Stmt& st, Inst& in);
bool decodeAtomVec(Decoder& dc, const Stmt& st, Inst& in);
bool decodeStAsync(Decoder& dc, const Stmt& st, Inst& in);  // exec_st_async.cpp
bool decodeRedAsync(Decoder& dc, const Stmt& st, Inst& in);
namespace {
bool ldstDecode(Decoder& dc, const Stmt& st, Inst& in) { return ldstDecodeStmt(dc, withoutCacheHint(dc, st), in); }

bool ldstDecodeStmt(Decoder& dc, const Stmt& st, Inst& in) {
  for (auto& m : st.mods) if (!knownMemMod(m)) return dc.fail("modifier ." + m);
  Ty t = st.type();
  if (t == Ty::B128) return decodeLdSt128(dc, st, in);
  if (t == Ty::None || st.ops.size() != 2) return dc.fail("bad ld/st form");
  in.size = (uint8_t)tySize(t);
  in.vec = st.has("v4") ? 4 : st.has("v2") ? 2 : 1;
  if (in.size == 16 || t == Ty::Pred) return dc.fail("unsupported width");
  if (tyIsSigned(t)) in.flags |= kfSigned;
  bool isLd = st.op == "ld" || st.op == "ldu";
  const Operand& a = isLd ? st.ops[1] : st.ops[0];
  const Operand& v = isLd ? st.ops[0] : st.ops[1];
  if (!addrOperand(dc, st, a, in)) return false;
  std::vector<const Operand*> regs;
  if (v.kind == Operand::Vec) for (auto& e : v.elems) regs.push_back(&e);
  else regs.push_back(&v);
  if (regs.size() != in.vec) return dc.fail("vector size does not match");
  for (unsigned k = 0; k < in.vec; k++) {
    if (isLd) in.d[k] = dc.dst(*regs[k]);
    else in.s[1 + k] = dc.src(*regs[k], t);
  }
  if (!isLd && in.vec == 4) return dc.fail("internal: st.v4 needs 5 sources");
  in.fn = isLd ? &ldOp : &stOp;
  return true;
}

// st.v4 has 5 sources: address + 4 values; Inst::s has 4 slots, so the address moves to d[3].
void stV4Op(Ctx& c, const Inst& in, uint32_t exec) {
  Inst t = in;
  t.s[0] = in.d[3];
  uint8_t* p[kWarp];
  unsigned es = in.size;
  if (!resolve(c, t, exec, es * 4, true, p, true)) return;
  const uint32_t srcs[4] = {in.s[0], in.s[1], in.s[2], in.s[3]};
  for (int k = 0; k < 4; k++) {
    const uint64_t* s = slot(c, srcs[k]);
    FOR_LANES(exec) memcpy(p[l] + k * es, &s[l], es);
  }
}

bool stDecodeStmt(Decoder& dc, const Stmt& st, Inst& in);
bool stDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("async")) return decodeStAsync(dc, st, in);  // exec_st_async.cpp
  return stDecodeStmt(dc, withoutCacheHint(dc, st), in);
}

bool stDecodeStmt(Decoder& dc, const Stmt& st, Inst& in) {
  if (!(st.has("v4"))) return ldstDecodeStmt(dc, st, in);
  for (auto& m : st.mods) if (!knownMemMod(m)) return dc.fail("modifier ." + m);
  Ty t = st.type();
  if (t == Ty::None || st.ops.size() != 2 || st.ops[1].kind != Operand::Vec || st.ops[1].elems.size() != 4)
    return dc.fail("bad st.v4 form");
  in.size = (uint8_t)tySize(t);
  in.vec = 4;
  if (!addrOperand(dc, st, st.ops[0], in)) return false;
  in.d[3] = in.s[0];
  for (int k = 0; k < 4; k++) in.s[k] = dc.src(st.ops[1].elems[k], t);
  in.fn = &stV4Op;
  return true;
}

bool atomDecodeStmt(Decoder& dc, const Stmt& st, Inst& in);
bool atomDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.op == "red" && st.has("async")) return decodeRedAsync(dc, st, in);  // exec_st_async.cpp
  if (st.has("async")) return dc.fail("atom has no .async form");
  return atomDecodeStmt(dc, withoutCacheHint(dc, st), in);
}

bool atomDecodeStmt(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.type() == Ty::B128) return decodeAtom128(dc, st, in);
  if (st.has("v2") || st.has("v4") || st.has("v8")) return decodeAtomVec(dc, st, in);
  static const char* ops[] = {"add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor"};
  int op = -1;
  for (int i = 0; i < 10; i++) if (st.has(ops[i])) op = i;
  if (op < 0) return dc.fail("unknown atomic operation");
  Ty t = st.type();
  bool red = st.op == "red";
  size_t want = (red ? 2 : 3) + (op == kAtCas ? 1 : 0);
  if (st.ops.size() != want) return dc.fail("wrong operand count");
  for (auto& m : st.mods) {
    bool ok = knownMemMod(m) || m == "acq_rel" || m == "noftz" || m == ops[op];
    if (!ok) return dc.fail("modifier ." + m);
  }
  int k = 0;
  in.d[0] = red ? kSlotSink : dc.dst(st.ops[k++]);
  if (!addrOperand(dc, st, st.ops[k++], in)) return false;
  in.s[1] = dc.src(st.ops[k++], t);
  if (op == kAtCas) in.s[2] = dc.src(st.ops[k++], t);
  in.mode = (uint8_t)op;
  in.cls = in.space == kShared || in.space == kSharedCluster ? kMemShared : kMemGlobal;
  in.flags |= kfSanAtomic;
  bool bitwise = op == kAtAnd || op == kAtOr || op == kAtXor || op == kAtCas || op == kAtExch;
  switch (t) {
    case Ty::B32: in.fn = bitwise ? &atomOp<uint32_t> : nullptr; break;
    case Ty::B64: in.fn = bitwise ? &atomOp<uint64_t> : nullptr; break;
    case Ty::B16: in.size = 2; in.fn = op == kAtCas ? &atomCas16 : nullptr; break;
    case Ty::U32: in.fn = &atomOp<uint32_t>; break;
    case Ty::S32: in.fn = &atomOp<int32_t>; break;
    case Ty::U64: in.fn = &atomOp<uint64_t>; break;
    case Ty::S64: in.fn = (op == kAtMin || op == kAtMax || op == kAtAdd) ? &atomOp<int64_t> : nullptr; break;
    case Ty::F32: in.fn = (op == kAtAdd || op == kAtExch || op == kAtMin || op == kAtMax) ? &atomOp<float> : nullptr; break;
    case Ty::F64: in.fn = (op == kAtAdd || op == kAtExch) ? &atomOp<double> : nullptr; break;
    case Ty::F16x2: in.size = 4; in.fn = op == kAtAdd ? &atomHalf2<false> : nullptr; break;
    case Ty::BF16x2: in.size = 4; in.fn = op == kAtAdd ? &atomHalf2<true> : nullptr; break;
    case Ty::F16: in.size = 2; in.fn = op == kAtAdd ? &atomHalf2<false> : nullptr; break;
    case Ty::BF16: in.size = 2; in.fn = op == kAtAdd ? &atomHalf2<true> : nullptr; break;
    default: break;
  }
  if (!in.fn) return dc.fail("atomic type/operation combination");
  return true;
}

bool cvtaDecode(Decoder& dc, const Stmt& st, Inst& in) {
  Ty t = st.type();
  if (st.ops.size() != 2 || (t != Ty::U64 && t != Ty::U32 && t != Ty::B64)) return dc.fail("bad cvta");
  bool to = st.has("to");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], t);
  in.size = (uint8_t)tySize(t);
  in.mode = to;
  if (st.has("shared") || st.has("shared::cta") || st.has("shared::cluster")) in.imm = (int64_t)kSharedWindow;
  else if (st.has("local")) in.imm = (int64_t)kLocalWindow;
  else if (st.has("param")) in.imm = (int64_t)kParamWindow;  // kernel parameters: the param window
  else if (st.has("global") || st.has("const")) in.imm = 0;
  else return dc.fail("cvta needs a state space");
  in.fn = &cvtaOp;
  return true;
}

bool isspacepDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 2) return dc.fail("bad isspacep");
  in.d[0] = dc.dst(st.ops[0]);
  in.s[0] = dc.src(st.ops[1], Ty::U64);
  in.mode = spaceOf(st);
  in.fn = &isspacepOp;
  return true;
}

bool fenceDecode(Decoder&, const Stmt& st, Inst& in) {
  in.fn = &fenceOp;
  // fence.proxy.async{.shared::cta,.shared::cluster}: orders generic shared-memory writes before
  // the async proxy's accesses (wgmma, bulk and tensor copies), which read Cta::asyncView;
  // .global orders generic global writes before TMA/bulk loads (racecheck tracks it); no state
  // space: both
  if (st.has("proxy") && st.has("async")) {
    bool sh = st.has("shared::cta") || st.has("shared::cluster"), gl = st.has("global");
    in.fn = gl && !sh ? &proxyAsyncGlobalFenceOp : sh ? &proxyAsyncFenceOp : &proxyAsyncAllFenceOp;
  }
  in.cls = kSync;
  return true;
}
bool prefetchDecode(Decoder&, const Stmt&, Inst& in) {
  in.fn = &nopOp;
  in.cls = kOther;
  return true;
}

}  // namespace

// createpolicy.{fractional,range,cvt}...b64 d, ...: an opaque cache policy for .L2::cache_hint
// operands; since those hints have no effect here, any fixed value is exact.
void createpolicyOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  FOR_LANES(exec) d[l] = (uint64_t)in.imm;
}

bool createpolicyDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.empty()) return dc.fail("expected createpolicy... d, ...");
  in.d[0] = dc.dst(st.ops[0]);
  for (size_t i = 1; i < st.ops.size(); i++) {
    const Operand& o = st.ops[i];
    if (o.kind == Operand::Addr) {
      uint32_t b;
      int64_t off;
      uint8_t sp;
      if (!dc.addr(o, b, off, sp)) return false;
    } else if (o.kind != Operand::Imm) {
      dc.src(o, Ty::B32);
    }
  }
  in.imm = 0x7ea5e0000000000ll | (st.has("L2::evict_first") ? 1 : st.has("L2::evict_last") ? 2 : st.has("L2::evict_unchanged") ? 3 : 0);
  in.fn = &createpolicyOp;
  return true;
}

void registerMemOps(DecodeTable& t) {
  const std::string mem = "global shared shared::cta shared::cluster cluster local param const volatile relaxed acquire release weak sys gpu cta ca cg cs lu cv wb wt nc v2 v4 L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last L2::64B L2::128B L2::256B L2::cache_hint mmio", types = "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 bf16x2 f32 f64";
  addOp(t, "ld", ldstDecode, mem + " " + types, "cache operators, eviction hints and `.L2::cache_hint` policies have no effect");
  addOp(t, "ldu", ldstDecode, mem + " " + types, "");
  addOp(t, "st", stDecode, mem + " " + types + " async mbarrier::complete_tx::bytes",
        "`st.async` (sm_90): a store into another CTA of the cluster that lands, with complete_tx on its mbarrier, when that CTA tests it");
  const std::string atomic = "global shared shared::cta shared::cluster cluster relaxed acquire release acq_rel sys gpu cta noftz L2::cache_hint "
                             "v2 v4 v8 add min max inc dec cas exch and or xor b16 b32 b64 b128 u32 u64 s32 s64 f16 f16x2 bf16 bf16x2 f32 f64";
  addOp(t, "atom", atomDecode, atomic, "a CAS loop on the host bytes");
  addOp(t, "red", atomDecode, atomic + " async mbarrier::complete_tx::bytes",
        "`red.async` (sm_90): as `st.async`, the reduction applied as it lands");
  addOp(t, "createpolicy", createpolicyDecode,
        "fractional range cvt global L2 L2::evict_last L2::evict_normal L2::evict_first L2::evict_unchanged b64",
        "an opaque policy for `.L2::cache_hint` operands (hints have no effect)");
  addOp(t, "cvta", cvtaDecode, "to global shared shared::cta shared::cluster local const param u32 u64", "");
  addOp(t, "isspacep", isspacepDecode, "global shared shared::cta shared::cluster local", "");
  addOp(t, "fence", fenceDecode, "sc acq_rel acquire release cta cluster gpu sys proxy alias async async::generic async::global async::shared::cta shared::cta shared::cluster global mbarrier_init tensormap::generic", "`fence.proxy.async{.shared::cta,.shared::cluster}` publishes shared memory to the async proxy; `.global` and the unqualified form order generic global writes before TMA/bulk loads for racecheck; the rest are host fences");
  addOp(t, "membar", fenceDecode, "cta gl sys", "a host fence");
  addOp(t, "prefetch", prefetchDecode, "global local param const L1 L2 L2::evict_last L2::evict_normal tensormap", "no effect");
  addOp(t, "prefetchu", prefetchDecode, "L1", "no effect");
}

}  // namespace tsim
