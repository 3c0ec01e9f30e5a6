// mbarrier transaction counts and cp.async.bulk (sm_90) from the PTX ISA:
// - a phase completes only when its pending arrivals and its tx-count are both zero; expect_tx
//   raises the tx-count, complete_tx lowers it (it may go below zero first), arrive.expect_tx is
//   expect_tx then one arrival; try_wait.parity with a suspend-time hint;
// - cp.async.bulk global->shared signals complete_tx(bytes) on its mbarrier; the bytes land no
//   earlier than a test of that mbarrier, so a consumer that skips the wait reads stale shared
//   memory (the sabotage case) and one that waits reads the copy;
// - cp.async.bulk shared->global of a bulk group reads shared memory when wait_group covers the
//   group (overwriting the source before the wait changes what is stored) and lands at CTA exit
//   without a wait; generic writes reach it only through fence.proxy.async (without the fence the
//   store sees the previously fenced bytes); wait_group.read only reads the source: the global
//   writes land at the full wait_group (a read-back after the .read wait sees the old bytes);
// - faults: a size that is not a multiple of 16, a misaligned address, a source outside every
//   allocation, a tx-count out of range; forms not implemented are refused at load.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry tx(.param .u64 out)
{
  .reg .pred %p<12>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 64;   // pending 0, tx 64
  mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd2;          // 0: bytes outstanding
  mbarrier.complete_tx.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;      // 0
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;   // tx 0: phase 0 completes
  mbarrier.test_wait.shared::cta.b64 %p3, [bar], %rd2;          // 1
  // phase 1: complete_tx before expect_tx (tx goes to -16), then the arrival that expects it
  mbarrier.complete_tx.shared::cta.b64 [bar], 16;
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 1, 1000; // 0 (suspend hint)
  mbarrier.expect_tx.shared::cta.b64 [bar], 48;                 // tx 32
  mbarrier.arrive.shared::cta.b64 %rd3, [bar];                  // pending 0, tx 32: not complete
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], 1;       // 0
  mbarrier.pending_count.b64 %r1, %rd3;                         // 0
  mbarrier.complete_tx.shared::cta.b64 [bar], 32;               // completes phase 1
  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p6, [bar], 1;  // 1
  // phase 2: expect_tx 0 with the arrival completes at once
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd4, [bar], 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p7, [bar], 0;      // 1
  // a generic address and the cluster scope (a cluster of one CTA)
  mov.u64 %rd5, bar;
  cvta.shared.u64 %rd6, %rd5;
  mbarrier.arrive.expect_tx.release.cluster.b64 %rd7, [%rd6], 16;
  mbarrier.complete_tx.shared::cluster.b64 [bar], 16;
  mbarrier.test_wait.parity.b64 %p8, [%rd6], 1;                 // 1
  selp.u32 %r2, 1, 0, %p1;  st.global.u32 [%rd1], %r2;
  selp.u32 %r2, 1, 0, %p2;  st.global.u32 [%rd1+4], %r2;
  selp.u32 %r2, 1, 0, %p3;  st.global.u32 [%rd1+8], %r2;
  selp.u32 %r2, 1, 0, %p4;  st.global.u32 [%rd1+12], %r2;
  selp.u32 %r2, 1, 0, %p5;  st.global.u32 [%rd1+16], %r2;
  st.global.u32 [%rd1+20], %r1;
  selp.u32 %r2, 1, 0, %p6;  st.global.u32 [%rd1+24], %r2;
  selp.u32 %r2, 1, 0, %p7;  st.global.u32 [%rd1+28], %r2;
  selp.u32 %r2, 1, 0, %p8;  st.global.u32 [%rd1+32], %r2;
  ret;
}

// 128 threads: thread 0 expects 512 bytes and copies 2 x 256 bytes from global into shared; every
// thread then reads word tid (wait = 1: after try_wait.parity; wait = 0: without waiting, then it
// tests the barrier and reads again).
.visible .entry load(.param .u64 out, .param .u64 in, .param .u32 wait)
{
  .reg .pred %p<6>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b8 buf[512];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r9, [wait];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  // fill buf with 0xAA bytes first (generic-proxy writes), then order them before the async proxy
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], 0xAAAAAAAA;
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 512;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+256], [%rd2+256], 256, [bar];
  setp.ne.u32 %p2, %r9, 0;
  @!%p2 bra NOWAIT;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
  @!%p3 bra WAIT;
