// Tensor memory (sm_100a) against the PTX ISA, bit for bit: tcgen05.alloc writes the address of
// the lowest free power-of-two column range to shared memory; tcgen05.st / tcgen05.ld .32x32b.xN
// move thread t's register j to / from the cell (lane 32*(warp%4) + t, column c + j), which every
// warp of a 256-thread CTA round-trips (warps 4..7 reach the same lanes as 0..3); .16x32bx2.xN:
// thread t's register j is the cell (lane L + t%16, column C + (t/16)*immHalfSplitoff + j), both
// ways; asynchrony: a
// tcgen05.ld destination read before tcgen05.wait::ld is a named fault, a tcgen05.st not waited
// for with tcgen05.wait::st is not seen by a later tcgen05.ld; the named faults: a warp reaching
// lanes outside its quarter, columns never allocated, a CTA exiting with TMEM allocated, alloc
// after relinquish_alloc_permit, a column count that is not a power of two >= 32, an allocation
// that does not fit, a partial warp at a .sync.aligned tcgen05; initcheck reporting a tcgen05.ld
// of cells never written since the alloc; forms refused at load by name.
//
// `sim_ptx_ptx_tcgen05_test --ptxas PATH` also assembles every module below with
// ptxas -arch=sm_100a (sim_ptx_tcgen05_ptxas): each must be valid PTX.
#include <algorithm>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

std::vector<std::string> modules;  // every module run here, for the ptxas cross-check

const char* kHead = ".version 8.8\n.target sm_100a\n.address_size 64\n";

// Every warp stores 4 columns at column 8 + 4*(warp/4)... of its quarter, values 1000*warp +
// 32*j + lane; then (after wait::st and a barrier) loads .x8 from column 8 and writes them out.
// `body` may replace the parts between markers for the fault cases.
std::string roundTrip(const std::string& alloc, const std::string& beforeLd, const std::string& afterLd,
                      const std::string& waitSt = "  tcgen05.wait::st.sync.aligned;\n",
                      const std::string& dealloc = "  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 64;\n") {
  return std::string(kHead) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.lt.u32 %p1, %r1, 32;
  mov.u32 %r4, slot;
)" + alloc + R"(
  bar.sync 0;
  ld.shared.u32 %r10, [slot];
  // this warp's quarter: lane 32*(warp%4), columns 8 + 4*(warp/4) .. +3
  and.b32 %r5, %r2, 3;
  shl.b32 %r5, %r5, 21;
  shr.u32 %r6, %r2, 2;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r6, 8;
  add.u32 %r7, %r10, %r5;
  add.u32 %r8, %r7, %r6;
  mul.lo.u32 %r11, %r2, 1000;
  add.u32 %r11, %r11, %r3;
  add.u32 %r12, %r11, 32;
  add.u32 %r13, %r11, 64;
  add.u32 %r14, %r11, 96;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r8], {%r11, %r12, %r13, %r14};
)" + waitSt + R"(  bar.sync 0;
)" + beforeLd + R"(  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%r7+8];
)" + afterLd + R"(  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r20, %r21, %r22, %r23};
  st.global.v4.u32 [%rd3+16], {%r24, %r25, %r26, %r27};
  bar.sync 0;
)" + dealloc + R"(  ret;
}
)";
}

const std::string kAlloc =
    "  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 64;\n"
    "  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n";
const std::string kWaitLd = "  tcgen05.wait::ld.sync.aligned;\n";

