// racecheck across proxies in global memory (sanitize_proxy.cpp). From the PTX memory model: a
// bulk or tensor copy (the async proxy) reads global bytes the kernel wrote with st.global (the
// generic proxy) only if a fence.proxy.async covering global memory (`.global`, or no state
// space) comes between the write and the copy. The sim makes the write visible at once (the copy
// reads the new bytes either way), so racecheck names the missing fence: a report with no fence or
// with only fence.proxy.async.shared::cta (which does not cover global memory), none with
// `.global` or the unqualified fence, none when the writes are elsewhere, and none without
// racecheck (the result is the same in every case).
#include "ptx_harness.h"

using namespace ptxtest;

// 32 threads write word tid of `buf` (src + 128 * where) = tid + 1 through the generic proxy, fence
// as `mode` says (0 none, 1 .global, 2 unqualified, 3 .shared::cta), bar.sync; thread 0 copies the
// 128 bytes at src into shared with cp.async.bulk and every thread stores word tid to out.
static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry wr(.param .u64 out, .param .u64 src, .param .u32 mode, .param .u32 where)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b8 buf[128];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r9, [mode];
  ld.param.u32 %r10, [where];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  mul.wide.u32 %rd3, %r10, 128;
  add.s64 %rd4, %rd2, %rd3;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  add.u32 %r2, %r1, 1;
  st.global.u32 [%rd6], %r2;
  setp.eq.u32 %p2, %r9, 1;
  setp.eq.u32 %p3, %r9, 2;
  setp.eq.u32 %p4, %r9, 3;
  @%p2 fence.proxy.async.global;
  @%p3 fence.proxy.async;
  @%p4 fence.proxy.async.shared::cta;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd7, [bar], 128;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 128, [bar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], 0;
  @!%p5 bra WAIT;
  mov.u32 %r3, buf;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  ld.shared.u32 %r6, [%r5];
  add.s64 %rd8, %rd1, %rd5;
  st.global.u32 [%rd8], %r6;
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_proxy_global_test");
  Arena mem;
  struct Case { unsigned mode, where, sanitize; bool report; };
  const Case cases[] = {
      {0, 0, 1, true},   // no fence: reported
      {1, 0, 1, false},  // fence.proxy.async.global
      {2, 0, 1, false},  // fence.proxy.async (shared and global)
      {3, 0, 1, true},   // .shared::cta does not order global writes
      {0, 1, 1, false},  // the writes are not what the copy reads
      {0, 0, 0, false},  // racecheck off: nothing checked
  };
  for (const Case& cs : cases) {
    uint64_t src = mem.alloc(256), out = mem.alloc(128);
    std::vector<uint32_t> init(64);
    for (unsigned i = 0; i < 64; i++) init[i] = 0x5000 + i;
    mem.put(src, init);
    tsim::Fault f = k.run(mem, "wr", {out, src, cs.mode, cs.where}, 1, 32, nullptr, 0, 0, 2, 1, 1, cs.sanitize);
    bool report = f.kind == tsim::Fault::Hazard;
    CHECK_EQ(report, cs.report);
    if (report != cs.report) std::printf("mode %u where %u: %s\n", cs.mode, cs.where, f.detail.c_str());
    if (report) {
      CHECK(f.detail.find("proxy hazard on global memory") != std::string::npos);
      CHECK(f.detail.find("cp.async.bulk (async proxy)") != std::string::npos);
      CHECK(f.detail.find("no fence.proxy.async") != std::string::npos);
    } else {
      CHECK_EQ((int)f.kind, 0);
    }
    // the data: the sim makes generic writes visible to the async proxy at once
    auto r = mem.get<uint32_t>(out, 32);
    for (unsigned t = 0; t < 32; t++) CHECK_EQ(r[t], cs.where ? 0x5000 + t : t + 1);
  }
  return finish("ptx_proxy_global_test");
}
