// tcgen05.mma and tcgen05.commit (sm_100a; PTX ISA "tcgen05.mma", "tcgen05.commit", "Shared
// memory descriptor", "Instruction descriptor"):
//
//   tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d_tmem], a_desc | [a_tmem], b_desc, idesc,
//       {disable_output_lane (4 x b32),} enable_input_d {, scale_input_d};
//   tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.scale_vec::NX|.block32|.block16}
//       [d_tmem], a_desc | [a_tmem], b_desc, idesc, [scale_A_tmem], [scale_B_tmem], enable_input_d;
//
//   tcgen05.mma.cta_group::2.kind::{f16,tf32,f8f6f4,i8} ... {disable_output_lane (8 x b32),} ...
//       (issued by the even CTA of a pair for both: M = 256, see exec_tcgen05_pair.cpp)
//
// issued by each thread that executes it (compilers elect one), computes D (M x N, f32 or s32 for
// i8, in TMEM at d_tmem) = A (M x K, shared memory) * B (K x N, shared memory) {+ D *
// 2^-scale_input_d}, with K = 32 bytes of the operand type (16 f16/bf16, 8 tf32, 32 e4m3/e5m2 and
// u8/s8, 32 of the 6- and 4-bit types in their padded 16-byte chunks, 64 packed e2m1 for mxf4*;
// the i8 sums are exact integers, wrapping, or clamped to s32 with the saturate bit). The
// block-scaled kinds scale A's rows and B's columns chunk by chunk from TMEM first (see
// applyScales and decodeScaledIdesc). Row m of D is TMEM lane m (M = 128) or
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
// 128B_base32b (MN-major tf32 only, layoutRule) XORs bits [5, 7) with [7, 9) (exec_smem_matrix.h).
//
// Asynchrony: an MMA is kept in flight until a tcgen05.commit that follows it (in the issuing
// order of the CTA) has its mbarrier arrival performed, which the sim does when a thread tests that
// mbarrier (test_wait / try_wait); the MMAs are then computed oldest first, reading shared memory
// through the async proxy at that moment (a producer overwriting an operand before the wait gives
// a wrong result, as on hardware) and TMEM's accumulator; until then tcgen05.ld reads the old
// columns. tcgen05.st writes still in flight then (no tcgen05.wait::st yet) land after the MMAs. Each sum is exact and rounded once (round to nearest even), NaN results canonical.
#include <cmath>
#include <cstdio>

#include "exec_float.h"
#include "exec_fp4fp6.h"
#include "exec_fp8.h"
#include "exec_mem.h"
#include "exec_smem_matrix.h"
#include "exec_tcgen05.h"

