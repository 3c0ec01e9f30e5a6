// st.async and red.async (sm_90; PTX ISA "st.async", "red.async"): a store or a reduction into the
// shared memory of another CTA of the cluster, done asynchronously, its completion signalled by a
// complete_tx of its size on an mbarrier of that CTA:
//   st.async{.weak}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.v2,.v4}.type [a], b, [mbar]
//   red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], b, [mbar]
// The value is read from the registers at issue; the bytes land (the reduction is applied to what
// is there then) when the destination CTA next tests that mbarrier, as cp.async.bulk's do
// (exec_bulk.cpp), so a consumer that skips the wait reads stale shared memory. The ISA leaves it
// undefined when a and mbar are not in one CTA, or are in the executing CTA: the sim faults, naming
// which. Without .shared::cluster the addresses are generic ones of the shared::cluster window.
#include "exec_core.h"

namespace tsim {

namespace {

// ext: the value slots (vec of them), then, for red.async, the RedOp and the RedTy.
// s[0] + imm: a; s[1] + target: mbar; mode 1: generic addresses.
template <bool Red> void asyncStoreOp(Ctx& c, const Inst& in, uint32_t exec) {
  const char* what = Red ? "red.async" : "st.async";
  const uint32_t* e = &c.prog->ext[in.ext];
  const uint64_t *A = slot(c, in.s[0]), *M = slot(c, in.s[1]);
  const unsigned n = in.vec, es = in.size, bytes = n * es;
  const uint64_t low = (1ull << kClusterRankShift) - 1;
  FOR_LANES(exec) {
    uint64_t a = A[l] + (uint64_t)in.imm, mb = M[l] + (uint64_t)(int64_t)(int32_t)in.target;
    if (in.mode == 1) {
      for (uint64_t* x : {&a, &mb}) {
        if ((*x & kWindowMask) != kSharedWindow) {
          raise(c, Fault::OutOfBounds, (int)l, *x, bytes, true, std::string(what) + ": not a generic address of shared::cluster memory");
          return;
        }
        *x -= kSharedWindow;
      }
    }
    if (a % bytes) {
      raise(c, Fault::Misaligned, (int)l, a, bytes, true, std::string(what) + ": address not aligned to the access size");
      return;
    }
    if (mb & 7) {
      raise(c, Fault::Misaligned, (int)l, mb, 8, true, std::string(what) + ": the mbarrier must be 8-byte aligned");
      return;
    }
    Cta* to = remoteBulkTarget(c, (int)l, a, mb, what);
    if (!to) return;
    if (to == c.cta) {
      raise(c, Fault::IllegalInstruction, (int)l, a, bytes, true,
            std::string(what) + ": the destination is in the executing CTA (the ISA requires another CTA of the cluster)");
      return;
    }
    const uint64_t dOff = a & low, bOff = mb & low, size = to->shared.size();
    if (dOff + bytes > size || bOff + 8 > size) {
      raise(c, Fault::SharedOutOfBounds, (int)l, dOff + bytes > size ? a : mb, bytes, true,
            std::string(what) + ": outside the shared window of cluster rank " + std::to_string(to->rank) + " (" +
                std::to_string(size) + " bytes)");
      return;
    }
    BulkCopy bc;
    bc.dstOff = (uint32_t)dOff;
    bc.barOff = (uint32_t)bOff;
    bc.data.resize(bytes);
    for (unsigned k = 0; k < n; k++) {
      uint64_t v = slot(c, e[k])[l];
      memcpy(bc.data.data() + k * es, &v, es);  // little-endian: the low es bytes
    }
    if (Red) {
      bc.redOp = (uint8_t)e[n];
      bc.redTy = (uint8_t)e[n + 1];
    }
    if (to->bulkCopies.size() >= (1u << 20)) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, std::string(what) + ": more than 2^20 in flight (is the mbarrier ever tested?)");
      return;
    }
    to->bulkCopies.push_back(std::move(bc));  // lands when that CTA tests the mbarrier
  }
}

