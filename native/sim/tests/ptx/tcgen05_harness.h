// Test support shared by the tcgen05 tests (ptx_tcgen05_*_test.cpp), on top of ptx_harness.h:
// the dense MMA operand types with the exactly representable values the tests draw, the
// canonical shared-memory layouts and the sm_100 shared-memory descriptor, the PTX pieces the
// single-CTA kernels repeat, and the dense reference product of one D cell.
// (Header only: CMake makes every .cpp in this folder a test program.)
#pragma once
#include <random>
#include <string>

#include "ptx_harness.h"

namespace tcgen05test {

using ptxtest::bitsf;
using ptxtest::fbits;

// --- operand types of the dense kinds (f16, tf32, f8f6f4 with 8-bit types, i8) ---
enum Ty { F16, BF16, TF32, E4M3, E5M2, U8, S8 };
inline unsigned esize(Ty t) { return t == TF32 ? 4 : (t == F16 || t == BF16) ? 2 : 1; }
inline bool isInt(Ty t) { return t == U8 || t == S8; }
// the A/B type field of the instruction descriptor
inline unsigned typeCode(Ty t) { return t == F16 || t == E4M3 || t == U8 ? 0 : t == BF16 || t == E5M2 || t == S8 ? 1 : 2; }
// the .kind of an MMA whose A has type t
inline std::string kindName(Ty t) { return t == TF32 ? "tf32" : isInt(t) ? "i8" : esize(t) == 1 ? "f8f6f4" : "f16"; }

inline uint32_t f16bits(double v) { _Float16 h = (_Float16)v; uint16_t b; std::memcpy(&b, &h, 2); return b; }
inline double f16val(uint16_t b) { _Float16 h; std::memcpy(&h, &b, 2); return (double)h; }

// The bits of the value v4 / 4 (integers: v4). tf32Low fills tf32's low 13 bits, which the MMA
// ignores (each test keeps its own noise there).
inline uint32_t encode(Ty t, int v4, uint32_t tf32Low) {
  const float v = v4 / 4.0f;
  switch (t) {
    case F16: return f16bits(v);
    case BF16: return fbits(v) >> 16;
    case TF32: return fbits(v) | tf32Low;
    case E4M3: case E5M2: {  // v = 1.m * 2^e exactly (genValue keeps to such values)
      if (v == 0) return 0;
      uint32_t f = fbits(v), sg = f >> 31, e = (f >> 23) & 255, m = f >> 20 & 7;
      if (t == E4M3) return sg << 7 | (e - 127 + 7) << 3 | m;
      return sg << 7 | (e - 127 + 15) << 2 | (m >> 1);
    }
    case U8: return (uint8_t)v4;
    case S8: return (uint8_t)(int8_t)v4;
  }
  return 0;
}
// Values (in quarters; integers as they are) each type holds exactly: -8..8 / 4 (e5m2: 2
// mantissa bits, e4m3: 3), any u8 / s8.
inline int genValue(Ty t, std::mt19937& g) {
  static const int e5[] = {0, 1, 2, 3, 4, 6, 8, -1, -2, -3, -4, -6, -8};
  static const int e4[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -5, -6, -7};
  if (t == E5M2) return e5[g() % 13];
  if (t == E4M3) return e4[g() % 15];
  if (t == U8) return (int)(g() % 256);
  if (t == S8) return (int)(g() % 256) - 128;
  return (int)(g() % 17) - 8;
}
// A starting accumulator cell: an s32 in -1000..1000 or an f32 integer in -16..16.
inline uint32_t genAccumulator(Ty t, std::mt19937& g) {
  return isInt(t) ? (uint32_t)(int32_t)((int)(g() % 2001) - 1000) : fbits((float)((int)(g() % 33) - 16));
}

// One cell of D = A * B (+ D with enable_input_d) over K products a(k) * b(k) of genValue values:
// s32 wrapping for the integer types, else the exact sum (sixteenths) rounded once to f32.
template <class FA, class FB>
uint32_t denseCell(Ty t, bool en, uint32_t cell, unsigned K, FA a, FB b) {
  if (isInt(t)) {
    int64_t d = en ? (int32_t)cell : 0;
    for (unsigned k = 0; k < K; k++) d += (int64_t)a(k) * b(k);
    return (uint32_t)(uint64_t)d;  // wrapping
  }
  double d = en ? bitsf(cell) : 0;  // exact: sixteenths
  for (unsigned k = 0; k < K; k++) d += a(k) / 4.0 * b(k) / 4.0;
  return fbits((float)d);
}

// --- the canonical layouts (core matrices of 8 rows x 16 bytes) and the descriptor ---
inline unsigned swizzleShift(unsigned swz) { return swz == 32 ? 2 : swz == 64 ? 1 : 0; }
// Byte offset of element (mn, byte kb along K) of a K-major matrix: without swizzle row r at
// (r/8)*SBO + (r%8)*16, its 16-byte chunk j at j*LBO; with a swz-byte swizzle the chunk c of row
// r of an 8-row atom at chunk c ^ (r >> (3 - log2(swz/16))).
inline size_t kMajorAt(unsigned mn, unsigned kb, unsigned swz, unsigned lbo, unsigned sbo) {
  if (!swz) return (mn / 8) * sbo + (mn % 8) * 16 + (kb / 16) * lbo + kb % 16;
  unsigned r = mn % 8, chunk = kb / 16;
  return (mn / 8) * sbo + r * swz + ((chunk ^ (r >> swizzleShift(swz))) % (swz / 16)) * 16 + kb % 16;
}
// (mn byte mb, k) of an MN-major matrix. swz 1: 128B_base32b (tf32 only): atoms of 4 K-rows of
// 128 bytes, the 32-byte unit u of K-row r of an atom stored at unit u ^ r of that row.
inline size_t mnMajorAt(unsigned mb, unsigned k, unsigned swz, unsigned lbo, unsigned sbo) {
  if (swz == 1) return (mb / 128) * lbo + (k / 4) * sbo + (k % 4) * 128 + (((mb % 128) / 32) ^ (k % 4)) * 32 + mb % 32;
  if (!swz) return (k / 8) * lbo + (k % 8) * 16 + (mb / 16) * sbo + mb % 16;
  unsigned r = k % 8, chunk = (mb % swz) / 16;
  return (mb / swz) * lbo + (k / 8) * sbo + r * swz + (chunk ^ (r >> swizzleShift(swz))) * 16 + mb % 16;
}
// The sm_100 shared-memory descriptor: start, LBO, SBO >> 4, version bits 46-48 = 0b001, the
// swizzle mode in bits 61-63 (swz 0 none, 1 128B_base32b, 128 / 64 / 32 bytes).
inline uint64_t smemDesc(unsigned start, unsigned lbo, unsigned sbo, unsigned swz = 0) {
  uint64_t mode = swz == 0 ? 0 : swz == 1 ? 1 : swz == 128 ? 2 : swz == 64 ? 4 : 6;
  return (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | 1ull << 46 | mode << 61;
}

// --- PTX pieces of the single-CTA kernels (128 threads; %r1 = %tid.x, %r9 = smem) ---

// %r1 = %tid.x, %r2 its warp, %r3 its lane in the warp; %p1: warp 0, %p2: thread 0.
inline std::string ptxThreadIds() {
  return R"(  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.lt.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r1, 0;
)";
}

// %r9 = smem; the mbarrier at [%r5] and the TMEM address slot at [%r4] lie .param pmisc bytes
// into smem[] (after the operand image); warp 0 allocates `cols` columns, thread 0 inits the
// mbarrier (count 1).
inline std::string ptxAllocAfterImage(const std::string& cols) {
  return R"(  mov.u32 %r9, smem;
  ld.param.u32 %r61, [pmisc];
  add.u32 %r5, %r9, %r61;
  add.u32 %r4, %r5, 8;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], )" + cols + R"(;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
)";
}

