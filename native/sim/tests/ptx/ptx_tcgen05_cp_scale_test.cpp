// The scale-factor path of block-scaled tcgen05.mma as Triton and CUTLASS write it (sm_100a), end
// to end and bit for bit: the scale factors of A and B lie in shared memory as 32 rows of 16
// bytes, one thread copies each to tensor memory with tcgen05.cp.cta_group::1.32x128b.warpx4 and
// issues a kind::mxf8f6f4.block_scale.scale_vec::1X MMA reading them, without waiting in between
// (the ISA pipelines tcgen05.cp -> tcgen05.mma of the same thread), then one tcgen05.commit.
// This file's reading of the ISA: .32x128b.warpx4 puts source row s (its 16 bytes in 4 cells) in
// lane s of every 32-lane quarter; block scaling reads row m of scale_A (column n of scale_B) in
// lane m % 32 of the quarters, column base + m / 32, byte = the scale factor id (1X); so scale_A's
// factor for row m is source byte 4 * (m / 32) + id of row m % 32 (the ((32,4),4) tile of 512
// bytes). D = sum_k (A[m][k] * 2^(sa[m]-127)) * (B[k][n] * 2^(sb[n]-127)), e4m3 operands (bias 7,
// subnormals), the exact sum rounded once to f32 (nearest even). Before the copy the scale
// columns hold 1.0 everywhere (0x7f bytes), so an MMA that ran before the copy lands, or read the
// wrong bytes, gives other values. Other bytes of the scale rows hold noise.
// racecheck: the kernel is clean; a tcgen05.cp issued after the MMA (before its commit arrived)
// into the scale columns it reads, or into its accumulator, is reported (the ISA does not order a
// copy after an earlier MMA), and one into columns the MMA does not touch is not.
// `sim_ptx_ptx_tcgen05_cp_scale_test --ptxas PATH` also assembles the modules with ptxas.
#include <cmath>

#include "tcgen05_harness.h"

using namespace ptxtest;

namespace {

const std::string kPtx = R"(.version 8.8
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pdesc, .param .u32 pidesc, .param .u64 pout)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
)" + tcgen05test::ptxThreadIds() + R"(  mov.u32 %r4, slot;
  mov.u32 %r5, bar;
  mov.u32 %r9, smem;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 128;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
)" + tcgen05test::ptxCopyImage() + R"(  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // the scale columns 64..71 of this warp's quarter hold 1.0 (ue8m0 127) in every byte
  shl.b32 %r12, %r2, 21;
  add.u32 %r13, %r11, %r12;
  add.u32 %r14, %r13, 64;
  mov.u32 %r15, 0x7f7f7f7f;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r14], {%r15, %r15, %r15, %r15, %r15, %r15, %r15, %r15};
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  // descriptors of A, B, scale_A's and scale_B's sources (relative to smem[]), idesc
  ld.param.u64 %rd4, [pdesc];
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
  ld.global.u64 %rd10, [%rd4];
  ld.global.u64 %rd11, [%rd4+8];
  ld.global.u64 %rd12, [%rd4+16];
  ld.global.u64 %rd13, [%rd4+24];
  add.s64 %rd10, %rd10, %rd8;
  add.s64 %rd11, %rd11, %rd8;
  add.s64 %rd12, %rd12, %rd8;
  add.s64 %rd13, %rd13, %rd8;
  ld.param.u32 %r22, [pidesc];
  add.u32 %r53, %r11, 64;
  add.u32 %r54, %r11, 68;
  setp.ne.u32 %p6, %r22, %r22;
  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r53], %rd12;
  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r54], %rd13;
  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r11], %rd10, %rd11, %r22, [%r53], [%r54], %p6;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
ISSUED:
  bar.sync 0;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r5], 0;
  @!%p7 bra WAIT;
  tcgen05.fence::after_thread_sync;
  ld.param.u64 %rd5, [pout];
  shl.b32 %r16, %r2, 5;
  add.u32 %r16, %r16, %r3;
  mul.lo.u32 %r17, %r16, 64;
  mul.wide.u32 %rd6, %r17, 4;
  add.s64 %rd7, %rd5, %rd6;
  mov.u32 %r18, 0;
LD:
  add.u32 %r19, %r13, %r18;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r20}, [%r19];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd7], %r20;
  add.s64 %rd7, %rd7, 4;
  add.u32 %r18, %r18, 1;
  setp.lt.u32 %p4, %r18, 64;
  @%p4 bra LD;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 128;
  ret;
}
)";

// e4m3 (PTX ISA "Alternate floating point data formats"): bias 7, subnormals at exponent 0.
long double e4m3(uint8_t b) {
  int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  long double v = e ? std::ldexp((long double)(8 + m), e - 7 - 3) : std::ldexp((long double)m, -6 - 3);
  return s ? -v : v;
}
using tcgen05test::smemDesc;
// the K-major canonical layout without swizzle, 8-bit elements
uint32_t kMajor(uint32_t start, unsigned r, unsigned b, unsigned lbo, unsigned sbo) {
  return start + (uint32_t)tcgen05test::kMajorAt(r, b, 0, lbo, sbo);
}
std::vector<std::string> modules;  // the racecheck variants, for --ptxas

}  // namespace