NOWAIT:
  ld.shared.u32 %r5, [%r4];
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r5;
  // then wait (every thread) and read again
WAIT2:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
  @!%p3 bra WAIT2;
  ld.shared.u32 %r6, [%r4];
  st.global.u32 [%rd5+4], %r6;
  ret;
}

// bulk store: 32 threads write words tid*3 into shared, fence.proxy.async, thread 0 stores 128
// bytes to global with a bulk group. mode 0: wait_group 0 then overwrite the source; mode 1:
// overwrite the source (and fence.proxy.async) before the wait: the stored bytes are the new ones;
// mode 2: the same with no wait at all (the store completes at exit); mode 3: overwrite without
// the proxy fence: the async proxy still sees the fenced values.
.visible .entry store(.param .u64 out, .param .u32 mode)
{
  .reg .pred %p<6>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b8 src[128];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [mode];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, src;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [src], 128;
  @%p1 cp.async.bulk.commit_group;
  setp.eq.u32 %p2, %r9, 0;
  @%p2 cp.async.bulk.wait_group.read 0;
  bar.sync 0;
  st.shared.u32 [%r5], 7777;
  setp.ne.u32 %p4, %r9, 3;
  @%p4 fence.proxy.async.shared::cta;   // mode 3: no proxy fence after the overwrite
  bar.sync 0;
  setp.ge.u32 %p3, %r9, 1;
  @%p3 cp.async.bulk.wait_group 0;
  ret;
}

// bulk store read back: 32 threads write words tid*3 into shared, thread 0 stores the 128 bytes to
// out (0xAA.. before), then thread 0 reads words 4-7 of out back into out2. mode 0: after
// wait_group.read 0 only, so the global writes may still be pending (old bytes read back); the
// source is then overwritten (9999), which must not change what lands at exit. mode 1: after the
// full wait_group 0 (the stored words). mode 2: the source is overwritten (7777) before the .read
// wait: the store may read it any time until then (the new words land).
.visible .entry readback(.param .u64 out, .param .u64 out2, .param .u32 mode)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b8 src[128];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [out2];
  ld.param.u32 %r9, [mode];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, src;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [src], 128;
  @%p1 cp.async.bulk.commit_group;
  setp.eq.u32 %p2, %r9, 2;
  @%p2 st.shared.u32 [%r5], 7777;
  @%p2 fence.proxy.async.shared::cta;
  @%p2 bar.sync 0;
  setp.eq.u32 %p3, %r9, 1;
  and.pred %p4, %p1, %p3;
  @%p4 cp.async.bulk.wait_group 0;
  not.pred %p5, %p3;
  and.pred %p6, %p1, %p5;
  @%p6 cp.async.bulk.wait_group.read 0;
  bar.sync 0;
  @%p5 st.shared.u32 [%r5], 9999;
  @%p5 fence.proxy.async.shared::cta;
  bar.sync 0;
  @!%p1 bra END;
  ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd1+16];
  st.global.v4.u32 [%rd2], {%r10, %r11, %r12, %r13};
END:
  ret;
}

// cp.reduce.async.bulk: 32 threads fill 7 x 16 bytes of shared memory, thread 0 reduces them into
// global memory (two CTAs: each element is reduced twice, atomically)
.visible .entry reduce(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 s[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  // words 0-3 f32 1.5; 4-7 u32 5; 8-11 s32 -7; 12-15 u32 3 (inc limit); 16-19 f16x2 {hi: 0.5, lo: 0.25};
  // 20-23 bf16x2 {hi: 3, lo: -1}; 24-27 b64 0x0f0f... (xor)
  setp.lt.u32 %p1, %r1, 4;  @%p1 st.shared.u32 [%r4], 0x3fc00000;
  setp.ge.u32 %p1, %r1, 4;  @%p1 st.shared.u32 [%r4], 5;
  setp.ge.u32 %p1, %r1, 8;  @%p1 st.shared.u32 [%r4], 0xfffffff9;
  setp.ge.u32 %p1, %r1, 12; @%p1 st.shared.u32 [%r4], 3;
  setp.ge.u32 %p1, %r1, 16; @%p1 st.shared.u32 [%r4], 0x38003400;
  setp.ge.u32 %p1, %r1, 20; @%p1 st.shared.u32 [%r4], 0x4040bf80;
  setp.ge.u32 %p1, %r1, 24; @%p1 st.shared.u32 [%r4], 0x0f0f0f0f;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra END;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [s], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1+16], [s+16], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%rd1+32], [s+32], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%rd1+48], [s+48], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1+64], [s+64], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.max.bf16 [%rd1+80], [s+80], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%rd1+96], [s+96], 16;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
