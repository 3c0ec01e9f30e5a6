// Tensor copies (TMA; sm_90; PTX ISA "cp.async.bulk.tensor", CUDA driver cuTensorMapEncodeTiled):
//   cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global{.tile}.mbarrier::complete_tx::bytes
//       [dstMem], [tensorMap, {c0, ..., cN-1}], [mbar]
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensorMap, {c0, ...}], [srcMem]
// The tensor map (128 bytes, by value in a kernel parameter or in global memory; tensormap.h) gives
// the global tensor (address, dims, byte strides), the box (boxDim, elementStrides) and the
// shared-memory swizzle. The box is laid into shared memory densely, dimension 0 fastest, with
// ceil(boxDim[i] / elementStrides[i]) elements along dimension i > 0 (boxDim[0] along dimension 0)
// taken at coordinates c_i + j * elementStrides[i]; elements outside the tensor (coordinates are
// signed) read as zero on loads (as NaN with the map's NaN fill: oobNaN below) and are not written
// on stores. With a 32B/64B/128B swizzle the
// 16-byte chunk at shared address a is placed at a ^ (((a >> 7) & m) << 4), m = 1/3/7: the pattern
// wgmma's descriptors read. A load signals complete_tx(box bytes) on its mbarrier and lands as the
// plain bulk copies do (when the mbarrier is tested); a store reads shared memory when its bulk
// group is waited for (or the CTA ends). A load into another CTA of the cluster (a mapa
// destination) or .multicast::cluster (every CTA of ctaMask) lands in those CTAs' shared memory
// when each tests its mbarrier.
// The other load modes (.tile::gather4, .tile::scatter4, .im2col, .im2col::w, .im2col::w::128) say
// which elements the box holds in exec_tma_modes.cpp; they land and complete as .tile does.
// Not implemented (a fault naming it): interleaved maps, the 128B_ATOM swizzles, a swizzled
// box whose inner dimension is narrower than the swizzle span.
#include <climits>
#include <cstdlib>

#include "exec_core.h"
#include "exec_mem.h"
#include "exec_tma_modes.h"
#include "tensormap.h"