int main(int argc, char** argv) {
  const unsigned M = 128, N = 64, K = 32, sfa = 1, sfb = 2;
  const uint32_t aAt = 0, bAt = 4096, saAt = 6144, sbAt = 6656, size = 7168;
  std::mt19937 rng(4099);
  std::vector<uint8_t> img(size);
  for (auto& b : img) b = (uint8_t)rng();
  auto code = [&]() {  // an e4m3 code with exponent field <= 10 (no NaN, products in range)
    uint8_t b = (uint8_t)rng();
    if (((b >> 3) & 15) > 10) b = (uint8_t)((b & 0x87) | (10 << 3));
    return b;
  };
  std::vector<uint8_t> A(M * K), B(N * K), sa(M), sb(N);
  for (unsigned m = 0; m < M; m++)
    for (unsigned k = 0; k < K; k++) img[kMajor(aAt, m, k, 2048, 128)] = A[m * K + k] = code();
  for (unsigned n = 0; n < N; n++)
    for (unsigned k = 0; k < K; k++) img[kMajor(bAt, n, k, 1024, 128)] = B[n * K + k] = code();
  // scale rows: row s, byte 4 * j + id is the factor of row (column) 32 * j + s
  for (unsigned m = 0; m < M; m++) img[kMajor(saAt, m % 32, 4 * (m / 32) + sfa, 0, 128)] = sa[m] = (uint8_t)(124 + rng() % 7);
  for (unsigned n = 0; n < N; n++) img[kMajor(sbAt, n % 32, 4 * (n / 32) + sfb, 0, 128)] = sb[n] = (uint8_t)(124 + rng() % 7);
  const std::vector<uint64_t> descs = {smemDesc(aAt, 2048, 128), smemDesc(bAt, 1024, 128), smemDesc(saAt, 0, 128), smemDesc(sbAt, 0, 128)};
  // block-scaled descriptor: scale factor B id 4-5, A/B type e4m3 (0), N >> 3 in 17-22, ue8m0 (23),
  // M >> 7 in 27-28, scale factor A id 29-30
  const uint32_t idesc = sfb << 4 | (N >> 3) << 17 | 1u << 23 | 1u << 27 | sfa << 29;

  Arena mem(1 << 21);
  uint64_t dimg = mem.alloc(img.size()), ddesc = mem.alloc(32), dout = mem.alloc(M * N * 4);
  mem.put(dimg, img);
  mem.put(ddesc, descs);
  auto launch = [&](const std::string& ptx, unsigned sanitize) {
    Kernel k(ptx);
    CHECK(k.ok());
    mem.put(dout, std::vector<uint32_t>(M * N, 0));
    return k.run(mem, "k", {dimg, img.size() / 4, ddesc, idesc, dout}, 1, 128, nullptr, size + 1024, 0, 2, 1, 1, sanitize);
  };
  auto check = [&](const char* what, unsigned sanitize) {
    if (!expectOutcome(what, launch(kPtx, sanitize), nullptr)) return;
    std::vector<uint32_t> want(M * N);
    for (unsigned m = 0; m < M; m++)
      for (unsigned n = 0; n < N; n++) {
        long double sum = 0;  // exact: 32 products of 4-bit significands over a narrow exponent range
        for (unsigned kk = 0; kk < K; kk++)
          sum += std::ldexp(e4m3(A[m * K + kk]), sa[m] - 127) * std::ldexp(e4m3(B[n * K + kk]), sb[n] - 127);
        want[m * N + n] = fbits((float)sum);  // one rounding to f32, nearest even
      }
    expectCells(what, mem.get<uint32_t>(dout, M * N), want, N, "D row", 5);
  };
  check("plain", 0);
  check("racecheck clean", 1);
  // a second copy right after the MMA, before its commit: into scale_A's columns (64..67), D's
  // (0..3) or columns 72..75, which the MMA does not touch
  const std::string mmaLine = "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];\n";
  auto after = [&](const std::string& extra) {
    std::string p = kPtx;
    p.insert(p.find(mmaLine), extra);
    modules.push_back(p);
    return p;
  };
  struct Race { const char* what; std::string ptx; const char* want; };
  const Race races[] = {
      {"copy into scale_A's columns", after("  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r53], %rd13;\n"),
       "write-after-read hazard on tensor memory (lane 0, column 64): tcgen05.cp at PTX line"},
      {"copy into scale_B's columns (its role)", after("  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r54], %rd12;\n"),
       "reads (its scale factors), before the tcgen05.commit that covers the MMA has arrived on its mbarrier (tcgen05.cp is not ordered"},
      {"copy into the accumulator", after("  tcgen05.cp.cta_group::1.4x256b [%r11], %rd12;\n"),
       "write-after-write hazard on tensor memory (lane 0, column 0): tcgen05.cp at PTX line"},
      {"copy into other columns", after("  add.u32 %r55, %r11, 72;\n  tcgen05.cp.cta_group::1.32x128b.warpx4 [%r55], %rd13;\n"), nullptr},
  };
  for (const Race& r : races) {
    expectOutcome(std::string("racecheck, ") + r.what, launch(r.ptx, 1), nullptr, r.want);
  }
  modules.insert(modules.begin(), kPtx);
  expectPtxas(ptxasArg(argc, argv), modules);
  return finish("ptx_tcgen05_cp_scale_test");
}
