// mbarrier (sm_80) from the ISA: init sets the pending and expected counts; arrive returns a state
// whose phase test_wait checks; the last arrival completes the phase and restores the pending
// count; .parity tests by the phase's parity; arrive_drop lowers the expected count of later
// phases; .noComplete arrivals must not complete; pending_count reads a state.
// cp.async.mbarrier.arrive: the arrival waits for the thread's earlier copies, and the copies land
// no earlier than the mbarrier is tested (a read before that sees old shared memory); without
// .noinc the pending count goes up at issue. A CTA-wide producer/consumer handshake on 2 warps.
// Misuse faults: arrivals with none pending, .noComplete that would complete, init out of range,
// an mbarrier outside shared memory. The sm_90 forms (tx-counts, .cluster) are in ptx_bulk_test.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry phases(.param .u64 out)
{
  .reg .pred %p<12>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mbarrier.init.shared.b64 [bar], 3;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd2;          // 0: phase 0 not over
  mbarrier.pending_count.b64 %r1, %rd2;                    // 2
  mbarrier.arrive.shared.b64 %rd3, [bar];
  mbarrier.arrive.shared.b64 %rd4, [bar];                  // completes phase 0
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;          // 1
  mbarrier.pending_count.b64 %r2, %rd4;                    // 0 (the completing arrival)
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;      // 1: the even phase is over
  mbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;      // 0: phase 1 (odd) is current
  mbarrier.arrive.shared.b64 %rd5, [bar];                  // phase 1: pending back to 3, now 2
  mbarrier.test_wait.shared.b64 %p5, [bar], %rd5;          // 0
  mbarrier.pending_count.b64 %r3, %rd5;                    // 2
  // arrive_drop: expected 3 -> 2 from the next phase on
  mbarrier.arrive_drop.shared.b64 %rd6, [bar];             // pending 1
  mbarrier.arrive.shared.b64 %rd7, [bar];                  // completes phase 1; pending = 2
  mbarrier.test_wait.shared.b64 %p6, [bar], %rd5;          // 1
  mbarrier.arrive.shared.b64 %rd8, [bar];
  mbarrier.pending_count.b64 %r4, %rd8;                    // 1
  mbarrier.arrive.shared::cta.b64 %rd9, [bar];             // completes phase 2 with 2 arrivals
  mbarrier.test_wait.parity.shared.b64 %p7, [bar], 0;      // 0: phase 3 (odd) is over? no: phase 2 even is over, 3 current -> parity 0 over
  mbarrier.test_wait.shared.b64 %p8, [bar], %rd8;          // 1
  // .noComplete with a count: 2 of 2 would complete, 1 of 2 does not
  mbarrier.arrive.noComplete.shared.b64 %rd10, [bar], 1;
  mbarrier.pending_count.b64 %r5, %rd10;                   // 1
  // inval then init again from a register count
  mbarrier.inval.shared.b64 [bar];
  mov.u32 %r6, 1;
  mbarrier.init.shared.b64 [bar], %r6;
  mbarrier.arrive.shared.b64 %rd11, [bar];
  mbarrier.test_wait.shared.b64 %p9, [bar], %rd11;         // 1
  selp.u32 %r7, 1, 0, %p1;   st.global.u32 [%rd1], %r7;
  st.global.u32 [%rd1+4], %r1;
  selp.u32 %r7, 1, 0, %p2;   st.global.u32 [%rd1+8], %r7;
  st.global.u32 [%rd1+12], %r2;
  selp.u32 %r7, 1, 0, %p3;   st.global.u32 [%rd1+16], %r7;
  selp.u32 %r7, 1, 0, %p4;   st.global.u32 [%rd1+20], %r7;
  selp.u32 %r7, 1, 0, %p5;   st.global.u32 [%rd1+24], %r7;
  st.global.u32 [%rd1+28], %r3;
  selp.u32 %r7, 1, 0, %p6;   st.global.u32 [%rd1+32], %r7;
  st.global.u32 [%rd1+36], %r4;
  selp.u32 %r7, 1, 0, %p7;   st.global.u32 [%rd1+40], %r7;
  selp.u32 %r7, 1, 0, %p8;   st.global.u32 [%rd1+44], %r7;
  st.global.u32 [%rd1+48], %r5;
  selp.u32 %r7, 1, 0, %p9;   st.global.u32 [%rd1+52], %r7;
  ret;
}