namespace tsim {

namespace {

// ext: [tmap base slot, tmap offset (int32), tmap space, load mode (TmaLoadMode), coord slots...,
// im2colInfo slots...]; in.vec = rank; in.mode: 0 load, 1 store. Load: s[0]+imm = dst shared address, s[3]+target = mbarrier.
// Store: s[0]+imm = src shared address.

// CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA: out-of-bounds elements of a load are the
// ISA's "OOB-NaN" (5.5.3.3). Its bit pattern is not documented; the sim writes the canonical NaN of
// the element type, the NaN its own arithmetic produces (exec_float.cpp). Returns the element's
// bits, or false for an element type without NaN (the driver refuses NaN fill on those at encode;
// a device-side tensormap.replace can still combine them).
bool oobNaN(unsigned dtype, uint64_t& bits) {
  switch (dtype) {
    case 6: case 9: bits = 0x7fff; return true;                              // FLOAT16, BFLOAT16
    case 7: case 10: case 11: case 12: bits = 0x7fffffffu; return true;      // FLOAT32(_FTZ), TFLOAT32(_FTZ)
    case 8: bits = 0x7fffffffffffffffull; return true;                       // FLOAT64
    default: return false;
  }
}

bool readTensorMap(Ctx& c, const Inst& in, int lane, TensorMapBits& m, uint8_t raw[128]) {
  const uint32_t* e = &c.prog->ext[in.ext];
  uint64_t a = slot(c, e[0])[lane] + (uint64_t)(int64_t)(int32_t)e[1];
  uint8_t space = (uint8_t)e[2];
  const uint8_t* p = nullptr;
  auto fromParams = [&](uint64_t off) -> const uint8_t* {
    if (!c.L->cfg->params || off + 128 > c.L->fn->info.paramBytes) return nullptr;
    return c.L->cfg->params + off;
  };
  if (a & 63) {
    raise(c, Fault::Misaligned, lane, a, 128, false, "cp.async.bulk.tensor: the tensor map must be 64-byte aligned");
    return false;
  }
  if (space == kParam) {
    p = fromParams(a);
  } else if ((a & kWindowMask) == kParamWindow) {
    p = fromParams(a - kParamWindow);
  } else if ((a & kWindowMask) == kSharedWindow || (a & kWindowMask) == kLocalWindow || space == kShared || space == kLocal) {
    raise(c, Fault::OutOfBounds, lane, a, 128, false, "cp.async.bulk.tensor: the tensor map must be in param, const or global memory");
    return false;
  } else {
    Fault f;
    p = translateRange(c, a, 128, false, f);
  }
  if (!p) {
    raise(c, Fault::OutOfBounds, lane, a, 128, false, "cp.async.bulk.tensor: tensor map address outside the parameters/allocations");
    return false;
  }
  memcpy(raw, p, 128);
  memcpy(&m, raw, sizeof m);
  if (m.magic != kTensorMapMagic || m.version != 1) {
    raise(c, Fault::IllegalInstruction, lane, a, 128, false, "cp.async.bulk.tensor: not a tensor map made by cuTensorMapEncodeTiled/Im2col");
    return false;
  }
  if (e[3] == kTmaTile && m.kind != kTmTiled) {
    raise(c, Fault::IllegalInstruction, lane, a, 128, false, "cp.async.bulk.tensor .tile with an im2col tensor map (it needs one from cuTensorMapEncodeTiled)");
    return false;
  }
  if (m.rank != in.vec) {
    raise(c, Fault::IllegalInstruction, lane, a, 128, false, "cp.async.bulk.tensor." + std::to_string(in.vec) + "d with a tensor map of rank " + std::to_string(m.rank));
    return false;
  }
  uint64_t nan;
  if (in.mode == 0 && m.oobFill && !oobNaN(m.dtype, nan)) {  // fill concerns loads only
    raise(c, Fault::IllegalInstruction, lane, a, 128, false,
          "cp.async.bulk.tensor: the tensor map asks for NaN out-of-bounds fill on an element type without NaN "
          "(CUtensorMapDataType " + std::to_string(m.dtype) + ")");
    return false;
  }
  const char* unsupported = m.interleave ? "interleaved tensor maps" : m.swizzle > 3 ? "the 128B_ATOM swizzle modes" : nullptr;
  if (!unsupported && m.swizzle) {
    unsigned span = 16u << m.swizzle;
    if (m.box[0] * m.esize != span) unsupported = "a swizzled box whose inner dimension is narrower than the swizzle span";
  }
  if (unsupported) {
    raise(c, Fault::IllegalInstruction, lane, a, 128, false, std::string("cp.async.bulk.tensor: ") + unsupported + " are not implemented");
    return false;
  }
  return true;
}

struct Box {
  unsigned n[5] = {1, 1, 1, 1, 1};
  uint64_t elems = 1, bytes = 0;
};
Box boxOf(const TensorMapBits& m) {
  Box b;
  for (unsigned d = 0; d < m.rank; d++) {
    unsigned es = d == 0 ? 1 : std::max<unsigned>(1, m.estride[d]);
    b.n[d] = (m.box[d] + es - 1) / es;
    b.elems *= b.n[d];
  }
  b.bytes = b.elems * m.esize;
  return b;
}

// Walks the box: f(linear element index, global address or ~0 when out of bounds, run length) for
// each run of consecutive dimension-0 elements that are all in or all out of bounds.
template <class F> bool walkBox(const TensorMapBits& m, const Box& b, const int32_t* coord, F f) {
  uint64_t idx = 0;
  unsigned i[5] = {0, 0, 0, 0, 0};
  for (;;) {
    bool in = true;
    uint64_t off = 0;
    for (unsigned d = 1; d < m.rank; d++) {
      int64_t g = (int64_t)coord[d] + (int64_t)i[d] * std::max<unsigned>(1, m.estride[d]);
      if (g < 0 || (uint64_t)g >= m.dim[d]) in = false;
      else off += (uint64_t)g * m.stride[d];
    }
    // dimension 0: the in-bounds part [lo, hi) of the run
    int64_t c0 = coord[0];
    int64_t lo = std::max<int64_t>(0, -c0), hi = std::min<int64_t>(b.n[0], (int64_t)m.dim[0] - c0);
    if (!in || hi <= lo) {
      if (!f(idx, ~0ull, b.n[0])) return false;
    } else {
      if (lo > 0 && !f(idx, ~0ull, (unsigned)lo)) return false;
      if (!f(idx + lo, m.addr + off + (uint64_t)(c0 + lo) * m.esize, (unsigned)(hi - lo))) return false;
      if (hi < (int64_t)b.n[0] && !f(idx + hi, ~0ull, (unsigned)(b.n[0] - hi))) return false;
    }
    idx += b.n[0];
    unsigned d = 1;
    for (; d < m.rank; d++) {
      if (++i[d] < b.n[d]) break;
      i[d] = 0;
    }
    if (d >= m.rank) break;
  }
  return true;
}

inline uint32_t swz(uint32_t a, unsigned bits) { return bits ? a ^ (((a >> 7) & ((1u << bits) - 1)) << 4) : a; }

bool sharedBox(Ctx& c, int lane, uint64_t a, uint64_t bytes, bool write, uint32_t& off) {
  if ((a & kWindowMask) == kSharedWindow) a -= kSharedWindow;
  if (a & 127) {
    raise(c, Fault::Misaligned, lane, a, (unsigned)bytes, write, "cp.async.bulk.tensor: the shared-memory box must be 128-byte aligned");
    return false;
  }
  if (a + bytes > c.cta->shared.size()) {
    raise(c, Fault::SharedOutOfBounds, lane, a, (unsigned)bytes, write,
          "cp.async.bulk.tensor: the box (" + std::to_string(bytes) + " bytes) leaves the shared window of " + std::to_string(c.cta->shared.size()) + " bytes");
    return false;
  }
  off = (uint32_t)a;
  return true;
}

void tensorOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint32_t* e = &c.prog->ext[in.ext];
  FOR_LANES(exec) {
    TensorMapBits m;
    uint8_t raw[128];
    if (!readTensorMap(c, in, (int)l, m, raw)) return;
    const uint8_t lm = (uint8_t)e[3];
    const unsigned nc = tmaCoordCount(lm, in.vec), ni = tmaInfoCount(lm, in.vec);
    int32_t coord[5] = {0, 0, 0, 0, 0};
    uint16_t info[3] = {0, 0, 0};
    for (unsigned d = 0; d < nc; d++) coord[d] = (int32_t)(uint32_t)slot(c, e[4 + d])[l];
    for (unsigned i = 0; i < ni; i++) info[i] = (uint16_t)slot(c, e[4 + nc + i])[l];
    Box b = boxOf(m);
    if (lm != kTmaTile) {
      std::string why = tmaModeCheck(m, lm, coord, info);
      if (!why.empty()) {
        raise(c, Fault::IllegalInstruction, (int)l, 0, 0, in.mode == 1, "cp.async.bulk.tensor" + why);
        return;
      }
      b.bytes = tmaModeBytes(m, lm);
    }
    uint32_t boxOff;
    // a load's destination may name another CTA of the cluster (a mapa address: exec_cluster.cpp);
    // every CTA of a launch has the same shared size, so the box is checked against this one's
    uint64_t da = slot(c, in.s[0])[l] + (uint64_t)in.imm;
    if ((da & kWindowMask) == kSharedWindow) da -= kSharedWindow;
    const uint64_t low = (1ull << kClusterRankShift) - 1;
    uint64_t dtag = in.mode == 0 ? da >> kClusterRankShift : 0;
    if (dtag) da &= low;
    if (!sharedBox(c, (int)l, da, b.bytes, in.mode == 0, boxOff)) return;
    if (in.mode == 1) {
      BulkStore s;
      s.dst = m.addr;
      s.host = nullptr;
      s.srcOff = boxOff;
      s.bytes = (uint32_t)b.bytes;
      s.group = kOpenGroup;
      s.warp = (uint16_t)c.w->id;
      s.lane = (uint8_t)l;
      s.tensor = true;
      s.tensorMode = lm;
      s.redOp = in.size;  // cp.reduce.async.bulk.tensor: the reduction (0: a plain store)
      if (s.redOp) {
        int t = reduceTypeOfTensorMap(m.dtype, s.redOp);
        if (t < 0) {
          raise(c, Fault::IllegalInstruction, (int)l, 0, 0, true, "cp.reduce.async.bulk.tensor: this reduction is not defined on the tensor map's element type");
          return;
        }
        s.redTy = (uint8_t)t;
      }
      memcpy(s.tmap, raw, 128);
      memcpy(s.coord, coord, sizeof coord);
      c.cta->bulkStores.push_back(s);
      c.ctr.globalStoreRequests++;
      continue;
    }
    uint64_t mb = slot(c, in.s[3])[l] + (uint64_t)in.target;
    if ((mb & kWindowMask) == kSharedWindow) mb -= kSharedWindow;
    uint64_t mtag = mb >> kClusterRankShift;
    if (mtag) mb &= low;
    // the CTAs the box lands in: the multicast mask's ranks (same CTA-relative offsets), else the
    // destination's CTA, which must hold the mbarrier too
    Cluster& cl = *c.cta->cluster;
    std::vector<Cta*> to;
    if (in.s[1]) {
      uint32_t mask = (uint16_t)slot(c, in.s[1])[l];
      if (!mask || (cl.size < 16 && (mask >> cl.size))) {
        raise(c, Fault::SharedOutOfBounds, (int)l, mask, 0, true,
              "cp.async.bulk.tensor .multicast::cluster: ctaMask 0x" + [&] { char h[8]; snprintf(h, sizeof h, "%x", mask); return std::string(h); }() +
                  " names no CTA or a rank outside the cluster of " + std::to_string(cl.size) + " CTAs");
        return;
      }
      for (unsigned r = 0; r < cl.size; r++)
        if (mask >> r & 1) to.push_back(&cl.ctas[r]);
    } else {
      unsigned own = c.cta->rank + 1;
      uint64_t dt = dtag ? dtag : own, mt = mtag ? mtag : own;
      if (dt != mt || dt > cl.size) {
        raise(c, Fault::SharedOutOfBounds, (int)l, da, 0, true,
              "cp.async.bulk.tensor: the destination and the mbarrier must be in one CTA of the cluster");
        return;
      }
      to.push_back(&cl.ctas[dt - 1]);
    }
    for (Cta* t : to) {
      if (t != c.cta && t->liveThreads == 0) {
        raise(c, Fault::SharedOutOfBounds, (int)l, da, 0, true,
              "cp.async.bulk.tensor into the shared memory of cluster rank " + std::to_string(t->rank) + ", whose CTA has exited");
        return;
      }
    }
    if ((mb & 7) || mb + 8 > c.cta->shared.size()) {
      raise(c, Fault::SharedOutOfBounds, (int)l, mb, 8, true, "cp.async.bulk.tensor: the mbarrier must be an 8-byte aligned shared-memory object");
      return;
    }
    // complete_tx on an object that is not (yet) an mbarrier is undefined: in a cluster, a copy
    // issued before the destination CTA's mbarrier.init (no cluster barrier between them)
    for (Cta* t : to) {
      if (!mbarrierInitialised(*t, (uint32_t)mb)) {
        raise(c, Fault::IllegalInstruction, (int)l, mb, 8, true,
              "cp.async.bulk.tensor: the mbarrier at shared offset " + std::to_string(mb) + " of cluster rank " +
                  std::to_string(t->rank) + " is not initialised (mbarrier.init, then a cluster barrier, before a peer's copy)");
        return;
      }
    }
    BulkCopy bc;
    bc.dstOff = boxOff;
    bc.barOff = (uint32_t)mb;
    bc.swizzle = m.swizzle;  // 1, 2, 3 bits for 32B, 64B, 128B
    bc.data.assign(b.bytes, 0);
    uint64_t nan = 0;
    const bool nanFill = m.oobFill && oobNaN(m.dtype, nan);
    auto land = [&](uint64_t idx, uint64_t ga, unsigned n) {
      if (ga == ~0ull) {  // out of bounds: zero, or NaN
        if (nanFill)
          for (unsigned k = 0; k < n; k++) memcpy(bc.data.data() + (idx + k) * m.esize, &nan, m.esize);
        return true;
      }
      Fault f;
      uint8_t* p = translateRange(c, ga, (uint64_t)n * m.esize, false, f);
      if (!p) {
        raise(c, f.kind == Fault::None ? Fault::OutOfBounds : f.kind, (int)l, ga, n * m.esize, false,
              "cp.async.bulk.tensor: " + (f.detail.empty() ? std::string("a row of the box is outside every allocation") : f.detail));
        return false;
      }
      if (c.san) sanAsyncGlobalRead(c, l, ga, (uint64_t)n * m.esize, "cp.async.bulk.tensor");
      memcpy(bc.data.data() + idx * m.esize, p, (size_t)n * m.esize);
      return true;
    };
    bool ok = lm == kTmaTile ? walkBox(m, b, coord, land) : tmaModeWalk(m, lm, coord, info, land);
    if (!ok) return;
    c.ctr.globalLoadRequests++;
    for (size_t i = 0; i + 1 < to.size(); i++) to[i]->bulkCopies.push_back(bc);
    to.back()->bulkCopies.push_back(std::move(bc));  // each lands when its CTA tests its mbarrier
    // with clusterSkew (exec_launch.cpp) a copy into another CTA lands at once, the earliest the
    // hardware could land it: a stage that peer still reads is overwritten under it
    if (c.L->cfg->clusterSkew >= 2) {
      for (Cta* t : to) {
        if (t == c.cta) continue;
        Cta* self = c.cta;
        c.cta = t;
        bool ok = settleBulkCopies(c, (uint32_t)mb);
        c.cta = self;
        if (!ok) return;
      }
    }
  }
}

}  // namespace

