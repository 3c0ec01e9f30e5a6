// tcgen05.mma and tcgen05.commit (sm_100a; PTX ISA "tcgen05.mma", "tcgen05.commit", "Shared
// memory descriptor", "Instruction descriptor"):
//
//   tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d_tmem], a_desc | [a_tmem], b_desc, idesc,
//       {disable_output_lane (4 x b32),} enable_input_d {, scale_input_d};
//
// issued by each thread that executes it (compilers elect one), computes D (M x N, f32 or s32 for
// i8, in TMEM at d_tmem) = A (M x K, shared memory) * B (K x N, shared memory) {+ D *
// 2^-scale_input_d}, with K = 32 bytes of the operand type (16 f16/bf16, 8 tf32, 32 e4m3/e5m2 and
// u8/s8; the i8 sums are exact integers, wrapping, or clamped to s32 with the saturate bit). Row m of D is TMEM lane m (M = 128) or
// lane 32*(m/16) + m%16 (M = 64: 16 lanes of each warp quarter), column n is column c0 + n. A in
// tensor memory ([a_tmem]): row m in the lane of D's row m, its 32 bytes of K in 8 cells from
// a_tmem's column, element k in piece k % (4 / size) of its cell, low bits first.
//
// Instruction descriptor (32 bits): 0-1 sparsity selector, 2 sparsity, 3 saturate, 4-5 D type
// (0 f16, kind::f16 only: one element in the low 16 bits of each cell, the sum rounded once to
// f16; 1 f32, 2 s32), 6 reserved, 7-9 A type, 10-12 B type (kind::f16: 0 f16, 1 bf16;
// kind::tf32: 2; kind::f8f6f4: 0 e4m3, 1 e5m2, 3 e2m3, 4 e3m2, 5 e2m1; kind::i8: 0 u8, 1 s8),
// 13 negate A, 14 negate B, 15 A MN-major (transposed), 16 B MN-major, 17-22 N >> 3, 23 reserved,
// 24-28 M >> 4, 29 reserved, 30-31 maximum shift (.ws only).
// Shared-memory descriptor (64 bits): 0-13 start address >> 4, 16-29 leading-dimension byte
// offset >> 4, 32-45 stride-dimension byte offset >> 4, 46-48 the fixed value 0b001, 49-51 base
// offset, 52 leading-dimension mode (0: relative offset), 61-63 swizzle (0 none, 1 128B with 32B
// atoms, 2 128B, 4 64B, 6 32B). The canonical layouts (core matrices of 8 rows x 16 bytes, K-major
// and MN-major, the swizzle XOR of address bits [4, 4+b) with bits [7, 7+b)) are wgmma's (see
// exec_smem_matrix.h): element addresses are computed from the shared-memory address itself.
//
// Asynchrony: an MMA is kept in flight until a tcgen05.commit that follows it (in the issuing
// order of the CTA) has its mbarrier arrival performed, which the sim does when a thread tests that
// mbarrier (test_wait / try_wait); the MMAs are then computed oldest first, reading shared memory
// through the async proxy at that moment (a producer overwriting an operand before the wait gives
// a wrong result, as on hardware) and TMEM's accumulator; until then tcgen05.ld reads the old
// columns. tcgen05.st writes still in flight then (no tcgen05.wait::st yet) land after the MMAs. Each sum is exact and rounded once (round to nearest even), NaN results canonical.
#include <cmath>

#include "exec_float.h"
#include "exec_fp8.h"
#include "exec_mem.h"
#include "exec_smem_matrix.h"
#include "exec_tcgen05.h"