END:
  ret;
}

.visible .entry bad(.param .u64 in, .param .u32 size, .param .u32 off)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b8 buf[512];
  ld.param.u64 %rd1, [in];
  ld.param.u32 %r1, [size];
  ld.param.u32 %r2, [off];
  cvt.u64.u32 %rd2, %r2;
  add.s64 %rd3, %rd1, %rd2;
  mbarrier.init.shared::cta.b64 [bar], 1;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd3], %r1, [bar];
  ret;
}

.visible .entry txover()
{
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.expect_tx.shared::cta.b64 [bar], 1048575;
  mbarrier.expect_tx.shared::cta.b64 [bar], 1;
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_bulk_test");
  Arena mem;
  {
    uint64_t out = mem.alloc(64);
    tsim::Fault f = k.run(mem, "tx", {out}, 1, 1);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(out, 9);
    const uint32_t want[9] = {0, 0, 1, 0, 0, 0, 1, 1, 1};
    for (int i = 0; i < 9; i++) {
      if (r[i] != want[i]) std::printf("tx[%d] = %u, want %u\n", i, r[i], want[i]);
      CHECK_EQ(r[i], want[i]);
    }
  }
  std::vector<uint32_t> src(128);
  for (unsigned i = 0; i < 128; i++) src[i] = 0x1000 + i * 17;
  for (int wait = 1; wait >= 0; wait--) {
    uint64_t in = mem.alloc(512), out = mem.alloc(128 * 8);
    mem.put(in, src);
    tsim::Fault f = k.run(mem, "load", {out, in, (uint64_t)wait}, 1, 128);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(out, 256);
    unsigned firstOk = 0, stale = 0, secondOk = 0;
    for (unsigned t = 0; t < 128; t++) {
      firstOk += r[2 * t] == src[t];
      stale += r[2 * t] == 0xAAAAAAAAu;
      secondOk += r[2 * t + 1] == src[t];
    }
    CHECK_EQ(secondOk, 128u);
    if (wait) CHECK_EQ(firstOk, 128u);
    // without the wait, the threads that read before any test of the barrier see the old bytes
    // (thread 0's warp reads before anyone tested it)
    else CHECK(stale >= 32);
  }
  for (int mode = 0; mode < 4; mode++) {
    uint64_t out = mem.alloc(128);
    tsim::Fault f = k.run(mem, "store", {out, (uint64_t)mode}, 1, 32);
    CHECK_EQ((int)f.kind, 0);
    auto r = mem.get<uint32_t>(out, 32);
    unsigned orig = 0, over = 0;
    for (unsigned t = 0; t < 32; t++) {
      orig += r[t] == t * 3;
      over += r[t] == 7777;
    }
    if (mode == 0 || mode == 3) CHECK_EQ(orig, 32u);
    else CHECK_EQ(over, 32u);  // read at the later wait / at exit: the overwritten (and fenced) source
  }
  for (int mode = 0; mode < 3; mode++) {
    uint64_t out = mem.alloc(128), out2 = mem.alloc(16);
    mem.put(out, std::vector<uint32_t>(32, 0xAAAAAAAAu));
    tsim::Fault f = k.run(mem, "readback", {out, out2, (uint64_t)mode}, 1, 32);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(out, 32);
    auto b = mem.get<uint32_t>(out2, 4);
    for (unsigned t = 0; t < 32; t++) {
      uint32_t want = mode == 2 ? 7777u : t * 3;  // what landed (at the full wait or at exit)
      if (r[t] != want) std::printf("readback mode %d: out[%u] = %u, want %u\n", mode, t, r[t], want);
      CHECK_EQ(r[t], want);
    }
    for (unsigned i = 0; i < 4; i++) {
      // read back before the full wait: the old bytes; after it: the stored ones
      uint32_t want = mode == 1 ? (4 + i) * 3 : 0xAAAAAAAAu;
      if (b[i] != want) std::printf("readback mode %d: word %u read back as %u, want %u\n", mode, 4 + i, b[i], want);
      CHECK_EQ(b[i], want);
    }
  }
  {
    uint64_t out = mem.alloc(112);
    std::vector<uint32_t> init(28, 0);
    for (int i = 0; i < 4; i++) init[i] = fbits(0.25f);       // f32: 0.25 + 1.5 + 1.5
    for (int i = 4; i < 8; i++) init[i] = 100;                // u32: 100 + 5 + 5
    for (int i = 8; i < 12; i++) init[i] = (uint32_t)-3;      // s32 min(-3, -7, -7)
    for (int i = 12; i < 16; i++) init[i] = 1;                // inc limit 3: 1 -> 2 -> 3
    for (int i = 16; i < 20; i++) init[i] = 0x3c003c00;       // f16 1.0 + {0.25, 0.5} twice
    for (int i = 20; i < 24; i++) init[i] = 0x3f803f80;       // bf16 max(1, {-1, 3})
    for (int i = 24; i < 28; i++) init[i] = 0xffffffff;       // xor twice: unchanged
    mem.put(out, init);
    tsim::Fault f = k.run(mem, "reduce", {out}, 2, 32);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(out, 28);
    for (int i = 0; i < 4; i++) CHECK_EQ(r[i], fbits(3.25f));
    for (int i = 4; i < 8; i++) CHECK_EQ(r[i], 110u);
    for (int i = 8; i < 12; i++) CHECK_EQ(r[i], (uint32_t)-7);
    for (int i = 12; i < 16; i++) CHECK_EQ(r[i], 3u);
    for (int i = 16; i < 20; i++) CHECK_EQ(r[i], 0x40003e00u);  // {hi: 1 + 0.5 + 0.5 = 2 (0x4000), lo: 1 + 0.25 + 0.25 = 1.5 (0x3e00)}
    for (int i = 20; i < 24; i++) CHECK_EQ(r[i], 0x40403f80u);  // {hi: max(1, 3) = 3, lo: max(1, -1) = 1}
    for (int i = 24; i < 28; i++) CHECK_EQ(r[i], 0xffffffffu);
  }
  {
    uint64_t in = mem.alloc(512);
    tsim::Fault f = k.run(mem, "bad", {in, 40, 0}, 1, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Misaligned);
    CHECK(f.detail.find("multiple of 16") != std::string::npos);
    f = k.run(mem, "bad", {in, 32, 8}, 1, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Misaligned);
    f = k.run(mem, "bad", {in, 512, 16}, 1, 1);  // 16 bytes past the end of the allocation
    CHECK_EQ((int)f.kind, (int)tsim::Fault::OutOfBounds);
    f = k.run(mem, "txover", {}, 1, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("tx-count") != std::string::npos);
  }
  const char* refused[] = {
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%rd1], [%rd1], 16, [%rd1], %rs1;",
      "cp.async.bulk.tensor.1d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd1], [%rd1, {%r1}], [%rd1];",
      "cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [%rd1], [%rd1], 16, [%rd1];",
      "mbarrier.arrive.complete_tx.shared::cta.b64 %rd1, [%rd1], 16;",
      "mbarrier.expect_tx.shared::cta.b64 %rd1, [%rd1], 16;",
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%rd1], 16;",
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 [%rd1], [%rd1], 16;",
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.and.u32 [%rd1], [%rd1], 16;",
      "cp.async.ca.shared.global.tile [%rd1], [%rd1], 16;",
      "cp.async.bulk.shared::cluster.global.ca.mbarrier::complete_tx::bytes [%rd1], [%rd1], 16, [%rd1];",
  };
  for (const char* b : refused) {
    std::string ptx = std::string(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b16 %rs<2>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ") + b + "\n ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m) std::printf("accepted: %s\n", b);
    CHECK(!m);
  }
  return finish("ptx_bulk_test");
}