bool tmaStore(Ctx& c, const BulkStore& s) {
  TensorMapBits m;
  memcpy(&m, s.tmap, sizeof m);
  Box b = boxOf(m);
  auto put = [&](uint64_t idx, uint64_t ga, unsigned n) {
    if (ga == ~0ull) return true;  // out of bounds: not written
    Fault f;
    uint8_t* p = translateRange(c, ga, (uint64_t)n * m.esize, true, f);
    if (!p) {
      raise(c, f.kind == Fault::None ? Fault::OutOfBounds : f.kind, s.lane, ga, n * m.esize, true,
            "cp.async.bulk.tensor store: " + (f.detail.empty() ? std::string("a row of the box is outside every allocation") : f.detail));
      return false;
    }
    for (unsigned k = 0; k < n; k++) {
      uint32_t o = s.srcOff + (uint32_t)((idx + k) * m.esize);
      uint32_t a = swz(o & ~15u, m.swizzle) | (o & 15u);
      if ((uint64_t)a + m.esize > c.cta->shared.size()) {
        raise(c, Fault::SharedOutOfBounds, s.lane, a, m.esize, false, "cp.async.bulk.tensor store: the swizzled box leaves the shared window");
        return false;
      }
      const uint8_t* from = s.src.data() + (a - s.srcLo);  // what the async proxy read (takeBulkSource)
      if (s.redOp) reduceElements(p + (size_t)k * m.esize, from, m.esize, s.redOp, s.redTy);
      else memcpy(p + (size_t)k * m.esize, from, m.esize);
    }
    return true;
  };
  return s.tensorMode == kTmaTile ? walkBox(m, b, s.coord, put) : tmaModeWalk(m, s.tensorMode, s.coord, nullptr, put);
}

