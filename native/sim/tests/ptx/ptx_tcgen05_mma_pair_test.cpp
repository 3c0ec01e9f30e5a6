// tcgen05.mma.cta_group::2 and tcgen05.commit.cta_group::2 (sm_100a) against the PTX ISA, bit
// for bit. A cluster of two CTAs (the pair: %cluster_ctarank 0 and 1) allocates its accumulator
// with tcgen05.alloc.cta_group::2; one thread of the even CTA issues tcgen05.mma.cta_group::2 with
// M = 256 (the ISA's data path layout A): D's rows 0-127 are lanes 0-127 of the even CTA's tensor
// memory, rows 128-255 the odd CTA's; A's rows 0-127 come from the even CTA's shared memory and
// rows 128-255 from the odd CTA's, at the same descriptor address; B's N columns are split, 0..N/2-1
// from the even CTA's shared memory and N/2..N-1 from the odd CTA's (each a K x N/2 matrix at the
// B descriptor's address). Each CTA's operand image is laid out by this file's own reading of the
// canonical layouts (K-major, none / 128B swizzle; MN-major 128B), the accumulator starts from
// tcgen05.st values, and the product is checked against a CPU reference of exactly representable
// values (f16, bf16, tf32, e4m3 x e5m2, s8 x u8), with enable_input_d and the 8-word
// disable_output_lane (words 4-7: the odd CTA's lanes). Completion: the multicast commit
// (.multicast::cluster, ctaMask 0b11) arrives on the mbarrier at the same offset in both CTAs, and
// the odd CTA's wait completes the even CTA's MMAs; the non-multicast .cta_group::2 commit arrives
// in the even CTA only (which relays to the odd one with a remote mbarrier.arrive). Asynchrony: a
// tcgen05.ld before the wait reads the old columns in both CTAs, and racecheck reports it in the
// odd CTA too, as it reports the odd CTA overwriting its A rows (the peer's operand half) before
// then; initcheck marks the odd CTA's cells the MMA writes. Named faults: the MMA issued
// by the odd CTA, the peer's columns freed (before the issue; or while the MMA is in flight), a
// cta_group::1 commit after the cta_group::2 MMA and a callee allocating with ::1 (one
// .cta_group per kernel: load errors, as ptxas refuses both), no pair in the cluster, M = 128
// (layout B, not simulated yet), N = 16, the cta_group::1 commit's multicast (by name).
//
// `sim_ptx_ptx_tcgen05_mma_pair_test --ptxas PATH` also assembles the kernels with ptxas -arch=sm_100a.
#include <algorithm>

#include "tcgen05_harness.h"

using namespace ptxtest;
using namespace tcgen05test;