namespace tsim {

namespace {

enum MmaKind : uint8_t { kKindF16 = 0, kKindTf32 = 1, kKindF8f6f4 = 2, kKindI8 = 3 };
enum ElTy : uint8_t { kF16, kBF16, kTF32, kE4M3, kE5M2, kU8, kS8 };

struct Idesc {
  unsigned m, n, esize;
  ElTy ta, tb;
  bool isInt, satf, negA, negB, transA, transB;
  bool f16D;  // kind::f16 with an f16 accumulator (D type 0)
};

// Decodes and checks an instruction descriptor; "" or why it is not one the sim runs.
std::string decodeIdesc(uint32_t v, MmaKind kind, Idesc& d) {
  if (v & 4u) return "the instruction descriptor asks for sparsity (bit 2), which needs tcgen05.mma.sp (not simulated)";
  if (v & 3u) return "the instruction descriptor's sparsity selector (bits 0-1) must be 0 for a dense MMA";
  if ((v & 8u) && kind != kKindI8) return "the instruction descriptor's saturate bit (3) is for kind::i8 only";
  if (v & (1u << 6 | 1u << 23 | 1u << 29)) return "the instruction descriptor's reserved bits 6, 23 and 29 must be 0";
  if (v >> 30) return "the instruction descriptor's maximum shift (bits 30-31) is for tcgen05.mma.ws only";
  unsigned dt = (v >> 4) & 3, at = (v >> 7) & 7, bt = (v >> 10) & 7;
  d.isInt = kind == kKindI8;
  d.f16D = !d.isInt && dt == 0;
  d.satf = v >> 3 & 1;
  if (d.isInt) {
    if (dt != 2) return "kind::i8 accumulates in s32 (D type 2); got D type " + std::to_string(dt);
    if (at > 1 || bt > 1) return "kind::i8 takes A/B type 0 (u8) or 1 (s8); got " + std::to_string(at) + "/" + std::to_string(bt);
    if (v & (3u << 13)) return "kind::i8 has no negate (bits 13-14 must be 0)";
    d.ta = at ? kS8 : kU8;
    d.tb = bt ? kS8 : kU8;
  } else {
    if (dt == 0 && kind != kKindF16) return "an f16 accumulator (D type 0) is for kind::f16 only (this kind accumulates in f32, D type 1)";
    if (dt > 1) return "D type " + std::to_string(dt) + " is not one of the floating-point kinds' (0 f16, 1 f32)";
    if (kind == kKindF16) {
      if (at > 1 || bt > 1) return "kind::f16 takes A/B type 0 (f16) or 1 (bf16); got " + std::to_string(at) + "/" + std::to_string(bt);
      if (at != bt) return "kind::f16 needs A and B of the same type";
      d.ta = d.tb = at ? kBF16 : kF16;
    } else if (kind == kKindTf32) {
      if (at != 2 || bt != 2) return "kind::tf32 takes A/B type 2 (tf32); got " + std::to_string(at) + "/" + std::to_string(bt);
      d.ta = d.tb = kTF32;
    } else {
      for (unsigned t : {at, bt})
        if (t == 3 || t == 4 || t == 5) return "kind::f8f6f4 with 6- and 4-bit operands (A/B types 3 e2m3, 4 e3m2, 5 e2m1) is not simulated yet (e4m3 and e5m2 are)";
      if (at > 1 || bt > 1) return "kind::f8f6f4 takes A/B type 0 (e4m3), 1 (e5m2), 3, 4 or 5; got " + std::to_string(at) + "/" + std::to_string(bt);
      d.ta = at ? kE5M2 : kE4M3;
      d.tb = bt ? kE5M2 : kE4M3;
    }
  }
  d.esize = d.ta == kTF32 ? 4 : (d.ta == kF16 || d.ta == kBF16) ? 2 : 1;
  d.negA = v >> 13 & 1;
  d.negB = v >> 14 & 1;
  d.transA = v >> 15 & 1;
  d.transB = v >> 16 & 1;
  d.n = ((v >> 17) & 63) * 8;
  d.m = ((v >> 24) & 31) * 16;
  if (d.m != 64 && d.m != 128) return "M = " + std::to_string(d.m) + " (bits 24-28) is not a .cta_group::1 shape (64 or 128)";
  unsigned step = d.m == 64 ? 8 : 16;
  if (d.n < step || d.n > 256 || d.n % step) return "N = " + std::to_string(d.n) + " (bits 17-22) is not a shape for M = " + std::to_string(d.m) + " (" + std::to_string(step) + ".." + "256 in steps of " + std::to_string(step) + ")";
  return "";
}

using SmemDesc = SmemMatrix;

std::string decodeSmemDesc(uint64_t v, SmemDesc& d) {
  if (((v >> 46) & 7) != 1) return "bits 46-48 must hold the fixed value 0b001 (the sm_100 descriptor), got " + std::to_string((v >> 46) & 7);
  if (v >> 52 & 1) return "the leading-dimension mode bit 52 (absolute addresses, for 48-byte K tiles) is not simulated";
  unsigned mode = (unsigned)(v >> 61);
  if (mode == 1) return "swizzle mode 1 (128B with 32-byte atoms, 128B_base32b) is not simulated yet";
  if (mode != 0 && mode != 2 && mode != 4 && mode != 6) return "swizzle mode " + std::to_string(mode) + " (bits 61-63) is not one of 0, 1, 2, 4, 6";
  d.start = (uint32_t)(v & 0x3fff) << 4;
  d.lbo = (uint32_t)((v >> 16) & 0x3fff) << 4;
  d.sbo = (uint32_t)((v >> 32) & 0x3fff) << 4;
  d.swz = mode == 0 ? 0 : mode == 2 ? 128 : mode == 4 ? 64 : 32;
  d.base = d.swz ? (uint32_t)((v >> 49) & 7) : 0;
  return "";
}

// Shared-memory byte address of element (mn, k) (the canonical layouts, exec_smem_matrix.h).
inline uint32_t elemAddr(const SmemDesc& d, bool mnMajor, unsigned mn, unsigned k, unsigned esize) {
  return smemElemAddr(d, mnMajor, mn, k, esize);
}

inline double elemValue(uint32_t bits, ElTy t) {
  switch (t) {
    case kF16: return f16ToF32((uint16_t)bits);
    case kBF16: return bf16ToF32((uint16_t)bits);
    case kTF32: return bitsf32(bits & 0xffffe000u);  // tf32: the low 13 mantissa bits are ignored
    case kE4M3: return e4m3ToDouble((uint8_t)bits);
    case kE5M2: return e5m2ToDouble((uint8_t)bits);
    case kU8: return (double)(uint8_t)bits;
    case kS8: return (double)(int8_t)bits;
  }
  return 0;
}

// PTX ISA "Data Path Layout Organization": M = 128 is layout D (row m in lane m); M = 64 without
// .ws is layout F, half the datapath: 16 rows in each 32-lane quarter, from the quarter's lane 0
// or 16 (the lane alignment the address names, the same for A in TMEM and D).
inline unsigned dLane(const Idesc& d, unsigned m, unsigned base) { return d.m == 128 ? m : 32 * (m / 16) + base + m % 16; }

// Computes one MMA into tensor memory; false after a fault.
// tcgen05.shift.cta_group::1.down [taddr] (PTX ISA "tcgen05.shift"): the 32-byte elements (8
// cells from taddr's column) of the 31 rows from taddr's lane (a multiple of 32) move down one
// row; the first row keeps its cells on the sim (the ISA does not say what it holds).
bool completeShift(Ctx& c, const Tcgen05Mma& op) {
  const uint32_t lane0 = op.taddr >> 16, col = op.taddr & 0xffff;
  if (!tmemColumnsAllocated(c, col, 8, "tcgen05.shift (at PTX line " + std::to_string(c.prog->code[op.pc].line) + ", completing)")) return false;
  uint32_t* cells = tmemCells(c);
  auto& wr = c.cta->tmem.written;
  for (int r = 30; r >= 0; r--)
    for (unsigned j = 0; j < 8; j++) {
      const size_t from = (size_t)(lane0 + r) * kTmemCols + col + j, to = from + kTmemCols;
      cells[to] = cells[from];
      if (!wr.empty()) wr[to] = wr[from];
    }
  return true;
}

bool completeMma(Ctx& c, const Tcgen05Mma& op) {
  if (op.shift) return completeShift(c, op);
  if (op.san) sanWgmmaDone(c, op.san);  // read now: later writes to its operands no longer race
  const Inst& in = c.prog->code[op.pc];
  Idesc d;
  SmemDesc da, db;
  decodeIdesc(op.idesc, (MmaKind)((in.mode >> 4) & 3), d);
  const bool aTmem = in.mode & 0x40;
  if (!aTmem) decodeSmemDesc(op.descA, da);
  decodeSmemDesc(op.descB, db);
  const uint32_t col0 = op.taddr & 0xffff;
  if (!tmemColumnsAllocated(c, col0, d.n, "tcgen05.mma (at PTX line " + std::to_string(in.line) + ", completing)")) return false;
  const unsigned M = d.m, N = d.n, K = 32 / d.esize;
  const uint8_t* sm = asyncShared(c);
  const size_t smSize = c.cta->shared.size();
  std::vector<double> A((size_t)M * K), B((size_t)K * N);
  auto read = [&](const SmemDesc& sd, bool mnMajor, unsigned mn, unsigned k, const char* which, double& out, ElTy ty) {
    uint32_t a = elemAddr(sd, mnMajor, mn, k, d.esize);
    if ((uint64_t)a + d.esize > smSize) {
      raise(c, Fault::SharedOutOfBounds, 0, a, d.esize, false,
            std::string("tcgen05.mma (PTX line ") + std::to_string(in.line) + "): " + which + " element outside shared memory (window is " + std::to_string(smSize) + " bytes)");
      return false;
    }
    uint32_t bits = 0;
    memcpy(&bits, sm + a, d.esize);
    out = elemValue(bits, ty);
    return true;
  };
  if (aTmem) {
    // A in tensor memory: row m in the lane of D's row m, K elements packed in 32-bit cells from
    // A's column on, element k in the (k % (4 / size))-th piece of the cell, low bits first
    const uint32_t* cells = tmemCells(c);
    const uint32_t colA = (uint32_t)op.descA & 0xffff, per = 4 / d.esize, bits = 8 * d.esize;
    if (!tmemColumnsAllocated(c, colA, K / per, "tcgen05.mma A (at PTX line " + std::to_string(in.line) + ", completing)")) return false;
    if (tmemInitcheck(c)) {
      const auto& wr = c.cta->tmem.written;
      bool reported = false;
      for (unsigned m = 0; m < M && !reported; m++)
        for (unsigned q = 0; q < 8 && !reported; q++)
          if (!wr[(size_t)dLane(d, m, op.taddr >> 16) * kTmemCols + colA + q]) {
            tmemUninitRead(c, op.pc, op.warp * 32u + op.lane, dLane(d, m, op.taddr >> 16), colA + q, "tcgen05.mma (its A)");
            reported = true;
          }
    }
    for (unsigned m = 0; m < M; m++)
      for (unsigned k = 0; k < K; k++) {
        uint32_t cell = cells[(size_t)dLane(d, m, op.taddr >> 16) * kTmemCols + colA + k / per];
        uint32_t v = bits == 32 ? cell : (cell >> (bits * (k % per))) & ((1u << bits) - 1);
        A[(size_t)m * K + k] = elemValue(v, d.ta);
      }
  } else {
    for (unsigned m = 0; m < M; m++)
      for (unsigned k = 0; k < K; k++)
        if (!read(da, d.transA, m, k, "A", A[(size_t)m * K + k], d.ta)) return false;
  }
  for (unsigned k = 0; k < K; k++)
    for (unsigned n = 0; n < N; n++)
      if (!read(db, d.transB, n, k, "B", B[(size_t)k * N + n], d.tb)) return false;
  if (d.negA) for (auto& x : A) x = -x;
  if (d.negB) for (auto& x : B) x = -x;
  uint32_t* cells = tmemCells(c);
  const double scale = std::ldexp(1.0, -(int)op.scaleD);
  auto& written = c.cta->tmem.written;
  if (!written.empty()) {  // initcheck: the accumulator read (enable_input_d), then written
    bool reported = !op.enableD;
    for (unsigned m = 0; m < M; m++) {
      const unsigned lane = dLane(d, m, op.taddr >> 16);
      if ((op.disableLanes[lane / 32] >> (lane % 32)) & 1) continue;
      uint8_t* w = &written[(size_t)lane * kTmemCols + col0];
      for (unsigned n = 0; n < N; n++) {
        if (!reported && !w[n]) {
          tmemUninitRead(c, op.pc, op.warp * 32u + op.lane, lane, col0 + n, "tcgen05.mma (its accumulator, enable_input_d)");
          reported = true;
        }
        w[n] = 1;
      }
    }
  }
  for (unsigned m = 0; m < M; m++) {
    const unsigned lane = dLane(d, m, op.taddr >> 16);
    if ((op.disableLanes[lane / 32] >> (lane % 32)) & 1) continue;
    uint32_t* row = cells + (size_t)lane * kTmemCols + col0;
    const double* a = &A[(size_t)m * K];
    if (d.isInt) {  // exact integer sums; wrapping, or clamped with the saturate bit
      for (unsigned n = 0; n < N; n++) {
        int64_t sum = op.enableD ? (int64_t)(int32_t)row[n] : 0;
        for (unsigned k = 0; k < K; k++) sum += (int64_t)a[k] * (int64_t)B[(size_t)k * N + n];
        if (d.satf) sum = std::min<int64_t>(std::max<int64_t>(sum, INT32_MIN), INT32_MAX);
        row[n] = (uint32_t)(uint64_t)sum;
      }
      continue;
    }
    for (unsigned n = 0; n < N; n++) {
      // The sum in double with the rounding error of every addition (TwoSum); when none has any,
      // every partial sum was exact and one rounding to f32 gives the exactly rounded result;
      // otherwise (or for inf/NaN) it is summed again in long double.
      // an f16 accumulator is one element in the low 16 bits of its cell (the ISA's packing
      // format for matrix D); the sim writes the high 16 bits as zero
      const double in0 = !op.enableD ? 0.0 : (d.f16D ? (double)f16ToF32((uint16_t)row[n]) : (double)bitsf32(row[n])) * scale;
      double s = in0, e = 0;
      for (unsigned k = 0; k < K; k++) {
        double p = a[k] * B[(size_t)k * N + n], t = s + p, z = t - s;
        e += std::fabs((s - (t - z)) + (p - z));
        s = t;
      }
      long double sum = s;
      if (e != 0) {
        sum = (long double)in0;
        for (unsigned k = 0; k < K; k++) sum += (long double)a[k] * B[(size_t)k * N + n];
      }
      if (d.f16D) {
        row[n] = (uint32_t)roundTo(sum, Ty::F16, kRn);  // nearest even, NaN canonical
        continue;
      }
      float r = (float)sum;
      row[n] = r != r ? 0x7fffffffu : f32bits(r);
    }
  }
  return true;
}

// racecheck: the shared-memory bytes of A (unless in tensor memory) and B, which the MMA reads
// until its commit arrives.
std::vector<uint32_t> operandBytes(const Tcgen05Mma& op, const Idesc& d, bool aTmem) {
  std::vector<uint32_t> bytes;
  const unsigned K = 32 / d.esize;
  SmemDesc sd;
  auto add = [&](uint64_t desc, bool mnMajor, unsigned mnExt) {
    decodeSmemDesc(desc, sd);
    for (unsigned mn = 0; mn < mnExt; mn++)
      for (unsigned k = 0; k < K; k++) {
        uint32_t a = elemAddr(sd, mnMajor, mn, k, d.esize);
        for (unsigned b = 0; b < d.esize; b++) bytes.push_back(a + b);
      }
  };
  if (!aTmem) add(op.descA, d.transA, d.m);
  add(op.descB, d.transB, d.n);
  return bytes;
}

// Completes the MMAs in flight numbered below upto, oldest first.
bool completeUpTo(Ctx& c, uint64_t upto) {
  Tmem& t = c.cta->tmem;
  size_t i = 0;
  bool ok = true;
  while (i < t.mmas.size() && t.mmaDone + i < upto && ok) ok = completeMma(c, t.mmas[i++]);
  t.mmas.erase(t.mmas.begin(), t.mmas.begin() + (long)i);
  t.mmaDone += i;
  // tcgen05.st writes no tcgen05.wait::st has waited for yet land now, after the MMAs: as late as
  // the program allows, so a store the MMA needed (or one that should not clobber its result)
  // without its wait gives a wrong result
  if (i && ok) tmemLandStores(c, -1);
  return ok;
}

// tcgen05.mma: in.s[0] + imm = d_tmem, s[1] a_desc (or A's tensor-memory address, plus ext[5]),
// s[2] b_desc, s[3] idesc; ext: enable_input_d, the 4 disable_output_lane slots (0: none), A's
// address offset; mode: A in tensor memory (0x40) | kind << 4 | scale_input_d.
void mmaOp(Ctx& c, const Inst& in, uint32_t exec) {
  Tmem& t = c.cta->tmem;
  const uint32_t* e = &c.prog->ext[in.ext];
  FOR_LANES(exec) {
    Tcgen05Mma op;
    op.pc = c.curPc;
    op.taddr = (uint32_t)(slot(c, in.s[0])[l] + (uint64_t)in.imm);
    const bool aTmem = in.mode & 0x40;
    op.descA = aTmem ? (uint32_t)(slot(c, in.s[1])[l] + (uint64_t)(int32_t)e[5]) : slot(c, in.s[1])[l];
    op.descB = slot(c, in.s[2])[l];
    op.idesc = (uint32_t)slot(c, in.s[3])[l];
    op.enableD = slot(c, e[0])[l] & 1;
    for (int i = 0; i < 4; i++) op.disableLanes[i] = e[1 + i] ? (uint32_t)slot(c, e[1 + i])[l] : 0;
    op.scaleD = in.mode & 15;
    op.warp = (uint16_t)c.w->id;
    op.lane = (uint8_t)l;
    Idesc d;
    std::string why = decodeIdesc(op.idesc, (MmaKind)((in.mode >> 4) & 3), d);
    SmemDesc sd;
    if (why.empty() && !aTmem) {
      std::string w = decodeSmemDesc(op.descA, sd);
      if (!w.empty()) why = "the A shared-memory descriptor: " + w;
    }
    if (why.empty() && aTmem && d.transA) why = "A in tensor memory cannot be MN-major (bit 15 must be 0)";
    // lane alignment: 0 for M = 128; 0 or 16 for M = 64 (layout F), A in TMEM aligned as D
    const uint32_t laneD = op.taddr >> 16;
    const bool laneOk = laneD == 0 || (d.m == 64 && laneD == 16);
    if (why.empty() && aTmem && (op.descA >> 16) != (laneOk ? laneD : 0))
      why = "A's tensor-memory address must name lane " + std::string(laneOk && laneD ? "16, as D's does" : "0") + " (got lane " + std::to_string(op.descA >> 16) + ")";
    if (why.empty()) {
      std::string w = decodeSmemDesc(op.descB, sd);
      if (!w.empty()) why = "the B shared-memory descriptor: " + w;
    }
    if (why.empty() && !laneOk)
      why = "the accumulator's tensor-memory address must name lane 0" + std::string(d.m == 64 ? " or 16" : "") + " for M = " + std::to_string(d.m) + " (got lane " + std::to_string(laneD) + ")";
    if (!why.empty()) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.mma: " + why);
      return;
    }
    if (!tmemColumnsAllocated(c, op.taddr & 0xffff, d.n, "tcgen05.mma")) return;
    // A in TMEM: a row's K elements are 32 bytes, 8 cells
    if (aTmem && !tmemColumnsAllocated(c, (uint32_t)op.descA & 0xffff, 8, "tcgen05.mma A")) return;
    if (t.mmas.size() >= 65536) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.mma: more than 65536 MMAs in flight (no tcgen05.commit whose mbarrier is waited on)");
      return;
    }
    if (c.san && (c.san->flags & kSanRace)) op.san = sanWgmmaIssue(c, operandBytes(op, d, aTmem), true, l);
    t.mmas.push_back(op);
    t.mmaIssued++;
  }
}

// tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]: each executing
// thread's arrive-on, due once the MMAs issued so far are complete.
void commitOp(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  Inst atomic = in;
  atomic.flags |= kfSanAtomic;
  if (!resolve(c, atomic, exec, 8, true, p, false)) return;
  Tmem& t = c.cta->tmem;
  uint8_t* lo = c.cta->shared.data();
  FOR_LANES(exec) {
    if (p[l] < lo || p[l] + 8 > lo + c.cta->shared.size()) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.commit: the mbarrier must be in the executing CTA's shared memory");
      return;
    }
    t.commits.push_back({(uint32_t)(p[l] - lo), t.mmaIssued, (uint16_t)c.w->id, (uint8_t)l});
  }
}

// tcgen05.shift: issued by each executing thread, in flight like an MMA until a covering commit
// arrives.
void shiftOp(Ctx& c, const Inst& in, uint32_t exec) {
  Tmem& t = c.cta->tmem;
  FOR_LANES(exec) {
    Tcgen05Mma op{};
    op.pc = c.curPc;
    op.taddr = (uint32_t)(slot(c, in.s[0])[l] + (uint64_t)in.imm);
    op.shift = true;
    op.warp = (uint16_t)c.w->id;
    op.lane = (uint8_t)l;
    if ((op.taddr >> 16) % 32 || (op.taddr >> 16) >= kTmemLanes) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false,
            "tcgen05.shift: the lane of the address must be a multiple of 32 (got lane " + std::to_string(op.taddr >> 16) + ")");
      return;
    }
    if (!tmemColumnsAllocated(c, op.taddr & 0xffff, 8, "tcgen05.shift")) return;
    if (t.mmas.size() >= 65536) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.shift: more than 65536 MMAs/shifts in flight (no tcgen05.commit whose mbarrier is waited on)");
      return;
    }
    t.mmas.push_back(op);
    t.mmaIssued++;
  }
}