namespace {

// tensormap.replace.tile.<field>{.global,.shared::cta}.b1024.{b32,b64} [addr], {ord,} new_val
// (PTX ISA 9.7.9.28): in.mode = field, s[0]+imm = the map, s[1] = new_val, in.target = ord;
// in.space = its state space. The map is the sim's encoding (tensormap.h); every replace also
// stamps the header, so a zero-filled object whose fields are all replaced becomes a valid map.
enum TmField : uint8_t { kFAddr, kFRank, kFBox, kFDim, kFStride, kFEstride, kFElem, kFInterleave, kFSwizzle, kFFill };

// ISA .elemtype numbering -> CUtensorMapDataType (they differ, as the ISA notes)
int elemtypeToDriver(uint32_t v) {
  static const int map[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
  return v < 13 ? map[v] : -1;
}

uint8_t* tensorMapAt(Ctx& c, const Inst& in, int lane, bool write) {
  uint64_t a = slot(c, in.s[0])[lane] + (uint64_t)in.imm;
  if (a & 63) {
    raise(c, Fault::Misaligned, lane, a, 128, write, "a tensor map must be 64-byte aligned");
    return nullptr;
  }
  bool shared = in.space == kShared || (in.space == kGeneric && (a & kWindowMask) == kSharedWindow);
  if (shared) {
    if ((a & kWindowMask) == kSharedWindow) a -= kSharedWindow;
    if (a + 128 > c.cta->shared.size()) {
      raise(c, Fault::SharedOutOfBounds, lane, a, 128, write, "tensor map outside the shared window");
      return nullptr;
    }
    return c.cta->shared.data() + a;
  }
  Fault f;
  uint8_t* p = translateRange(c, a, 128, write, f);
  if (!p) raise(c, f.kind == Fault::None ? Fault::OutOfBounds : f.kind, lane, a, 128, write, "tensor map: " + f.detail);
  return p;
}

void replaceOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t* v = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint8_t* p = tensorMapAt(c, in, (int)l, true);
    if (!p) return;
    TensorMapBits m;
    memcpy(&m, p, sizeof m);
    if (m.magic == kTensorMapMagic && m.version == 1 && m.kind != kTmTiled) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, true, "tensormap.replace.tile on an im2col tensor map");
      return;
    }
    if (m.magic != kTensorMapMagic || m.version != 1) m.kind = kTmTiled;  // a fresh object becomes a tiled map
    m.magic = kTensorMapMagic;
    m.version = 1;
    uint64_t x = in.mode == kFAddr || in.mode == kFStride ? v[l] : (uint32_t)v[l];
    unsigned ord = in.target;
    const char* bad = nullptr;
    switch (in.mode) {
      case kFAddr: if (x & 15) bad = "global_address must be 16-byte aligned"; else m.addr = x; break;
      case kFRank: if (x > 4) bad = "rank (zero-based) must be 0..4"; else m.rank = (uint8_t)(x + 1); break;
      case kFBox: if (x < 1 || x > 256) bad = "box_dim must be 1..256"; else m.box[ord] = (uint16_t)x; break;
      case kFDim: if (x < 1) bad = "global_dim must be nonzero"; else m.dim[ord] = x; break;
      case kFStride: if (x % 16 || x >= (1ull << 40)) bad = "global_stride must be a multiple of 16 below 2^40"; else m.stride[ord + 1] = x; break;
      case kFEstride: if (x < 1 || x > 8) bad = "element_stride must be 1..8"; else m.estride[ord] = (uint8_t)x; break;
      case kFElem: {
        int d = elemtypeToDriver((uint32_t)x);
        if (d < 0) bad = "elemtype 13..15 (packed 4/6-bit) is not implemented";
        else m.dtype = (uint8_t)d;
        break;
      }
      case kFInterleave: if (x > 2) bad = "interleave_layout must be 0..2"; else m.interleave = (uint8_t)x; break;
      case kFSwizzle: if (x > 3) bad = "swizzle_mode 4 (96B) is not implemented"; else m.swizzle = (uint8_t)x; break;
      case kFFill: if (x > 1) bad = "fill_mode must be 0 or 1"; else m.oobFill = (uint8_t)x; break;
    }
    if (bad) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, true, std::string("tensormap.replace: ") + bad);
      return;
    }
    m.esize = (uint8_t)tensorMapElemBytes(m.dtype);
    m.stride[0] = m.esize;
    memcpy(p, &m, sizeof m);
  }
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
// [dst], [src], 128: s[0]+imm = dst (global), s[1]+target = src (shared). The fence has nothing to
// order in the sim (every write is visible to every proxy at once).
void cpFenceproxyOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!exec) return;
  if (exec != c.w->live) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tensormap.cp_fenceproxy.sync.aligned needs every thread of the warp");
    return;
  }
  FOR_LANES(exec) {
    uint64_t src = slot(c, in.s[1])[l] + (uint64_t)in.target, dst = slot(c, in.s[0])[l] + (uint64_t)in.imm;
    if (src + 128 > c.cta->shared.size() || (src & 15)) {
      raise(c, Fault::SharedOutOfBounds, (int)l, src, 128, false, "tensormap.cp_fenceproxy: source outside the shared window or misaligned");
      return;
    }
    Fault f;
    uint8_t* p = (dst & 63) ? nullptr : translateRange(c, dst, 128, true, f);
    if (!p) {
      raise(c, (dst & 63) ? Fault::Misaligned : Fault::OutOfBounds, (int)l, dst, 128, true, "tensormap.cp_fenceproxy: destination " + f.detail);
      return;
    }
    memcpy(p, c.cta->shared.data() + src, 128);
  }
}