// sanitize: the sanitizers to run (4: initcheck).
tsim::Fault run(const std::string& ptx, std::vector<uint32_t>* outv = nullptr, unsigned threads = 256, unsigned sanitize = 0) {
  modules.push_back(ptx);
  Kernel k(ptx);
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  bad.detail = "load failed: " + k.log;
  if (!k.ok()) return bad;
  Arena mem;
  uint64_t out = mem.alloc(threads * 32);
  mem.put(out, std::vector<uint32_t>(threads * 8, 0xcccccccc));
  std::string log;
  const tsim::KernelInfo* ki = &k.mod->kernels()[0];
  if (!k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  std::memcpy(buf.data() + ki->params[0].offset, &out, 8);
  tsim::LaunchConfig cfg;
  cfg.block[0] = threads;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.sanitize = sanitize;
  tsim::Counters ctr;
  tsim::Fault f = tsim::launch(*k.mod, *ki, cfg, mem, ctr);
  if (outv) *outv = mem.get<uint32_t>(out, threads * 8);
  return f;
}

void expectFault(const char* name, const std::string& ptx, const char* phrase, unsigned threads = 256) {
  expectOutcome(name, run(ptx, nullptr, threads), phrase);
}

std::vector<std::string> invalidForPtxas;  // refused modules that are not valid PTX either

void loadError(const char* name, const std::string& line, const char* phrase, bool validPtx = true) {
  std::string ptx = std::string(kHead) + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n" + line + "\n  ret;\n}\n";
  (validPtx ? modules : invalidForPtxas).push_back(ptx);
  expectLoadError(name, ptx, phrase);
}
void roundTripValues() {
  std::vector<uint32_t> out;
  tsim::Fault f = run(roundTrip(kAlloc, "", kWaitLd), &out);
  CHECK_EQ((int)f.kind, 0);
  if (f.kind) std::printf("%s\n", f.detail.c_str());
  // thread t (warp w, lane l) reads columns 8..15 of lane 32*(w%4)+l: column 8+4h+j holds what
  // warp (w%4)+4h stored as its register j: 1000*((w%4)+4h) + 32j + l
  for (unsigned t = 0; t < 256; t++) {
    unsigned w = t / 32, l = t % 32;
    for (unsigned c = 0; c < 8; c++) {
      unsigned h = c / 4, j = c % 4;
      CHECK_EQ(out[t * 8 + c], 1000 * ((w % 4) + 4 * h) + 32 * j + l);
    }
  }
}

void allocAddresses() {
  // three allocations (32, 128, 64 columns): each at the lowest free range aligned to its size
  std::string ptx = std::string(kHead) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 slot[3];
  mov.u32 %r1, slot;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1+4], 128;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1+8], 64;
  ld.shared.u32 %r2, [slot];
  ld.shared.u32 %r3, [slot+4];
  ld.shared.u32 %r4, [slot+8];
  ld.param.u64 %rd1, [out];
  mov.u32 %r5, %tid.x;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r4};
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 128;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 64;
  ret;
}
)";
  ptx.replace(ptx.find("  .shared"), 0, "  .reg .pred %p<2>;\n");
  std::vector<uint32_t> out;
  tsim::Fault f = run(ptx, &out, 32);
  CHECK_EQ((int)f.kind, 0);
  CHECK_EQ(out[0], 0u);    // columns 0..31
  CHECK_EQ(out[1], 128u);  // 128 aligned: 128..255 (32..127 is free but not aligned)
  CHECK_EQ(out[2], 64u);   // 64..127
}

// 16x32bx2: thread t's register j is (lane L + t%16, column C + (t/16)*S + j). Each warp (4 warps)
// fills columns 0..7 of its quarter with 32x32b (lane*1000 + column), reads them back with
// 16x32bx2.x2 at L = 32q + 16*(q%2), C = 1, S = 4; then stores 7000000 + t with 16x32bx2.x1 at
// column 20, S = 2, and reads columns 20..23 of its quarter with 32x32b.x4.
void halfSplit() {
  std::string ptx = std::string(kHead) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.lt.u32 %p1, %r1, 32;
  mov.u32 %r4, slot;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
  bar.sync 0;
  ld.shared.u32 %r10, [slot];
  and.b32 %r5, %r2, 3;
  shl.b32 %r6, %r5, 5;
  add.u32 %r6, %r6, %r3;          // this thread's lane
  mul.lo.u32 %r7, %r6, 1000;
  add.u32 %r11, %r7, 0;
  add.u32 %r12, %r7, 1;
  add.u32 %r13, %r7, 2;
  add.u32 %r14, %r7, 3;
  add.u32 %r15, %r7, 4;
  add.u32 %r16, %r7, 5;
  add.u32 %r17, %r7, 6;
  add.u32 %r18, %r7, 7;
  shl.b32 %r8, %r5, 21;
  add.u32 %r8, %r8, %r10;         // lane 32q, column 0
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r8], {%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18};
  tcgen05.wait::st.sync.aligned;
  and.b32 %r9, %r5, 1;
  shl.b32 %r9, %r9, 20;
  add.u32 %r9, %r9, %r8;          // lane 32q + 16*(q%2)
  tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r20, %r21}, [%r9+1], 4;
  tcgen05.wait::ld.sync.aligned;
  add.u32 %r22, %r1, 7000000;
  tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r9+20], 2, {%r22};
  tcgen05.wait::st.sync.aligned;
  tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r23, %r24, %r25, %r26}, [%r8+20];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r20, %r21};
  st.global.v4.u32 [%rd3+16], {%r23, %r24, %r25, %r26};
  bar.sync 0;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;
  ret;
}
)";
  std::vector<uint32_t> out;
  tsim::Fault f = run(ptx, &out, 128);
  CHECK_EQ((int)f.kind, 0);
  if (f.kind) std::printf("%s\n", f.detail.c_str());
  for (unsigned t = 0; t < 128; t++) {
    unsigned w = t / 32, l = t % 32, q = w % 4, L = 32 * q + 16 * (q % 2);
    for (unsigned j = 0; j < 2; j++) CHECK_EQ(out[t * 8 + j], (L + l % 16) * 1000 + 1 + (l / 16) * 4 + j);
    unsigned lane = 32 * q + l;
    if (lane >= L && lane < L + 16) {  // columns 20 and 22 of lanes L..L+15 were written
      CHECK_EQ(out[t * 8 + 4], 7000000u + 32 * w + (lane - L));
      CHECK_EQ(out[t * 8 + 6], 7000000u + 32 * w + 16 + (lane - L));
    }
  }
  // a 16-lane half reaching past the warp's quarter
  std::string bad = ptx;
  bad.replace(bad.find("[%r9+1], 4;"), 11, "[%r8+1048577], 4;");  // lanes 32q+16 .. 32q+31 is fine; +1048576 = lane +16
  bad.replace(bad.find("  and.b32 %r9, %r5, 1;"), 0, "  add.u32 %r8, %r8, 1048576;\n");
  expectFault("16x32bx2 quarter", bad, "may access TMEM lanes", 128);
}