bool kindOf(Decoder& dc, const Stmt& st, MmaKind& k) {
  for (const char* other : {"kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"})
    if (st.has(other)) return dc.fail(std::string("tcgen05.mma .") + other + " (block-scaled) is not simulated yet");
  if (st.has("kind::f16")) k = kKindF16;
  else if (st.has("kind::tf32")) k = kKindTf32;
  else if (st.has("kind::f8f6f4")) k = kKindF8f6f4;
  else if (st.has("kind::i8")) k = kKindI8;
  else return dc.fail("tcgen05.mma needs .kind::f16, .kind::tf32, .kind::f8f6f4 or .kind::i8");
  return true;
}

}  // namespace

bool decodeTcgen05Mma(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("sp")) return dc.fail("tcgen05.mma.sp (sparse A) is not simulated yet");
  if (st.has("ws")) return dc.fail("tcgen05.mma.ws is not simulated yet");
  if (st.has("cta_group::2")) return dc.fail("tcgen05.mma .cta_group::2 (a CTA pair sharing one MMA) is not simulated yet");
  MmaKind kind;
  if (!kindOf(dc, st, kind)) return false;
  if (!onlyMods(dc, st, "mma cta_group::1 kind::f16 kind::tf32 kind::f8f6f4 kind::i8") || !st.has("cta_group::1"))
    return dc.fail("expected tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8}");
  const auto& o = st.ops;
  if (o.size() < 5 || o.size() > 7) return dc.fail("expected [d_tmem], a_desc, b_desc, idesc, {disable_output_lane,} enable_input_d {, scale_input_d}");
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
  size_t i = 4;
  std::vector<uint32_t> e(6, 0);
  e[5] = (uint32_t)aOff;
  if (o[i].kind == Operand::Vec) {
    if (o[i].elems.size() != 4) return dc.fail("disable_output_lane of .cta_group::1 is a vector of 4 .b32");
    for (int k = 0; k < 4; k++) e[1 + k] = dc.src(o[i].elems[k], Ty::B32);
    i++;
  }
  if (i >= o.size()) return dc.fail("missing enable_input_d");
  e[0] = dc.src(o[i++], Ty::Pred);
  int64_t scale = 0;
  if (i < o.size()) {
    if (o[i].kind != Operand::Imm || !immInt(o[i].name, scale) || scale < 0 || scale > 15)
      return dc.fail("scale_input_d must be an integer immediate in [0, 15]");
    if (kind == kKindF8f6f4) return dc.fail("scale_input_d is not allowed with kind::f8f6f4 (ptxas refuses it)");
    if (kind == kKindI8) return dc.fail("scale_input_d with kind::i8 (an integer accumulator) is not simulated");
    i++;
  }
  if (i != o.size()) return dc.fail("too many operands");
  in.ext = dc.ext(e);
  in.mode = (uint8_t)(kind << 4 | scale | (aTmem ? 0x40 : 0));
  in.fn = &mmaOp;
  in.cls = kTensor;
  return true;
}

