// tcgen05.cp.cta_group::1 (sm_100a) against the PTX ISA, bit for bit. This file's own reading of
// the ISA ("tcgen05.cp", "Data Movement Shape", "Shared memory descriptor", "Canonical Layouts",
// "Implicitly pipelined tcgen05 Instructions"):
//  - the source is the matrix the sm_100 shared-memory descriptor describes, read as 8-bit
//    elements in the K-major canonical layout: rows are the TMEM lanes' data, each row's 16 or 32
//    bytes its K. Without swizzle ((8,m),(T,2k)):((1T,SBO),(1,LBO)): row r at (r/8)*SBO +
//    (r%8)*16, its 16-byte chunk j at j*LBO; with a 32/64/128-byte swizzle
//    ((8,m),(T,2k)):((nT,SBO),(1,T)): row r at (r/8)*SBO + (r%8)*16n, its bytes contiguous, then
//    Swizzle<log2 n,4,3> (address bits 4.. XOR bits 7..);
//  - row r's bytes fill consecutive 32-bit cells from the address's column, little-endian;
//    .128x256b / .128x128b write lane L + r; .4x256b lane L + 32r (one row per lane quarter);
//    .64x128b.warpx2::02_13 lanes r and 64 + r (warps 0 and 2 form a pair, 1 and 3); ::01_23
//    lanes 64(r/32) + r%32 and that + 32 (0 and 1, 2 and 3); .32x128b.warpx4 lanes r + 32q, q =
//    0..3 (all four warps);
//  - asynchronous: completed only by a tcgen05.commit that follows it; so a tcgen05.ld before the
//    commit's mbarrier phase is observed may not see the copy (on the sim it reads the old cells:
//    the sabotage case), and a write to the source before then is racecheck's report.
// Every cell of the 128 lanes x 32 columns is checked: those the copy writes hold the source
// bytes, every other one keeps the value stored before. racecheck reports a tcgen05.ld of the
// destination before the wait and a write to the source before then; initcheck counts the
// copied cells as written once the copy is done (not before). Named faults: the descriptor's fixed
// bits and swizzle mode, lanes past the 128, columns not allocated, a source outside shared
// memory; load errors for the forms ptxas refuses, .cta_group::2 next to a ::1 alloc, and by name
// for the decompressing forms (not simulated).
// `sim_ptx_ptx_tcgen05_cp_test --ptxas PATH` also assembles each module with ptxas -arch=sm_100a.
#include "tcgen05_harness.h"

using namespace ptxtest;
using tcgen05test::smemDesc;

namespace {

std::string kernel(const std::string& cpLine) {
  return R"(.version 8.8
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pdesc, .param .u32 pdelta, .param .u64 pout, .param .u32 pflags)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
)" + tcgen05test::ptxThreadIds() + R"(  mov.u32 %r4, slot;
  mov.u32 %r5, bar;
  mov.u32 %r9, smem;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
)" + tcgen05test::ptxCopyImage() + R"(  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // every cell of this warp's quarter, columns 0..31: 0xc0000000 | lane << 8 | column
  shl.b32 %r12, %r2, 21;
  add.u32 %r13, %r11, %r12;
  shl.b32 %r14, %r2, 5;
  add.u32 %r14, %r14, %r3;
  shl.b32 %r15, %r14, 8;
  or.b32 %r15, %r15, 0xc0000000;
  // pflags & 4: no stores (initcheck: the copy alone writes the cells read back, columns 0..7)
  ld.param.u32 %r40, [pflags];
  and.b32 %r44, %r40, 4;
  setp.ne.u32 %p10, %r44, 0;
  selp.u32 %r45, 8, 32, %p10;
  @%p10 bra STORED;
  mov.u32 %r16, 0;
INIT:
  or.b32 %r17, %r15, %r16;
  add.u32 %r18, %r13, %r16;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r18], {%r17};
  add.u32 %r16, %r16, 1;
  setp.lt.u32 %p4, %r16, 32;
  @%p4 bra INIT;
  tcgen05.wait::st.sync.aligned;