namespace {

uint32_t encode(Ty t, int v4) { return tcgen05test::encode(t, v4, 0x0123); }  // tf32's ignored low bits: 0x0123

struct Case {
  std::string name;
  Ty ty = F16, tyB = F16;
  unsigned n = 64, swz = 128;
  bool mn = false;       // A and B MN-major (128B)
  bool en = false;
  uint32_t dis[8] = {};  // disable_output_lane (given when any is set)
  bool multicast = true;
  unsigned flags = 0;    // 1: both CTAs tcgen05.ld before the wait (| 8: the odd CTA only), 2: the odd CTA issues, 4: the odd CTA frees its columns first, 16: the odd CTA writes no initial D, 32: the odd CTA frees its columns after the issue, 64: the odd CTA overwrites its A rows' first word before the wait
  bool commit1 = false;  // a cta_group::1 commit (mixing)
  uint32_t idescXor = 0;
  unsigned cluster = 2, ctas = 2;
  unsigned skew = 0;  // TESSERA_SIM_CLUSTER_SKEW: rank 0 running ahead
  unsigned san = 0;
  const char* fault = nullptr;
  const char* hazard = nullptr;
  const char* loadError = nullptr;  // refused when loaded (and by ptxas)
};

uint32_t idescOf(const Case& c) {
  return (isInt(c.ty) ? 2u : 1u) << 4 | typeCode(c.ty) << 7 | typeCode(c.tyB) << 10 | (c.mn ? 3u << 15 : 0) | (c.n >> 3) << 17 | (256u >> 4) << 24;
}
bool useDis(const Case& c) { return std::any_of(c.dis, c.dis + 8, [](uint32_t w) { return w != 0; }); }

// out[rank][lane][n] = what this thread's tcgen05.ld read
std::string dump(const Case& c, const std::string& tag) {
  std::string nc = std::to_string(c.n);
  return "  mov.u64 %rd14, %rd20;\n  mov.u32 %r17, 0;\nLD" + tag + ":\n  add.u32 %r19, %r14, %r17;\n"
         "  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r19];\n  tcgen05.wait::ld.sync.aligned;\n"
         "  st.global.u32 [%rd14], %r30;\n  add.s64 %rd14, %rd14, 4;\n  add.u32 %r17, %r17, 1;\n"
         "  setp.lt.u32 %p4, %r17, " + nc + ";\n  @%p4 bra LD" + tag + ";\n";
}

std::string kernelText(const Case& c, unsigned cols) {
  std::string nc = std::to_string(c.n), alloc = std::to_string(cols);
  std::string kind = kindName(c.ty);
  std::string dis = useDis(c) ? "{%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, " : "";
  std::string commit = c.commit1 ? "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];\n"
                       : c.multicast ? "  mov.u16 %rs1, 3;\n  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r5], %rs1;\n"
                                     // the even CTA's own mbarrier; its thread relays to the odd CTA's
                                     : "  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%r5];\n"
                                       "RELAY:\n  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], 0;\n  @!%p11 bra RELAY;\n"
                                       "  mapa.shared::cluster.u32 %r33, %r5, 1;\n  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r33];\n";
  // the early dump (flags 1; with flags 8 the odd CTA's only) before the wait, else the late one
  std::string early = "  @!%p8 bra SKIPE;\n" + dump(c, "E") + "SKIPE:\n", late = "  @%p8 bra SKIPL;\n" + dump(c, "L") + "SKIPL:\n";
  return R"(.version 8.8
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pdescs, .param .u32 pnmma, .param .u32 pidesc,
    .param .u32 pen, .param .u64 pinit, .param .u64 pout, .param .u32 pflags, .param .u64 pdis, .param .u32 pmisc)
{
  .reg .b16 %rs<4>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
)" + ptxThreadIds() + R"(  mov.u32 %r32, %cluster_ctarank;
  ld.param.u32 %r60, [pflags];
  mov.u32 %r9, smem;
  ld.param.u32 %r61, [pmisc];
  add.u32 %r5, %r9, %r61;
  add.u32 %r4, %r5, 8;
  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], )" + alloc + R"(;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
  // this CTA's operand image (words [rank * words, (rank + 1) * words)) into shared memory
)" + ptxCopyImage("  mul.lo.u32 %r7, %r32, %r6;\n  mul.wide.u32 %rd2, %r7, 4;\n  add.s64 %rd1, %rd1, %rd2;\n") + R"(  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // this warp's quarter of the lanes: D's initial columns, and where its lane's row goes
  and.b32 %r12, %r2, 3;
  shl.b32 %r13, %r12, 21;
  add.u32 %r14, %r11, %r13;
  shl.b32 %r15, %r12, 5;
  add.u32 %r15, %r15, %r3;
  shl.b32 %r16, %r32, 7;
  add.u32 %r16, %r16, %r15;
  mul.lo.u32 %r16, %r16, )" + nc + R"(;
  mul.wide.u32 %rd5, %r16, 4;
  ld.param.u64 %rd4, [pinit];
  add.s64 %rd6, %rd4, %rd5;
  ld.param.u64 %rd12, [pout];
  add.s64 %rd20, %rd12, %rd5;
  mov.u32 %r17, 0;
  // flags 16: the odd CTA writes no initial accumulator (initcheck cases)
  and.b32 %r39, %r60, 16;
  setp.ne.u32 %p3, %r39, 0;
  setp.eq.u32 %p5, %r32, 1;
  and.pred %p3, %p3, %p5;
  @%p3 bra INITDONE;
INIT:
  ld.global.u32 %r18, [%rd6];
  add.u32 %r19, %r14, %r17;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r19], {%r18};
  add.s64 %rd6, %rd6, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + nc + R"(;
  @%p4 bra INIT;