bool decodeTcgen05Shift(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("cta_group::2")) return dc.fail("tcgen05.shift .cta_group::2 is not simulated yet");
  if (!onlyMods(dc, st, "shift cta_group::1 down") || !st.has("cta_group::1") || !st.has("down") || st.ops.size() != 1)
    return dc.fail("expected tcgen05.shift.cta_group::1.down [taddr]");
  uint8_t sym;
  if (st.ops[0].kind != Operand::Addr || !dc.addr(st.ops[0], in.s[0], in.imm, sym)) return dc.fail("expected the tensor-memory address [taddr]");
  in.fn = &shiftOp;
  in.cls = kTensor;
  return true;
}

bool decodeTcgen05Commit(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("cta_group::2")) return dc.fail("tcgen05.commit .cta_group::2 is not simulated yet");
  if (st.has("multicast::cluster")) return dc.fail("tcgen05.commit .multicast::cluster is not simulated yet");
  if (!onlyMods(dc, st, "commit cta_group::1 mbarrier::arrive::one shared::cluster b64") || !st.has("cta_group::1") ||
      !st.has("mbarrier::arrive::one") || st.type() != Ty::B64 || st.ops.size() != 1)
    return dc.fail("expected tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]");
  uint8_t sym;
  if (st.ops[0].kind != Operand::Addr || !dc.addr(st.ops[0], in.s[0], in.imm, sym)) return dc.fail("expected the mbarrier address [mbar]");
  in.space = st.has("shared::cluster") ? kSharedCluster : kGeneric;
  in.fn = &commitOp;
  in.cls = kSync;
  return true;
}

bool settleTcgen05Commits(Ctx& c, uint32_t off) {
  Tmem& t = c.cta->tmem;
  size_t keep = 0;
  std::vector<Tcgen05Commit> recs = std::move(t.commits);
  t.commits.clear();
  bool ok = true;
  for (size_t i = 0; i < recs.size(); i++) {
    const Tcgen05Commit& r = recs[i];
    if (!ok || (off != ~0u && r.barOff != off)) {
      recs[keep++] = r;
      continue;
    }
    ok = completeUpTo(c, r.upto) && mbarrierArriveOne(c, r.lane, r.barOff);
  }
  recs.resize(keep);
  t.commits = std::move(recs);
  return ok;
}

}  // namespace tsim
