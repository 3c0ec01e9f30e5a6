// st.async / red.async (sm_90): stores and reductions into another CTA of the cluster that land,
// with complete_tx of their bytes on that CTA's mbarrier, when it is tested. Exact expected values
// (a v4 store, add/min/xor reductions from three ranks, repeated over 4 clusters and 2 workers);
// the consumer that skips the mbarrier wait reads stale shared memory (a wrong result, never a
// silent pass); racecheck is clean with the wait; cp.reduce.async.bulk into another CTA's shared
// memory (.add.u32, .min.s32) reduces as it lands; a store to the executing CTA's own memory and
// malformed forms are refused by name.
#include <cstring>
#include <string>
#include <vector>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

const char* kPtx = R"(
.version 8.1
.target sm_90a
.address_size 64

// st.async / red.async: clusters of 4; ranks 1..3 (thread 0) store {10r+1..10r+4} into rank 0's
// buf[4(r-1)..] (st.async.v4.b32), add r to cnt (red.async.add.u32), min 100r - 250 into mn
// (red.async.min.s32, mn starts at 1000) and xor 1 << r into bits (red.async.xor.b32), each with
// complete_tx on rank 0's mbarrier; rank 0 expects 3 * (16 + 4 + 4 + 4) bytes, waits for the phase
// (unless wait is 0) and copies buf, cnt, mn and bits to out[0..15).
.visible .entry sta(.param .u64 out, .param .u32 wait)
{
  .reg .pred %p<6>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 buf[16];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [bar], 1;
  @%p3 st.shared.u32 [buf+52], 1000;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  @%p2 bra CONSUME;
  mov.u32 %r3, buf;
  sub.u32 %r4, %r2, 1;
  shl.b32 %r5, %r4, 4;
  add.u32 %r6, %r3, %r5;
  mapa.shared::cluster.u32 %r7, %r6, 0;
  mov.u32 %r8, bar;
  mapa.shared::cluster.u32 %r9, %r8, 0;
  mul.lo.u32 %r10, %r2, 10;
  add.u32 %r11, %r10, 1;
  add.u32 %r12, %r10, 2;
  add.u32 %r13, %r10, 3;
  add.u32 %r14, %r10, 4;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r7], {%r11, %r12, %r13, %r14}, [%r9]; // @sta-st
  mapa.shared::cluster.u32 %r15, %r3, 0;
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r15+48], %r2, [%r9];
  mul.lo.u32 %r16, %r2, 100;
  sub.u32 %r17, %r16, 250;
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [%r15+52], %r17, [%r9];
  shl.b32 %r18, 1, %r2;
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 [%r15+56], %r18, [%r9];
  bra END;
CONSUME:
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 84;
  ld.param.u32 %r19, [wait];
  setp.eq.u32 %p4, %r19, 0;
  @%p4 bra COPY0;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p5, [bar], 0;
  @!%p5 bra WAIT;
COPY0:
  ld.param.u64 %rd1, [out];
  mov.u32 %r20, 0;
COPY:
  mov.u32 %r21, buf;
  shl.b32 %r22, %r20, 2;
  add.u32 %r21, %r21, %r22;
  ld.shared.u32 %r23, [%r21];
  mul.wide.u32 %rd2, %r20, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r23;
  add.u32 %r20, %r20, 1;
  setp.lt.u32 %p4, %r20, 15;
  @%p4 bra COPY;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// st.async to the executing CTA's own shared memory (the ISA leaves it undefined: a fault)
.visible .entry staself(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 8 .b64 bar2;
  .shared .align 4 .b32 x;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, x;
  mapa.shared::cluster.u32 %r3, %r2, %r1;
  mov.u32 %r4, bar2;
  mapa.shared::cluster.u32 %r5, %r4, %r1;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r3], 7, [%r5];
  ret;
}

// cp.reduce.async.bulk into shared::cluster: clusters of 2; rank 0 holds dst = {10, 20, 30, 40 |
// 5, -5, 7, 0} and an mbarrier expecting 32 bytes; rank 1 (thread 0) reduces its src = {1, 2, 3,
// 4 | 3, 3, -9, 0} into them (.add.u32 on the first 16 bytes, .min.s32 on the next 16); rank 0
// waits and copies dst to out[0..8).
.visible .entry credu(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 dst[8];
  .shared .align 16 .b32 src[8];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra SYNC;
  setp.eq.u32 %p2, %r2, 0;
  @!%p2 bra FILLSRC;
  mbarrier.init.shared::cta.b64 [bar], 1;
  st.shared.v4.u32 [dst], {10, 20, 30, 40};
  st.shared.v4.u32 [dst+16], {5, -5, 7, 0};
  bra SYNC;
FILLSRC:
  st.shared.v4.u32 [src], {1, 2, 3, 4};
  st.shared.v4.u32 [src+16], {3, 3, -9, 0};
  fence.proxy.async.shared::cta;
SYNC:
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  @%p2 bra CONSUME;
  mov.u32 %r3, dst;
  mapa.shared::cluster.u32 %r4, %r3, 0;
  mov.u32 %r5, bar;
  mapa.shared::cluster.u32 %r6, %r5, 0;
  mov.u32 %r7, src;
  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r4], [%r7], 16, [%r6];
  add.u32 %r8, %r4, 16;
  add.u32 %r9, %r7, 16;
  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32 [%r8], [%r9], 16, [%r6];
  bra END;