INITDONE:
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  and.b32 %r37, %r60, 1;
  setp.ne.u32 %p8, %r37, 0;
  and.b32 %r38, %r60, 8;
  setp.ne.u32 %p9, %r38, 0;
  setp.eq.u32 %p10, %r32, 0;
  and.pred %p9, %p9, %p10;
  not.pred %p9, %p9;
  and.pred %p8, %p8, %p9;
  // flags 4: the odd CTA frees its half before the MMA
  and.b32 %r34, %r60, 4;
  setp.ne.u32 %p14, %r34, 0;
  setp.eq.u32 %p15, %r32, 1;
  and.pred %p14, %p14, %p15;
  and.pred %p14, %p14, %p1;
  @%p14 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r11, )" + alloc + R"(;
  tcgen05.fence::before_thread_sync;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  tcgen05.fence::after_thread_sync;
  // the issuer: thread 0 of the even CTA (flags 2: of the odd one)
  and.b32 %r35, %r60, 2;
  setp.ne.u32 %p12, %r35, 0;
  selp.u32 %r36, 1, 0, %p12;
  setp.eq.u32 %p13, %r32, %r36;
  and.pred %p13, %p13, %p2;
  @!%p13 bra ISSUED;
  ld.param.u64 %rd7, [pdescs];
  ld.param.u32 %r21, [pnmma];
  ld.param.u32 %r22, [pidesc];
  ld.param.u32 %r23, [pen];
  setp.ne.u32 %p6, %r23, 0;
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
  ld.param.u64 %rd9, [pdis];
  ld.global.v4.u32 {%r40, %r41, %r42, %r43}, [%rd9];
  ld.global.v4.u32 {%r44, %r45, %r46, %r47}, [%rd9+16];
  mov.u32 %r24, 0;
MMA:
  ld.global.u64 %rd10, [%rd7];
  ld.global.u64 %rd11, [%rd7+8];
  add.s64 %rd10, %rd10, %rd8;
  add.s64 %rd11, %rd11, %rd8;
  tcgen05.mma.cta_group::2.kind::)" + kind + R"( [%r11], %rd10, %rd11, %r22, )" + dis + R"(%p6;
  setp.eq.u32 %p6, %r24, %r24;
  add.s64 %rd7, %rd7, 16;
  add.u32 %r24, %r24, 1;
  setp.lt.u32 %p7, %r24, %r21;
  @%p7 bra MMA;
)" + commit + R"(ISSUED:
  barrier.cluster.arrive.release.aligned;  // issued and committed before anyone reads or waits
  barrier.cluster.wait.acquire.aligned;
  // flags 32: the odd CTA frees its half while the MMA is in flight
  and.b32 %r39, %r60, 32;
  setp.ne.u32 %p3, %r39, 0;
  setp.eq.u32 %p5, %r32, 1;
  and.pred %p3, %p3, %p5;
  and.pred %p3, %p3, %p1;
  @%p3 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r11, )" + alloc + R"(;
  // flags 64: thread 0 of the odd CTA overwrites the first word of its A rows while the MMA is in flight
  and.b32 %r39, %r60, 64;
  setp.ne.u32 %p3, %r39, 0;
  setp.eq.u32 %p5, %r32, 1;
  and.pred %p3, %p3, %p5;
  and.pred %p3, %p3, %p2;
  @%p3 st.shared.u32 [%r9], 0;
)" + early + R"(  barrier.cluster.arrive.release.aligned;  // early reads done before any wait
  barrier.cluster.wait.acquire.aligned;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], 0;
  @!%p11 bra WAIT;
  tcgen05.fence::after_thread_sync;
)" + late + R"(  tcgen05.fence::before_thread_sync;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  tcgen05.fence::after_thread_sync;
  @%p14 bra FREED;
  @%p1 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r11, )" + alloc + R"(;
FREED:
  ret;
}
)";
}

std::vector<std::string> modules, refused;
std::mt19937 rng(2002);

