// tcgen05.mma's collector buffer for A and .ashift (sm_100a; PTX ISA "tcgen05.mma", syntax forms 3,
// 4 and 6, the .collector_usage table):
//
//   tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8}.collector::a::{fill,use,lastuse,discard}
//       [d_tmem], a_desc | [a_tmem], b_desc, idesc, {disable_output_lane,} enable_input_d {, scale_input_d};
//   tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.scale_vectorsize}.collector::a::{...}
//       [d_tmem], a_desc | [a_tmem], b_desc, idesc, [scale_A_tmem], [scale_B_tmem], enable_input_d;
//
// The ISA's semantics, one buffer per CTA (default .collector::a::discard, so every tcgen05.mma
// without the qualifier discards it too): fill "the A matrix read from the memory should be
// filled in collector buffer"; use "the A matrix can be read from the collector buffer. This
// requires a previous fill to the collector buffer to be still valid"; lastuse as use, then "the
// contents of the collector buffer can be discarded"; discard: the contents "can be discarded".
// The sim keeps what a fill read (A from shared memory or from TMEM, as the MMA reads it) and
// invalidates the buffer at lastuse and discard. Where the ISA is silent the sim does what its
// .ws B collector does (exec_tcgen05_ws.cpp): it does not say whether a use reads A's memory
// again ("can be read from the collector buffer"), so the sim reads both and requires them to
// agree: a use whose A (at its own a_desc / a_tmem) differs from what the fill read, or whose
// kind, A type, M, negate A, transpose A or A's memory (shared / tensor) differ from the fill's,
// is a named fault, as is a use or lastuse with no valid fill. The buffer steps happen in the MMA
// queue's order, when the MMA completes.
//
// Block-scaled kinds: the buffer keeps A's elements as read (before scale_A applies); the ISA's
// table speaks of "the A matrix" only, so scale_A / scale_B come from tensor memory at every MMA
// (a use may name other scale columns or ids; the key leaves out idesc's scale ids and type).
//
// Refused by name: fill / use / lastuse with .cta_group::2 (valid PTX; the ISA does not say
// whether the pair's buffer is one in the issuing even CTA holding all 256 rows or one per CTA
// holding that CTA's half; an explicit discard is the default there too), .collector::a with .ws or twice
// (invalid, as ptxas says), and .ashift (see decodeTcgen05CollectorA: the ISA leaves it open).
#include <cstring>

#include "exec_tcgen05.h"

namespace tsim {

namespace {

enum : unsigned { kFill = 0, kUse = 1, kLastUse = 2, kDiscard = 3 };
const char* const kOpName[4] = {"fill", "use", "lastuse", "discard"};

}  // namespace

bool decodeTcgen05CollectorA(Decoder& dc, const Stmt& st, bool scaled, bool pair, uint8_t& size) {
  int op = -1, n = 0;
  for (unsigned o = 0; o < 4; o++)
    if (st.has(("collector::a::" + std::string(kOpName[o])).c_str())) op = (int)o, n++;
  for (unsigned b = 0; b < 4; b++)
    for (unsigned o = 0; o < 4; o++)
      if (st.has(("collector::b" + std::to_string(b) + "::" + kOpName[o]).c_str()))
        return dc.fail("tcgen05.mma: .collector::b" + std::to_string(b) + "::" + kOpName[o] +
                       " is for tcgen05.mma.ws only (tcgen05.mma takes .collector::a::{fill,use,lastuse,discard}; ptxas refuses it)");
  if (n > 1) return dc.fail("tcgen05.mma: more than one .collector_usage modifier");
  const bool aTmem = st.ops.size() > 1 && st.ops[1].kind == Operand::Addr;
  if (st.has("ashift")) {
    // the ISA's syntax forms 3 and 6 give .ashift with [a_tmem] only, and no block-scaled form;
    // "It is illegal to specify either of .collector::a::use or .collector::a::fill along with .ashift"
    if (!aTmem) return dc.fail("tcgen05.mma .ashift needs A in tensor memory ([a_tmem]; the ISA's syntax has no .ashift with a_desc, ptxas refuses it)");
    if (scaled) return dc.fail("tcgen05.mma .ashift is not allowed with .block_scale (the ISA's syntax has no block-scaled .ashift form, ptxas refuses it)");
    if (op == (int)kFill || op == (int)kUse)
      return dc.fail(std::string("tcgen05.mma .ashift cannot be combined with .collector::a::") + kOpName[op] + " (the ISA: illegal)");
    return dc.fail(
        "tcgen05.mma .ashift is not simulated: the ISA says only that it \"shifts the rows of the A matrix down by one row, except for the last row in "
        "the Tensor Memory\" (M = 128 or 256); it does not say what row 0 of the shifted A holds, whether the shift is applied to A as the MMA reads "
        "it or to A's tensor-memory lanes (left shifted after the MMA), whether \"the last row\" is lane 127 or A's row M - 1, nor (M = 256) whether "
        "a row crosses from the even CTA's lanes into the odd CTA's");
  }
  if (n == 0 || op == (int)kDiscard) {
    size = 0;  // (as) the default .collector::a::discard
    return true;
  }
  const std::string name = std::string(".collector::a::") + kOpName[op];
  // block-scaled kinds: the buffer holds A's elements (the MMA's caller passes A before scaling);
  // scale_A and scale_B are still read from tensor memory by every MMA (the ISA's table speaks of A only)
  if (pair)
    return dc.fail("tcgen05.mma.cta_group::2 with " + name +
                   " is not simulated (.cta_group::1 is): the ISA speaks of \"the collector buffer\" for A but does not say whether a pair MMA "
                   "keeps it in the issuing (even) CTA for all 256 rows or one per CTA for each CTA's half of A");
  size = (uint8_t)(0x40 | op);
  return true;
}

bool tcgen05CollectorA(Ctx& c, const Tcgen05Mma& op, uint32_t key, const std::vector<double>& A) {
  const unsigned what = op.collA & 0x40 ? op.collA & 3u : (unsigned)kDiscard;  // none given: the default discard
  Tcgen05Collector& cb = c.cta->tmem.collectorA;
  const int line = c.prog->code[op.pc].line;
  switch (what) {
    case kFill:
      cb.valid = true;
      cb.key = key;
      cb.line = line;
      cb.b = A;
      return true;
    case kDiscard:
      cb.valid = false;
      cb.b.clear();
      return true;
    default:
      break;
  }
  const std::string at = "tcgen05.mma (at PTX line " + std::to_string(line) + ", completing) .collector::a::" + kOpName[what];
  auto fault = [&](const std::string& why) {
    raise(c, Fault::IllegalInstruction, op.lane, 0, 0, false, at + ": " + why);
    return false;
  };
  if (!cb.valid)
    return fault("the collector buffer for A holds no valid fill (the ISA requires a previous .collector::a::fill still valid; none since the last "
                 "lastuse or discard, and a tcgen05.mma without .collector_usage is a .collector::a::discard)");
  if (cb.key != key)
    return fault("its kind, A type, M, negate A, transpose A or A's memory (shared / tensor) differ from those of the fill at PTX line " +
                 std::to_string(cb.line) + " (the ISA does not say what the buffer gives then)");
  if (cb.b.size() != A.size() || std::memcmp(cb.b.data(), A.data(), A.size() * sizeof(double)) != 0)
    return fault("A in memory differs from what the fill at PTX line " + std::to_string(cb.line) +
                 " read (the ISA does not say whether a use reads A's memory again, so the sim requires both to agree)");
  if (what == kLastUse) {
    cb.valid = false;
    cb.b.clear();
  }
  return true;
}

}  // namespace tsim
