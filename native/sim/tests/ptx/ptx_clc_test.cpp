// clusterlaunchcontrol (sm_100): try_cancel cancels a not-yet-started cluster of the grid, which
// then never runs, and hands its first ctaid to the caller through an asynchronous 16-byte response
// (complete_tx on an mbarrier); query_cancel decodes it. Checked: a persistent work-stealing kernel
// processes every tile exactly once, with few CTAs ever started (cluster size 1 with
// get_first_ctaid::x, and clusters of 2 with .multicast::cluster::all and get_first_ctaid.v4);
// with nothing left the response is a failure; read before its mbarrier completes the response is
// the stale shared memory; the misuses the ISA leaves undefined are named faults; malformed forms
// are refused at load. `sim_ptx_ptx_clc_test --ptxas PATH` also assembles the module with
// ptxas -arch=sm_100a (sim_ptx_clc_ptxas).
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <string>
#include <vector>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

const char* kPtx = R"(
.version 8.6
.target sm_100a
.address_size 64

// Work stealing, clusters of 1: each CTA adds 1 to count[tile] for its own tile (ctaid.x), then
// steals tiles with try_cancel until a response says none is left; started[0] counts CTAs started.
.visible .entry steal(.param .u64 count, .param .u64 started)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b128 %q;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 resp[16];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.param.u64 %rd1, [count];
  ld.param.u64 %rd2, [started];
  atom.global.add.u32 %r2, [%rd2], 1;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, 0;
LOOP:
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  atom.global.add.u32 %r5, [%rd4], 1;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r4;
  @!%p2 bra WAIT;
  xor.b32 %r4, %r4, 1;
  ld.shared.b128 %q, [resp];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
  @!%p3 bra END;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r3, %q;
  bra LOOP;
END:
  ret;
}

// Work stealing, clusters of 2 along x: rank 0 thread 0 issues a multicast try_cancel; each CTA
// waits on its own mbarrier, reads the same response and takes tile first.x + rank, first.y.
// count is indexed [y * gx + x]; gx is the grid's x size.
.visible .entry steal2(.param .u64 count, .param .u64 started, .param .u32 gx)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .b128 %q;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 resp[16];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p4, %r2, 0;
  ld.param.u64 %rd1, [count];
  ld.param.u64 %rd2, [started];
  ld.param.u32 %r12, [gx];
  @!%p1 atom.global.add.u32 %r9, [%rd2], 1;
  @!%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @%p1 bra DONE;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r4, 0;
LOOP:
  mad.lo.u32 %r6, %r5, %r12, %r3;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd1, %rd3;
  atom.global.add.u32 %r7, [%rd4], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @%p4 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [bar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r4;
  @!%p2 bra WAIT;
  xor.b32 %r4, %r4, 1;
  ld.shared.b128 %q, [resp];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
  @!%p3 bra END;
  clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r3, %r5, %r8, _}, %q;
  add.u32 %r3, %r3, %r2;
  bra LOOP;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
DONE:
  ret;
}

// One thread per CTA. One try_cancel; out[0..4) = the response read at once (before the wait), out[4..8) = after the
// wait, out[8] = is_canceled, out[9] = get_first_ctaid::y (when cancelled). resp starts as 0x55s.
// again != 0: a second try_cancel after the first's failure was observed.
.visible .entry once(.param .u64 out, .param .u32 again)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b128 %q;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 resp[16];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r13, %ctaid.y;
  or.b32 %r1, %r1, %r13;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, 0x55555555;
  st.shared.v4.u32 [resp], {%r2, %r2, %r2, %r2};
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [resp];
  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [resp];
  st.global.v4.u32 [%rd1+16], {%r3, %r4, %r5, %r6};
  ld.shared.b128 %q, [resp];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
  selp.u32 %r7, 1, 0, %p3;
  st.global.u32 [%rd1+32], %r7;
  @%p3 clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r8, %q;
  @%p3 st.global.u32 [%rd1+36], %r8;
  ld.param.u32 %r9, [again];
  setp.ne.u32 %p1, %r9, 0;
  @%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
END:
  ret;
}

// get_first_ctaid of a failed response (a grid of one CTA: nothing to cancel)
.visible .entry badquery(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .b128 %q;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 resp[16];
  mbarrier.init.shared::cta.b64 [bar], 1;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 16;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  ld.shared.b128 %q, [resp];
  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r1, %q;
  clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r2, %r3, %r4, _}, %q;
  ld.param.u64 %rd2, [out];
  st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
  ret;
}

// a misaligned response address
.visible .entry misaligned(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 resp[32];
  mbarrier.init.shared::cta.b64 [bar], 1;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp+8], [bar];
  ret;
}
)";

tsim::Fault runC(Kernel& k, Arena& mem, const char* name, std::vector<uint64_t> args, unsigned gx, unsigned gy,
                 unsigned block, unsigned cluster, unsigned threads = 2) {
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  const tsim::KernelInfo* ki = nullptr;
  for (auto& x : k.mod->kernels()) if (x.name == name) ki = &x;
  std::string log;
  if (!ki || !k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  for (size_t i = 0; i < args.size(); i++) std::memcpy(buf.data() + ki->params[i].offset, &args[i], ki->params[i].size);
  tsim::LaunchConfig cfg;
  cfg.grid[0] = gx;
  cfg.grid[1] = gy;
  cfg.cluster[0] = cluster;
  cfg.block[0] = block;
  cfg.params = buf.data();
  cfg.threads = threads;
  cfg.explicitCluster = cluster > 1;
  cfg.instructionBudget = 50000000;
  tsim::Counters ctr;
  return tsim::launch(*k.mod, *ki, cfg, mem, ctr);
}

}  // namespace