// initcheck: a tcgen05.ld of cells never written since the alloc is reported (a new allocation's
// contents are undefined); the round trip, which writes before it reads, is clean.
void initcheck() {
  tsim::Fault f = run(roundTrip(kAlloc, "", kWaitLd), nullptr, 256, 4);
  CHECK_EQ((int)f.kind, 0);
  if (f.kind) std::printf("initcheck clean case: %s\n", f.detail.c_str());
  // read columns 8..15 without the stores (the st replaced by a no-op)
  std::string ptx = roundTrip(kAlloc, "", kWaitLd);
  size_t at = ptx.find("  tcgen05.st.sync.aligned.32x32b.x4.b32");
  ptx.replace(at, ptx.find('\n', at) - at, "  // no store");
  f = run(ptx, nullptr, 256, 4);
  CHECK_EQ((int)f.kind, (int)tsim::Fault::Hazard);
  CHECK(f.detail.find("read of uninitialised tensor memory (lane 0, column 8) by tcgen05.ld") != std::string::npos);
  if (f.detail.find("uninitialised tensor memory") == std::string::npos) std::printf("initcheck: %s\n", f.detail.c_str());
  // without initcheck the same kernel runs (reading the sim's zeros)
  f = run(ptx, nullptr, 256, 0);
  CHECK_EQ((int)f.kind, 0);
}

void asyncRules() {
  // a tcgen05.ld destination read before tcgen05.wait::ld: named fault
  expectFault("ld without wait::ld", roundTrip(kAlloc, "", ""), "before tcgen05.wait::ld");
  // written before the wait too
  expectFault("ld dest overwritten", roundTrip(kAlloc, "", "  mov.u32 %r20, 5;\n" + kWaitLd), "writes a destination register of the tcgen05.ld");
  // without tcgen05.wait::st the stores have not landed when the other warps load: zeros
  std::vector<uint32_t> out;
  tsim::Fault f = run(roundTrip(kAlloc, "", kWaitLd, ""), &out);
  CHECK_EQ((int)f.kind, 0);
  CHECK_EQ(out[0], 0u);
  CHECK_EQ(out[8 * 255 + 7], 0u);
}

