// tcgen05.alloc / dealloc / relinquish_alloc_permit .cta_group::2 (PTX ISA "CTA pair",
// "tcgen05.alloc"): one warp in each CTA of the pair (the CTAs whose %cluster_ctarank differ only
// in bit 0) allocates jointly, and both get the same address, the lowest range free in both.
// Two pair allocations in a row (32 then 64 columns: addresses 0 and 64) in a cluster of 2, in
// lockstep and with TESSERA_SIM_CLUSTER_SKEW (rank 0 running ahead makes both its allocations
// before the peer's first: the peer's allocs still report them in order); every warp of each CTA
// round-trips its quarter of the 64-column range with tcgen05.st / ld, exact values per rank.
// Named faults: only one CTA of the pair allocating, mismatched column counts, no peer CTA in the
// cluster; a cta_group::1 dealloc of pair columns is refused at load (one .cta_group per kernel).
#include "ptx_harness.h"

using namespace ptxtest;

namespace {

// out[rank*512 + tid*4 + j] = the value loaded; out[1024 + rank*2 + i] = the address of alloc i.
// ALLOC1 / ALLOC2 are replaced per case.
const char* kPtx = R"(
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 slot[2];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r30, %cluster_ctarank;
  setp.lt.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r30, 0;
  mov.u32 %r4, slot;
  add.u32 %r5, %r4, 4;
ALLOC1
ALLOC2
  bar.sync 0;
  ld.shared.u32 %r9, [slot];
  ld.shared.u32 %r10, [slot+4];
  and.b32 %r6, %r2, 3;
  shl.b32 %r6, %r6, 21;
  add.u32 %r7, %r10, %r6;
  mul.lo.u32 %r11, %r30, 100000;
  mul.lo.u32 %r12, %r2, 1000;
  add.u32 %r11, %r11, %r12;
  add.u32 %r11, %r11, %r3;
  add.u32 %r12, %r11, 32;
  add.u32 %r13, %r11, 64;
  add.u32 %r14, %r11, 96;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r7], {%r11, %r12, %r13, %r14};
  tcgen05.wait::st.sync.aligned;
  tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r20, %r21, %r22, %r23}, [%r7];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd1, [out];
  shl.b32 %r15, %r30, 7;
  add.u32 %r15, %r15, %r1;
  mul.wide.u32 %rd2, %r15, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r20, %r21, %r22, %r23};
  mul.wide.u32 %rd4, %r30, 8;
  add.s64 %rd4, %rd1, %rd4;
  @%p1 st.global.v2.u32 [%rd4+4096], {%r9, %r10};
  bar.sync 0;
DEALLOC
  ret;
}
)";

const char* kAlloc1 = "  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 32;";
const char* kAlloc2 = "  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r5], 64;";
const char* kDealloc =
    "  @%p1 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r9, 32;\n"
    "  @%p1 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r10, 64;\n"
    "  @%p1 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;";

std::string subst(std::string s, const std::string& key, const std::string& val) {
  size_t at = s.find(key);
  if (at != std::string::npos) s.replace(at, key.size(), val);
  return s;
}

std::string module(const std::string& a1, const std::string& a2, const std::string& dealloc) {
  return subst(subst(subst(kPtx, "ALLOC1", a1), "ALLOC2", a2), "DEALLOC", dealloc);
}

// One launch of `ctas` CTAs of 128 threads in clusters of `cluster`.
tsim::Fault run(const std::string& ptx, unsigned ctas, unsigned cluster, unsigned skew, std::vector<uint32_t>* outv) {
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  Kernel k(ptx);
  if (!k.ok()) { bad.detail = "load failed: " + k.log; return bad; }
  Arena mem;
  uint64_t out = mem.alloc(4096 + 64);
  mem.put(out, std::vector<uint32_t>(1024 + 16, 0xcccccccc));
  const tsim::KernelInfo* ki = &k.mod->kernels()[0];
  std::string log;
  if (!k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  std::memcpy(buf.data() + ki->params[0].offset, &out, 8);
  tsim::LaunchConfig cfg;
  cfg.grid[0] = ctas;
  cfg.cluster[0] = cluster;
  cfg.explicitCluster = true;
  cfg.block[0] = 128;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.instructionBudget = 50000000;
  cfg.clusterSkew = skew;
  tsim::Counters ctr;
  tsim::Fault f = tsim::launch(*k.mod, *ki, cfg, mem, ctr);
  if (outv) *outv = mem.get<uint32_t>(out, 1024 + 16);
  return f;
}

void expectFault(const char* name, const std::string& ptx, unsigned ctas, unsigned cluster, const char* phrase) {
  tsim::Fault f = run(ptx, ctas, cluster, 0, nullptr);
  if (f.kind == tsim::Fault::None || f.detail.find(phrase) == std::string::npos) {
    std::printf("%s: expected a fault with \"%s\", got kind %d: %s\n", name, phrase, (int)f.kind, f.detail.c_str());
    ptxtest::failures++;
  }
}

}  // namespace

