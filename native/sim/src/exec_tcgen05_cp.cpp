// tcgen05.cp (sm_100a; PTX ISA "tcgen05.cp", "Data Movement Shape", "Matrix Descriptors",
// "Implicitly pipelined tcgen05 Instructions"):
//
//   tcgen05.cp.cta_group::{1,2}.shape{.multicast} [taddr], s_desc;
//
// issued by each thread that executes it (compilers elect one), copies a matrix of R rows of
// 128 or 256 bits from shared memory to tensor memory. The source is read through the sm_100
// shared-memory descriptor s_desc as an 8-bit K-major canonical layout (exec_smem_matrix.h):
// row r is the M/N index, the row's bytes its K (core matrices of 8 rows x 16 bytes, the 16-byte
// chunks LBO apart without swizzle, SBO between groups of 8 rows), the layout tcgen05.mma reads
// its operands in. Row r's bytes land in consecutive 32-bit cells from taddr's column (byte b in
// column b / 4, bits 8 * (b % 4)), in these lanes (L = taddr's lane):
//   .128x256b, .128x128b         lane L + r                       (128 rows)
//   .4x256b                      lane L + 32 r                    (4 rows: one per lane quarter)
//   .64x128b.warpx2::02_13       lanes L + r and L + 64 + r       (warps 0 and 2, 1 and 3 pair)
//   .64x128b.warpx2::01_23       lanes L + 64 (r / 32) + r % 32, and that + 32 (0/1, 2/3 pair)
//   .32x128b.warpx4              lanes L + r + 32 q, q = 0..3     (every quarter a copy)
// The ISA lets one thread write every lane (the warp-quarter rule is tcgen05.ld/st's); the lanes
// written must lie in the 128 (so L = 0, or L < 32 for .4x256b) and the columns must be allocated,
// else a named fault. .32x128b.warpx4 is how scale factors reach the layout block-scaled MMAs read.
//
// Asynchronous like an MMA, in the same in-order queue: the copy happens when a tcgen05.commit
// issued after it has its arrival performed (exec_tcgen05_mma.cpp), reading shared memory through
// the async proxy then; so a tcgen05.mma issued after it reads the copied cells, a tcgen05.ld
// before the commit's phase is observed reads the old ones, and a producer overwriting the source
// before then changes what is copied (racecheck reports both).
//
// .cta_group::2: the same copy into the peer CTA's tensor memory too (exec_tcgen05_pair_move.cpp).
// Refused by name: the decompressing forms .b8x16.b6x16_p32 /
// .b8x16.b4x16_p64, whose 8-bit containers (where the 6 or 4 bits sit in each byte) the ISA gives
// only as figures.
#include <cstdio>
#include <vector>

#include "exec_mem.h"
#include "exec_smem_matrix.h"
#include "exec_tcgen05.h"