bool tensormapDecode(Decoder& dc, const Stmt& st, Inst& in) {
  uint8_t sp;
  if (st.has("cp_fenceproxy")) {
    int64_t size;
    if (!st.has("global") || !st.has("shared::cta") || !st.has("tensormap::generic") || !st.has("release") || !st.has("sync") || !st.has("aligned"))
      return dc.fail("expected tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned");
    if (st.ops.size() != 3 || st.ops[2].kind != Operand::Imm || !immInt(st.ops[2].name, size) || size != 128)
      return dc.fail("expected [dst], [src], 128");
    if (!dc.addr(st.ops[0], in.s[0], in.imm, sp)) return false;
    int64_t so;
    if (!dc.addr(st.ops[1], in.s[1], so, sp)) return false;
    if (so < 0 || so > INT32_MAX) return dc.fail("source offset");
    in.target = (uint32_t)so;
    in.cls = kMemGlobal;
    in.fn = &cpFenceproxyOp;
    return true;
  }
  if (!st.has("replace") || !st.has("tile") || !st.has("b1024")) return dc.fail("expected tensormap.replace.tile.<field>.b1024.<type> or tensormap.cp_fenceproxy");
  static const char* names[] = {"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
                                "elemtype", "interleave_layout", "swizzle_mode", "fill_mode"};
  int field = -1;
  for (int i = 0; i < 10; i++) if (st.has(names[i])) field = i;
  if (field < 0) return dc.fail("unknown tensormap field");
  bool wide = field == kFAddr || field == kFStride;
  if (!st.has(wide ? "b64" : "b32")) return dc.fail(wide ? "this field takes a .b64 value" : "this field takes a .b32 value");
  bool ordinal = field >= kFBox && field <= kFEstride;
  if (st.ops.size() != (ordinal ? 3u : 2u)) return dc.fail(ordinal ? "expected [addr], ord, new_val" : "expected [addr], new_val");
  if (!dc.addr(st.ops[0], in.s[0], in.imm, sp)) return false;
  in.space = st.has("global") ? kGlobal : st.has("shared::cta") ? kShared : kGeneric;
  if (ordinal) {
    int64_t ord;
    if (st.ops[1].kind != Operand::Imm || !immInt(st.ops[1].name, ord) || ord < 0 || ord > 4) return dc.fail("ord must be an immediate 0..4");
    if (field == kFStride && ord > 3) return dc.fail("global_stride ord must be 0..3");
    in.target = (uint32_t)ord;
  }
  const Operand& v = st.ops.back();
  if (field >= kFElem && v.kind != Operand::Imm) return dc.fail("this field's new_val must be an immediate");
  in.s[1] = dc.src(v, wide ? Ty::B64 : Ty::B32);
  in.mode = (uint8_t)field;
  in.cls = kMemShared;
  in.fn = &replaceOp;
  return true;
}

}  // namespace