// cp.async tracked by an mbarrier: .noinc on a count-1 barrier, then the default form on a
// count-2 barrier with one plain arrival
.visible .entry copies(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 b1;
  .shared .align 8 .b64 b2;
  .shared .align 16 .b8 buf[32];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, buf;
  mbarrier.init.shared.b64 [b1], 1;
  mbarrier.init.shared.b64 [b2], 2;
  cp.async.cg.shared.global [%r1], [%rd2], 16;
  cp.async.mbarrier.arrive.noinc.shared.b64 [b1];
  ld.shared.u32 %r2, [%r1];                       // 0: not landed
  mbarrier.test_wait.parity.shared.b64 %p1, [b1], 0;   // the arrival happens: phase 0 over
  ld.shared.u32 %r3, [%r1];                       // in[0]
  cp.async.ca.shared.global [%r1+16], [%rd2+16], 16;
  cp.async.mbarrier.arrive.shared.b64 [b2];       // pending 2 -> 3 now, back to 2 on arrival
  mbarrier.arrive.shared.b64 %rd3, [b2];          // pending 2: not complete
  mbarrier.pending_count.b64 %r4, %rd3;           // 2
  ld.shared.u32 %r5, [%r1+16];                    // 0
  mbarrier.test_wait.shared.b64 %p2, [b2], %rd3;  // arrival: 1 pending -> 0? no: 2 -> 1, not over
  ld.shared.u32 %r6, [%r1+16];                    // in[4]: landed with the arrival
  mbarrier.arrive.shared.b64 %rd4, [b2];          // the second plain arrival completes
  mbarrier.test_wait.shared.b64 %p3, [b2], %rd3;  // 1
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  selp.u32 %r7, 1, 0, %p1;  st.global.u32 [%rd1+8], %r7;
  st.global.u32 [%rd1+12], %r4;
  st.global.u32 [%rd1+16], %r5;
  selp.u32 %r7, 1, 0, %p2;  st.global.u32 [%rd1+20], %r7;
  st.global.u32 [%rd1+24], %r6;
  selp.u32 %r7, 1, 0, %p3;  st.global.u32 [%rd1+28], %r7;
  ret;
}

// producer/consumer: warp 0 copies in[] into shared with cp.async and arrives through the
// mbarrier; warp 1 spins on test_wait.parity and then reads the tile (64 threads, one barrier
// counting the 32 producer threads)
.visible .entry handoff(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 full;
  .shared .align 16 .b32 tile[32];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared.b64 [full], 32;
INIT_DONE:
  bar.sync 0;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  mov.u32 %r2, tile;
  shl.b32 %r3, %r1, 2;
  add.u32 %r2, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  cp.async.ca.shared.global [%r2], [%rd4], 4;
  cp.async.mbarrier.arrive.noinc.shared.b64 [full];
  bra END;
CONSUMER:
WAIT:
  mbarrier.test_wait.parity.shared.b64 %p2, [full], 0;
  @!%p2 bra WAIT;
  sub.u32 %r4, %r1, 32;
  mov.u32 %r5, tile;
  shl.b32 %r6, %r4, 2;
  add.u32 %r5, %r5, %r6;
  ld.shared.u32 %r7, [%r5];
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r7;
END:
  ret;
}

.visible .entry overarrive()
{
  .reg .b64 %rd<3>;
  .shared .align 8 .b64 b;
  mbarrier.init.shared.b64 [b], 1;
  mbarrier.arrive.noComplete.shared.b64 %rd1, [b], 1;
  ret;
}

.visible .entry badinit()
{
  .shared .align 8 .b64 b;
  mbarrier.init.shared.b64 [b], 0;
  ret;
}

.visible .entry notshared(.param .u64 p)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mbarrier.init.b64 [%rd1], 1;
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  if (!k.ok()) return finish("ptx_mbarrier_test");
  Arena mem;
  uint64_t out = mem.alloc(256), in = mem.alloc(256);
  std::vector<uint32_t> src(64);
  for (uint32_t i = 0; i < 64; i++) src[i] = 0x2000 + i;
  mem.put(in, src);

  mem.put(out, std::vector<uint32_t>(64, 0xdead));
  CHECK(k.run(mem, "phases", {out}, 1, 1).kind == tsim::Fault::None);
  auto r = mem.get<uint32_t>(out, 14);
  const uint32_t want[14] = {0, 2, 1, 0, 1, 0, 0, 2, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < 14; i++) CHECK_EQ(r[i], want[i]);

  mem.put(out, std::vector<uint32_t>(64, 0xdead));
  CHECK(k.run(mem, "copies", {out, in}, 1, 1).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 8);
  const uint32_t want2[8] = {0, 0x2000, 1, 2, 0, 0, 0x2004, 1};
  for (int i = 0; i < 8; i++) CHECK_EQ(r[i], want2[i]);

  mem.put(out, std::vector<uint32_t>(64, 0xdead));
  CHECK(k.run(mem, "handoff", {out, in}, 1, 64).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 32);
  for (uint32_t i = 0; i < 32; i++) CHECK_EQ(r[i], 0x2000 + i);

  CHECK_EQ(k.run(mem, "overarrive", {}, 1, 1).kind, tsim::Fault::IllegalInstruction);
  CHECK_EQ(k.run(mem, "badinit", {}, 1, 1).kind, tsim::Fault::IllegalInstruction);
  CHECK_EQ(k.run(mem, "notshared", {out}, 1, 1).kind, tsim::Fault::OutOfBounds);

  auto refused = [](const char* inst, const char* why) {
    std::string ptx = std::string(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry t()\n{\n"
                                  ".reg .b64 %rd<2>;\n.shared .align 8 .b64 b;\n") + inst + "\nret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m || log.find(why) == std::string::npos) {
      std::printf("FAIL refusal of '%s': %s\n", inst, log.c_str());
      ptxtest::failures++;
    }
  };
  refused("mbarrier.arrive.expect_tx.shared.b64 %rd1, [b];", "txCount");
  refused("mbarrier.arrive.expect_tx.noComplete.shared.b64 %rd1, [b], 16;", "expect_tx");
  refused("mbarrier.arrive.shared.b32 %rd1, [b];", "b32");
  return finish("ptx_mbarrier_test");
}