namespace tsim {

namespace {

enum MmaKind : uint8_t { kKindF16 = 0, kKindTf32 = 1, kKindF8f6f4 = 2, kKindI8 = 3, kKindMxf8f6f4 = 4, kKindMxf4 = 5, kKindMxf4nvf4 = 6 };
enum ElTy : uint8_t { kF16, kBF16, kTF32, kE4M3, kE5M2, kU8, kS8, kFp6E2M3, kFp6E3M2, kFp4E2M1 };

// Inst::mode: bit 7 set for the block-scaled kinds, then bits 4-5 the kind (- kKindMxf8f6f4) and
// bits 0-2 the scale factors per row of K (1, 2, 4); else bits 4-5 the kind and 0-3
// scale_input_d. Bit 6: A in tensor memory.
inline MmaKind modeKind(uint8_t mode) { return (MmaKind)((mode & 0x80 ? kKindMxf8f6f4 : 0) + ((mode >> 4) & 3)); }
inline unsigned modeVec(uint8_t mode) { return mode & 0x80 ? mode & 7 : 0; }

struct Idesc {
  unsigned m, n, esize;  // esize: bytes of an element's slot (1 for every 8-, 6- and 4-bit type)
  unsigned k;            // K of one MMA: 32 bytes of slots (mxf4*: 64 packed e2m1)
  ElTy ta, tb;
  bool isInt, satf, negA, negB, transA, transB;
  bool f16D;  // an f16 accumulator (D type 0)
  bool pair = false;  // .cta_group::2: M = 256 across the CTA pair, 128 rows in each CTA's lanes
  // block scaling: scale factors per row of K (1, 2, 4), the byte of the 32-bit cell the row's
  // first one is in (scale factor ids), ue4m3 (else ue8m0) scales; packed4: two e2m1 per byte
  bool scaled = false, ue4m3 = false, packed4 = false;
  unsigned vec = 0, sfa = 0, sfb = 0;
};

// PTX ISA "Valid Combinations of Type-Size, Major-ness and Swizzling": MN-major is listed for
// the 8-, 16- and 32-bit types only.
const char* const kSubByteMn =
    "MN-major (transposed) 6- and 4-bit operands are not a valid combination (the ISA's table of type size, major-ness and swizzling lists MN-major for 8-, 16- and 32-bit types only)";

inline bool subByte(ElTy t) { return t == kFp6E2M3 || t == kFp6E3M2 || t == kFp4E2M1; }
inline unsigned elemBits(ElTy t, unsigned esize) { return t == kFp4E2M1 ? 4 : subByte(t) ? 6 : 8 * esize; }

// The f8f6f4 A/B type codes (instruction descriptor bits 7-9, 10-12).
std::string f8f6f4Type(unsigned t, const char* kind, ElTy& e) {
  static const ElTy ty[8] = {kE4M3, kE5M2, kE4M3, kFp6E2M3, kFp6E3M2, kFp4E2M1, kE4M3, kE4M3};
  if (t == 2 || t > 5) return std::string(kind) + " takes A/B type 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1); got " + std::to_string(t);
  e = ty[t];
  return "";
}

// The block-scaled kinds' descriptor (PTX ISA "Instruction descriptor", the tables for
// .kind::mxf8f6f4 and .kind::mxf4 / .kind::mxf4nvf4): 0-1 reserved, 2 sparsity, 3 reserved, 4-5
// scale factor B id, 6 reserved, 7-9 A type, 10-12 B type (mxf4*: 10-11, 12 reserved), 13-14
// negate A/B, 15-16 transpose A/B (mxf4*: 0), 17-22 N >> 3, 23 scale type (0 ue4m3, 1 ue8m0),
// 24-26 reserved, 27-28 M >> 7, 29-30 scale factor A id, 31 reserved (mxf4*: K = 96, sm_103a only).
std::string decodeScaledIdesc(uint32_t v, MmaKind kind, unsigned vec, Idesc& d) {
  const std::string kn = kind == kKindMxf8f6f4 ? "kind::mxf8f6f4" : kind == kKindMxf4 ? "kind::mxf4" : "kind::mxf4nvf4";
  const bool mx8 = kind == kKindMxf8f6f4;
  if (v & 4u) return "the instruction descriptor asks for sparsity (bit 2), which needs tcgen05.mma.sp (not simulated)";
  if (v & (3u | 8u | 1u << 6 | 7u << 24)) return "the instruction descriptor's reserved bits 0-1, 3, 6 and 24-26 must be 0 for " + kn;
  if (v >> 31) return mx8 ? "the instruction descriptor's reserved bit 31 must be 0 for kind::mxf8f6f4" : "K = 96 (instruction descriptor bit 31) is for sm_103a only (the ISA's matrix-shape target note; there with .cta_group::2, M = 256), not sm_100a";
  d.scaled = true;
  d.vec = vec;
  d.isInt = d.satf = d.f16D = false;
  d.sfb = (v >> 4) & 3;
  d.sfa = (v >> 29) & 3;
  d.ue4m3 = !(v >> 23 & 1);
  const unsigned at = (v >> 7) & 7, bt = (v >> 10) & 7;
  d.esize = 1;
  if (mx8) {
    std::string w = f8f6f4Type(at, "kind::mxf8f6f4", d.ta);
    if (w.empty()) w = f8f6f4Type(bt, "kind::mxf8f6f4", d.tb);
    if (!w.empty()) return w;
    d.k = 32;
  } else {
    if (v >> 12 & 1) return "the instruction descriptor's reserved bit 12 must be 0 for " + kn;
    if (at != 1 || bt != 1) return kn + " takes A/B type 1 (e2m1); got " + std::to_string(at) + "/" + std::to_string(bt);
    if (v & (3u << 15)) return kn + " has no transpose (bits 15-16 must be 0: A and B K-major)";
    d.ta = d.tb = kFp4E2M1;
    d.packed4 = true;
    d.k = 64;
  }
  // PTX ISA "Valid combinations of scale_vectorsize with types and MMA-Kind"
  if (d.ue4m3 && kind != kKindMxf4nvf4) return "ue4m3 scale factors (bit 23 = 0) are for kind::mxf4nvf4 only; " + kn + " takes ue8m0 (bit 23 = 1)";
  if (d.ue4m3 && vec != 4) return "ue4m3 scale factors (bit 23 = 0) need .scale_vec::4X (.block16)";
  if ((vec == 2 && ((d.sfa | d.sfb) & 1)) || (vec == 4 && (d.sfa | d.sfb)))
    return ".scale_vec::" + std::to_string(vec) + "X takes scale factor ids " + (vec == 2 ? "0 or 2" : "0") + " (bits 29-30 for A, 4-5 for B); got " +
           std::to_string(d.sfa) + "/" + std::to_string(d.sfb);
  d.negA = v >> 13 & 1;
  d.negB = v >> 14 & 1;
  d.transA = v >> 15 & 1;
  d.transB = v >> 16 & 1;
  d.n = ((v >> 17) & 63) * 8;
  d.m = ((v >> 27) & 3) * 128;
  if (d.m != 128) return "M = " + std::to_string(d.m) + " (bits 27-28, M >> 7) is not a .cta_group::1 shape of the block-scaled kinds (128)";
  if (d.n < 16 || d.n > 256 || d.n % 16) return "N = " + std::to_string(d.n) + " (bits 17-22) is not a shape for M = 128 (16..256 in steps of 16)";
  if ((subByte(d.ta) && d.transA) || (subByte(d.tb) && d.transB)) return kSubByteMn;
  return "";
}

// .cta_group::2 shapes (PTX ISA "Matrix shape", "Data path layout organization"): M = 256 is
// layout A, rows 0-127 in the even CTA's lanes 0-127 and rows 128-255 in the odd CTA's, N 32..256
// in steps of 16 (each CTA holds B's N/2 columns). M = 128 (layout B, 64 rows per CTA with the
// column halves folded across lane halves) is refused by name.
std::string decodePairShape(Idesc& d) {
  if (d.m == 128) return "M = 128 with .cta_group::2 (layout B, 64 rows per CTA) is not simulated yet (M = 256 is)";
  if (d.m != 256) return "M = " + std::to_string(d.m) + " (bits 24-28) is not a .cta_group::2 shape (256; 128 is not simulated)";
  if (d.n < 32 || d.n > 256 || d.n % 16) return "N = " + std::to_string(d.n) + " (bits 17-22) is not a shape for .cta_group::2 M = 256 (32..256 in steps of 16)";
  if ((subByte(d.ta) && d.transA) || (subByte(d.tb) && d.transB)) return kSubByteMn;
  return "";
}

// Decodes and checks an instruction descriptor; "" or why it is not one the sim runs.
std::string decodeIdesc(uint32_t v, MmaKind kind, unsigned vec, Idesc& d, bool pair = false, bool ws = false) {
  if (kind >= kKindMxf8f6f4) return decodeScaledIdesc(v, kind, vec, d);
  d.pair = pair;
  if (v & 4u) return "the instruction descriptor asks for sparsity (bit 2), which needs tcgen05.mma.sp (not simulated)";
  if (v & 3u) return "the instruction descriptor's sparsity selector (bits 0-1) must be 0 for a dense MMA";
  if ((v & 8u) && kind != kKindI8) return "the instruction descriptor's saturate bit (3) is for kind::i8 only";
  if (v & (1u << 6 | 1u << 23 | 1u << 29)) return "the instruction descriptor's reserved bits 6, 23 and 29 must be 0";
  if ((v >> 30) && !ws) return "the instruction descriptor's maximum shift (bits 30-31) is for tcgen05.mma.ws only";
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
    if (dt == 0 && kind == kKindTf32) return "an f16 accumulator (D type 0) is for kind::f16 and kind::f8f6f4 only (kind::tf32 accumulates in f32, D type 1)";
    if (dt > 1) return "D type " + std::to_string(dt) + " is not one of the floating-point kinds' (0 f16, 1 f32)";
    if (kind == kKindF16) {
      if (at > 1 || bt > 1) return "kind::f16 takes A/B type 0 (f16) or 1 (bf16); got " + std::to_string(at) + "/" + std::to_string(bt);
      if (at != bt) return "kind::f16 needs A and B of the same type";
      d.ta = d.tb = at ? kBF16 : kF16;
    } else if (kind == kKindTf32) {
      if (at != 2 || bt != 2) return "kind::tf32 takes A/B type 2 (tf32); got " + std::to_string(at) + "/" + std::to_string(bt);
      d.ta = d.tb = kTF32;
    } else {
      std::string w = f8f6f4Type(at, "kind::f8f6f4", d.ta);
      if (w.empty()) w = f8f6f4Type(bt, "kind::f8f6f4", d.tb);
      if (!w.empty()) return w;
    }
  }
  d.esize = d.ta == kTF32 ? 4 : (d.ta == kF16 || d.ta == kBF16) ? 2 : 1;
  d.k = 32 / d.esize;
  d.negA = v >> 13 & 1;
  d.negB = v >> 14 & 1;
  d.transA = v >> 15 & 1;
  d.transB = v >> 16 & 1;
  d.n = ((v >> 17) & 63) * 8;
  d.m = ((v >> 24) & 31) * 16;
  if (pair) return decodePairShape(d);
  const std::string wsWhy = ws ? tcgen05WsShape(d.m, d.n) : "";  // .ws: exec_tcgen05_ws.cpp
  if (!wsWhy.empty()) return wsWhy;
  if (!ws && d.m != 64 && d.m != 128) return "M = " + std::to_string(d.m) + " (bits 24-28) is not a .cta_group::1 shape (64 or 128)";
  unsigned step = d.m == 64 ? 8 : 16;
  if (!ws && (d.n < step || d.n > 256 || d.n % step)) return "N = " + std::to_string(d.n) + " (bits 17-22) is not a shape for M = " + std::to_string(d.m) + " (" + std::to_string(step) + ".." + "256 in steps of " + std::to_string(step) + ")";
  if ((subByte(d.ta) && d.transA) || (subByte(d.tb) && d.transB)) return kSubByteMn;
  return "";
}

using SmemDesc = SmemMatrix;

// PTX ISA "Valid Combinations of Type-Size, Major-ness and Swizzling" (Table 52): K-major takes
// every swizzle; MN-major 8- and 16-bit every one but 128B_base32b, MN-major 32-bit (tf32) only
// 128B_base32b. The ISA's swizzle atoms (Table 53) give 128B_base32b no K-major atom, so K-major
// with it is refused by name.
std::string layoutRule(const SmemDesc& sd, bool mnMajor, unsigned bits) {
  if (!mnMajor)
    return sd.atom32 ? "K-major with the 128B_base32b swizzle (mode 1) is not simulated (the ISA's table of swizzle atoms gives 32-byte atomicity an MN-major atom only)" : "";
  if (bits == 32 && !sd.atom32) return "an MN-major (transposed) 32-bit (tf32) operand takes only the 128B_base32b swizzle (mode 1), as the ISA's table of valid type size, major-ness and swizzling says";
  if (bits != 32 && sd.atom32) return "the 128B_base32b swizzle (mode 1) is for MN-major 32-bit (tf32) operands only; MN-major " + std::to_string(bits) + "-bit operands take the other swizzles (the ISA's table of valid type size, major-ness and swizzling)";
  return "";
}

std::string decodeSmemDesc(uint64_t v, SmemDesc& d) {
  if (((v >> 46) & 7) != 1) return "bits 46-48 must hold the fixed value 0b001 (the sm_100 descriptor), got " + std::to_string((v >> 46) & 7);
  if (v >> 52 & 1) return "the leading-dimension mode bit 52 (absolute addresses, for 48-byte K tiles) is not simulated";
  unsigned mode = (unsigned)(v >> 61);
  if (mode != 0 && mode != 1 && mode != 2 && mode != 4 && mode != 6) return "swizzle mode " + std::to_string(mode) + " (bits 61-63) is not one of 0, 1, 2, 4, 6";
  d.start = (uint32_t)(v & 0x3fff) << 4;
  d.lbo = (uint32_t)((v >> 16) & 0x3fff) << 4;
  d.sbo = (uint32_t)((v >> 32) & 0x3fff) << 4;
  d.swz = mode == 0 ? 0 : mode <= 2 ? 128 : mode == 4 ? 64 : 32;
  d.atom32 = mode == 1;
  d.base = d.swz ? (uint32_t)((v >> 49) & 7) : 0;
  return "";
}

// Where element (mn, k) lies in shared memory: its first byte and the bit it starts at there.
// The canonical layouts (exec_smem_matrix.h) place slots of esize bytes; the 6- and 4-bit types of
// the f8f6f4 kinds fill 16-byte chunks with 16 elements packed contiguously (low bits first) and
// then padding (PTX ISA "Packing format used for matrix A and B by .kind::mxf8f6f4 in Shared
// Memory": 12 bytes + 4, or 8 + 8, the layouts of cp.async.bulk.tensor's .b6x16_p32 and
// .b4x16_p64), so a chunk holds as many elements as an 8-bit one; kind::mxf4* packs two e2m1 in a
// byte without padding (element k in byte k / 2, low half first; A and B share the order, so a sum
// over k cannot tell it from the other, but Triton's mixed e4m3 x padded-e2m1 case fixes the
// padded chunks' order against an 8-bit operand).
struct ElemLoc {
  uint32_t addr;
  unsigned bit;
};
inline ElemLoc elemLoc(const SmemDesc& sd, const Idesc& d, bool mnMajor, unsigned mn, unsigned k, ElTy t) {
  if (d.packed4) return {smemElemAddr(sd, false, mn, k / 2, 1), 4 * (k % 2)};
  if (subByte(t)) {
    const unsigned off = (k % 16) * elemBits(t, 1);
    return {smemElemAddr(sd, false, mn, k - k % 16, 1) + off / 8, off % 8};
  }
  return {smemElemAddr(sd, mnMajor, mn, k, d.esize), 0};
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
    case kFp6E2M3: return miniToDouble(bits, kE2M3);
    case kFp6E3M2: return miniToDouble(bits, kE3M2);
    case kFp4E2M1: return miniToDouble(bits, kE2M1);
  }
  return 0;
}