CONSUME:
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 32;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [bar], 0;
  @!%p3 bra WAIT;
  ld.param.u64 %rd1, [out];
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [dst];
  ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [dst+16];
  st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+16], {%r14, %r15, %r16, %r17};
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

tsim::Fault runC(Kernel& k, Arena& mem, const char* name, std::vector<uint64_t> args, unsigned grid, unsigned block,
                 unsigned cluster, unsigned sanitize = 0) {
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  const tsim::KernelInfo* ki = nullptr;
  for (auto& x : k.mod->kernels()) if (x.name == name) ki = &x;
  std::string log;
  if (!ki || !k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  for (size_t i = 0; i < args.size(); i++) std::memcpy(buf.data() + ki->params[i].offset, &args[i], ki->params[i].size);
  tsim::LaunchConfig cfg;
  cfg.grid[0] = grid;
  cfg.cluster[0] = cluster;
  cfg.block[0] = block;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.explicitCluster = true;
  cfg.instructionBudget = 50000000;
  cfg.sanitize = sanitize;
  tsim::Counters ctr;
  return tsim::launch(*k.mod, *ki, cfg, mem, ctr);
}

}  // namespace

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_st_async_test");
  Arena mem;
  const unsigned clusters = 4;
  uint64_t out = mem.alloc(clusters * 4 * 64);
  // with the wait: every rank's store and reductions have landed (only rank 0 of each cluster
  // writes out; the launch is 4 clusters of 4 and each rank 0 writes the same 15 words)
  for (unsigned sanitize : {0u, 1u}) {
    mem.put(out, std::vector<uint32_t>(16, 0xdead));
    tsim::Fault f = runC(k, mem, "sta", {out, 1}, clusters * 4, 32, 4, sanitize);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(out, 15);
    for (unsigned r = 1; r <= 3; r++)
      for (unsigned j = 0; j < 4; j++) CHECK_EQ(v[4 * (r - 1) + j], 10 * r + j + 1);
    CHECK_EQ(v[12], 1u + 2u + 3u);                 // add
    CHECK_EQ(v[13], (uint32_t)-150);               // min over 1000, -150, -50, 50 (signed)
    CHECK_EQ(v[14], (1u << 1) ^ (1u << 2) ^ (1u << 3));  // xor
  }
  // without it: rank 0 reads before anything landed (stale: zeros, and mn's 1000)
  {
    mem.put(out, std::vector<uint32_t>(16, 0xdead));
    tsim::Fault f = runC(k, mem, "sta", {out, 0}, 4, 32, 4);
    CHECK_EQ((int)f.kind, 0);
    auto v = mem.get<uint32_t>(out, 15);
    CHECK_EQ(v[0], 0u);
    CHECK_EQ(v[12], 0u);
    CHECK_EQ(v[13], 1000u);
  }
  // cp.reduce.async.bulk into another CTA's shared memory: reduced as it lands
  {
    uint64_t o = mem.alloc(32);
    mem.put(o, std::vector<uint32_t>(8, 0xdead));
    tsim::Fault f = runC(k, mem, "credu", {o}, 4, 32, 2, 1);  // racecheck on: clean
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(o, 8);
    const uint32_t want[8] = {11, 22, 33, 44, 3, (uint32_t)-5, (uint32_t)-9, 0};
    for (int i = 0; i < 8; i++) CHECK_EQ(v[i], want[i]);
  }
  // the ISA requires another CTA's memory: the sim faults, saying so
  {
    tsim::Fault f = runC(k, mem, "staself", {out}, 2, 32, 2);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("st.async: the destination is in the executing CTA") != std::string::npos);
  }
  // forms the ISA does not define are refused at load, by name
  const char* bad[] = {
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 [%r1], {%rd1, %rd1, %rd1, %rd1}, [%r1];",
      "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.s32 [%r1], %r1, [%r1];",
      "red.async.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r1, [%r1];",
      "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.f32 [%r1], %r1, [%r1];",
      "atom.async.shared::cluster.add.u32 %r1, [%r1], %r1;",
      "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.u64 [%r1], [%r1], 16, [%r1];",
      "cp.reduce.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.add.u32 [%r1], [%rd1], 16, [%r1];",
  };
  for (const char* b : bad) {
    std::string text = std::string(".version 8.1\n.target sm_90a\n.address_size 64\n.visible .entry t()\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n  ") + b + "\n  ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(text, log);
    CHECK(!m);
    if (m) std::printf("accepted: %s\n", b);
  }
  return finish("ptx_st_async_test");
}