struct Place { std::vector<size_t> at; std::vector<uint64_t> desc; size_t bytes; };
// One operand of mnExt rows (columns) of kTot elements, nmma slices of 32 bytes along K.
Place place(unsigned mnExt, unsigned kTot, unsigned es, unsigned swz, bool mn, unsigned base) {
  Place p;
  const unsigned kSlice = 32 / es, nmma = kTot / kSlice;
  p.at.resize((size_t)mnExt * kTot);
  unsigned lbo, sbo;
  if (!mn) {
    if (swz) { lbo = 16; sbo = 8 * swz; }
    else { lbo = 128; sbo = (kTot * es / 16) * 128; }
    for (unsigned i = 0; i < mnExt; i++)
      for (unsigned k = 0; k < kTot; k++) p.at[(size_t)i * kTot + k] = kMajorAt(i, k * es, swz, lbo, sbo);
    for (unsigned i = 0; i < nmma; i++) p.desc.push_back(smemDesc(base + (swz ? 32 * i : 2 * lbo * i), lbo, sbo, swz));
  } else {
    sbo = 8 * swz;
    lbo = (kTot / 8) * 8 * swz;
    for (unsigned i = 0; i < mnExt; i++)
      for (unsigned k = 0; k < kTot; k++) p.at[(size_t)i * kTot + k] = mnMajorAt(i * es, k, swz, lbo, sbo);
    for (unsigned i = 0; i < nmma; i++) p.desc.push_back(smemDesc(base + (kSlice / 8) * sbo * i, lbo, sbo, swz));
  }
  p.bytes = 0;
  for (size_t a : p.at) p.bytes = std::max(p.bytes, a + es);
  return p;
}

void runCase(const Case& c) {
  const unsigned es = esize(c.ty), kSlice = 32 / es, kTot = c.swz && !c.mn ? c.swz / es : 2 * kSlice, nmma = kTot / kSlice;
  const unsigned M = 256, N = c.n, Nh = N / 2;
  std::vector<int> A(M * kTot), B(kTot * N);
  for (auto& v : A) v = genValue(c.ty, rng);
  for (auto& v : B) v = genValue(c.tyB, rng);
  // each CTA's image: its 128 rows of A at 0, its N/2 columns of B at bBase (same layout in both)
  Place pa = place(128, kTot, es, c.swz, c.mn, 0);
  const unsigned bBase = (unsigned)((pa.bytes + 1023) / 1024 * 1024);
  Place pb = place(Nh, kTot, es, c.swz, c.mn, bBase);
  const size_t half = bBase + (pb.bytes + 1023) / 1024 * 1024;
  std::vector<uint8_t> img(2 * half, 0);
  auto put = [&](size_t off, uint32_t bits) { memcpy(&img[off], &bits, es); };
  for (unsigned r = 0; r < 2; r++) {
    for (unsigned m = 0; m < 128; m++)
      for (unsigned k = 0; k < kTot; k++) put(r * half + pa.at[(size_t)m * kTot + k], encode(c.ty, A[(128 * r + m) * kTot + k]));
    for (unsigned n = 0; n < Nh; n++)
      for (unsigned k = 0; k < kTot; k++) put(r * half + bBase + pb.at[(size_t)n * kTot + k], encode(c.tyB, B[k * N + Nh * r + n]));
  }
  std::vector<uint64_t> descs;
  for (unsigned i = 0; i < nmma; i++) {
    descs.push_back(pa.desc[i]);
    descs.push_back(pb.desc[i]);
  }
  // D's initial cells (row m = rank * 128 + lane), then the reference slice by slice
  std::vector<uint32_t> init(M * N);
  for (auto& v : init) v = genAccumulator(c.ty, rng);
  std::vector<uint32_t> want(init);
  for (unsigned m = 0; m < M; m++) {
    const unsigned lane = m % 128, w = (m / 128) * 4 + lane / 32;
    if ((c.dis[w] >> (lane % 32)) & 1) continue;
    if ((c.flags & 1) && (m >= 128 || !(c.flags & 8))) continue;  // read before the wait: the old columns
    for (unsigned n = 0; n < N; n++) {
      if (isInt(c.ty)) {
        int64_t d = (int32_t)init[m * N + n];
        for (unsigned i = 0; i < nmma; i++) {
          int64_t s = 0;
          for (unsigned k = i * kSlice; k < (i + 1) * kSlice; k++) s += (int64_t)A[m * kTot + k] * B[k * N + n];
          d = (int64_t)(int32_t)(uint32_t)(uint64_t)((i == 0 && !c.en) ? s : s + d);
        }
        want[m * N + n] = (uint32_t)(int32_t)d;
      } else {
        double d = bitsf(init[m * N + n]);
        for (unsigned i = 0; i < nmma; i++) {
          double s = 0;  // exact: sixteenths
          for (unsigned k = i * kSlice; k < (i + 1) * kSlice; k++) s += A[m * kTot + k] / 4.0 * B[k * N + n] / 4.0;
          d = (i == 0 && !c.en) ? s : s + d;
        }
        want[m * N + n] = fbits((float)d);
      }
    }
  }
  unsigned cols = 32;
  while (cols < N) cols *= 2;
  std::string ptx = kernelText(c, cols);
  if (c.loadError) {
    refused.push_back(ptx);
    expectLoadError(c.name, ptx, c.loadError);
    return;
  }
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem(1 << 22);
  uint64_t dimg = mem.alloc(img.size()), ddesc = mem.alloc(descs.size() * 8), dinit = mem.alloc(init.size() * 4),
           dout = mem.alloc(init.size() * 4 + 4096), ddis = mem.alloc(32);
  mem.put(dimg, img);
  mem.put(ddesc, descs);
  mem.put(dinit, init);
  mem.put(ddis, std::vector<uint32_t>(c.dis, c.dis + 8));
  const tsim::KernelInfo* ki = &k.mod->kernels()[0];
  std::string log;
  if (!k.mod->bindGlobals(mem, log)) { failures++; return; }
  const uint64_t args[] = {dimg, half / 4, ddesc, nmma, idescOf(c) ^ c.idescXor, c.en ? 1u : 0u, dinit, dout, c.flags, ddis, half};
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  for (size_t i = 0; i < ki->params.size(); i++) std::memcpy(buf.data() + ki->params[i].offset, &args[i], ki->params[i].size);
  tsim::LaunchConfig cfg;
  cfg.grid[0] = c.ctas;
  cfg.cluster[0] = c.cluster;
  cfg.explicitCluster = true;
  cfg.block[0] = 128;
  cfg.dynamicSharedBytes = (unsigned)half + 16;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.instructionBudget = 200000000;
  cfg.sanitize = c.san;
  cfg.clusterSkew = c.skew;
  tsim::Counters ctr;
  tsim::Fault f = tsim::launch(*k.mod, *ki, cfg, mem, ctr);
  // row m of the output: lane m % 128 of CTA m / 128
  if (expectOutcome(c.name, f, c.fault, c.hazard)) expectCells(c.name, mem.get<uint32_t>(dout, init.size()), want, N, "row");
}

}  // namespace

