// tcgen05.mma (sm_100a) against the PTX ISA, bit for bit. Each case lays A (M x K) and B (K x N)
// into shared memory with this file's own reading of the ISA's canonical layouts (core matrices of
// 8 rows x 16 bytes; K-major and MN-major; no swizzle with explicit leading/stride byte offsets,
// and the 32B/64B/128B swizzles, where the 16-byte chunk c of row r of an 8-row atom is stored at
// chunk c ^ (r >> (3 - log2(R/16))) of that row; MN-major tf32's 128B_base32b, the 32-byte unit u
// of K-row r of a 4-row atom at unit u ^ r, its validity rules), builds the sm_100 shared-memory descriptors
// (version bits 46-48 = 0b001, swizzle in bits 61-63) and the instruction descriptor field by
// field, fills the accumulator's TMEM columns with tcgen05.st, issues one MMA per 32-byte K slice
// from one thread (the start address advanced inside the swizzle atom for the later slices, as
// compilers do), commits to an mbarrier, waits for its phase, reads every TMEM lane back with
// tcgen05.ld and compares with a CPU product of exactly representable values: D row m is TMEM lane
// m (M = 128) or lane 32*(m/16) + b + m%16 (M = 64, the ISA's layout F; b the lane alignment
// 0 or 16 D's address names, A in TMEM aligned the same), the other lanes keep their contents.
// A from tensor memory: row m in D's lane of row m, each 32-byte K slice in 8 cells, element k in
// piece k % (4 / size) of its cell, low bits first (the layout Triton's flash attention writes P
// in). Also: bf16, tf32 (the low 13 bits ignored), kind::f8f6f4 e4m3/e5m2 in each pair, kind::i8
// u8/s8 in each pair (s32 sums wrapping, or clamped with the saturate bit), f16 accumulators (the
// element in the low 16 bits of its cell, as the ISA's packing format for D says; each MMA
// rounds its exact sum once to f16, so a K loop rounds once per slice), enable_input_d
// false/true, negate A/B,
// scale_input_d, disable_output_lane, N = 256; asynchrony: a tcgen05.ld before the mbarrier wait
// reads the old columns, shared operands overwritten after the commit but before the wait are what
// the MMA reads, a tcgen05.st not waited for is not seen by the MMA (and lands over its result);
// the summation precision (an exact sum rounded once, as wgmma's test pins it);
// named faults for descriptors
// the sim does not run or that are malformed. Racecheck: the two early accesses above are reported
// (a tcgen05.ld of accumulator cells, a write to an operand, before the covering commit arrived),
// the waiting cases are clean.
//
// `sim_ptx_ptx_tcgen05_mma_test --ptxas PATH` also assembles the kernels with ptxas -arch=sm_100a.
#include <algorithm>
#include <cmath>

#include "tcgen05_harness.h"

using namespace ptxtest;
using namespace tcgen05test;

