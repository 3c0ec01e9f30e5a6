// tcgen05.mma.ws (sm_100a; PTX ISA "tcgen05.mma.ws", "Zero-Column Mask Descriptor", "Matrix
// Shape", "Data Path Layout Organization"):
//
//   tcgen05.mma.ws.cta_group::1.kind::{f16,tf32,f8f6f4,i8}{.collector::bN::{fill,use,lastuse,discard}}
//       [d_tmem], a_desc | [a_tmem], b_desc, idesc, enable_input_d {, zero_column_mask_desc};
//
// The weight-stationary MMA: D = A * B {+ D} as tcgen05.mma computes it (exec_tcgen05_mma.cpp:
// the same kinds, types, rounding and descriptors; no disable_output_lane, no scale_input_d), with
//
// - shapes (the ISA's shape table, .ws rows): M 32, 64, 128 and N 64, 128, 256. M = 128 uses the
//   data path layout D (row m in TMEM lane m, as without .ws); M = 64 (layout E) and M = 32
//   (layout G) are refused by name: the ISA gives which lanes and columns hold D's rows there only
//   as figures. The instruction descriptor's bits 30-31 (the maximum shift "while attempting B
//   matrix reuse") are accepted and do not change the values.
// - the zero-column mask descriptor (64 bits): 0-31 start counts, 32-35 first spans, 36-38
//   reserved, 39 Non-Zero Mask, 40-47 Skip Span, 48-55 Use Span, 56-61 Column Shift. The column
//   shift s moves B: D's column n is computed from B's column n + s ("if N = 128 then B Matrix with
//   columns from 2 to 129 will be used ... due to the shift of 2"), s <= 32 for M = 128. With the
//   Non-Zero Mask bit 0 the mask is all zeros (every column of B used, the other fields ignored:
//   the ISA's example 1). A generated mask (bit 39 = 1) is refused by name: the ISA's field table
//   says Skip Span + 1 is the count of columns where B is used and Use Span + 1 of the zeroed ones,
//   while all four of its worked examples give runs of Skip Span + 1 one-bits (zeroed columns) and
//   Use Span + 1 zero-bits, so the text does not determine which columns are zeroed.
// - the collector buffers #0..#3 for B (per CTA; default .collector::b0::discard): fill reads B
//   from shared memory and keeps it in buffer N; use reads B "from the collector buffer", which
//   "requires a previous fill ... to be still valid"; lastuse as use, then the buffer is invalid;
//   discard reads B from memory and invalidates buffer N. The ISA says use "can" read the buffer,
//   not whether B's shared memory is read again, so the sim reads both and requires them to agree:
//   a use whose B in shared memory (at its own b_desc and column shift) differs from what the fill
//   read, or whose kind / B type / N / negate B / transpose B / column shift differ from the
//   fill's, is a named fault (the result would depend on the reading), as is a use of a buffer
//   with no valid fill. The buffer steps happen in the MMA queue's order, when the MMA completes.
#include <cstring>

#include "exec_tcgen05.h"