STORED:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  ld.param.u64 %rd11, [pdesc];
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
  add.s64 %rd11, %rd11, %rd8;
  ld.param.u32 %r19, [pdelta];
  add.u32 %r20, %r11, %r19;
)" + cpLine + R"(
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
  // pflags & 2: overwrite the source's first word after the commit, before the wait
  and.b32 %r41, %r40, 2;
  setp.eq.u32 %p9, %r41, 0;
  @%p9 bra ISSUED;
  cvt.u32.u64 %r43, %rd11;
  and.b32 %r43, %r43, 16383;
  shl.b32 %r43, %r43, 4;
  mov.u32 %r42, 0x5a5a5a5a;
  st.shared.u32 [%r43], %r42;
  fence.proxy.async.shared::cta;
ISSUED:
  bar.sync 0;
  // pflags & 1: read the cells back before waiting for the commit's phase
  and.b32 %r21, %r40, 1;
  setp.ne.u32 %p5, %r21, 0;
  @%p5 bra DUMP;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r5], 0;
  @!%p6 bra WAIT;
  tcgen05.fence::after_thread_sync;
DUMP:
  ld.param.u64 %rd4, [pout];
  mul.lo.u32 %r22, %r14, 32;
  mul.wide.u32 %rd5, %r22, 4;
  add.s64 %rd6, %rd4, %rd5;
  mov.u32 %r16, 0;
LD:
  add.u32 %r18, %r13, %r16;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r23}, [%r18];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd6], %r23;
  add.s64 %rd6, %rd6, 4;
  add.u32 %r16, %r16, 1;
  setp.lt.u32 %p4, %r16, %r45;
  @%p4 bra LD;
  @!%p5 bra DONE;
  bar.sync 0;  // every warp has read before any thread tests the mbarrier
WAIT2:
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r5], 0;
  @!%p6 bra WAIT2;
DONE:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 32;
  ret;
}
)";
}

std::string cpLine(const std::string& form) { return "  tcgen05.cp.cta_group::1." + form + " [%r20], %rd11;"; }

enum Shape { S128x256, S4x256, S128x128, S64x128_0213, S64x128_0123, S32x128 };
const char* kForms[] = {"128x256b", "4x256b", "128x128b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23", "32x128b.warpx4"};
unsigned rowsOf(Shape s) { return s == S4x256 ? 4 : s == S128x256 || s == S128x128 ? 128 : s == S32x128 ? 32 : 64; }
unsigned bytesOf(Shape s) { return s == S128x256 || s == S4x256 ? 32 : 16; }
// the lanes (relative to the address's) that row r goes to
std::vector<unsigned> lanesOf(Shape s, unsigned r) {
  switch (s) {
    case S4x256: return {32 * r};
    case S64x128_0213: return {r, 64 + r};
    case S64x128_0123: return {64 * (r / 32) + r % 32, 64 * (r / 32) + r % 32 + 32};
    case S32x128: return {r, 32 + r, 64 + r, 96 + r};
    default: return {r};
  }
}

// The ISA's K-major canonical layout, 8-bit elements: the byte address of (row r, byte b).
uint32_t kMajor(uint32_t start, unsigned r, unsigned b, unsigned swz, unsigned lbo, unsigned sbo) {
  if (!swz) return start + (r / 8) * sbo + (r % 8) * 16 + (b / 16) * lbo + b % 16;
  uint32_t a = start + (r / 8) * sbo + (r % 8) * swz + b;
  unsigned bits = swz == 128 ? 3 : swz == 64 ? 2 : 1;
  return a ^ (((a >> 7) & ((1u << bits) - 1)) << 4);  // Swizzle<bits,4,3>
}

struct Case {
  std::string name;
  Shape shape = S128x256;
  unsigned swz = 0, lbo = 0, sbo = 128, start = 0, lane = 0, col = 0;
  unsigned flags = 0;   // 1: read back before the wait, 2: overwrite the source before the wait,
                        // 4: no stores before, columns 0..7 read back
  unsigned san = 0;     // LaunchConfig::sanitize (1: racecheck)
  uint64_t descXor = 0;
  const char* fault = nullptr;
  tsim::Fault::Kind faultKind = tsim::Fault::IllegalInstruction;
  const char* hazard = nullptr;
};

std::vector<std::string> modules;
std::mt19937 rng(1729);