namespace {

uint32_t encode(Ty t, int v4) { return tcgen05test::encode(t, v4, 0x1abc); }  // tf32's ignored low bits: 0x1abc

struct Case {
  std::string name;
  Ty ty = F16, tyB = F16;  // tyB: B's type for the 8-bit kinds (else ty)
  bool satf = false;
  unsigned m = 128, n = 64;
  unsigned swzA = 128, swzB = 128;
  bool mnA = false, mnB = false, negA = false, negB = false;
  bool en = false;
  unsigned scale = 0;
  uint32_t dis[4] = {0, 0, 0, 0};
  bool useDis = false;
  bool aTmem = false;  // A in tensor memory (stored there with tcgen05.st, right after D's columns)
  unsigned lane0 = 0;  // the lane D's (and A's) address names: 16 puts M = 64 in lanes 16-31 of each quarter
  unsigned flags = 0;  // 1: tcgen05.ld before the mbarrier wait, 2: zero the operands after the commit, 4: no wait::st
  uint32_t idescXor = 0;  // bits flipped in the instruction descriptor (fault cases)
  uint64_t descAXor = 0;
  const char* fault = nullptr;
  unsigned san = 0;              // LaunchConfig::sanitize (1: racecheck)
  bool f16D = false;             // kind::f16 accumulating in f16 (D type 0)
  const char* hazard = nullptr;  // the sanitizer report expected (else none)
  bool precision = false;        // f16 K-major none, en: the summation-precision values below
};

Ty bType(const Case& c) { return esize(c.ty) == 1 ? c.tyB : c.ty; }
uint32_t idescOf(const Case& c) {
  uint32_t at = typeCode(c.ty), bt = typeCode(bType(c));
  return (isInt(c.ty) ? 2u : c.f16D ? 0u : 1u) << 4 | (c.satf ? 8u : 0u) | at << 7 | bt << 10 | (c.negA ? 1u << 13 : 0) | (c.negB ? 1u << 14 : 0) | (c.mnA ? 1u << 15 : 0) |
         (c.mnB ? 1u << 16 : 0) | (c.n >> 3) << 17 | (c.m >> 4) << 24;
}

// A's TMEM address: the columns after D's, in D's lane
unsigned nc0(const Case& c) { return (c.lane0 << 16) + c.n; }

std::string kernelText(const Case& c, unsigned cols, unsigned width) {
  std::string nc = std::to_string(c.n), alloc = std::to_string(cols), wc = std::to_string(width);
  std::string aOp = c.aTmem ? "[%r50]" : "%rd10";
  std::string kind = kindName(c.ty);
  std::string dis = c.useDis ? "{%r40, %r41, %r42, %r43}, " : "";
  std::string scale = c.scale ? ", " + std::to_string(c.scale) : "";
  return R"(.version 8.8
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pdescs, .param .u32 pnmma, .param .u32 pidesc,
    .param .u32 pen, .param .u64 pinit, .param .u64 pout, .param .u32 pflags, .param .u64 pdis, .param .u32 pmisc)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
)" + ptxThreadIds() + ptxAllocAfterImage(alloc) + R"(  ld.param.u32 %r60, [pflags];
)" + ptxCopyImage() + R"(  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // this warp's quarter of the lanes
  and.b32 %r12, %r2, 3;
  shl.b32 %r13, %r12, 21;
  add.u32 %r14, %r11, %r13;
  shl.b32 %r15, %r12, 5;
  add.u32 %r15, %r15, %r3;
  mul.lo.u32 %r16, %r15, )" + nc + R"(;
  ld.param.u64 %rd4, [pinit];
  mul.lo.u32 %r51, %r15, )" + wc + R"(;
  mul.wide.u32 %rd5, %r51, 4;
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
  and.b32 %r20, %r60, 4;
  setp.ne.u32 %p5, %r20, 0;
  @%p5 bra NOWAITST;
  tcgen05.wait::st.sync.aligned;
NOWAITST:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  ld.param.u64 %rd7, [pdescs];
  ld.param.u32 %r21, [pnmma];
  ld.param.u32 %r22, [pidesc];
  ld.param.u32 %r23, [pen];
  setp.ne.u32 %p6, %r23, 0;
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
  ld.param.u64 %rd9, [pdis];
  ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd9];
  mov.u32 %r24, 0;
  add.u32 %r50, %r11, )" + std::to_string(nc0(c)) + R"(;
  add.u32 %r52, %r11, )" + std::to_string(c.lane0 << 16) + R"(;
MMA:
  ld.global.u64 %rd10, [%rd7];
  ld.global.u64 %rd11, [%rd7+8];
  add.s64 %rd10, %rd10, %rd8;
  add.s64 %rd11, %rd11, %rd8;
  tcgen05.mma.cta_group::1.kind::)" + kind + R"( [%r52], )" + aOp + R"(, %rd11, %r22, )" + dis + "%p6" + scale + R"(;
  add.u32 %r50, %r50, 8;
  setp.eq.u32 %p6, %r24, %r24;
  add.s64 %rd7, %rd7, 16;
  add.u32 %r24, %r24, 1;
  setp.lt.u32 %p7, %r24, %r21;
  @%p7 bra MMA;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
  and.b32 %r25, %r60, 2;
  setp.ne.u32 %p8, %r25, 0;
  @!%p8 bra ISSUED;
  mov.u32 %r26, 0;
ZERO:
  shl.b32 %r27, %r26, 2;
  add.u32 %r27, %r27, %r9;
  st.shared.u32 [%r27], 0;
  add.u32 %r26, %r26, 1;
  setp.lt.u32 %p9, %r26, %r6;
  @%p9 bra ZERO;
  fence.proxy.async.shared::cta;
ISSUED:
  bar.sync 0;  // the MMA is issued and committed (and the operands overwritten) before any wait
  and.b32 %r28, %r60, 1;
  setp.ne.u32 %p10, %r28, 0;
  @%p10 bra DUMP;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], 0;
  @!%p11 bra WAIT;
  tcgen05.fence::after_thread_sync;