namespace tsim {

namespace {

enum CpShape : uint8_t { k128x256b, k4x256b, k128x128b, k64x128b0213, k64x128b0123, k32x128bx4, kNumCpShapes };
constexpr const char* kCpNames[] = {"128x256b", "4x256b", "128x128b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23", "32x128b.warpx4"};
constexpr unsigned kCpRows[] = {128, 4, 128, 64, 64, 32};
constexpr unsigned kCpBytes[] = {32, 32, 16, 16, 16, 16};  // bytes per row

// The lanes (relative to taddr's) row r is written to; returns how many.
unsigned cpLanes(unsigned shape, unsigned r, unsigned out[4]) {
  switch (shape) {
    case k4x256b: out[0] = 32 * r; return 1;
    case k64x128b0213: out[0] = r; out[1] = 64 + r; return 2;
    case k64x128b0123: out[0] = 64 * (r / 32) + r % 32; out[1] = out[0] + 32; return 2;
    case k32x128bx4: for (unsigned q = 0; q < 4; q++) out[q] = r + 32 * q; return 4;
    default: out[0] = r; return 1;
  }
}

// The highest relative lane a shape writes (its footprint is lanes L .. L + this).
unsigned cpLaneSpan(unsigned shape) { return shape == k4x256b ? 96 : 127; }

// The shared-memory address of byte b of source row r.
inline uint32_t cpSrcAddr(const SmemMatrix& sd, unsigned r, unsigned b) { return smemElemAddr(sd, false, r, b, 1); }

std::string cpWhat(unsigned shape) { return std::string("tcgen05.cp.") + kCpNames[shape]; }

// The first source byte outside the CTA's shared-memory window, if any (false: all inside).
bool cpSourceOutside(const SmemMatrix& sd, unsigned shape, size_t window, uint32_t& bad) {
  for (unsigned r = 0; r < kCpRows[shape]; r++)
    for (unsigned b = 0; b < kCpBytes[shape]; b++)
      if (cpSrcAddr(sd, r, b) >= window) {
        bad = cpSrcAddr(sd, r, b);
        return true;
      }
  return false;
}

// racecheck: a copy into cells that an earlier tcgen05.mma still in flight reads (its A, its scale
// factors) or writes (its accumulator). The ISA pipelines tcgen05.cp -> tcgen05.mma, not the
// reverse: until the MMA's covering commit has arrived, the copy may land before the MMA reads (or
// after it writes). The sim completes them in issue order, one legal outcome; racecheck reports it.
void cpRaceCheck(Ctx& c, const Tcgen05Mma& cp) {
  const unsigned shape = cp.cp - 1;
  const uint32_t col = cp.taddr & 0xffff;
  const TmemSpan span{cp.taddr >> 16, shape == k4x256b ? 4u : 128u, shape == k4x256b ? 32u : 1u, {col, col}, kCpBytes[shape] / 4};
  for (const Tcgen05Mma* op : tmemOpsInFlight(c)) {
    if (op->cp || op->shift) continue;
    uint32_t hl, hc;
    const char* role = mmaTouchesTmem(c, *op, span, true, hl, hc);
    if (!role) continue;
    const bool waw = role[0] == 'w';
    char head[160];
    std::snprintf(head, sizeof head, "%s hazard on tensor memory (lane %u, column %u): ", waw ? "write-after-write" : "write-after-read", hl, hc);
    sanRecord(c, 0, waw ? 7 : 8, op->pc, c.curPc,
              std::string(head) + "tcgen05.cp " + sanWhere(c, cp.warp * kWarp + cp.lane, c.curPc) + " writes a cell that tcgen05.mma " +
                  sanWhere(c, op->warp * kWarp + op->lane, op->pc) + " " + role +
                  ", before the tcgen05.commit that covers the MMA has arrived on its mbarrier (tcgen05.cp is not ordered after an earlier tcgen05.mma)");
    return;
  }
}

// tcgen05.cp: in.s[0] + imm = taddr, s[1] = s_desc; in.mode = the shape.
void cpOp(Ctx& c, const Inst& in, uint32_t exec) {
  Tmem& t = c.cta->tmem;
  const unsigned shape = in.mode;
  const std::string what = cpWhat(shape);
  FOR_LANES(exec) {
    Tcgen05Mma op{};
    op.pc = c.curPc;
    op.taddr = (uint32_t)(slot(c, in.s[0])[l] + (uint64_t)in.imm);
    op.descA = slot(c, in.s[1])[l];
    op.cp = (uint8_t)(shape + 1);
    op.warp = (uint16_t)c.w->id;
    op.lane = (uint8_t)l;
    SmemMatrix sd;
    std::string why = decodeTcgen05SmemDesc(op.descA, sd);
    // its rows are read K-major, and the ISA gives 128B_base32b an MN-major atom only
    if (why.empty() && sd.atom32) why = "the 128B_base32b swizzle (mode 1) is not simulated for tcgen05.cp (the ISA gives 32-byte atomicity an MN-major atom only)";
    if (!why.empty()) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, what + ": the source shared-memory descriptor: " + why);
      return;
    }
    const uint32_t lane = op.taddr >> 16, col = op.taddr & 0xffff;
    if (lane + cpLaneSpan(shape) >= kTmemLanes) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            what + ": the address names lane " + std::to_string(lane) + ", so the copy would write lanes up to " +
                std::to_string(lane + cpLaneSpan(shape)) + ", past tensor memory's 128 (the shape writes lanes L.." +
                "L+" + std::to_string(cpLaneSpan(shape)) + (shape == k4x256b ? " in steps of 32: L must be below 32)" : ": L must be 0)"));
      return;
    }
    if (!tmemColumnsAllocated(c, col, kCpBytes[shape] / 4, what)) return;
    if (in.vec == 2 && !(op.peer = tcgen05PairMovePeer(c, col, kCpBytes[shape] / 4, "tcgen05.cp.cta_group::2"))) return;
    uint32_t bad;
    if (cpSourceOutside(sd, shape, c.cta->shared.size(), bad)) {
      raise(c, Fault::SharedOutOfBounds, (int)l, bad, 1, false,
            what + ": the source matrix its descriptor names reaches shared address " + std::to_string(bad) + ", outside the CTA's " +
                std::to_string(c.cta->shared.size()) + " bytes");
      return;
    }
    if (t.mmas.size() >= 65536) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, what + ": more than 65536 MMAs/copies in flight (no tcgen05.commit whose mbarrier is waited on)");
      return;
    }
    if (c.san && (c.san->flags & kSanRace)) {  // the source is read until the covering commit arrives
      cpRaceCheck(c, op);
      std::vector<uint32_t> bytes;
      for (unsigned r = 0; r < kCpRows[shape]; r++)
        for (unsigned b = 0; b < kCpBytes[shape]; b++) bytes.push_back(cpSrcAddr(sd, r, b));
      op.san = sanWgmmaIssue(c, std::move(bytes), 2, l);
    }
    t.mmas.push_back(op);
    t.mmaIssued++;
  }
}

}  // namespace