void runCase(const Case& c) {
  const unsigned kSmem = 16384 + 1024;
  std::vector<uint8_t> img(kSmem);
  for (auto& b : img) b = (uint8_t)rng();
  std::string ptx = kernel(cpLine(kForms[c.shape]));
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem(1 << 21);
  uint64_t dimg = mem.alloc(img.size()), dout = mem.alloc(128 * 32 * 4);
  mem.put(dimg, img);
  const uint64_t desc = smemDesc(c.start, c.lbo, c.sbo, c.swz) ^ c.descXor;
  tsim::Fault f = k.run(mem, "k", {dimg, img.size() / 4, desc, c.lane << 16 | c.col, dout, c.flags}, 1, 128, nullptr,
                        kSmem + 1024, 0, 2, 1, 1, c.san);  // room for the static variables before smem[]
  if (!expectOutcome(c.name, f, c.fault, c.hazard, c.faultKind)) return;
  // the expected cells: the values stored before, then (unless read before the wait) the copy
  std::vector<uint32_t> want(128 * 32);
  for (unsigned lane = 0; lane < 128; lane++)
    for (unsigned col = 0; col < 32; col++) want[lane * 32 + col] = 0xc0000000u | lane << 8 | col;
  if (!(c.flags & 1))
    for (unsigned r = 0; r < rowsOf(c.shape); r++)
      for (unsigned lane : lanesOf(c.shape, r))
        for (unsigned b = 0; b < bytesOf(c.shape); b++) {
          uint32_t& cell = want[(c.lane + lane) * 32 + c.col + b / 4];
          if (b % 4 == 0) cell = 0;
          cell |= (uint32_t)img[kMajor(c.start, r, b, c.swz, c.lbo, c.sbo)] << (8 * (b % 4));
        }
  std::vector<uint32_t> got = mem.get<uint32_t>(dout, 128 * 32);
  if (c.flags & 4)  // only columns 0..7 were read back
    for (unsigned i = 0; i < 128 * 32; i++)
      if (i % 32 >= 8) got[i] = want[i];
  expectCells(c.name, got, want, 32, "lane", 5);
}