DUMP:
  ld.param.u64 %rd12, [pout];
  mul.wide.u32 %rd13, %r16, 4;
  add.s64 %rd14, %rd12, %rd13;
  mov.u32 %r17, 0;
LD:
  add.u32 %r19, %r14, %r17;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r19];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd14], %r30;
  add.s64 %rd14, %rd14, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + nc + R"(;
  @%p4 bra LD;
  @!%p10 bra DONE;
  bar.sync 0;  // every warp read before any thread waits
WAIT2:
  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], 0;
  @!%p11 bra WAIT2;
DONE:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, )" + alloc + R"(;
  ret;
}
)";
}

std::vector<std::string> modules;
std::mt19937 rng(1005);

void runCase(const Case& c) {
  const unsigned es = esize(c.ty), kSlice = 32 / es;
  // K extent: one swizzle atom row of a swizzled K-major A (R bytes), else two slices
  unsigned kTot = 2 * kSlice;
  if (!c.mnA && c.swzA) kTot = c.swzA / es;
  else if (!c.mnB && c.swzB) kTot = c.swzB / es;
  if (!c.mnB && c.swzB) kTot = std::min(kTot, c.swzB / es);
  if ((!c.mnA && c.swzA && c.swzA / es != kTot) || (!c.mnB && c.swzB && c.swzB / es != kTot)) {
    std::printf("%s: bad case (K-major swizzles of A and B differ)\n", c.name.c_str());
    failures++;
    return;
  }
  const unsigned M = c.m, N = c.n, nmma = kTot / kSlice;
  std::vector<int> A(M * kTot), B(kTot * N);
  for (auto& v : A) v = genValue(c.ty, rng);
  for (auto& v : B) v = genValue(bType(c), rng);
  // placement of one operand (mn rows of K): returns bytes, fills element offsets and descriptors
  struct Place { std::vector<size_t> at; std::vector<uint64_t> desc; size_t bytes; };
  auto place = [&](unsigned mnExt, bool mnMajor, unsigned swz, unsigned base) {
    Place p;
    p.at.resize((size_t)mnExt * kTot);
    unsigned lbo, sbo;
    if (!mnMajor) {
      if (swz) { lbo = 16; sbo = 8 * swz; }
      else { lbo = 128; sbo = (kTot * es / 16) * 128; }
      for (unsigned mn = 0; mn < mnExt; mn++)
        for (unsigned k = 0; k < kTot; k++) p.at[(size_t)mn * kTot + k] = kMajorAt(mn, k * es, swz, lbo, sbo);
      for (unsigned i = 0; i < nmma; i++)
        p.desc.push_back(smemDesc(base + (swz ? 32 * i : 2 * lbo * i), lbo, sbo, swz));
    } else {
      if (swz == 1) { sbo = 512; lbo = (kTot / 4) * 512; }
      else if (swz) { sbo = 8 * swz; lbo = (kTot / 8) * 8 * swz; }
      else { sbo = 128; lbo = (mnExt * es / 16) * 128; }
      for (unsigned mn = 0; mn < mnExt; mn++)
        for (unsigned k = 0; k < kTot; k++) p.at[(size_t)mn * kTot + k] = mnMajorAt(mn * es, k, swz, lbo, sbo);
      unsigned step = swz == 1 ? (kSlice / 4) * sbo : (kSlice / 8) * (swz ? sbo : lbo);
      for (unsigned i = 0; i < nmma; i++) p.desc.push_back(smemDesc(base + step * i, lbo, sbo, swz));
    }
    p.bytes = 0;  // up to the last element (a swizzle atom may be wider than the matrix)
    for (size_t a : p.at) p.bytes = std::max(p.bytes, a + es);
    return p;
  };
  Place pa = place(M, c.mnA, c.swzA, 0);
  unsigned bBase = (unsigned)((pa.bytes + 1023) / 1024 * 1024);
  Place pb = place(N, c.mnB, c.swzB, bBase);
  std::vector<uint8_t> img(bBase + (pb.bytes + 1023) / 1024 * 1024, 0);
  auto put = [&](size_t off, uint32_t bits) { memcpy(&img[off], &bits, es); };
  for (unsigned m = 0; m < M; m++)
    for (unsigned k = 0; k < kTot; k++) put(pa.at[(size_t)m * kTot + k], encode(c.ty, A[m * kTot + k]));
  for (unsigned n = 0; n < N; n++)
    for (unsigned k = 0; k < kTot; k++) put(bBase + pb.at[(size_t)n * kTot + k], encode(bType(c), B[k * N + n]));
  if (c.precision) {
    // The sum is exact and rounded once: D[0][0] = 2^20 + 2^-20 * 2^-20 - 1024 * 1024 = 2^-40
    // (the partial sum 2^20 + 2^-40 needs 61 bits, more than a double's 53: a plain double sum
    // gives 0); D[1][2] = 2^20 + 2^-24 * 2^-24 - 2^20 = 0 (2^20 + 2^-48 needs 69 bits, beyond
    // the 64 that hold every sum exact here, and rounds to 2^20). The other operands are zero.
    std::fill(img.begin(), img.end(), 0);
    auto putA = [&](unsigned m, unsigned k, uint32_t b) { put(pa.at[(size_t)m * kTot + k], b); };
    auto putB = [&](unsigned k, unsigned n, uint32_t b) { put(bBase + pb.at[(size_t)n * kTot + k], b); };
    putA(0, 0, 0x0010), putA(0, 1, 0xe400), putA(1, 0, 0x0001), putA(1, 1, 0xe400);  // 2^-20, -1024, 2^-24
    putB(0, 0, 0x0010), putB(1, 0, 0x6400), putB(0, 2, 0x0001), putB(1, 2, 0x6400);  // 2^-20, 1024, 2^-24
  }
  std::vector<uint64_t> descs;
  for (unsigned i = 0; i < nmma; i++) {
    descs.push_back(pa.desc[i] ^ c.descAXor);
    descs.push_back(pb.desc[i]);
  }
  // D's initial columns, then (A in TMEM) A's rows packed in 8 cells per K slice
  const unsigned W = c.aTmem ? N + 8 * nmma : N;
  std::vector<uint32_t> init(128 * N), initW(128 * W, 0);
  for (unsigned i = 0; i < init.size(); i++)
    init[i] = isInt(c.ty) ? (uint32_t)(int32_t)(i % 3 == 0 ? 2147483000 - (int)(rng() % 100) : (int)(rng() % 2001) - 1000)
              : c.f16D  ? f16bits((double)((int)(rng() % 4097) - 2048))  // low 16 bits; large, so sums round
                        : fbits((float)((int)(rng() % 33) - 16));
  // reference: slice by slice, D = A_i * B_i + D * 2^-scale (the input ignored in the first slice
  // unless enable_input_d); rows map to lanes; disabled lanes and lanes outside M keep their cells
  for (unsigned lane = 0; lane < 128; lane++)
    for (unsigned n = 0; n < N; n++) initW[lane * W + n] = init[lane * N + n];
  if (c.aTmem) {
    const unsigned per = 4 / es;
    for (unsigned m = 0; m < M; m++) {
      unsigned lane = M == 128 ? m : 32 * (m / 16) + c.lane0 + m % 16;
      for (unsigned k = 0; k < kTot; k++)
        initW[lane * W + N + k / per] |= encode(c.ty, A[m * kTot + k]) << (8 * es * (k % per));
    }
  }
  std::vector<uint32_t> want(init);
  if (c.flags & 4) std::fill(want.begin(), want.end(), 0u);  // the stores never landed before the MMA
  std::vector<uint32_t> before = want;
  const double sa = c.negA ? -1 : 1, sb = c.negB ? -1 : 1;
  bool zeroOps = c.flags & 2;
  for (unsigned m = 0; m < M; m++) {
    unsigned lane = M == 128 ? m : 32 * (m / 16) + c.lane0 + m % 16;
    if ((c.dis[lane / 32] >> (lane % 32)) & 1) continue;
    for (unsigned n = 0; n < N && isInt(c.ty); n++) {  // exact integers; wrap, or clamp (saturate)
      int64_t d = (int32_t)before[lane * N + n];
      for (unsigned i = 0; i < nmma; i++) {
        int64_t s = 0;
        for (unsigned k = i * kSlice; k < (i + 1) * kSlice; k++) s += zeroOps ? 0 : (int64_t)A[m * kTot + k] * B[k * N + n];
        d = (i == 0 && !c.en) ? s : s + d;
        d = c.satf ? std::min<int64_t>(std::max<int64_t>(d, INT32_MIN), INT32_MAX) : (int64_t)(int32_t)(uint32_t)(uint64_t)d;
      }
      want[lane * N + n] = (uint32_t)(int32_t)d;
    }
    for (unsigned n = 0; n < N && !isInt(c.ty); n++) {
      double d = c.f16D ? (double)f16val((uint16_t)before[lane * N + n]) : bitsf(before[lane * N + n]);
      for (unsigned i = 0; i < nmma; i++) {
        double s = 0;  // exact: sixteenths, far from 2^53
        for (unsigned k = i * kSlice; k < (i + 1) * kSlice; k++)
          s += zeroOps ? 0 : sa * A[m * kTot + k] / 4.0 * sb * B[k * N + n] / 4.0;
        d = (i == 0 && !c.en) ? s : s + d * std::ldexp(1.0, -(int)c.scale);
        if (c.f16D) d = (double)(_Float16)d;  // each MMA rounds its result once to f16
      }
      want[lane * N + n] = c.f16D ? f16bits(d) : fbits((float)d);
    }
  }
  if (c.precision) {
    std::fill(init.begin(), init.end(), 0u);
    std::fill(initW.begin(), initW.end(), 0u);
    init[0 * N + 0] = initW[0 * W + 0] = 0x49800000u;  // 2^20
    init[1 * N + 2] = initW[1 * W + 2] = 0x49800000u;
    want = init;
    want[0 * N + 0] = 0x2b800000u;  // 2^-40
    want[1 * N + 2] = 0;
    want[0 * N + 2] = want[1 * N + 0] = 0xc9800000u;  // -2^20 + 2^-44, rounded to f32: -2^20
  }
  if (c.flags & 1) want = before;  // read before the wait: the old columns
  if (c.flags & 4) want = init;    // the MMA saw zeros, then the stores landed over its result
  unsigned cols = 32;
  while (cols < W) cols *= 2;
  std::string ptx = kernelText(c, cols, W);
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem(1 << 20);
  uint64_t dimg = mem.alloc(img.size()), ddesc = mem.alloc(descs.size() * 8), dinit = mem.alloc(initW.size() * 4),
           dout = mem.alloc(init.size() * 4), ddis = mem.alloc(16);
  mem.put(dimg, img);
  mem.put(ddesc, descs);
  mem.put(dinit, initW);
  mem.put(ddis, std::vector<uint32_t>(c.dis, c.dis + 4));
  tsim::Fault f = k.run(mem, "k", {dimg, img.size() / 4, ddesc, nmma, idescOf(c) ^ c.idescXor, c.en ? 1u : 0u, dinit, dout, c.flags, ddis, img.size()},
                        1, 128, nullptr, (unsigned)img.size() + 16, 0, 2, 1, 1, c.san);
  if (!expectOutcome(c.name, f, c.fault, c.hazard)) return;
  std::vector<uint32_t> got = mem.get<uint32_t>(dout, init.size());
  // an f16 accumulator is the low 16 bits of each cell (the high half is not the ISA's)
  if (c.f16D)
    for (size_t i = 0; i < got.size(); i++) { got[i] &= 0xffff; want[i] &= 0xffff; }
  expectCells(c.name, got, want, N);
}

}  // namespace