bool completeTcgen05Cp(Ctx& c, const Tcgen05Mma& op) {
  if (op.san) sanWgmmaDone(c, op.san);  // read now: later writes to the source no longer race
  const unsigned shape = op.cp - 1;
  const Inst& in = c.prog->code[op.pc];
  const std::string what = cpWhat(shape) + " (at PTX line " + std::to_string(in.line) + ", completing)";
  const uint32_t lane0 = op.taddr >> 16, col0 = op.taddr & 0xffff, ncols = kCpBytes[shape] / 4;
  if (!tmemColumnsAllocated(c, col0, ncols, what)) return false;
  SmemMatrix sd;
  decodeTcgen05SmemDesc(op.descA, sd);
  uint32_t bad;
  if (cpSourceOutside(sd, shape, c.cta->shared.size(), bad)) {
    raise(c, Fault::SharedOutOfBounds, op.lane, bad, 1, false, what + ": source byte outside shared memory");
    return false;
  }
  // the rows from this (the issuing) CTA's shared memory; .cta_group::2: into both CTAs' tensor
  // memory, the same cells (PTX ISA "tcgen05.cp": "copied into the Tensor Memory of both the
  // current and the peer CTAs")
  const uint8_t* sm = asyncShared(c);
  std::vector<uint32_t> words((size_t)kCpRows[shape] * 8, 0);
  for (unsigned r = 0; r < kCpRows[shape]; r++)
    for (unsigned b = 0; b < kCpBytes[shape]; b++) words[r * 8 + b / 4] |= (uint32_t)sm[cpSrcAddr(sd, r, b)] << (8 * (b % 4));
  Cta* const self = c.cta;
  for (Cta* dst : {self, op.peer}) {
    if (!dst) continue;
    c.cta = dst;
    const bool ok = dst == self || tmemColumnsAllocated(c, col0, ncols, what + ", the peer CTA's copy");
    uint32_t* cells = ok ? tmemCells(c) : nullptr;
    auto& written = c.cta->tmem.written;
    for (unsigned r = 0; ok && r < kCpRows[shape]; r++) {
      unsigned lanes[4];
      for (unsigned i = 0, n = cpLanes(shape, r, lanes); i < n; i++) {
        const size_t at = (size_t)(lane0 + lanes[i]) * kTmemCols + col0;
        for (unsigned j = 0; j < ncols; j++) {
          cells[at + j] = words[r * 8 + j];
          if (!written.empty()) written[at + j] = 1;
        }
      }
    }
    c.cta = self;
    if (!ok) return false;
  }
  return true;
}

bool tcgen05CpWrites(const Tcgen05Mma& op, uint32_t lane, uint32_t& col, uint32_t& ncols) {
  const unsigned shape = op.cp - 1;
  const uint32_t lane0 = op.taddr >> 16;
  col = op.taddr & 0xffff;
  ncols = kCpBytes[shape] / 4;
  if (lane < lane0 || lane > lane0 + cpLaneSpan(shape)) return false;
  return shape != k4x256b || (lane - lane0) % 32 == 0;
}