int main() {
  for (unsigned skew : {0u, 3u}) {
    std::vector<uint32_t> out;
    tsim::Fault f = run(module(kAlloc1, kAlloc2, kDealloc), 2, 2, skew, &out);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) { std::printf("skew %u: %s\n", skew, f.detail.c_str()); continue; }
    for (unsigned rank = 0; rank < 2; rank++) {
      CHECK_EQ(out[1024 + rank * 2], 0u);        // the 32-column pair allocation: columns 0..31 in both
      CHECK_EQ(out[1024 + rank * 2 + 1], 64u);   // the 64-column one: the lowest 64-aligned range free in both
      for (unsigned tid = 0; tid < 128; tid++)
        for (unsigned j = 0; j < 4; j++)
          CHECK_EQ(out[rank * 512 + tid * 4 + j], rank * 100000 + 1000 * (tid / 32) + tid % 32 + 32 * j);
    }
  }
  // only rank 0 allocates (and frees): rank 1 exits without its half of the joint allocation
  expectFault("one CTA allocates",
              module("", "  @!%p2 bra ONLY;\n  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r5], 64;\nONLY:",
                     "  @!%p2 bra SKIP;\n  @%p1 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r10, 64;\nSKIP:"),
              2, 2, "exited without the tcgen05.alloc.cta_group::2 that matches its peer CTA's");
  // the two halves ask for different column counts
  expectFault("mismatched nCols",
              module("  @%p2 bra BIG;\n  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 32;\n  bra.uni DONE;\n"
                     "BIG:\n  @%p1 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 64;\nDONE:",
                     kAlloc2, kDealloc),
              2, 2, "matching tcgen05.alloc.cta_group::2 took");
  // a cluster of one CTA has no pair
  expectFault("no peer", module(kAlloc1, kAlloc2, kDealloc), 1, 1, "needs the peer CTA (%cluster_ctarank 1)");
  // the cta_group of the dealloc must be the alloc's: one .cta_group per kernel, refused at load
  // as ptxas refuses it
  expectFault("dealloc group",
              module(kAlloc1, kAlloc2, "  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r9, 32;"), 2, 2,
              "names .cta_group::1 but the tcgen05 instruction at line 19 of the same function names .cta_group::2");
  // a predicated-off tcgen05.commit.cta_group::2 does nothing, so it needs no peer: here the odd
  // CTA reaches it after rank 0 has exited (rank 0 runs ahead and leaves at once; rank 1 spins
  // first). Faulted with "the peer CTA has already exited" before the predicate was honoured.
  {
    const std::string ptx = R"(
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b16 %rs<2>;
  .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 ret;
  mov.u32 %r2, 4000;
SPIN:
  sub.u32 %r2, %r2, 1;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra SPIN;
  setp.eq.u32 %p3, %r1, 0;
  mov.u16 %rs1, 3;
  @%p3 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], %rs1;
  ret;
}
)";
    for (unsigned skew : {0u, 3u}) {
      tsim::Fault f = run(ptx, 2, 2, skew, nullptr);
      if (f.kind != tsim::Fault::None) {
        std::printf("predicated-off pair commit after the peer exited (skew %u): unexpected fault: %s\n", skew, f.detail.c_str());
        ptxtest::failures++;
      }
    }
  }
  return finish("ptx_tcgen05_pair_test");
}
