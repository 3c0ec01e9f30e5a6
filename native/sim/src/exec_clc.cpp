// Cluster launch control (sm_100; PTX ISA "clusterlaunchcontrol.try_cancel", "...query_cancel"):
//   clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar]
//   clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp
//   clusterlaunchcontrol.query_cancel.get_first_ctaid{::x,::y,::z}.b32.b128 r, resp
//   clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp
// The sim starts the clusters of a grid in order from one counter (Launch::nextCluster); a
// try_cancel takes the next cluster from that same counter at issue, atomically, so the cluster it
// cancels is one not yet started, it never runs, and no other response names it. When none is left
// the response says "not cancelled". The 16-byte response (opaque in the ISA; here word 0 = 1 when
// cancelled, words 1..3 = the first CTA's ctaid) lands with complete_tx of 16 bytes on mbar when
// the CTA next tests that mbarrier, as cp.async.bulk's do, so a reader that skips the wait sees
// stale bytes. With .multicast::cluster::all it lands at the same offsets in every CTA of the
// cluster. The ISA leaves undefined a try_cancel issued after the CTA observed a failed one (a
// failed response landed) and misaligned operands: the sim faults on each, naming it. The ctaid
// of a failed response is unspecified (the CUDA guide calls using it undefined), but decoding it
// is a pure register operation that Triton's and CUTLASS's code issue unconditionally and then
// discard (`where(is_canceled, ctaid, -1)`), so get_first_ctaid of a failed response returns
// 0xffffffff in each coordinate rather than faulting: a block index no grid has, which a kernel
// that does use it indexes memory out of bounds with, or faults at its next try_cancel.
#include <cstring>

#include "exec_core.h"
#include "exec_mem.h"

namespace tsim {

namespace {

// s[0] + imm: addr; s[1] + target: mbar; mode 1: multicast.
void tryCancelOp(Ctx& c, const Inst& in, uint32_t exec) {
  const char* what = "clusterlaunchcontrol.try_cancel";
  Inst ia = in, ib = in;
  ib.s[0] = in.s[1];
  ib.imm = (int64_t)(int32_t)in.target;
  uint8_t* pa[kWarp];
  uint8_t* pb[kWarp];
  if (!resolve(c, ia, exec, 16, true, pa, true) || !resolve(c, ib, exec, 8, true, pb, false)) return;
  uint8_t* lo = c.cta->shared.data();
  const unsigned* cd = c.L->cfg->cluster;
  const unsigned* g = c.L->cfg->grid;
  FOR_LANES(exec) {
    const uint32_t a = (uint32_t)(pa[l] - lo), mb = (uint32_t)(pb[l] - lo);
    if (a % 16) {
      raise(c, Fault::Misaligned, (int)l, a, 16, true, std::string(what) + ": the response address must be 16-byte aligned");
      return;
    }
    if (mb % 8) {
      raise(c, Fault::Misaligned, (int)l, mb, 8, true, std::string(what) + ": the mbarrier must be 8-byte aligned");
      return;
    }
    if (c.cta->clcFailSeen) {
      raise(c, Fault::IllegalInstruction, (int)l, a, 16, true,
            std::string(what) + ": issued after this CTA observed a failed try_cancel (undefined in the ISA)");
      return;
    }
    // Take the next not-yet-started cluster, if any is left (never past the end: a failed request
    // leaves the counter for the launcher to see as exhausted too).
    uint64_t id = c.L->nextCluster.load();
    bool got = false;
    while (id < c.L->nclusters && !(got = c.L->nextCluster.compare_exchange_weak(id, id + 1))) {
    }
    // a failed response's ctaid words are unspecified; all ones, a block no grid has
    uint32_t resp[4] = {0, ~0u, ~0u, ~0u};
    if (got) {
      const uint64_t ncl[2] = {g[0] / cd[0], g[1] / cd[1]};
      resp[0] = 1;
      resp[1] = (uint32_t)(id % ncl[0] * cd[0]);
      resp[2] = (uint32_t)(id / ncl[0] % ncl[1] * cd[1]);
      resp[3] = (uint32_t)(id / (ncl[0] * ncl[1]) * cd[2]);
    }
    BulkCopy bc;
    bc.dstOff = a;
    bc.barOff = mb;
    bc.data.resize(16);
    memcpy(bc.data.data(), resp, 16);
    bc.clcFailed = !got;
    Cluster& cl = *c.cta->cluster;
    for (unsigned k = 0; k < cl.size; k++) {
      Cta& t = cl.ctas[k];
      if (in.mode != 1 && &t != c.cta) continue;
      if (t.bulkCopies.size() >= (1u << 20)) {
        raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, std::string(what) + ": more than 2^20 in flight (is the mbarrier ever tested?)");
        return;
      }
      t.bulkCopies.push_back(bc);  // lands when that CTA tests the mbarrier
    }
  }
}

// mode 0: is_canceled (d[0] a predicate); 1..3: get_first_ctaid::x/y/z (d[0]); 4: .v4 (d[0..2]).
// s[0], s[1]: the response's low and high 64 bits.
void queryCancelOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t *lo = slot(c, in.s[0]), *hi = slot(c, in.s[1]);
  FOR_LANES(exec) {
    const uint32_t w[4] = {(uint32_t)lo[l], (uint32_t)(lo[l] >> 32), (uint32_t)hi[l], (uint32_t)(hi[l] >> 32)};
    if (w[0] > 1) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            "clusterlaunchcontrol.query_cancel: the value is not a try_cancel response (read before its mbarrier completed?)");
      return;
    }
    if (in.mode == 0) {
      slot(c, in.d[0])[l] = w[0] == 1;
      continue;
    }
    if (in.mode == 4) {
      for (int k = 0; k < 3; k++)
        if (in.d[k] != kSlotSink) slot(c, in.d[k])[l] = w[1 + k];
    } else {
      slot(c, in.d[0])[l] = w[in.mode];
    }
  }
}