void registerTensormapOps(DecodeTable& t) {
  addOp(t, "tensormap", tensormapDecode,
        "replace tile global_address rank box_dim global_dim global_stride element_stride elemtype interleave_layout swizzle_mode fill_mode "
        "global shared::cta b1024 b32 b64 cp_fenceproxy tensormap::generic release cta cluster gpu sys sync aligned",
        "`replace` edits the sim's tensor-map encoding field by field (ISA `.elemtype` numbering); `cp_fenceproxy` copies 128 bytes (the fence has nothing to order)");
}

// The load mode modifier (.tile when none) and whether the module's .target has it: .im2col is
// sm_90; .tile::gather4 and .im2col::w need sm_100 (sm_100a into .shared::cluster),
// .tile::scatter4 and .im2col::w::128 sm_100a (or the sm_100f family).
static bool tensorLoadMode(Decoder& dc, const Stmt& st, bool toCluster, uint8_t& lm) {
  static const struct { const char* mod; uint8_t mode; } modes[] = {{"tile", kTmaTile}, {"tile::gather4", kTmaGather4},
      {"tile::scatter4", kTmaScatter4}, {"im2col", kTmaIm2col}, {"im2col::w", kTmaIm2colW}, {"im2col::w::128", kTmaIm2colW128}};
  lm = kTmaTile;
  int n = 0;
  for (auto& m : modes)
    if (st.has(m.mod)) lm = m.mode, n++;
  if (n > 1) return dc.fail("cp.async.bulk.tensor takes one load mode");
  if (lm == kTmaTile || lm == kTmaIm2col) return true;
  const std::string& t = dc.target;
  const int sm = t.size() > 3 && t.compare(0, 3, "sm_") == 0 ? std::atoi(t.c_str() + 3) : 0;
  const char suffix = t.empty() ? 0 : t.back();
  const bool archSpecific = lm == kTmaScatter4 || lm == kTmaIm2colW128 || toCluster;
  if ((sm && sm < 100) || (sm && archSpecific && suffix != 'a' && suffix != 'f'))
    return dc.fail(std::string("cp.async.bulk.tensor") + tmaModeName(lm) + (archSpecific ? " needs .target sm_100a" : " needs .target sm_100 or later") +
                   " (this module's target is " + t + ")");
  return true;
}