// A scale factor's value (PTX ISA "Alternate floating point data formats"): ue8m0 is 2^(b - 127)
// with 0xff NaN; ue4m3 is an unsigned e4m3 in the low 7 bits (bias 7, subnormals, 0x7f NaN)
// whose MSB must be 0, false otherwise.
inline bool scaleValue(uint32_t b, bool ue4m3, double& v) {
  if (!ue4m3) {
    v = b == 0xff ? std::nan("") : std::ldexp(1.0, (int)b - 127);
    return true;
  }
  if (b & 0x80) return false;
  v = e4m3ToDouble((uint8_t)b);
  return true;
}

// PTX ISA "Data Path Layout Organization": M = 128 is layout D (row m in lane m); M = 64 without
// .ws is layout F, half the datapath: 16 rows in each 32-lane quarter, from the quarter's lane 0
// or 16 (the lane alignment the address names, the same for A in TMEM and D).
inline unsigned dLane(const Idesc& d, unsigned m, unsigned base) { return d.pair ? m % 128 : d.m == 128 ? m : 32 * (m / 16) + base + m % 16; }

// Computes one MMA into tensor memory; false after a fault.
// tcgen05.shift.cta_group::1.down [taddr] (PTX ISA "tcgen05.shift"): the 32-byte elements (8
// cells from taddr's column) of the 31 rows from taddr's lane (a multiple of 32) move down one
// row; the first row keeps its cells on the sim (the ISA does not say what it holds).
bool shiftOne(Ctx& c, const Tcgen05Mma& op) {
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
// .cta_group::2: the same shift in the peer CTA's tensor memory too (PTX ISA "tcgen05.shift")
bool completeShift(Ctx& c, const Tcgen05Mma& op) {
  Cta* const self = c.cta;
  bool ok = shiftOne(c, op);
  if (ok && op.peer) {
    c.cta = op.peer;
    ok = shiftOne(c, op);
    c.cta = self;
  }
  return ok;
}

// Block scaling (PTX ISA "Block Scaling for tcgen05.mma"): D = (A * scale_A) * (B * scale_B) + D,
// the K elements of each row of A (column of B) in vec chunks, chunk j multiplied by that row's
// (column's) j-th scale factor. The scale matrices are "duplicated to all 32 lane partitions":
// row r of scale_A (column r of scale_B) is in lane r % 32 of each 32-lane quarter, in column
// base + r / 32 (4 columns for M = 128, N / 32 rounded up for B: the layout tcgen05.cp
// .32x128b.warpx4 writes), its vec consecutive bytes from the scale factor id's byte (1X: any
// byte, 2X: a half word, 4X: the whole cell). The four copies must agree (a named fault
// otherwise). The scaled values are exact in double (a power of two, or a 4-bit significand times
// an operand's <= 4-bit one). The bytes an MMA does not read may differ between the quarters.
inline unsigned scaleCols(unsigned rows) { return (rows + 31) / 32; }

bool applyScales(Ctx& c, const Tcgen05Mma& op, const Idesc& d, std::vector<double>& A, std::vector<double>& B) {
  const Inst& in = c.prog->code[op.pc];
  const uint32_t colA = op.sfA & 0xffff, colB = op.sfB & 0xffff;
  const std::string at = " (at PTX line " + std::to_string(in.line) + ", completing)";
  if (!tmemColumnsAllocated(c, colA, scaleCols(d.m), "tcgen05.mma scale_A" + at) || !tmemColumnsAllocated(c, colB, scaleCols(d.n), "tcgen05.mma scale_B" + at))
    return false;
  const uint32_t* cells = tmemCells(c);
  const unsigned K = d.k, N = d.n, blk = K / d.vec;
  bool reported = false;  // initcheck: the first never-written scale cell
  // the cell of row r (scale_A) or column r (scale_B); its bytes this MMA reads (id.. id+vec-1)
  // the same in all four quarters
  auto cellOf = [&](unsigned r, uint32_t base, unsigned id, const char* which, uint32_t& cell) {
    const uint32_t col = base + r / 32, mask = d.vec == 4 ? ~0u : ((1u << (8 * d.vec)) - 1) << (8 * id);
    for (unsigned q = 0; q < 4; q++) {
      const unsigned lane = 32 * q + r % 32;
      if (!reported && tmemInitcheck(c) && !c.cta->tmem.written[(size_t)lane * kTmemCols + col]) {
        tmemUninitRead(c, op.pc, op.warp * 32u + op.lane, lane, col, which);  // reported once, computed on
        reported = true;
      }
      const uint32_t v = cells[(size_t)lane * kTmemCols + col];
      if (q && ((v ^ cell) & mask)) {
        raise(c, Fault::IllegalInstruction, op.lane, 0, 0, false,
              std::string("tcgen05.mma") + at + ": " + which + " is not duplicated to all four 32-lane quarters (column " + std::to_string(col) + ": lane " +
                  std::to_string(r % 32) + " holds " + std::to_string(cell & mask) + ", lane " + std::to_string(lane) + " " + std::to_string(v & mask) +
                  "); the ISA's block scaling reads the scale factors duplicated in every quarter");
        return false;
      }
      cell = v;
    }
    return true;
  };
  auto scale = [&](uint32_t cell, uint32_t col, unsigned r, unsigned id, unsigned j, const char* which, double& v) {
    const uint32_t b = (cell >> (8 * (id + j))) & 0xff;
    if (scaleValue(b, d.ue4m3, v)) return true;
    char hx[8];
    std::snprintf(hx, sizeof hx, "0x%02x", b);
    raise(c, Fault::IllegalInstruction, op.lane, 0, 0, false,
          std::string("tcgen05.mma") + at + ": " + which + " byte " + hx + " in lane " + std::to_string(r % 32) + ", column " + std::to_string(col) +
              " is not a ue4m3 (a 7-bit format: its top bit must be 0)");
    return false;
  };
  for (unsigned m = 0; m < d.m; m++) {
    uint32_t cell = 0;
    if (!cellOf(m, colA, d.sfa, "tcgen05.mma (its scale_A)", cell)) return false;
    for (unsigned j = 0; j < d.vec; j++) {
      double v;
      if (!scale(cell, colA + m / 32, m, d.sfa, j, "tcgen05.mma (its scale_A)", v)) return false;
      for (unsigned k = j * blk; k < (j + 1) * blk; k++) A[(size_t)m * K + k] *= v;
    }
  }
  for (unsigned n = 0; n < N; n++) {
    uint32_t cell = 0;
    if (!cellOf(n, colB, d.sfb, "tcgen05.mma (its scale_B)", cell)) return false;
    for (unsigned j = 0; j < d.vec; j++) {
      double v;
      if (!scale(cell, colB + n / 32, n, d.sfb, j, "tcgen05.mma (its scale_B)", v)) return false;
      for (unsigned k = j * blk; k < (j + 1) * blk; k++) B[(size_t)k * N + n] *= v;
    }
  }
  return true;
}

bool writeD(Ctx& c, const Tcgen05Mma& op, const Idesc& d, const std::vector<double>& A, const std::vector<double>& B, unsigned m0, unsigned m1);

bool completeMma(Ctx& c, const Tcgen05Mma& op) {
  if (op.shift) return completeShift(c, op);
  if (op.cp) return completeTcgen05Cp(c, op);
  if (op.san) sanWgmmaDone(c, op.san);  // read now: later writes to its operands no longer race
  if (op.san && op.peer) sanTcgen05PeerDone(c, op.san, op.peer);
  const Inst& in = c.prog->code[op.pc];
  Idesc d;
  SmemDesc da, db;
  decodeIdesc(op.idesc, modeKind(in.mode), modeVec(in.mode), d, op.peer != nullptr, op.ws != 0);
  const bool aTmem = in.mode & 0x40;
  if (!aTmem) decodeSmemDesc(op.descA, da);
  decodeSmemDesc(op.descB, db);
  const uint32_t col0 = op.taddr & 0xffff;
  if (!tmemColumnsAllocated(c, col0, d.n, "tcgen05.mma (at PTX line " + std::to_string(in.line) + ", completing)")) return false;
  const unsigned M = d.m, N = d.n, K = d.k;
  // .cta_group::2: A's rows [M/2, M) and B's columns [N/2, N) are in the peer's shared memory at
  // the same descriptor addresses (ctas[1]); each CTA's operand half is read through its own view
  Cta* ctas[2] = {c.cta, op.peer};
  const uint8_t* smv[2] = {asyncShared(c), nullptr};
  size_t smn[2] = {c.cta->shared.size(), 0};
  if (op.peer) {
    c.cta = op.peer;
    smv[1] = asyncShared(c);
    smn[1] = op.peer->shared.size();
    c.cta = ctas[0];
  }
  unsigned half = 0;  // which CTA's shared memory read() reads
  std::vector<double> A((size_t)M * K), B((size_t)K * N);
  auto read = [&](const SmemDesc& sd, bool mnMajor, unsigned mn, unsigned k, const char* which, double& out, ElTy ty) {
    const uint8_t* sm = smv[half];
    const size_t smSize = smn[half];
    const ElemLoc at = elemLoc(sd, d, mnMajor, mn, k, ty);
    const unsigned nb = elemBits(ty, d.esize), bytes = (at.bit + nb + 7) / 8;
    if ((uint64_t)at.addr + bytes > smSize) {
      raise(c, Fault::SharedOutOfBounds, 0, at.addr, bytes, false,
            std::string("tcgen05.mma (PTX line ") + std::to_string(in.line) + "): " + which + " element outside " + (half ? "the peer CTA's " : "") +
                "shared memory (window is " + std::to_string(smSize) + " bytes)");
      return false;
    }
    uint32_t bits = 0;
    memcpy(&bits, sm + at.addr, bytes);
    out = elemValue(nb == 32 ? bits : (bits >> at.bit) & ((1u << nb) - 1), ty);
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
    const unsigned Mh = op.peer ? M / 2 : M;
    for (unsigned m = 0; m < M; m++) {
      half = m / Mh;
      for (unsigned k = 0; k < K; k++)
        if (!read(da, d.transA, m % Mh, k, "A", A[(size_t)m * K + k], d.ta)) return false;
    }
  }
  // the collector buffer for A (not .ws: its buffers are B's), keyed by the kind (bits 0-2), A in
  // TMEM (bit 3) and the descriptor's A type, negate A, transpose A and M
  if (!op.ws && !tcgen05CollectorA(c, op, (op.idesc & (7u << 7 | 1u << 13 | 1u << 15 | 31u << 24)) | modeKind(in.mode) | (aTmem ? 8u : 0u), A))
    return false;
  const unsigned Nh = op.peer ? N / 2 : N;
  const unsigned shiftB = op.ws ? tcgen05WsShift(op.zcm) : 0;  // .ws: B's columns from the shift on
  for (unsigned k = 0; k < K; k++)
    for (unsigned n = 0; n < N; n++) {
      half = n / Nh;
      if (!read(db, d.transB, n % Nh + shiftB, k, "B", B[(size_t)k * N + n], d.tb)) return false;
    }
  if (op.ws && !tcgen05WsCollector(c, op, B)) return false;  // .ws's collector buffers
  if (d.scaled && !applyScales(c, op, d, A, B)) return false;
  if (d.negA) for (auto& x : A) x = -x;
  if (d.negB) for (auto& x : B) x = -x;
  // .cta_group::2: rows [0, 128) into this CTA's tensor memory, [128, 256) into the peer's
  for (unsigned h = 0; h < (op.peer ? 2u : 1u); h++) {
    c.cta = ctas[h];
    const bool ok = writeD(c, op, d, A, B, h ? 128 : 0, op.peer ? 128 * (h + 1) : M);
    c.cta = ctas[0];
    if (!ok) return false;
  }
  return true;
}

// The rows [m0, m1) of D = A * B {+ D}: into the tensor memory of c.cta.
bool writeD(Ctx& c, const Tcgen05Mma& op, const Idesc& d, const std::vector<double>& A, const std::vector<double>& B, unsigned m0, unsigned m1) {
  const unsigned N = d.n, K = d.k;
  const uint32_t col0 = op.taddr & 0xffff;
  const unsigned dis0 = m0 ? 4 : 0;  // the odd CTA's disable_output_lane words
  if (m0 && !tmemColumnsAllocated(c, col0, N, "tcgen05.mma (at PTX line " + std::to_string(c.prog->code[op.pc].line) + ", completing the peer CTA's half)"))
    return false;
  uint32_t* cells = tmemCells(c);
  const double scale = std::ldexp(1.0, -(int)op.scaleD);
  auto& written = c.cta->tmem.written;
  if (!written.empty()) {  // initcheck: the accumulator read (enable_input_d), then written
    bool reported = !op.enableD;
    for (unsigned m = m0; m < m1; m++) {
      const unsigned lane = dLane(d, m, op.taddr >> 16);
      if ((op.disableLanes[dis0 + lane / 32] >> (lane % 32)) & 1) continue;
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
  for (unsigned m = m0; m < m1; m++) {
    const unsigned lane = dLane(d, m, op.taddr >> 16);
    if ((op.disableLanes[dis0 + lane / 32] >> (lane % 32)) & 1) continue;
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
    // The sums in double, eight columns at a time (N is a multiple of 8; B's row k holds them
    // side by side, so the compiler packs them two to an SSE2 register), with the rounding error
    // of every addition (TwoSum); when none has any, every partial sum was exact and one rounding
    // gives the exactly rounded result; otherwise (or for inf/NaN) that column is summed again in
    // long double. An f16 accumulator is one element in the low 16 bits of its cell (the ISA's
    // packing format for matrix D); the sim writes the high 16 bits as zero.
    for (unsigned n = 0; n < N; n += 8) {
      double in[8], sum[8], err[8];
      for (unsigned j = 0; j < 8; j++) {
        in[j] = !op.enableD ? 0.0 : (d.f16D ? (double)f16ToF32((uint16_t)row[n + j]) : (double)bitsf32(row[n + j])) * scale;
        sum[j] = in[j];
        err[j] = 0;
      }
      for (unsigned k = 0; k < K; k++) {
        const double x = a[k], *b = &B[(size_t)k * N + n];
        for (unsigned j = 0; j < 8; j++) {
          const double p = x * b[j], t = sum[j] + p, z = t - sum[j];
          err[j] += std::fabs((sum[j] - (t - z)) + (p - z));
          sum[j] = t;
        }
      }
      for (unsigned j = 0; j < 8; j++) {
        long double r = sum[j];
        if (err[j] != 0) {
          r = in[j];
          for (unsigned k = 0; k < K; k++) r += (long double)a[k] * B[(size_t)k * N + n + j];  // exact products
        }
        if (d.f16D) {
          row[n + j] = (uint32_t)roundTo(r, Ty::F16, kRn);  // nearest even, NaN canonical
        } else {
          const float f = (float)r;
          row[n + j] = f != f ? 0x7fffffffu : f32bits(f);
        }
      }
    }
  }
  return true;
}

// racecheck: the shared-memory bytes of A (unless in tensor memory) and B, which the MMA reads
// until its commit arrives.
std::vector<uint32_t> operandBytes(const Tcgen05Mma& op, const Idesc& d, bool aTmem) {
  std::vector<uint32_t> bytes;
  SmemDesc sd;
  auto add = [&](uint64_t desc, bool mnMajor, unsigned mnExt, ElTy ty, unsigned mn0) {
    decodeSmemDesc(desc, sd);
    const unsigned nb = elemBits(ty, d.esize);
    for (unsigned mn = mn0; mn < mn0 + mnExt; mn++)
      for (unsigned k = 0; k < d.k; k++) {
        const ElemLoc at = elemLoc(sd, d, mnMajor, mn, k, ty);
        for (unsigned b = 0; b < (at.bit + nb + 7) / 8; b++)
          if (bytes.empty() || bytes.back() != at.addr + b) bytes.push_back(at.addr + b);
      }
  };
  // .cta_group::2: this CTA's half of A's rows and of B's columns (the peer's half: the same bytes
  // of its shared memory, mmaOp)
  if (!aTmem) add(op.descA, d.transA, d.pair ? d.m / 2 : d.m, d.ta, 0);
  add(op.descB, d.transB, d.pair ? d.n / 2 : d.n, d.tb, op.ws ? tcgen05WsShift(op.zcm) : 0);  // .ws: from its column shift
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
  const bool pair = in.vec == 2;  // .cta_group::2
  FOR_LANES(exec) {
    Tcgen05Mma op;
    op.pc = c.curPc;
    op.taddr = (uint32_t)(slot(c, in.s[0])[l] + (uint64_t)in.imm);
    const bool aTmem = in.mode & 0x40;
    op.descA = aTmem ? (uint32_t)(slot(c, in.s[1])[l] + (uint64_t)(int32_t)e[5]) : slot(c, in.s[1])[l];
    op.descB = slot(c, in.s[2])[l];
    op.idesc = (uint32_t)slot(c, in.s[3])[l];
    op.enableD = slot(c, e[0])[l] & 1;
    for (int i = 0; i < 8; i++) {  // .cta_group::2: slots 1-4 then 6-9
      const uint32_t sl = i < 4 ? e[1 + i] : pair ? e[2 + i] : 0;
      op.disableLanes[i] = sl ? (uint32_t)slot(c, sl)[l] : 0;
    }
    const bool scaled = in.mode & 0x80;
    op.scaleD = scaled ? 0 : in.mode & 15;
    if (scaled) {
      op.sfA = (uint32_t)(slot(c, e[6])[l] + (uint64_t)(int32_t)e[8]);
      op.sfB = (uint32_t)(slot(c, e[7])[l] + (uint64_t)(int32_t)e[9]);
    }
    op.warp = (uint16_t)c.w->id;
    op.lane = (uint8_t)l;
    op.ws = in.size & 0x80 ? in.size : 0;  // .ws (decodeTcgen05MmaWs): its collector op and buffer, the zero-column mask
    op.collA = in.size & 0x80 ? 0 : in.size;  // else its .collector::a op (decodeTcgen05CollectorA)
    op.zcm = op.ws && e[10] ? slot(c, e[10])[l] : 0;
    Idesc d;
    std::string why = decodeIdesc(op.idesc, modeKind(in.mode), modeVec(in.mode), d, pair, op.ws != 0);
    if (why.empty() && op.ws) why = tcgen05WsMaskDesc(op.zcm, d.m);
    SmemDesc sd;
    if (why.empty() && aTmem && (subByte(d.ta) || d.packed4))
      why = "A in tensor memory with a 6- or 4-bit type is not simulated (the ISA gives its 8-bit containers only as figures)";
    // scale_A / scale_B: their columns from lane 0 (each quarter holds a copy)
    if (why.empty() && scaled && ((op.sfA >> 16) || (op.sfB >> 16)))
      why = "the scale_A and scale_B tensor-memory addresses must name lane 0 (got lanes " + std::to_string(op.sfA >> 16) + " and " + std::to_string(op.sfB >> 16) + ")";
    if (why.empty() && !aTmem) {
      std::string w = decodeSmemDesc(op.descA, sd);
      if (w.empty()) w = layoutRule(sd, d.transA, elemBits(d.ta, d.esize));
      if (!w.empty()) why = "the A shared-memory descriptor: " + w;
    }
    if (why.empty() && aTmem && d.transA) why = "A in tensor memory cannot be MN-major (bit 15 must be 0)";
    // lane alignment: 0 for M = 128; 0 or 16 for M = 64 (layout F), A in TMEM aligned as D
    const uint32_t laneD = op.taddr >> 16;
    const bool laneOk = laneD == 0 || (d.m == 64 && !pair && laneD == 16);
    if (why.empty() && aTmem && (op.descA >> 16) != (laneOk ? laneD : 0))
      why = "A's tensor-memory address must name lane " + std::string(laneOk && laneD ? "16, as D's does" : "0") + " (got lane " + std::to_string(op.descA >> 16) + ")";
    if (why.empty()) {
      std::string w = decodeSmemDesc(op.descB, sd);
      if (w.empty()) w = layoutRule(sd, d.transB, elemBits(d.tb, d.esize));
      if (!w.empty()) why = "the B shared-memory descriptor: " + w;
    }
    if (why.empty() && !laneOk)
      why = "the accumulator's tensor-memory address must name lane 0" + std::string(d.m == 64 ? " or 16" : "") + " for M = " + std::to_string(d.m) + " (got lane " + std::to_string(laneD) + ")";
    if (!why.empty()) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.mma: " + why);
      return;
    }
    if (!tmemColumnsAllocated(c, op.taddr & 0xffff, d.n, "tcgen05.mma")) return;
    if (pair && !(op.peer = pairMmaPeer(c, op.taddr & 0xffff, d.n))) return;
    if (scaled && (!tmemColumnsAllocated(c, op.sfA & 0xffff, scaleCols(d.m), "tcgen05.mma scale_A") ||
                   !tmemColumnsAllocated(c, op.sfB & 0xffff, scaleCols(d.n), "tcgen05.mma scale_B")))
      return;
    // A in TMEM: a row's K elements are 32 bytes, 8 cells
    if (aTmem && !tmemColumnsAllocated(c, (uint32_t)op.descA & 0xffff, 8, "tcgen05.mma A")) return;
    if (t.mmas.size() >= 65536) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.mma: more than 65536 MMAs in flight (no tcgen05.commit whose mbarrier is waited on)");
      return;
    }
    if (c.san && (c.san->flags & kSanRace)) {
      std::vector<uint32_t> bytes = operandBytes(op, d, aTmem);
      // .cta_group::2: the peer's half of A's rows and B's columns lies at the same addresses in its
      // shared memory, read until the commit arrives as well
      std::vector<uint32_t> peerBytes = op.peer ? bytes : std::vector<uint32_t>();
      op.san = sanWgmmaIssue(c, std::move(bytes), true, l);
      if (op.peer) sanTcgen05PeerIssue(c, op.san, std::move(peerBytes), l, op.peer);
    }
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
    if (in.vec == 2 && !(op.peer = tcgen05PairMovePeer(c, op.taddr & 0xffff, 8, "tcgen05.shift.cta_group::2"))) return;
    if (t.mmas.size() >= 65536) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.shift: more than 65536 MMAs/shifts in flight (no tcgen05.commit whose mbarrier is waited on)");
      return;
    }
    t.mmas.push_back(op);
    t.mmaIssued++;
  }
}