namespace tsim {

namespace {

enum : unsigned { kFill = 0, kUse = 1, kLastUse = 2, kDiscard = 3 };
const char* const kOpName[4] = {"fill", "use", "lastuse", "discard"};

// The instruction-descriptor fields of B a collector buffer's contents depend on: B type (10-12),
// negate B (14), transpose B (16), N (17-22); with the kind in bits 24-25.
uint32_t collectorKey(const Ctx& c, const Tcgen05Mma& op) {
  const uint32_t kind = (c.prog->code[op.pc].mode >> 4) & 3;
  return (op.idesc & (7u << 10 | 1u << 14 | 1u << 16 | 63u << 17)) | kind << 24;
}

}  // namespace

std::string tcgen05WsShape(unsigned m, unsigned n) {
  if (m == 64 || m == 32)
    return "M = " + std::to_string(m) + " with .ws (the ISA's data path layout " + (m == 64 ? "E" : "G") +
           ") is not simulated: the ISA gives which tensor-memory lanes and columns hold D's rows there only as a figure (M = 128, layout D, is)";
  if (m != 128) return "M = " + std::to_string(m) + " (bits 24-28) is not a .ws shape (32, 64 or 128)";
  if (n != 64 && n != 128 && n != 256) return "N = " + std::to_string(n) + " (bits 17-22) is not a .ws shape (64, 128 or 256)";
  return "";
}

std::string tcgen05WsMaskDesc(uint64_t zcm, unsigned m) {
  if (zcm & (7ull << 36 | 3ull << 62)) return "the zero-column mask descriptor's reserved bits 36-38 and 62-63 must be 0";
  if (zcm >> 39 & 1)
    return "a generated zero-column mask (Non-Zero Mask, bit 39 = 1) is not simulated: the ISA's field table (Skip Span + 1 columns where B is used, Use Span + 1 "
           "columns of zeros) and its examples (runs of Skip Span + 1 one-bits, i.e. zeroed columns) disagree on which columns are zeroed";
  const unsigned maxShift = m == 32 ? 16 : 32;
  if (tcgen05WsShift(zcm) > maxShift)
    return "the zero-column mask descriptor's column shift (bits 56-61) is " + std::to_string(tcgen05WsShift(zcm)) + ", more than the maximum " +
           std::to_string(maxShift) + " for M = " + std::to_string(m);
  return "";
}

bool tcgen05WsCollector(Ctx& c, const Tcgen05Mma& op, std::vector<double>& B) {
  const unsigned buf = op.ws & 3, what = (op.ws >> 2) & 3;
  Tcgen05Collector& cb = c.cta->tmem.collectors[buf];
  const int line = c.prog->code[op.pc].line;
  const std::string at = "tcgen05.mma.ws (at PTX line " + std::to_string(line) + ", completing) .collector::b" + std::to_string(buf) + "::" + kOpName[what];
  const uint32_t key = collectorKey(c, op);
  const unsigned shift = tcgen05WsShift(op.zcm);
  auto fault = [&](const std::string& why) {
    raise(c, Fault::IllegalInstruction, op.lane, 0, 0, false, at + ": " + why);
    return false;
  };
  switch (what) {
    case kFill:
      cb.valid = true;
      cb.key = key;
      cb.shift = shift;
      cb.line = line;
      cb.b = B;
      return true;
    case kDiscard:
      cb.valid = false;
      cb.b.clear();
      return true;
    default:
      break;
  }
  if (!cb.valid)
    return fault("collector buffer #" + std::to_string(buf) + " holds no valid fill (the ISA requires a previous .collector::b" + std::to_string(buf) +
                 "::fill still valid; none since the last lastuse or discard)");
  if (cb.key != key || cb.shift != shift)
    return fault("its kind, B type, N, negate B, transpose B or column shift differ from those of the fill at PTX line " + std::to_string(cb.line) +
                 " (the ISA does not say what the buffer gives then)");
  if (cb.b.size() != B.size() || std::memcmp(cb.b.data(), B.data(), B.size() * sizeof(double)) != 0)
    return fault("B in shared memory differs from what the fill at PTX line " + std::to_string(cb.line) +
                 " read (the ISA does not say whether a use reads shared memory again, so the sim requires both to agree)");
  if (what == kLastUse) {
    cb.valid = false;
    cb.b.clear();
  }
  return true;
}

bool decodeTcgen05MmaWs(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("cta_group::2")) return dc.fail("tcgen05.mma.ws takes .cta_group::1 only (the ISA's shape table: .ws with .cta_group::2 is invalid)");
  if (st.has("block_scale") || st.has("kind::mxf8f6f4") || st.has("kind::mxf4") || st.has("kind::mxf4nvf4"))
    return dc.fail("tcgen05.mma.ws has no block-scaled kinds (the ISA's shape table: invalid with .ws)");
  if (st.has("ashift")) return dc.fail("tcgen05.mma.ws has no .ashift (the ISA's .ws syntax has none; ptxas refuses it)");
  for (const char* o : {"collector::a::fill", "collector::a::use", "collector::a::lastuse", "collector::a::discard"})
    if (st.has(o)) return dc.fail(std::string("tcgen05.mma.ws takes .collector::b{0,1,2,3}::*, not .") + o + " (the collector for A is tcgen05.mma's without .ws; ptxas refuses it)");
  std::string allowed = "mma ws cta_group::1 kind::f16 kind::tf32 kind::f8f6f4 kind::i8";
  int coll = -1, ncoll = 0;
  for (unsigned b = 0; b < 4; b++)
    for (unsigned o = 0; o < 4; o++) {
      const std::string m = "collector::b" + std::to_string(b) + "::" + kOpName[o];
      allowed += " " + m;
      if (st.has(m.c_str())) coll = (int)(o << 2 | b), ncoll++;
    }
  if (!onlyMods(dc, st, allowed.c_str()) || !st.has("cta_group::1"))
    return dc.fail("expected tcgen05.mma.ws.cta_group::1.kind::{f16,tf32,f8f6f4,i8}{.collector::b{0,1,2,3}::{fill,use,lastuse,discard}}");
  if (ncoll > 1) return dc.fail("tcgen05.mma.ws: more than one .collector_usage modifier");
  const char* const kinds[4] = {"kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8"};  // MmaKind 0-3
  int kind = -1, nkind = 0;
  for (int k = 0; k < 4; k++)
    if (st.has(kinds[k])) kind = k, nkind++;
  if (nkind != 1) return dc.fail("tcgen05.mma.ws needs one of .kind::f16, .kind::tf32, .kind::f8f6f4, .kind::i8");
  const auto& o = st.ops;
  for (const Operand& x : o)
    if (x.kind == Operand::Vec) return dc.fail("tcgen05.mma.ws has no disable_output_lane operand");
  if (o.size() != 5 && o.size() != 6)
    return dc.fail("expected [d_tmem], a_desc | [a_tmem], b_desc, idesc, enable_input_d {, zero_column_mask_desc}");
  uint8_t sym;
  if (o[0].kind != Operand::Addr || !dc.addr(o[0], in.s[0], in.imm, sym)) return dc.fail("expected the accumulator's tensor-memory address [d_tmem]");
  const bool aTmem = o[1].kind == Operand::Addr;
  int64_t aOff = 0;
  if (aTmem) {
    if (!dc.addr(o[1], in.s[1], aOff, sym)) return dc.fail("expected A's tensor-memory address [a_tmem]");
  } else {
    in.s[1] = dc.src(o[1], Ty::B64);
  }
  in.s[2] = dc.src(o[2], Ty::B64);
  in.s[3] = dc.src(o[3], Ty::B32);
  std::vector<uint32_t> e(11, 0);  // mmaOp's layout: enable_input_d, 4 x no disabled lanes, A's offset, ..., the mask
  e[0] = dc.src(o[4], Ty::Pred);
  e[5] = (uint32_t)aOff;
  if (o.size() == 6) {
    if (o[5].kind == Operand::Imm) return dc.fail("tcgen05.mma.ws: zero_column_mask_desc is a 64-bit register (there is no scale_input_d with .ws)");
    e[10] = dc.src(o[5], Ty::B64);
  }
  in.ext = dc.ext(e);
  in.mode = (uint8_t)(kind << 4 | (aTmem ? 0x40 : 0));
  in.size = (uint8_t)(0x80 | (coll < 0 ? (kDiscard << 2 | 0) : (unsigned)coll));  // default .collector::b0::discard
  in.cls = kTensor;
  in.vec = 1;
  return true;
}

}  // namespace tsim
