// tcgen05.shift.cta_group::1.down (sm_100a) against the PTX ISA: the 32-byte elements (8 columns
// from the address's column) of the rows from the address's lane (a multiple of 32) move down one
// row, all but the last row of the 32; asynchronous, done once a tcgen05.commit that follows it has
// arrived on its mbarrier. Four warps store known cells (lane * 1000 + column) into columns 0..15
// of their quarter, thread 0 shifts the quarter at lane 32 (columns 4..11), commits and everyone
// waits: lanes 33..63, columns 4..11 then hold the old cells of lanes 32..62; every other cell
// except lane 32's shifted columns (which the ISA leaves open) is unchanged. A tcgen05.ld before
// the wait reads the old cells; a lane not a multiple of 32 is a named fault; .cta_group::2 next
// to a ::1 alloc is a load error (its pair form: ptx_tcgen05_pair_move_test).
// `sim_ptx_ptx_tcgen05_shift_test --ptxas PATH` also assembles the module with ptxas -arch=sm_100a.
#include "ptx_harness.h"

using namespace ptxtest;

namespace {

// pflags: 1 = read before the wait
std::string kernel(const std::string& shiftLine) {
  return R"(.version 8.8
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
.visible .entry k(.param .u64 pout, .param .u32 pflags)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<8>;
  .reg .pred %p<8>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.lt.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r1, 0;
  mov.u32 %r4, slot;
  mov.u32 %r5, bar;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
  bar.sync 0;
  ld.shared.u32 %r6, [%r4];
  // this warp's quarter: lane L = 32 * warp + laneid, cells L * 1000 + column
  shl.b32 %r7, %r2, 21;
  add.u32 %r8, %r6, %r7;
  shl.b32 %r9, %r2, 5;
  add.u32 %r9, %r9, %r3;
  mul.lo.u32 %r10, %r9, 1000;
  mov.u32 %r11, 0;
ST:
  add.u32 %r12, %r10, %r11;
  add.u32 %r13, %r8, %r11;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r13], {%r12};
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 16;
  @%p3 bra ST;
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  add.u32 %r14, %r6, 2097156;  // lane 32, column 4
)" + shiftLine + R"(
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
ISSUED:
  bar.sync 0;
  ld.param.u32 %r15, [pflags];
  and.b32 %r16, %r15, 1;
  setp.ne.u32 %p4, %r16, 0;
  @%p4 bra DUMP;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r5], 0;
  @!%p5 bra WAIT;
  tcgen05.fence::after_thread_sync;
DUMP:
  ld.param.u64 %rd1, [pout];
  mul.lo.u32 %r17, %r9, 16;
  mul.wide.u32 %rd2, %r17, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r11, 0;
LD:
  add.u32 %r13, %r8, %r11;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r18}, [%r13];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd3], %r18;
  add.s64 %rd3, %rd3, 4;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 16;
  @%p3 bra LD;
  @!%p4 bra DONE;
  bar.sync 0;
WAIT2:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r5], 0;
  @!%p5 bra WAIT2;
DONE:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, 32;
  ret;
}
)";
}

const std::string kShift = "  tcgen05.shift.cta_group::1.down [%r14];";

}  // namespace

int main(int argc, char** argv) {
  for (unsigned flags : {0u, 1u}) {
    Kernel k(kernel(kShift));
    CHECK(k.ok());
    Arena mem;
    uint64_t out = mem.alloc(128 * 16 * 4);
    tsim::Fault f = k.run(mem, "k", {out, flags}, 1, 128);
    if (f.kind != tsim::Fault::None) std::printf("fault: %s\n", f.detail.c_str());
    CHECK_EQ((int)f.kind, 0);
    std::vector<uint32_t> got = mem.get<uint32_t>(out, 128 * 16);
    int bad = 0;
    for (unsigned lane = 0; lane < 128; lane++)
      for (unsigned col = 0; col < 16; col++) {
        const bool moved = flags == 0 && lane >= 32 && lane < 64 && col >= 4 && col < 12;
        if (moved && lane == 32) continue;  // the first row: open
        uint32_t want = (moved ? lane - 1 : lane) * 1000 + col;
        if (got[lane * 16 + col] != want && bad++ < 5)
          std::printf("flags %u lane %u column %u: got %u, want %u\n", flags, lane, col, got[lane * 16 + col], want);
      }
    if (bad) failures++;
  }
  {  // lane 16: not a multiple of 32
    std::string line = "  add.u32 %r14, %r14, 1048576;\n" + kShift;
    Kernel k(kernel(line));
    Arena mem;
    uint64_t out = mem.alloc(128 * 16 * 4);
    expectOutcome("lane 48", k.run(mem, "k", {out, 0}, 1, 128), "the lane of the address must be a multiple of 32 (got lane 48)");
  }
  // (.cta_group::2 runs: ptx_tcgen05_pair_move_test; here the kernel's alloc names ::1)
  expectLoadError("cta_group::2 with a cta_group::1 alloc", kernel("  tcgen05.shift.cta_group::2.down [%r14];"),
                  "all tcgen05 instructions of a kernel must use the same .cta_group");
  expectPtxas(ptxasArg(argc, argv), {kernel(kShift)});
  return finish("ptx_tcgen05_shift_test");
}