bool decodeCpAsyncBulkTensor(Decoder& dc, const Stmt& st, Inst& in) {
  unsigned rank = st.has("1d") ? 1 : st.has("2d") ? 2 : st.has("3d") ? 3 : st.has("4d") ? 4 : st.has("5d") ? 5 : 0;
  if (!rank) return dc.fail("expected cp.async.bulk.tensor.{1..5}d");
  std::vector<std::string> sp;
  for (auto& m : st.mods)
    if (m == "global" || m == "shared::cluster" || m == "shared::cta") sp.push_back(m);
  bool load = sp.size() == 2 && (sp[0] == "shared::cluster" || sp[0] == "shared::cta") && sp[1] == "global" && st.has("mbarrier::complete_tx::bytes");
  bool store = sp.size() == 2 && sp[0] == "global" && sp[1] == "shared::cta" && st.has("bulk_group");
  if (!load && !store) return dc.fail("expected a tile load to shared memory with mbarrier::complete_tx::bytes or a tile store to global memory with bulk_group");
  uint8_t lm;
  if (!tensorLoadMode(dc, st, load && sp[0] == "shared::cluster", lm)) return false;
  const std::string mname = tmaModeName(lm);
  if (store && lm != kTmaTile && lm != kTmaScatter4) return dc.fail(mname + " is a load mode: a tensor store takes .tile or .tile::scatter4");
  if (load && lm == kTmaScatter4) return dc.fail(".tile::scatter4 is a store mode: a tensor load takes .tile::gather4");
  if ((lm == kTmaGather4 || lm == kTmaScatter4) && rank != 2) return dc.fail(mname + " copies rows of a 2-D tensor: it needs .2d");
  const unsigned ni = lm >= kTmaIm2col && rank >= 3 ? tmaInfoCount(lm, rank) : 0;
  if (lm >= kTmaIm2col && rank < 3) return dc.fail(mname + " needs a tensor of at least 3 dimensions (.3d, .4d or .5d)");
  const auto& o = st.ops;
  bool multicast = st.has("multicast::cluster");
  if (multicast && !load) return dc.fail(".multicast::cluster is a form of the tile load");
  const unsigned want = load ? 3u + (ni ? 1 : 0) + (multicast ? 1 : 0) : 2u;
  if (o.size() != want)
    return dc.fail("wrong operand count" + std::string(ni ? " (" + mname + " takes its im2colInfo vector after the mbarrier)" : ""));
  const Operand& t = o[load ? 1 : 0];
  if (t.kind != Operand::Addr || t.elems.size() != 2 || t.elems[1].kind != Operand::Vec)
    return dc.fail("expected [tensorMap, {coordinates}]");
  const unsigned nc = tmaCoordCount(lm, rank);
  if (t.elems[1].elems.size() != nc)
    return dc.fail("the coordinate vector must have " + std::to_string(nc) + " elements" +
                   (nc != rank ? " ({col, row0, row1, row2, row3} for " + mname + ")" : ""));
  Operand base = t;
  base.elems.resize(1);
  uint32_t tb;
  int64_t toff;
  uint8_t tsp;
  if (!dc.addr(base, tb, toff, tsp)) return false;
  if (toff < INT32_MIN || toff > INT32_MAX) return dc.fail("tensor map offset out of range");
  std::vector<uint32_t> e = {tb, (uint32_t)(int32_t)toff, (uint32_t)tsp, lm};
  for (auto& x : t.elems[1].elems) e.push_back(dc.src(x, Ty::S32));
  if (ni) {
    const Operand& v = o[3];
    if (v.kind != Operand::Vec || v.elems.size() != ni)
      return dc.fail(mname + " needs its im2colInfo vector of " + std::to_string(ni) + " 16-bit values" +
                     (lm == kTmaIm2col ? " (the im2col offsets, W first)" : " ({wHalo, wOffset})"));
    for (auto& x : v.elems) e.push_back(dc.src(x, Ty::U16));
  }
  uint8_t sp2;
  if (!dc.addr(o[load ? 0 : 1], in.s[0], in.imm, sp2)) return false;
  if (load) {
    int64_t mo;
    if (!dc.addr(o[2], in.s[3], mo, sp2)) return false;
    if (mo < 0 || mo > INT32_MAX) return dc.fail("mbarrier offset out of range");
    in.target = (uint32_t)mo;
    if (multicast) in.s[1] = dc.src(o.back(), Ty::U16);  // ctaMask
  }
  in.ext = dc.ext(e);
  in.vec = (uint8_t)rank;
  in.mode = load ? 0 : 1;
  in.cls = kMemGlobal;
  in.fn = &tensorOp;
  return true;
}

}  // namespace tsim