// The operand image (.param pwords words at .param pimg) copied into smem[] by the 128 threads,
// then fenced for the async proxy. `rebase` runs after pimg / pwords are in %rd1 / %r6 (to move
// %rd1). Uses %r6-%r8, %r10, %rd1-%rd3, %p3.
inline std::string ptxCopyImage(const std::string& rebase = "") {
  return "  ld.param.u64 %rd1, [pimg];\n  ld.param.u32 %r6, [pwords];\n" + rebase + R"(  mov.u32 %r7, %r1;
COPY:
  setp.ge.u32 %p3, %r7, %r6;
  @%p3 bra COPIED;
  mul.wide.u32 %rd2, %r7, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r8, [%rd3];
  shl.b32 %r10, %r7, 2;
  add.u32 %r10, %r10, %r9;
  st.shared.u32 [%r10], %r8;
  add.u32 %r7, %r7, 128;
  bra COPY;
COPIED:
  fence.proxy.async.shared::cta;
)";
}

// Thread 0's steps between MMAs: commit to the mbarrier at [%r5]; wait for its next phase (label
// and phase count the waits so far); store %r45 to shared memory at [%r44].
inline std::string ptxCommit() { return "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];\n"; }
inline std::string ptxWaitNextPhase(unsigned& label, unsigned& phase) {
  const std::string l = "WT" + std::to_string(label++);
  return l + ":\n  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], " + std::to_string(phase++ & 1) + ";\n  @!%p11 bra " + l + ";\n";
}
inline std::string ptxStoreShared() { return "  st.shared.u32 [%r44], %r45;\n  fence.proxy.async.shared::cta;\n"; }

