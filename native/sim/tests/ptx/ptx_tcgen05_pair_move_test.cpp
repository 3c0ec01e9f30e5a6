// tcgen05.cp.cta_group::2 and tcgen05.shift.cta_group::2 (sm_100a) against the PTX ISA
// ("tcgen05.cp", "tcgen05.shift", "Issue Granularity"): one thread of either CTA of a pair issues
// them and they are done in the tensor memory of both CTAs. A cluster of 2: each CTA fills its
// shared memory with its own words (rank in the top byte), stores known cells (rank, lane,
// column) into columns 0..15 of its 128 lanes; the issuing CTA's thread 0 copies a 128x256b
// matrix (K-major, no swizzle, LBO 128, SBO 256) from its shared memory to columns 0..7, shifts
// the 32 lanes at lane 32, columns 8..15, down one row, and commits with .multicast::cluster to
// both CTAs' mbarriers; both wait and read every cell back. Then in both CTAs: columns 0..7 of
// lane r hold the issuer's row r (its 32 bytes, byte b in column b / 4); lanes 33..63 of columns
// 8..15 hold the old cells of lanes 32..62 of that CTA (lane 32's are left open by the ISA);
// every other cell keeps its value. Run with rank 0 and with rank 1 issuing. Named faults: no
// peer CTA in the cluster.
// `sim_ptx_ptx_tcgen05_pair_move_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include "ptx_harness.h"

using namespace ptxtest;

namespace {

// out[(rank * 128 + lane) * 16 + column]
const char* kPtx = R"(
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 issuer)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<16>;
  .reg .b16 %rs<4>;
  .reg .pred %p<8>;
  .shared .align 1024 .b8 src[4096];
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r30, %cluster_ctarank;
  setp.lt.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r1, 0;
  mov.u32 %r4, slot;
  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
  mov.u32 %r5, bar;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
  // word w of src = (w * 0x9e3779b1 >> 8) | rank << 24
  mov.u32 %r6, src;
  mov.u32 %r7, %r1;
  shl.b32 %r31, %r30, 24;
FILL:
  setp.ge.u32 %p3, %r7, 1024;
  @%p3 bra FILLED;
  mul.lo.u32 %r8, %r7, -1640531535;
  shr.u32 %r8, %r8, 8;
  or.b32 %r8, %r8, %r31;
  shl.b32 %r9, %r7, 2;
  add.u32 %r9, %r9, %r6;
  st.shared.u32 [%r9], %r8;
  add.u32 %r7, %r7, 128;
  bra FILL;
FILLED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  // cells: rank * 1000000 + lane * 100 + column, columns 0..15 of this warp's quarter
  ld.shared.u32 %r10, [slot];
  and.b32 %r11, %r2, 3;
  shl.b32 %r12, %r11, 21;
  add.u32 %r13, %r10, %r12;
  shl.b32 %r14, %r11, 5;
  add.u32 %r14, %r14, %r3;
  mul.lo.u32 %r15, %r30, 1000000;
  mad.lo.u32 %r15, %r14, 100, %r15;
  add.u32 %r40, %r15, 0;
  add.u32 %r41, %r15, 1;
  add.u32 %r42, %r15, 2;
  add.u32 %r43, %r15, 3;
  add.u32 %r44, %r15, 4;
  add.u32 %r45, %r15, 5;
  add.u32 %r46, %r15, 6;
  add.u32 %r47, %r15, 7;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r13], {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47};
  add.u32 %r40, %r15, 8;
  add.u32 %r41, %r15, 9;
  add.u32 %r42, %r15, 10;
  add.u32 %r43, %r15, 11;
  add.u32 %r44, %r15, 12;
  add.u32 %r45, %r15, 13;
  add.u32 %r46, %r15, 14;
  add.u32 %r47, %r15, 15;
  add.u32 %r16, %r13, 8;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r16], {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47};
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  barrier.cluster.arrive.release.aligned;  // both CTAs' cells and mbarriers ready
  barrier.cluster.wait.acquire.aligned;
  tcgen05.fence::after_thread_sync;
  ld.param.u32 %r17, [issuer];
  setp.eq.u32 %p4, %r17, %r30;
  and.pred %p4, %p4, %p2;
  @!%p4 bra ISSUED;
  cvt.u64.u32 %rd1, %r6;
  shr.u64 %rd1, %rd1, 4;
  or.b64 %rd1, %rd1, 70437464178688;  // LBO 128 (8 << 16), SBO 256 (16 << 32), version 1 << 46