bool kindOf(Decoder& dc, const Stmt& st, MmaKind& k) {
  if (st.has("kind::mxf8f6f4")) k = kKindMxf8f6f4;
  else if (st.has("kind::mxf4")) k = kKindMxf4;
  else if (st.has("kind::mxf4nvf4")) k = kKindMxf4nvf4;
  else if (st.has("kind::f16")) k = kKindF16;
  else if (st.has("kind::tf32")) k = kKindTf32;
  else if (st.has("kind::f8f6f4")) k = kKindF8f6f4;
  else if (st.has("kind::i8")) k = kKindI8;
  else return dc.fail("tcgen05.mma needs .kind::f16, .kind::tf32, .kind::f8f6f4, .kind::i8, .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4");
  return true;
}

// .block_scale{.scale_vectorsize}: the scale factors per row of K (PTX ISA "Valid combinations of
// scale_vectorsize with types and MMA-Kind"; .block32 is 1X for mxf8f6f4 and 2X for mxf4*,
// .block16 is 4X; without one, mxf8f6f4 is 1X and mxf4 2X, mxf4nvf4 needs one, as ptxas says).
bool scaleVecOf(Decoder& dc, const Stmt& st, MmaKind k, unsigned& vec) {
  const std::string kn = k == kKindMxf8f6f4 ? ".kind::mxf8f6f4" : k == kKindMxf4 ? ".kind::mxf4" : ".kind::mxf4nvf4";
  if (!st.has("block_scale")) return dc.fail("tcgen05.mma " + kn + " needs .block_scale");
  int n = 0;
  for (const char* q : {"scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block32", "block16"}) n += st.has(q);
  if (n > 1) return dc.fail("tcgen05.mma: give one of .scale_vec::1X/2X/4X, .block32, .block16");
  vec = st.has("scale_vec::1X") ? 1 : st.has("scale_vec::2X") ? 2 : st.has("scale_vec::4X") || st.has("block16") ? 4
        : st.has("block32") ? (k == kKindMxf8f6f4 ? 1 : 2) : 0;
  if (!vec) {
    if (k == kKindMxf4nvf4) return dc.fail("tcgen05.mma .kind::mxf4nvf4 needs .scale_vec::2X/4X (.block32/.block16)");
    vec = k == kKindMxf8f6f4 ? 1 : 2;
  }
  const bool ok = k == kKindMxf8f6f4 ? vec == 1 : k == kKindMxf4 ? vec == 2 : vec != 1;
  if (!ok) return dc.fail("tcgen05.mma " + kn + " takes " + (k == kKindMxf8f6f4 ? ".scale_vec::1X (.block32)" : k == kKindMxf4 ? ".scale_vec::2X (.block32)" : ".scale_vec::2X or ::4X (.block32, .block16)") +
                          ", not " + std::to_string(vec) + "X");
  return true;
}

}  // namespace