int main(int argc, char** argv) {
  auto mk = [](const char* name) { Case c; c.name = name; return c; };
  std::vector<Case> cases;
  for (unsigned swz : {0u, 32u, 64u, 128u}) {
    Case c = mk("f16 K-major");
    c.name += " swizzle " + std::to_string(swz);
    c.swzA = c.swzB = swz;
    c.n = swz == 32 ? 16 : swz == 64 ? 32 : swz == 128 ? 128 : 64;
    cases.push_back(c);
  }
  { Case c = mk("summation precision (f16, exact sum rounded once)"); c.precision = c.en = true; c.swzA = c.swzB = 0; cases.push_back(c); }
  { Case c = mk("bf16 128B, enable_input_d"); c.ty = BF16; c.en = true; cases.push_back(c); }
  { Case c = mk("tf32 128B"); c.ty = TF32; c.n = 32; cases.push_back(c); }
  // MN-major tf32 takes only 128B_base32b (swz 1 here), the 8- and 16-bit types every swizzle but it
  // (the ISA's table of valid type size, major-ness and swizzling)
  { Case c = mk("tf32 MN-major B 128B_base32b, K-major A none"); c.ty = TF32; c.n = 48; c.swzA = 0; c.swzB = 1; c.mnB = true; c.en = true; cases.push_back(c); }
  { Case c = mk("tf32 MN-major A and B 128B_base32b"); c.ty = TF32; c.mnA = c.mnB = true; c.swzA = c.swzB = 1; c.n = 64; cases.push_back(c); }
  { Case c = mk("tf32 MN-major A 128B_base32b, M=64 at lane 16, N=256"); c.ty = TF32; c.mnA = true; c.swzA = 1; c.swzB = 128; c.m = 64; c.lane0 = 16; c.n = 256; c.en = true; cases.push_back(c); }
  { Case c = mk("racecheck clean, tf32 MN-major 128B_base32b"); c.ty = TF32; c.mnA = c.mnB = true; c.swzA = c.swzB = 1; c.n = 32; c.san = 1; cases.push_back(c); }
  { Case c = mk("racecheck: 128B_base32b operands overwritten before the wait"); c.ty = TF32; c.mnA = c.mnB = true; c.swzA = c.swzB = 1; c.n = 32; c.san = 1; c.flags = 2;
    c.hazard = "conflicts with tcgen05.mma operand read at PTX line"; cases.push_back(c); }
  { Case c = mk("tf32 MN-major B none"); c.ty = TF32; c.n = 48; c.swzA = c.swzB = 0; c.mnB = true;
    c.fault = "the B shared-memory descriptor: an MN-major (transposed) 32-bit (tf32) operand takes only the 128B_base32b swizzle (mode 1)"; cases.push_back(c); }
  { Case c = mk("tf32 MN-major A 128B"); c.ty = TF32; c.n = 32; c.mnA = true;
    c.fault = "the A shared-memory descriptor: an MN-major (transposed) 32-bit (tf32) operand takes only the 128B_base32b swizzle"; cases.push_back(c); }
  { Case c = mk("f16 MN-major A 128B_base32b"); c.mnA = true; c.swzA = 1; c.n = 32;
    c.fault = "the A shared-memory descriptor: the 128B_base32b swizzle (mode 1) is for MN-major 32-bit (tf32) operands only; MN-major 16-bit"; cases.push_back(c); }
  { Case c = mk("e4m3 MN-major B 128B_base32b"); c.ty = c.tyB = E4M3; c.mnB = true; c.swzB = 1; c.n = 32;
    c.fault = "the B shared-memory descriptor: the 128B_base32b swizzle (mode 1) is for MN-major 32-bit (tf32) operands only; MN-major 8-bit"; cases.push_back(c); }
  { Case c = mk("f16 MN-major A and B 128B"); c.mnA = c.mnB = true; c.n = 64; cases.push_back(c); }
  { Case c = mk("f16 MN-major A 64B, K-major B none"); c.mnA = true; c.swzA = 64; c.swzB = 0; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("f16 MN-major none"); c.mnA = c.mnB = true; c.swzA = c.swzB = 0; c.n = 16; cases.push_back(c); }
  { Case c = mk("M=64, enable_input_d"); c.m = 64; c.n = 40; c.en = true; cases.push_back(c); }
  { Case c = mk("negate A and B"); c.negA = c.negB = true; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("negate A"); c.negA = true; c.en = true; c.n = 32; c.swzA = c.swzB = 64; cases.push_back(c); }
  { Case c = mk("scale_input_d 2"); c.scale = 2; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("disable_output_lane"); c.useDis = true; c.dis[0] = 0x80000001u; c.dis[2] = 0x0000ff00u; c.dis[3] = 0xffffffffu; c.en = true; c.n = 16; cases.push_back(c); }
  { Case c = mk("N=256"); c.n = 256; c.ty = BF16; cases.push_back(c); }
  { Case c = mk("f16, A in TMEM"); c.aTmem = true; c.en = true; cases.push_back(c); }
  { Case c = mk("bf16, A in TMEM, M=64"); c.ty = BF16; c.aTmem = true; c.m = 64; c.n = 32; cases.push_back(c); }
  // layout F's lane alignment 16 (Triton's flash attention): rows in lanes 16-31 of each quarter
  { Case c = mk("M=64 at lane 16, enable_input_d"); c.m = 64; c.n = 40; c.en = true; c.lane0 = 16; cases.push_back(c); }
  { Case c = mk("bf16, A in TMEM, M=64 at lane 16"); c.ty = BF16; c.aTmem = true; c.m = 64; c.n = 32; c.lane0 = 16; cases.push_back(c); }
  { Case c = mk("M=64 at lane 16, disable_output_lane"); c.m = 64; c.n = 16; c.lane0 = 16; c.useDis = true; c.dis[1] = 0x00ff0000u; c.dis[3] = 0x80010000u; cases.push_back(c); }
  { Case c = mk("M=128 at lane 16"); c.lane0 = 16; c.fault = "must name lane 0 for M = 128 (got lane 16)"; cases.push_back(c); }
  { Case c = mk("M=64 at lane 8"); c.m = 64; c.n = 16; c.lane0 = 8; c.fault = "must name lane 0 or 16 for M = 64 (got lane 8)"; cases.push_back(c); }
  { Case c = mk("tf32, A in TMEM"); c.ty = TF32; c.aTmem = true; c.n = 16; c.en = true; cases.push_back(c); }
  { Case c = mk("e4m3 x e5m2, A in TMEM"); c.ty = E4M3; c.tyB = E5M2; c.aTmem = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("s8, A in TMEM"); c.ty = c.tyB = S8; c.aTmem = true; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("e4m3 x e4m3 128B"); c.ty = c.tyB = E4M3; c.en = true; cases.push_back(c); }
  { Case c = mk("e5m2 x e4m3 64B"); c.ty = E5M2; c.tyB = E4M3; c.swzA = c.swzB = 64; c.n = 32; cases.push_back(c); }
  { Case c = mk("e4m3 x e5m2 none, M=64"); c.ty = E4M3; c.tyB = E5M2; c.swzA = c.swzB = 0; c.m = 64; c.n = 24; c.en = true; cases.push_back(c); }
  { Case c = mk("e5m2 x e5m2"); c.ty = c.tyB = E5M2; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("s8 x s8 128B, wrapping"); c.ty = c.tyB = S8; c.en = true; cases.push_back(c); }
  { Case c = mk("u8 x s8 32B, saturating"); c.ty = U8; c.tyB = S8; c.satf = true; c.en = true; c.swzA = c.swzB = 32; c.n = 16; cases.push_back(c); }
  { Case c = mk("s8 x u8 none"); c.ty = S8; c.tyB = U8; c.swzA = c.swzB = 0; c.n = 32; cases.push_back(c); }
  { Case c = mk("MN-major e4m3 x e5m2 128B"); c.ty = E4M3; c.tyB = E5M2; c.mnA = c.mnB = true; c.n = 128; c.en = true; cases.push_back(c); }
  { Case c = mk("MN-major s8, K-major u8 B, 64B"); c.ty = S8; c.tyB = U8; c.mnA = true; c.swzA = 64; c.swzB = 0; c.n = 64; cases.push_back(c); }
  { Case c = mk("K-major s8 A, MN-major s8 B none"); c.ty = c.tyB = S8; c.mnB = true; c.swzA = c.swzB = 0; c.n = 32; c.en = true; cases.push_back(c); }
  // MN-major with several swizzle atoms along M/N (the leading byte offset between them): bf16 B
  // over 4 atoms of 128B at N = 256, the 32B swizzle at M = 64, 8-bit B over 8 atoms of 32B at N = 256
  { Case c = mk("bf16 MN-major A and B 128B, N=256"); c.ty = BF16; c.mnA = c.mnB = true; c.n = 256; c.en = true; cases.push_back(c); }
  { Case c = mk("f16 MN-major A and B 32B, M=64"); c.mnA = c.mnB = true; c.swzA = c.swzB = 32; c.m = 64; c.n = 32; cases.push_back(c); }
  { Case c = mk("e5m2 x e4m3, MN-major B 32B, N=256"); c.ty = E5M2; c.tyB = E4M3; c.mnB = true; c.swzA = 128; c.swzB = 32; c.n = 256; c.en = true; cases.push_back(c); }
  { Case c = mk("u8 x u8 MN-major A none, M=64 at lane 16"); c.ty = c.tyB = U8; c.mnA = true; c.swzA = c.swzB = 0; c.m = 64; c.n = 24; c.lane0 = 16; cases.push_back(c); }
  // the 6- and 4-bit types run (ptx_tcgen05_scaled_test); A/B type 2 is none of f8f6f4's
  { Case c = mk("f8f6f4 A type 2"); c.ty = c.tyB = E4M3; c.idescXor = 2u << 7; c.fault = "kind::f8f6f4 takes A/B type 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1); got 2"; cases.push_back(c); }
  { Case c = mk("i8 with negate"); c.ty = c.tyB = S8; c.negA = true; c.fault = "kind::i8 has no negate"; cases.push_back(c); }
  { Case c = mk("ld before the mbarrier wait reads the old columns"); c.flags = 1; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("operands overwritten before the wait"); c.flags = 2; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("no wait::st before the MMA"); c.flags = 4; c.en = true; c.n = 32; cases.push_back(c); }
  // racecheck: clean on the cases that wait (A in shared memory and in TMEM); a tcgen05.ld of the
  // accumulator before the commit has arrived and an operand overwritten before then are reported
  { Case c = mk("racecheck clean"); c.san = 1; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("racecheck clean, A in TMEM, M=64"); c.san = 1; c.aTmem = true; c.m = 64; c.n = 32; cases.push_back(c); }
  { Case c = mk("racecheck: ld before the mbarrier wait"); c.san = 1; c.flags = 1; c.en = true; c.n = 32;
    c.hazard = "read-after-write hazard on tensor memory (lane 0, column 0): tcgen05.ld at PTX line"; cases.push_back(c); }
  { Case c = mk("racecheck clean, A in TMEM, M=64 at lane 16"); c.san = 1; c.aTmem = true; c.m = 64; c.n = 32; c.lane0 = 16; cases.push_back(c); }
  { Case c = mk("racecheck: ld before the wait, M=64 at lane 16"); c.san = 1; c.flags = 1; c.m = 64; c.n = 16; c.lane0 = 16;
    c.hazard = "read-after-write hazard on tensor memory (lane 16, column 0): tcgen05.ld at PTX line"; cases.push_back(c); }
  { Case c = mk("racecheck: ld before the wait, M=64"); c.san = 1; c.flags = 1; c.m = 64; c.n = 16;
    c.hazard = "reads a cell that tcgen05.mma at PTX line"; cases.push_back(c); }
  { Case c = mk("racecheck: operands overwritten before the wait"); c.san = 1; c.flags = 2; c.en = true; c.n = 32;
    c.hazard = "conflicts with tcgen05.mma operand read at PTX line"; cases.push_back(c); }
  { Case c = mk("M=256 on cta_group::1"); c.idescXor = (8u ^ 16u) << 24; c.fault = "M = 256 (bits 24-28) is not a .cta_group::1 shape"; cases.push_back(c); }
  { Case c = mk("descriptor version"); c.descAXor = 1ull << 46; c.fault = "the A shared-memory descriptor: bits 46-48 must hold the fixed value 0b001"; cases.push_back(c); }
  { Case c = mk("K-major 128B_base32b"); c.descAXor = 3ull << 61; c.fault = "the A shared-memory descriptor: K-major with the 128B_base32b swizzle (mode 1) is not simulated"; cases.push_back(c); }
  { Case c = mk("sparsity bit"); c.idescXor = 4; c.fault = "sparsity (bit 2), which needs tcgen05.mma.sp"; cases.push_back(c); }
  // f16 accumulators (kind::f16 only): the element in the low 16 bits, each MMA rounding once
  { Case c = mk("f16 accumulator, enable_input_d"); c.f16D = true; c.en = true; c.n = 64; cases.push_back(c); }
  { Case c = mk("f16 accumulator, M=64, scale_input_d 1, negate B"); c.f16D = true; c.en = true; c.m = 64; c.n = 32; c.scale = 1; c.negB = true; cases.push_back(c); }
  { Case c = mk("f16 accumulator, A in TMEM, disable_output_lane"); c.f16D = true; c.aTmem = true; c.n = 32; c.useDis = true; c.dis[1] = 0x00ff00ffu; cases.push_back(c); }
  { Case c = mk("bf16 operands, f16 accumulator, MN-major"); c.ty = BF16; c.f16D = true; c.mnA = c.mnB = true; c.en = true; c.n = 32; cases.push_back(c); }
  { Case c = mk("f16 accumulator with kind::tf32"); c.ty = TF32; c.n = 32; c.idescXor = 1u << 4; c.fault = "an f16 accumulator (D type 0) is for kind::f16 and kind::f8f6f4 only"; cases.push_back(c); }
  { Case c = mk("kind::f16 with tf32 types"); c.idescXor = (2u << 7) | (2u << 10); c.fault = "kind::f16 takes A/B type 0 (f16) or 1 (bf16); got 2/2"; cases.push_back(c); }
  for (const Case& c : cases) runCase(c);
  expectPtxas(ptxasArg(argc, argv), modules);
  return finish("ptx_tcgen05_mma_test");
}