void namedFaults() {
  // warp 1 naming lanes 0..31 (its quarter is 32..63)
  expectFault("lane quarter", roundTrip(kAlloc, "", kWaitLd).replace(
                  roundTrip(kAlloc, "", kWaitLd).find("  tcgen05.ld"), 0, "  setp.eq.u32 %p2, %r2, 1;\n  @%p2 mov.u32 %r7, %r10;\n"),
              "warp 1 (warp id % 4 = 1) may access TMEM lanes 32..63 only; the address names lanes 0..31");
  // columns 64.. never allocated (64 columns from 0)
  expectFault("columns", roundTrip(kAlloc, "  add.u32 %r7, %r7, 60;\n", kWaitLd), "tensor-memory columns 68..75 are not all allocated (allocated: 0..31, 32..63)");
  // exit without dealloc
  expectFault("exit holding", roundTrip(kAlloc, "", kWaitLd, "  tcgen05.wait::st.sync.aligned;\n", ""),
              "the CTA exited holding tensor memory (columns 0..31, 32..63");
  // alloc after relinquish
  expectFault("relinquished", roundTrip(kAlloc + "  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;\n", "", kWaitLd),
              "tcgen05.alloc after this CTA's tcgen05.relinquish_alloc_permit");
  expectFault("ncols", roundTrip("  mov.u32 %r9, 96;\n  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], %r9;\n", "", kWaitLd),
              "nCols must be a power of two in [32, 512], got 96");
  expectFault("does not fit", roundTrip("  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;\n"
                                        "  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;\n", "", kWaitLd),
              "tcgen05.alloc of 32 columns cannot be satisfied: the CTA already holds 512 of its 512");
  expectFault("partial warp", roundTrip("  setp.lt.u32 %p3, %r1, 16;\n  @%p3 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 64;\n", "", kWaitLd),
              "tcgen05.alloc needs all 32 lanes of the warp (.sync.aligned)");
  expectFault("dealloc unallocated", roundTrip(kAlloc, "", kWaitLd, "  tcgen05.wait::st.sync.aligned;\n",
                                               "  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 128;\n"),
              "tcgen05.dealloc: tensor-memory columns 0..127 are not all allocated");
}

void refusals() {
  // ld.red exists on sm_101a / sm_103f, not sm_100a
  loadError("ld.red", "  tcgen05.ld.red.sync.aligned.32x32b.x2.max.u32 {%r1, %r3}, %r4, [%r2];", "modifier .max is not implemented for tcgen05", false);
  loadError("16x32bx2 split", "  tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], %r3;", "immHalfSplitoff must be an integer immediate", false);
  // alloc / dealloc / relinquish and the dense kinds' MMA .cta_group::2 run (ptx_tcgen05_pair_test,
  // ptx_tcgen05_mma_pair_test); the pair's block-scaled MMA does not yet
  loadError("cta_group::2", "  tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;",
                  "tcgen05.mma .cta_group::2 with the block-scaled kinds is not simulated yet");
  loadError("ncols imm", "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 96;", "nCols must be a power of two in [32, 512], got 96", false);
  loadError("x count", "  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1}, [%r2];", "expected a vector of 2 registers", false);
  // tcgen05.cp runs (ptx_tcgen05_cp_test); its decompressing forms do not yet
  loadError("cp decompression", "  tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r1], %rd1;", "tcgen05.cp decompression (.b8x16.b6x16_p32) is not simulated");
  // the block-scaled kinds run (ptx_tcgen05_scaled_test); mxf4nvf4 without a vector size is no PTX
  loadError("mxf4nvf4 without scale_vec", "  tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;",
                  "needs .scale_vec::2X/4X", false);
  loadError("scale_input_d f8f6f4", "  tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r3, %p1, 2;", "scale_input_d is not allowed with kind::f8f6f4", false);
  loadError("scale_input_d i8", "  tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r3, %p1, 2;", "scale_input_d with kind::i8 (an integer accumulator) is not simulated");
  // tcgen05.mma.ws runs (ptx_tcgen05_ws_test); the sparse A does not (its metadata layout is a figure)
  loadError("sp", "  tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r2], %r3, %p1;", "tcgen05.mma.sp (sparse A) is not simulated yet");
}

}  // namespace

int main(int argc, char** argv) {
  roundTripValues();
  allocAddresses();
  halfSplit();
  initcheck();
  asyncRules();
  namedFaults();
  refusals();
  // every module the sim runs (including the fault cases: the faults are run-time ones) is valid
  // sm_100a PTX, and so are the forms it refuses as "not simulated"; the malformed ones are not
  const char* ptxas = ptxasArg(argc, argv);
  expectPtxas(ptxas, modules);
  expectPtxas(ptxas, invalidForPtxas, false);
  return finish("ptx_tcgen05_test");
}