bool decodeTcgen05Cp(Decoder& dc, const Stmt& st, Inst& in) {
  const bool pair = st.has("cta_group::2");  // exec_tcgen05_pair_move.cpp
  if (pair == st.has("cta_group::1")) return dc.fail("tcgen05.cp needs .cta_group::1 or .cta_group::2");
  int shape = -1, n = 0;
  const char* bare[] = {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b"};
  for (int k = 0; k < 5; k++)
    if (st.has(bare[k])) { shape = k; n++; }
  if (n != 1) return dc.fail("tcgen05.cp takes one shape: .128x256b, .4x256b, .128x128b, .64x128b or .32x128b");
  const bool x0213 = st.has("warpx2::02_13"), x0123 = st.has("warpx2::01_23"), x4 = st.has("warpx4");
  const int casts = x0213 + x0123 + x4;
  if (casts > 1) return dc.fail("tcgen05.cp takes one multicast qualifier");
  // PTX ISA: .64x128b requires .warpx2::02_13 or ::01_23, .32x128b requires .warpx4, the other
  // shapes take none (ptxas refuses each mismatch)
  if (shape < 3 && casts) return dc.fail(std::string("tcgen05.cp.") + bare[shape] + " takes no multicast qualifier");
  if (shape == 3 && x4) return dc.fail("tcgen05.cp.64x128b does not take .warpx4 (it requires .warpx2::02_13 or .warpx2::01_23)");
  if (shape == 4 && (x0213 || x0123)) return dc.fail("tcgen05.cp.32x128b does not take .warpx2 (it requires .warpx4)");
  if (shape == 3 && !(x0213 || x0123)) return dc.fail("tcgen05.cp.64x128b requires .warpx2::02_13 or .warpx2::01_23");
  if (shape == 4 && !x4) return dc.fail("tcgen05.cp.32x128b requires .warpx4");
  // .dst_fmt.src_fmt: .b8x16 then .b6x16_p32 or .b4x16_p64, both or neither
  int dstAt = -1, srcAt = -1;
  for (size_t i = 0; i < st.mods.size(); i++) {
    if (st.mods[i] == "b8x16") dstAt = (int)i;
    if (st.mods[i] == "b6x16_p32" || st.mods[i] == "b4x16_p64") srcAt = srcAt < 0 ? (int)i : -2;
  }
  if ((dstAt < 0) != (srcAt == -1) || srcAt == -2 || (dstAt >= 0 && srcAt != dstAt + 1))
    return dc.fail("tcgen05.cp decompression is written .b8x16.b6x16_p32 or .b8x16.b4x16_p64 (the destination format, then one source format)");
  if (!onlyMods(dc, st, "cp cta_group::1 cta_group::2 128x256b 4x256b 128x128b 64x128b 32x128b warpx2::02_13 warpx2::01_23 warpx4 b8x16 b6x16_p32 b4x16_p64"))
    return false;
  if (dstAt >= 0)
    return dc.fail(std::string("tcgen05.cp decompression (.b8x16.") + st.mods[srcAt] +
                   ") is not simulated: the PTX ISA gives where the 6 or 4 bits sit in each 8-bit container only as figures");
  if (st.ops.size() != 2) return dc.fail("expected tcgen05.cp.cta_group::1.shape [taddr], s_desc");
  uint8_t sym;
  if (st.ops[0].kind != Operand::Addr || !dc.addr(st.ops[0], in.s[0], in.imm, sym)) return dc.fail("expected the tensor-memory address [taddr]");
  if (st.ops[1].kind == Operand::Addr) return dc.fail("s_desc is a 64-bit shared-memory descriptor value, not an address");
  in.s[1] = dc.src(st.ops[1], Ty::B64);
  in.mode = (uint8_t)(shape == 3 ? (x0213 ? k64x128b0213 : k64x128b0123) : shape == 4 ? k32x128bx4 : shape);
  in.fn = &cpOp;
  in.cls = kTensor;
  in.vec = pair ? 2 : 1;
  return true;
}

}  // namespace tsim