std::string decodeTcgen05SmemDesc(uint64_t v, SmemMatrix& d) { return decodeSmemDesc(v, d); }

bool decodeTcgen05Mma(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("sp")) return dc.fail("tcgen05.mma.sp (sparse A) is not simulated yet (the ISA gives the sparsity metadata's layout in tensor memory and the sparsity selector's columns only as figures)");
  if (st.has("ws")) {  // exec_tcgen05_ws.cpp
    if (!decodeTcgen05MmaWs(dc, st, in)) return false;
    in.fn = &mmaOp;
    return true;
  }
  MmaKind kind;
  if (!kindOf(dc, st, kind)) return false;
  const bool scaled = kind >= kKindMxf8f6f4;
  const bool pair = st.has("cta_group::2");
  if (pair && scaled) return dc.fail("tcgen05.mma .cta_group::2 with the block-scaled kinds is not simulated yet (f16, tf32, f8f6f4 and i8 are)");
  if (pair == st.has("cta_group::1")) return dc.fail("tcgen05.mma needs .cta_group::1 or .cta_group::2");
  uint8_t collA = 0;  // .collector::a / .ashift: exec_tcgen05_collector_a.cpp
  if (!decodeTcgen05CollectorA(dc, st, scaled, pair, collA)) return false;
  unsigned vec = 0;
  if (scaled) {
    if (!scaleVecOf(dc, st, kind, vec)) return false;
    if (!onlyMods(dc, st, "mma cta_group::1 kind::mxf8f6f4 kind::mxf4 kind::mxf4nvf4 block_scale scale_vec::1X scale_vec::2X scale_vec::4X block32 block16 collector::a::fill collector::a::use collector::a::lastuse collector::a::discard") || !st.has("cta_group::1"))
      return dc.fail("expected tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.scale_vec::NX, .block32, .block16}{.collector::a::{fill,use,lastuse,discard}}");
  } else if (st.has("block_scale")) {
    return dc.fail("tcgen05.mma .block_scale needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4");
  } else if (!onlyMods(dc, st, "mma cta_group::1 cta_group::2 kind::f16 kind::tf32 kind::f8f6f4 kind::i8 collector::a::fill collector::a::use collector::a::lastuse collector::a::discard")) {
    return dc.fail("expected tcgen05.mma.cta_group::{1,2}.kind::{f16,tf32,f8f6f4,i8}{.collector::a::{fill,use,lastuse,discard}}");
  }
  const auto& o = st.ops;
  if (scaled && o.size() != 7) return dc.fail("expected [d_tmem], a_desc, b_desc, idesc, [scale_A_tmem], [scale_B_tmem], enable_input_d");
  if (o.size() < 5 || o.size() > 7) return dc.fail("expected [d_tmem], a_desc, b_desc, idesc, {disable_output_lane,} enable_input_d {, scale_input_d}");
  uint8_t sym;
  if (o[0].kind != Operand::Addr || !dc.addr(o[0], in.s[0], in.imm, sym)) return dc.fail("expected the accumulator's tensor-memory address [d_tmem]");
  const bool aTmem = o[1].kind == Operand::Addr;
  int64_t aOff = 0;
  if (aTmem) {
    if (pair) return dc.fail("tcgen05.mma .cta_group::2 with A in tensor memory is not simulated yet (A from a shared-memory descriptor is)");
    if (!dc.addr(o[1], in.s[1], aOff, sym)) return dc.fail("expected A's tensor-memory address [a_tmem]");
  } else {
    in.s[1] = dc.src(o[1], Ty::B64);
  }
  in.s[2] = dc.src(o[2], Ty::B64);
  in.s[3] = dc.src(o[3], Ty::B32);
  size_t i = 4;
  std::vector<uint32_t> e(scaled || pair ? 10 : 6, 0);
  e[5] = (uint32_t)aOff;
  if (scaled) {  // [scale_A_tmem], [scale_B_tmem]: slots 6-7, offsets 8-9
    for (int q = 0; q < 2; q++) {
      int64_t off = 0;
      if (o[i].kind != Operand::Addr || !dc.addr(o[i], e[6 + q], off, sym))
        return dc.fail(std::string("expected the tensor-memory address of ") + (q ? "[scale_B_tmem]" : "[scale_A_tmem]"));
      e[8 + q] = (uint32_t)off;
      i++;
    }
  } else if (o[i].kind == Operand::Vec) {
    // .cta_group::2: 8 words, the even CTA's 128 lanes then the odd CTA's (slots 1-4, 6-9)
    if (o[i].elems.size() != (pair ? 8u : 4u)) return dc.fail(pair ? "disable_output_lane of .cta_group::2 is a vector of 8 .b32" : "disable_output_lane of .cta_group::1 is a vector of 4 .b32");
    for (int k = 0; k < (pair ? 8 : 4); k++) e[k < 4 ? 1 + k : 2 + k] = dc.src(o[i].elems[k], Ty::B32);
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
  in.mode = scaled ? (uint8_t)(0x80 | (kind - kKindMxf8f6f4) << 4 | vec | (aTmem ? 0x40 : 0)) : (uint8_t)(kind << 4 | scale | (aTmem ? 0x40 : 0));
  in.fn = &mmaOp;
  in.cls = kTensor;
  in.vec = pair ? 2 : 1;
  in.size = collA;
  return true;
}

