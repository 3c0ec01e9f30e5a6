// Smaller sm_80/sm_90 forms (PTX ISA): setmaxnreg, applypriority, discard.
//   setmaxnreg.{inc,dec}.sync.aligned.u32 n   n in [24, 256], a multiple of 8; the warp must be
//     converged. The sim has no register file limit, so a valid request has no other effect.
//   applypriority{.global}.L2::evict_normal [a], 128   a cache priority hint: no effect; a must be
//     a 128-byte aligned global address (checked).
//   discard{.global}.L2 [a], 128   "a weak write of an unstable indeterminate value": the sim writes
//     0xdb to the 128 bytes (a must be 128-byte aligned global memory), so a program that reads
//     discarded data sees the garbage a real GPU may return.
#include "exec_core.h"
#include "exec_mem.h"

namespace tsim {

namespace {

void setmaxnregOp(Ctx& c, const Inst&, uint32_t exec) {
  if (exec && exec != c.w->live) raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "setmaxnreg.sync.aligned needs every thread of the warp");
}

// mode 0 applypriority, 1 discard
void lineOp(Ctx& c, const Inst& in, uint32_t exec) {
  const uint64_t* A = slot(c, in.s[0]);
  FOR_LANES(exec) {
    uint64_t a = A[l] + (uint64_t)in.imm;
    if (a & 127) {
      raise(c, Fault::Misaligned, (int)l, a, 128, in.mode == 1, std::string(in.mode ? "discard" : "applypriority") + ": the address must be 128-byte aligned");
      return;
    }
    if ((a & kWindowMask) == kSharedWindow || (a & kWindowMask) == kLocalWindow) {
      raise(c, Fault::OutOfBounds, (int)l, a, 128, in.mode == 1, std::string(in.mode ? "discard" : "applypriority") + ": not a global address");
      return;
    }
    uint64_t one[kWarp];
    uint8_t* p[kWarp];
    one[l] = a;
    if (!resolveGlobal(c, 1u << l, one, 128, in.mode == 1, p)) return;
    if (in.mode == 1) memset(p[l], 0xdb, 128);
  }
}

bool setmaxnregDecode(Decoder& dc, const Stmt& st, Inst& in) {
  int64_t n;
  if (!st.has("sync") || !st.has("aligned") || !st.has("u32") || st.has("inc") == st.has("dec") || st.ops.size() != 1 ||
      st.ops[0].kind != Operand::Imm || !immInt(st.ops[0].name, n))
    return dc.fail("expected setmaxnreg.{inc,dec}.sync.aligned.u32 imm");
  if (n < 24 || n > 256 || n % 8) return dc.fail("the register count must be a multiple of 8 in [24, 256]");
  in.imm = n;
  in.cls = kSync;
  in.fn = &setmaxnregOp;
  return true;
}

bool lineDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool discard = st.op == "discard";
  if (discard ? !st.has("L2") : !st.has("L2::evict_normal")) return dc.fail(discard ? "expected discard{.global}.L2 [a], 128" : "expected applypriority{.global}.L2::evict_normal [a], 128");
  int64_t size;
  if (st.ops.size() != 2 || st.ops[1].kind != Operand::Imm || !immInt(st.ops[1].name, size) || size != 128)
    return dc.fail("the size operand must be 128");
  uint8_t sp;
  if (!dc.addr(st.ops[0], in.s[0], in.imm, sp)) return false;
  in.mode = discard ? 1 : 0;
  in.cls = kMemGlobal;
  in.fn = &lineOp;
  return true;
}

}  // namespace

void registerTensormapOps(DecodeTable& t);  // exec_tma.cpp

void registerHopperMiscOps(DecodeTable& t) {
  registerTensormapOps(t);
  addOp(t, "setmaxnreg", setmaxnregDecode, "inc dec sync aligned u32", "checked (multiple of 8 in [24, 256], converged warp); no other effect");
  addOp(t, "applypriority", lineDecode, "global L2::evict_normal", "no effect (address checked)");
  addOp(t, "discard", lineDecode, "global L2", "writes 0xdb to the 128 bytes (an indeterminate value)");
}

}  // namespace tsim