// The kernel of the MMA-sequence tests (collector_a, ws): allocates 512 TMEM columns, copies the
// image into smem[], fills columns 0..width-1 of every lane from pinit, lets thread 0 run `issue`
// (with the ndesc descriptors of pdescs rebased to smem[] in %rd20.., idesc in %r22,
// enable_input_d in %p6, pover + smem in %r44, pval in %r45, D's TMEM address in %r11 and column
// 256 in %r54, then `setup`), reads every cell back to pout. extraParams: more .param
// declarations, between pout and pover.
inline std::string mmaSeqKernel(const std::string& extraParams, unsigned ndesc, const std::string& setup, const std::string& issue,
                                unsigned width) {
  const std::string wc = std::to_string(width);
  std::string descs;
  for (unsigned i = 0; i < ndesc; i++) descs += "  ld.global.u64 %rd" + std::to_string(20 + i) + ", [%rd7" + (i ? "+" + std::to_string(8 * i) : "") + "];\n";
  for (unsigned i = 0; i < ndesc; i++) descs += "  add.s64 %rd" + std::to_string(20 + i) + ", %rd" + std::to_string(20 + i) + ", %rd8;\n";
  return R"(.version 8.8
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pdescs, .param .u32 pidesc, .param .u32 pen,
    .param .u64 pinit, .param .u64 pout, )" + extraParams + R"(.param .u32 pover, .param .u32 pval, .param .u32 pmisc)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<40>;
  .reg .pred %p<16>;
)" + ptxThreadIds() + ptxAllocAfterImage("512") + ptxCopyImage() + R"(  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // this warp's quarter: lane L = 32 * warp + laneid, columns 0 .. width-1 from pinit
  shl.b32 %r13, %r2, 21;
  add.u32 %r14, %r11, %r13;
  shl.b32 %r15, %r2, 5;
  add.u32 %r15, %r15, %r3;
  mul.lo.u32 %r16, %r15, )" + wc + R"(;
  mul.wide.u32 %rd5, %r16, 4;
  ld.param.u64 %rd4, [pinit];
  add.s64 %rd6, %rd4, %rd5;
  mov.u32 %r17, 0;
INIT:
  ld.global.u32 %r18, [%rd6];
  add.u32 %r19, %r14, %r17;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r19], {%r18};
  add.s64 %rd6, %rd6, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + wc + R"(;
  @%p4 bra INIT;
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  ld.param.u64 %rd7, [pdescs];
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
)" + descs + R"(  ld.param.u32 %r22, [pidesc];
)" + setup + R"(  ld.param.u32 %r23, [pen];
  setp.ne.u32 %p6, %r23, 0;
  ld.param.u32 %r44, [pover];
  add.u32 %r44, %r44, %r9;
  ld.param.u32 %r45, [pval];
  add.u32 %r54, %r11, 256;
)" + issue + R"(ISSUED:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.param.u64 %rd12, [pout];
  add.s64 %rd14, %rd12, %rd5;
  mov.u32 %r17, 0;
LD:
  add.u32 %r19, %r14, %r17;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r19];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd14], %r30;
  add.s64 %rd14, %rd14, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + wc + R"(;
  @%p4 bra LD;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 512;
  ret;
}
)";
}

// A in TMEM for the MMA-sequence tests: row m of A (M x K, genValue values of type t) packed into
// lane m's 8 cells from column 256 of the width-cell rows of init, element k in piece k % (4 /
// size) of its cell, low bits first.
inline void putATmem(std::vector<uint32_t>& init, unsigned width, const std::vector<int>& A, unsigned M, unsigned K, Ty t,
                     uint32_t tf32Low) {
  const unsigned es = esize(t), per = 4 / es;
  for (unsigned m = 0; m < M; m++)
    for (unsigned q = 0; q < 8; q++) init[m * width + 256 + q] = 0;
  for (unsigned m = 0; m < M; m++)
    for (unsigned k = 0; k < K; k++) init[m * width + 256 + k / per] |= encode(t, A[m * K + k], tf32Low) << (8 * es * (k % per));
}

}  // namespace tcgen05test