ISSUE
ISSUED:
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r5], 0;
  @!%p5 bra WAIT;
  tcgen05.fence::after_thread_sync;
  tcgen05.ld.sync.aligned.32x32b.x16.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, %r51, %r52, %r53, %r54, %r55}, [%r13];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd2, [out];
  shl.b32 %r18, %r30, 7;
  add.u32 %r18, %r18, %r14;
  mul.wide.u32 %rd3, %r18, 64;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd4+16], {%r44, %r45, %r46, %r47};
  st.global.v4.u32 [%rd4+32], {%r48, %r49, %r50, %r51};
  st.global.v4.u32 [%rd4+48], {%r52, %r53, %r54, %r55};
  tcgen05.fence::before_thread_sync;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p1 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r10, 32;
  ret;
}
)";

const char* kIssue =
    "  tcgen05.cp.cta_group::2.128x256b [%r10], %rd1;\n"
    "  add.u32 %r19, %r10, 2097160;  // lane 32, column 8\n"
    "  tcgen05.shift.cta_group::2.down [%r19];\n"
    "  mov.u16 %rs1, 3;\n"
    "  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r5], %rs1;";

std::string module(const std::string& issue) {
  std::string s = kPtx;
  s.replace(s.find("ISSUE\n"), 6, issue + "\n");
  return s;
}

tsim::Fault run(const std::string& ptx, unsigned ctas, unsigned issuer, std::vector<uint32_t>* outv) {
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  Kernel k(ptx);
  if (!k.ok()) { bad.detail = "load failed: " + k.log; return bad; }
  Arena mem;
  uint64_t out = mem.alloc(2 * 128 * 16 * 4);
  mem.put(out, std::vector<uint32_t>(2 * 128 * 16, 0xcccccccc));
  const tsim::KernelInfo* ki = &k.mod->kernels()[0];
  std::string log;
  if (!k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  std::memcpy(buf.data() + ki->params[0].offset, &out, 8);
  std::memcpy(buf.data() + ki->params[1].offset, &issuer, 4);
  tsim::LaunchConfig cfg;
  cfg.grid[0] = ctas;
  cfg.cluster[0] = ctas;
  cfg.explicitCluster = true;
  cfg.block[0] = 128;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.instructionBudget = 50000000;
  tsim::Counters ctr;
  tsim::Fault f = tsim::launch(*k.mod, *ki, cfg, mem, ctr);
  if (outv) *outv = mem.get<uint32_t>(out, 2 * 128 * 16);
  return f;
}

// The issuer's source word w, and byte b of row r of its K-major matrix (LBO 128, SBO 256).
uint32_t srcWord(unsigned rank, unsigned w) { return (uint32_t)(w * 0x9e3779b1u) >> 8 | rank << 24; }
uint32_t srcByte(unsigned rank, unsigned r, unsigned b) {
  const unsigned at = (r / 8) * 256 + (r % 8) * 16 + (b / 16) * 128 + b % 16;
  return (srcWord(rank, at / 4) >> (8 * (at % 4))) & 255;
}

}  // namespace

int main(int argc, char** argv) {
  for (unsigned issuer : {0u, 1u}) {
    std::vector<uint32_t> out;
    tsim::Fault f = run(module(kIssue), 2, issuer, &out);
    if (f.kind != tsim::Fault::None) {
      std::printf("issuer %u: fault %s\n", issuer, f.detail.c_str());
      failures++;
      continue;
    }
    int bad = 0;
    for (unsigned rank = 0; rank < 2; rank++)
      for (unsigned lane = 0; lane < 128; lane++)
        for (unsigned col = 0; col < 16; col++) {
          uint32_t want = rank * 1000000 + lane * 100 + col;
          if (col < 8) {
            want = 0;
            for (unsigned b = 0; b < 4; b++) want |= srcByte(issuer, lane, 4 * col + b) << (8 * b);
          } else if (lane >= 32 && lane < 64) {
            if (lane == 32) continue;  // the first row: open
            want = rank * 1000000 + (lane - 1) * 100 + col;
          }
          const uint32_t got = out[(rank * 128 + lane) * 16 + col];
          if (got != want && bad++ < 6)
            std::printf("issuer %u, rank %u lane %u column %u: got 0x%08x, want 0x%08x\n", issuer, rank, lane, col, got, want);
        }
    if (bad) failures++;
  }
  // a cluster of one CTA has no pair
  expectOutcome("no peer", run(module(kIssue), 1, 0, nullptr), "needs the peer CTA (%cluster_ctarank 1)");
  expectPtxas(ptxasArg(argc, argv), {module(kIssue)});
  return finish("ptx_tcgen05_pair_move_test");
}