bool decodeTcgen05Shift(Decoder& dc, const Stmt& st, Inst& in) {
  const bool pair = st.has("cta_group::2");  // exec_tcgen05_pair_move.cpp
  if (!onlyMods(dc, st, "shift cta_group::1 cta_group::2 down") || pair == st.has("cta_group::1") || !st.has("down") || st.ops.size() != 1)
    return dc.fail("expected tcgen05.shift.cta_group::{1,2}.down [taddr]");
  in.vec = pair ? 2 : 1;
  uint8_t sym;
  if (st.ops[0].kind != Operand::Addr || !dc.addr(st.ops[0], in.s[0], in.imm, sym)) return dc.fail("expected the tensor-memory address [taddr]");
  in.fn = &shiftOp;
  in.cls = kTensor;
  return true;
}

bool decodeTcgen05Commit(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("cta_group::2") || st.has("multicast::cluster")) return decodeTcgen05CommitPair(dc, st, in);  // exec_tcgen05_pair.cpp
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
    // a .cta_group::2 commit's arrival here may cover the MMAs of the other CTA of the pair
    Cta* self = c.cta;
    if (r.src) c.cta = r.src;
    ok = completeUpTo(c, r.upto);
    c.cta = self;
    ok = ok && mbarrierArriveOne(c, r.lane, r.barOff);
  }
  recs.resize(keep);
  t.commits = std::move(recs);
  return ok;
}

}  // namespace tsim