// Decodes [a], b, [mbar] and the state space; values go to ext.
bool operands(Decoder& dc, const Stmt& st, Inst& in, Ty t, unsigned n, std::vector<uint32_t>& ext) {
  if (st.ops.size() != 3) return dc.fail("expected [a], b, [mbar]");
  uint8_t sa, sm;
  int64_t off, moff;
  if (!dc.addr(st.ops[0], in.s[0], off, sa) || !dc.addr(st.ops[2], in.s[1], moff, sm)) return false;
  const bool cluster = st.has("shared::cluster");
  if (!cluster && (sa != kGeneric || sm != kGeneric)) return dc.fail("the addresses of a generic form must be generic");
  in.imm = off;
  in.target = (uint32_t)(int32_t)moff;
  in.mode = cluster ? 0 : 1;
  const Operand& b = st.ops[1];
  if (n > 1) {
    if (b.kind != Operand::Vec || b.elems.size() != n) return dc.fail("the value must be a vector of the .vN size");
    for (auto& x : b.elems) ext.push_back(dc.src(x, t));
  } else {
    if (b.kind == Operand::Vec) return dc.fail("a vector value needs .v2 or .v4");
    ext.push_back(dc.src(b, t));
  }
  in.vec = (uint8_t)n;
  in.size = (uint8_t)tySize(t);
  in.space = kSharedCluster;
  in.cls = kMemShared;
  return true;
}

}  // namespace

bool decodeStAsync(Decoder& dc, const Stmt& st, Inst& in) {
  if (!onlyMods(dc, st, "async weak cluster shared::cluster mbarrier::complete_tx::bytes v2 v4 b32 b64 u32 u64 s32 s64 f32 f64"))
    return false;
  Ty t = st.type();
  if (t == Ty::None) return dc.fail("st.async needs a type");
  unsigned n = st.has("v4") ? 4 : st.has("v2") ? 2 : 1;
  if (n == 4 && tySize(t) != 4) return dc.fail("st.async.v4 needs a 32-bit type");
  std::vector<uint32_t> ext;
  if (!operands(dc, st, in, t, n, ext)) return false;
  in.ext = dc.ext(ext);
  in.fn = &asyncStoreOp<false>;
  return true;
}

bool decodeRedAsync(Decoder& dc, const Stmt& st, Inst& in) {
  if (!onlyMods(dc, st, "async relaxed cluster shared::cluster mbarrier::complete_tx::bytes inc dec min max and or xor add u32 s32 u64 b32"))
    return false;
  if (!st.has("relaxed") || !st.has("cluster")) return dc.fail("red.async needs .relaxed.cluster (the sm_90 form)");
  Ty t = st.type();
  struct Form { const char* op; RedOp code; std::vector<Ty> types; };
  static const Form forms[] = {{"inc", kRInc, {Ty::U32}},           {"dec", kRDec, {Ty::U32}},
                               {"min", kRMin, {Ty::U32, Ty::S32}},  {"max", kRMax, {Ty::U32, Ty::S32}},
                               {"and", kRAnd, {Ty::B32}},           {"or", kROr, {Ty::B32}},
                               {"xor", kRXor, {Ty::B32}},           {"add", kRAdd, {Ty::U32, Ty::S32, Ty::U64}}};
  const Form* f = nullptr;
  for (auto& x : forms)
    if (st.has(x.op)) {
      if (f) return dc.fail("red.async takes one operation");
      f = &x;
    }
  if (!f) return dc.fail("red.async needs an operation");
  bool ok = false;
  for (Ty x : f->types) ok |= x == t;
  if (!ok) return dc.fail(std::string("red.async.") + f->op + " is not defined on this type");
  RedTy ty = t == Ty::U32 ? kTU32 : t == Ty::S32 ? kTS32 : t == Ty::U64 ? kTU64 : kTB32;
  std::vector<uint32_t> ext;
  if (!operands(dc, st, in, t, 1, ext)) return false;
  ext.push_back(f->code);
  ext.push_back(ty);
  in.ext = dc.ext(ext);
  in.flags |= kfSanAtomic;
  in.fn = &asyncStoreOp<true>;
  return true;
}

}  // namespace tsim