int main(int argc, char** argv) {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_clc_test");
  Arena mem;
  // clusters of 1: 200 tiles, each processed exactly once; the two workers start one CTA each and
  // steal the rest (cancelled CTAs never start)
  {
    const unsigned n = 200;
    uint64_t cnt = mem.alloc(n * 4), st = mem.alloc(4);
    mem.put(cnt, std::vector<uint32_t>(n, 0));
    mem.put(st, std::vector<uint32_t>(1, 0));
    tsim::Fault f = runC(k, mem, "steal", {cnt, st}, n, 1, 32, 1);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(cnt, n);
    for (unsigned i = 0; i < n; i++) CHECK_EQ(v[i], 1u);
    uint32_t started = mem.get<uint32_t>(st, 1)[0];
    CHECK(started >= 1 && started <= 2);
  }
  // clusters of 2 on a 2-D grid (16 x 5), multicast responses and get_first_ctaid.v4
  {
    const unsigned gx = 16, gy = 5, n = gx * gy;
    uint64_t cnt = mem.alloc(n * 4), st = mem.alloc(4);
    mem.put(cnt, std::vector<uint32_t>(n, 0));
    mem.put(st, std::vector<uint32_t>(1, 0));
    tsim::Fault f = runC(k, mem, "steal2", {cnt, st, gx}, gx, gy, 32, 2);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(cnt, n);
    for (unsigned i = 0; i < n; i++) CHECK_EQ(v[i], 1u);
    uint32_t started = mem.get<uint32_t>(st, 1)[0];
    CHECK(started >= 2 && started <= 4);  // two CTAs per started cluster, at most one cluster per worker
  }
  // a grid of 1 x 3: CTA (0,0) cancels (0,1); read at once the response is the stale 0x55s
  {
    uint64_t out = mem.alloc(64);
    mem.put(out, std::vector<uint32_t>(16, 0xdead));
    tsim::Fault f = runC(k, mem, "once", {out, 0}, 1, 3, 1, 1, 1);  // one worker: cluster 1 not yet started
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(out, 10);
    for (int i = 0; i < 4; i++) CHECK_EQ(v[i], 0x55555555u);  // stale: the response had not landed
    CHECK_EQ(v[4], 1u);
    CHECK_EQ(v[8], 1u);  // cancelled
    CHECK_EQ(v[9], 1u);  // the next cluster: ctaid (0, 1, 0)
  }
  // a grid of one CTA: nothing to cancel; the response says so (and the CTA still ran)
  {
    uint64_t out = mem.alloc(64);
    mem.put(out, std::vector<uint32_t>(16, 0xdead));
    tsim::Fault f = runC(k, mem, "once", {out, 0}, 1, 1, 1, 1);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind != tsim::Fault::None) std::printf("%s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(out, 10);
    CHECK_EQ(v[0], 0x55555555u);
    CHECK_EQ(v[4], 0u);
    CHECK_EQ(v[8], 0u);       // not cancelled
    CHECK_EQ(v[9], 0xdeadu);  // get_first_ctaid not run
  }
  // a try_cancel after the CTA observed a failed one: undefined in the ISA, a named fault
  {
    uint64_t out = mem.alloc(64);
    tsim::Fault f = runC(k, mem, "once", {out, 1}, 1, 1, 1, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("issued after this CTA observed a failed try_cancel") != std::string::npos);
    // after a successful one a second request is fine
    tsim::Fault g = runC(k, mem, "once", {out, 1}, 1, 3, 1, 1, 1);
    CHECK_EQ((int)g.kind, 0);
  }
  // get_first_ctaid of a failed response: an unspecified ctaid (compilers decode it and discard
  // it unless is_canceled), all ones on the sim
  {
    uint64_t out = mem.alloc(64);
    tsim::Fault f = runC(k, mem, "badquery", {out}, 1, 1, 1, 1);
    CHECK_EQ((int)f.kind, 0);
    auto v = mem.get<uint32_t>(out, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ(v[i], 0xffffffffu);
  }
  // a response address that is not 16-byte aligned
  {
    uint64_t out = mem.alloc(64);
    tsim::Fault f = runC(k, mem, "misaligned", {out}, 2, 1, 1, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Misaligned);
    CHECK(f.detail.find("aligned") != std::string::npos);
    if (f.detail.find("aligned") == std::string::npos) std::printf("%s\n", f.detail.c_str());
  }
  // forms the ISA does not define are refused at load
  const char* bad[] = {
      "clusterlaunchcontrol.try_cancel.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r1];",
      "clusterlaunchcontrol.try_cancel.async.shared::cta.b128 [%r1], [%r1];",
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %r1, %q;",
      "clusterlaunchcontrol.query_cancel.get_first_ctaid.b32.b128 %r1, %q;",
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.v4.b32.b128 {%r1, %r1, %r1, %r1}, %q;",
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r1, %r1;",
      "clusterlaunchcontrol.query_cancel.is_canceled.get_first_ctaid::x.pred.b128 %p1, %q;",
  };
  for (const char* b : bad) {
    std::string text = std::string(".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry t()\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<2>;\n  .reg .b128 %q;\n  ") + b + "\n  ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(text, log);
    CHECK(!m);
    if (m) std::printf("accepted: %s\n", b);
  }
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_clc_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_clc_test");
}