void loadError(const std::string& form, const char* why, bool ptxasTakes) {
  const std::string ptx = kernel(cpLine(form));
  if (ptxasTakes) modules.push_back(ptx);
  expectLoadError(form, ptx, why);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(c); };
  // every shape, no swizzle and each swizzle, various columns / lanes / starts
  { Case c; c.name = "128x256b none"; c.lbo = 2048; add(c); }
  { Case c; c.name = "128x256b 128B"; c.swz = 128; c.sbo = 1024; c.col = 8; add(c); }
  { Case c; c.name = "128x256b 32B"; c.swz = 32; c.sbo = 256; c.col = 24; c.start = 4096; add(c); }
  { Case c; c.name = "4x256b lane 5"; c.shape = S4x256; c.lbo = 64; c.start = 256; c.lane = 5; c.col = 20; add(c); }
  { Case c; c.name = "4x256b 64B lane 31"; c.shape = S4x256; c.swz = 64; c.sbo = 512; c.lane = 31; c.col = 1; add(c); }
  { Case c; c.name = "128x128b column 3"; c.shape = S128x128; c.col = 3; c.start = 2048; add(c); }
  { Case c; c.name = "128x128b 64B"; c.shape = S128x128; c.swz = 64; c.sbo = 512; c.col = 16; add(c); }
  { Case c; c.name = "64x128b 02_13"; c.shape = S64x128_0213; c.col = 28; add(c); }
  { Case c; c.name = "64x128b 01_23 128B"; c.shape = S64x128_0123; c.swz = 128; c.sbo = 1024; c.col = 12; add(c); }
  { Case c; c.name = "32x128b warpx4"; c.shape = S32x128; add(c); }
  { Case c; c.name = "32x128b warpx4 sbo 256"; c.shape = S32x128; c.sbo = 256; c.start = 8192; c.col = 6; add(c); }
  // the asynchronous rule: read before the commit's phase is observed, the old cells
  { Case c; c.name = "128x256b read before the wait"; c.lbo = 2048; c.flags = 1; add(c); }
  { Case c; c.name = "32x128b read before the wait"; c.shape = S32x128; c.col = 4; c.flags = 1; add(c); }
  // racecheck: a clean run, a read of the destination before the wait, the source overwritten
  { Case c; c.name = "racecheck clean"; c.shape = S64x128_0213; c.san = 1; add(c); }
  { Case c; c.name = "racecheck ld before wait"; c.shape = S32x128; c.col = 4; c.flags = 1; c.san = 1;
    c.hazard = "read-after-write hazard on tensor memory (lane 0, column 4): tcgen05.ld"; add(c); }
  { Case c; c.name = "racecheck ld before wait (names the copy)"; c.shape = S32x128; c.col = 4; c.flags = 1; c.san = 1;
    c.hazard = "a cell that tcgen05.cp"; add(c); }
  { Case c; c.name = "racecheck source overwritten"; c.lbo = 2048; c.start = 1024; c.flags = 2; c.san = 1;
    c.hazard = "conflicts with tcgen05.cp source read"; add(c); }
  // initcheck: the cells the copy wrote count as written (no stores before it)
  { Case c; c.name = "initcheck: written by the copy"; c.lbo = 2048; c.flags = 4; c.san = 4; add(c); }
  { Case c; c.name = "initcheck: read before the wait"; c.lbo = 2048; c.flags = 5; c.san = 4;
    c.hazard = "read of uninitialised tensor memory (lane 0, column 0) by tcgen05.ld"; add(c); }
  // named faults
  { Case c; c.name = "descriptor fixed bits"; c.descXor = 1ull << 46;
    c.fault = "tcgen05.cp.128x256b: the source shared-memory descriptor: bits 46-48 must hold the fixed value 0b001"; add(c); }
  { Case c; c.name = "descriptor swizzle 128B_base32b"; c.descXor = 1ull << 61;
    c.fault = "tcgen05.cp.128x256b: the source shared-memory descriptor: the 128B_base32b swizzle (mode 1) is not simulated for tcgen05.cp"; add(c); }
  { Case c; c.name = "descriptor swizzle mode 3"; c.descXor = 3ull << 61;
    c.fault = "the source shared-memory descriptor: swizzle mode 3 (bits 61-63) is not one of 0, 1, 2, 4, 6"; add(c); }
  { Case c; c.name = "128x128b at lane 32"; c.shape = S128x128; c.lane = 32;
    c.fault = "tcgen05.cp.128x128b: the address names lane 32, so the copy would write lanes up to 159"; add(c); }
  { Case c; c.name = "4x256b at lane 32"; c.shape = S4x256; c.lane = 32; c.lbo = 64;
    c.fault = "tcgen05.cp.4x256b: the address names lane 32, so the copy would write lanes up to 128"; add(c); }
  { Case c; c.name = "32x128b at lane 1"; c.shape = S32x128; c.lane = 1;
    c.fault = "tcgen05.cp.32x128b.warpx4: the address names lane 1"; add(c); }
  { Case c; c.name = "columns not allocated"; c.col = 28; c.lbo = 2048;
    c.fault = "tcgen05.cp.128x256b: tensor-memory columns 28..35 are not all allocated"; add(c); }
  { Case c; c.name = "source outside shared memory"; c.shape = S32x128; c.start = 16384 + 2048 - 256;
    c.faultKind = tsim::Fault::SharedOutOfBounds; c.fault = "tcgen05.cp.32x128b.warpx4: the source matrix its descriptor names reaches shared address"; add(c); }
  for (const Case& c : cases) runCase(c);

  // the forms ptxas refuses, and by name what the sim does not run
  loadError("64x128b", "tcgen05.cp.64x128b requires .warpx2::02_13 or .warpx2::01_23", false);
  loadError("32x128b", "tcgen05.cp.32x128b requires .warpx4", false);
  loadError("32x128b.warpx2::02_13", "tcgen05.cp.32x128b does not take .warpx2 (it requires .warpx4)", false);
  loadError("64x128b.warpx4", "tcgen05.cp.64x128b does not take .warpx4", false);
  loadError("128x256b.warpx4", "tcgen05.cp.128x256b takes no multicast qualifier", false);
  loadError("128x256b.b6x16_p32", "tcgen05.cp decompression is written .b8x16.b6x16_p32 or .b8x16.b4x16_p64", false);
  loadError("128x256b.b8x16", "tcgen05.cp decompression is written", false);
  loadError("128x256b.b4x16_p64.b8x16", "tcgen05.cp decompression is written", false);
  loadError("128x256b.b8x16.b6x16_p32", "tcgen05.cp decompression (.b8x16.b6x16_p32) is not simulated", true);
  loadError("32x128b.warpx4.b8x16.b4x16_p64", "tcgen05.cp decompression (.b8x16.b4x16_p64) is not simulated", true);
  // (.cta_group::2 runs: ptx_tcgen05_pair_move_test; here the kernel's alloc names ::1)
  expectLoadError("cta_group::2 with a cta_group::1 alloc", kernel("  tcgen05.cp.cta_group::2.128x256b [%r20], %rd11;"),
                  "all tcgen05 instructions of a kernel must use the same .cta_group");

  expectPtxas(ptxasArg(argc, argv), modules);
  return finish("ptx_tcgen05_cp_test");
}