int main(int argc, char** argv) {
  auto mk = [](const char* name) { Case c; c.name = name; return c; };
  std::vector<Case> cases;
  { Case c = mk("f16 128B, N=64"); cases.push_back(c); }
  { Case c = mk("f16 128B, N=64, two clusters, rank 0 running ahead"); c.skew = 3; c.ctas = 4; c.en = true; cases.push_back(c); }
  { Case c = mk("bf16 none, N=32, enable_input_d"); c.ty = c.tyB = BF16; c.swz = 0; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("f16 MN-major 128B, N=128"); c.mn = true; c.n = 128; c.en = true; cases.push_back(c); }
  { Case c = mk("tf32 128B, N=48"); c.ty = c.tyB = TF32; c.n = 48; cases.push_back(c); }
  { Case c = mk("e4m3 x e5m2 128B, N=256"); c.ty = E4M3; c.tyB = E5M2; c.n = 256; c.en = true; cases.push_back(c); }
  { Case c = mk("s8 x u8 128B, N=32"); c.ty = S8; c.tyB = U8; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("disable_output_lane, both CTAs"); c.n = 32; c.en = true; c.dis[0] = 0x80000001u; c.dis[3] = 0xffffffffu; c.dis[4] = 0x0000ff00u; c.dis[6] = 1; cases.push_back(c); }
  { Case c = mk("non-multicast commit, relayed"); c.multicast = false; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("ld before the wait reads the old columns"); c.flags = 1; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("the odd CTA's ld before the wait reads the old columns"); c.flags = 1 | 8; c.n = 32; c.en = true; cases.push_back(c); }
  { Case c = mk("racecheck clean"); c.san = 1; c.n = 32; c.en = true; cases.push_back(c); }
  // the odd CTA's early tcgen05.ld: its lanes are the pair MMA's rows 128-255
  // the peer CTA's operand half is read until the commit arrives too: its own overwrite races
  { Case c = mk("racecheck: the odd CTA overwrites its A rows before the wait"); c.san = 1; c.flags = 64; c.n = 32;
    c.hazard = "write-after-read hazard on shared memory [0x0, +4)"; cases.push_back(c); }
  { Case c = mk("racecheck: ld before the wait"); c.san = 1; c.flags = 1 | 8; c.n = 32;
    c.hazard = "read-after-write hazard on tensor memory (lane 0, column 0): tcgen05.ld at PTX line"; cases.push_back(c); }
  // initcheck: the pair MMA's writes count in the odd CTA (it wrote no initial D there and reads
  // only what the MMA wrote); with enable_input_d the MMA itself reads never-written cells there
  { Case c = mk("initcheck clean, odd CTA written by the MMA only"); c.san = 4; c.flags = 16; c.n = 32; cases.push_back(c); }
  { Case c = mk("initcheck: enable_input_d on the odd CTA's unwritten cells"); c.san = 4; c.flags = 16; c.en = true; c.n = 32;
    c.hazard = "tcgen05.mma (its accumulator, enable_input_d)"; cases.push_back(c); }
  { Case c = mk("issued by the odd CTA"); c.flags = 2; c.n = 32; c.fault = "tcgen05.mma.cta_group::2 issued by the odd CTA of the pair (%cluster_ctarank 1)"; cases.push_back(c); }
  { Case c = mk("peer's columns freed"); c.flags = 4; c.n = 32; c.fault = "are not allocated with tcgen05.alloc.cta_group::2 in the peer CTA (%cluster_ctarank 1)"; cases.push_back(c); }
  { Case c = mk("odd CTA frees while the pair MMA is in flight"); c.flags = 32; c.n = 32;
    c.fault = "tcgen05.dealloc while the peer CTA's (%cluster_ctarank 0) tcgen05.mma.cta_group::2, which writes this CTA's tensor memory, is still in flight"; cases.push_back(c); }
  { Case c = mk("cta_group::1 commit after the pair MMA"); c.commit1 = true; c.n = 32;
    c.loadError = "names .cta_group::1 but the tcgen05 instruction at line 23 of the same function names .cta_group::2"; cases.push_back(c); }
  { Case c = mk("cluster of one"); c.cluster = 1; c.ctas = 1; c.n = 32; c.fault = "needs the peer CTA (%cluster_ctarank 1) in the cluster, which has 1 CTA(s)"; cases.push_back(c); }
  { Case c = mk("M=128"); c.n = 32; c.idescXor = (16u ^ 8u) << 24; c.fault = "M = 128 with .cta_group::2 (layout B, 64 rows per CTA) is not simulated yet"; cases.push_back(c); }
  { Case c = mk("N=16"); c.n = 32; c.idescXor = (4u ^ 2u) << 17; c.fault = "N = 16 (bits 17-22) is not a shape for .cta_group::2 M = 256"; cases.push_back(c); }
  for (const Case& c : cases) runCase(c);
  {  // refused by name: the cta_group::1 commit's multicast (valid sm_100a PTX)
    const std::string ptx = R"(.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b16 %rs<2>;
  .shared .align 8 .b64 bar;
  mov.u16 %rs1, 3;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], %rs1;
  ret;
}
)";
    modules.push_back(ptx);
    expectLoadError("cta_group::1 multicast commit", ptx, "tcgen05.commit.cta_group::1 .multicast::cluster is not simulated yet");
  }
  {  // the .cta_group rule across a call: a kernel allocating with ::2 calls a function allocating with ::1
    const std::string ptx = R"(.version 8.8
.target sm_100a
.address_size 64
.func f1(.param .b32 a)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b32 slot[2];
  mov.u32 %r4, slot;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 32;
  add.u32 %r5, %r4, 4;
  { .param .b32 pa; st.param.b32 [pa], %r5; call.uni f1, (pa); }
  ret;
}
)";
    refused.push_back(ptx);
    expectLoadError("mixed across a call", ptx, "kernel 'k' reaches tcgen05 instructions with .cta_group::2 (in 'k', line 16) and .cta_group::1 (in 'f1')");
  }
  const char* ptxas = ptxasArg(argc, argv);
  expectPtxas(ptxas, modules);
  expectPtxas(ptxas, refused, false);  // what the sim refuses at load, ptxas refuses too
  return finish("ptx_tcgen05_mma_pair_test");
}