bool clcDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("try_cancel")) {
    if (!onlyMods(dc, st, "try_cancel async shared::cta mbarrier::complete_tx::bytes multicast::cluster::all b128"))
      return false;
    if (!st.has("async") || !st.has("shared::cta") || !st.has("mbarrier::complete_tx::bytes") || !st.has("b128"))
      return dc.fail("expected clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar] (the generic-address form is not simulated)");
    if (st.ops.size() != 2) return dc.fail("expected [addr], [mbar]");
    uint8_t sa, sm;
    int64_t off, moff;
    if (!dc.addr(st.ops[0], in.s[0], off, sa) || !dc.addr(st.ops[1], in.s[1], moff, sm)) return false;
    in.imm = off;
    in.target = (uint32_t)(int32_t)moff;
    in.mode = st.has("multicast::cluster::all") ? 1 : 0;
    in.space = kShared;
    in.cls = kMemShared;
    in.fn = &tryCancelOp;
    return true;
  }
  if (!st.has("query_cancel")) return dc.fail("expected clusterlaunchcontrol.try_cancel or .query_cancel");
  if (!onlyMods(dc, st, "query_cancel is_canceled pred get_first_ctaid get_first_ctaid::x get_first_ctaid::y get_first_ctaid::z v4 b32 b128"))
    return false;
  if (st.ops.size() != 2 || st.ops[1].kind != Operand::Reg || dc.regBytes(st.ops[1]) != 16)
    return dc.fail("expected d, resp with resp a .b128 register");
  const char* dims[3] = {"get_first_ctaid::x", "get_first_ctaid::y", "get_first_ctaid::z"};
  int n = 0;
  if (st.has("is_canceled")) {
    n++;
    if (!st.has("pred") || st.has("b32") || st.has("v4") || !dc.isPred(st.ops[0]))
      return dc.fail("expected query_cancel.is_canceled.pred.b128 p, resp with p a predicate");
    in.mode = 0;
  }
  for (int k = 0; k < 3; k++)
    if (st.has(dims[k])) {
      n++;
      in.mode = (uint8_t)(1 + k);
    }
  if (st.has("get_first_ctaid")) {
    n++;
    if (!st.has("v4")) return dc.fail("get_first_ctaid without a dimension needs .v4 {x, y, z, _}");
    in.mode = 4;
  }
  if (n != 1) return dc.fail("expected one of .is_canceled, .get_first_ctaid::{x,y,z}, .get_first_ctaid.v4");
  if (in.mode) {
    if (!st.has("b32") || st.has("pred") || (in.mode == 4) != st.has("v4"))
      return dc.fail("get_first_ctaid needs .b32 (and .v4 only without a dimension)");
    if (in.mode == 4) {
      const Operand& v = st.ops[0];
      if (v.kind != Operand::Vec || v.elems.size() != 4) return dc.fail("expected {x, y, z, _}");
      for (int k = 0; k < 3; k++) in.d[k] = dc.dst(v.elems[k]);
    } else {
      if (st.ops[0].kind != Operand::Reg) return dc.fail("the destination must be a .b32 register");
      in.d[0] = dc.dst(st.ops[0]);
    }
  } else {
    in.d[0] = dc.dst(st.ops[0]);
  }
  in.s[0] = dc.src(st.ops[1], Ty::B128);
  in.s[1] = in.s[0] + 1;
  in.cls = kOther;
  in.fn = &queryCancelOp;
  return true;
}

}  // namespace

void registerClcOps(DecodeTable& t) {
  addOp(t, "clusterlaunchcontrol", clcDecode,
        "try_cancel async shared::cta mbarrier::complete_tx::bytes multicast::cluster::all b128 query_cancel is_canceled "
        "pred get_first_ctaid get_first_ctaid::x get_first_ctaid::y get_first_ctaid::z v4 b32",
        "`try_cancel` takes the next not-yet-started cluster of the grid (it never runs); the 16-byte response lands "
        "with complete_tx on its mbarrier; a try_cancel after an observed failure is a named fault, `get_first_ctaid` "
        "of a failed response gives 0xffffffff (sm_100)");
}

}  // namespace tsim
