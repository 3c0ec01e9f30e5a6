// Warp collectives see exactly the participating lanes; barriers order all warps of a CTA.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// out[lane*8 + k]: k=0 up 3, 1 idx (lane+5)&31, 2 bfly 6, 3 down 4 within 8-lane segments,
// 4 up-valid predicate, 5 ballot(lane%3==0), 6 activemask in the odd-lane branch (0 elsewhere),
// 7 redux.add of lane over odd lanes
.visible .entry shuffles(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %laneid;
    mul.lo.s32 %r2, %r1, 10;
    shfl.sync.up.b32 %r3|%p1, %r2, 3, 0, -1;
    add.s32 %r4, %r1, 5;
    shfl.sync.idx.b32 %r5, %r2, %r4, 31, -1;
    shfl.sync.bfly.b32 %r6, %r2, 6, 31, -1;
    shfl.sync.down.b32 %r7, %r2, 4, 0x181f, -1;
    selp.u32 %r8, 1, 0, %p1;
    rem.u32 %r9, %r1, 3;
    setp.eq.u32 %p2, %r9, 0;
    vote.sync.ballot.b32 %r10, %p2, -1;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    and.b32 %r13, %r1, 1;
    setp.eq.u32 %p3, %r13, 0;
    @%p3 bra EVEN;
    activemask.b32 %r11;
    redux.sync.add.u32 %r12, %r1, 0xaaaaaaaa;
EVEN:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r3, %r5, %r6, %r7};
    st.global.v4.u32 [%rd3+16], {%r8, %r10, %r11, %r12};
    ret;
}

// out[lane*4 + k]: k=0 vote.all(lane<20) among lanes<24 (diverged), 1 vote.any, 2 match.any of lane/4,
// 3 match.all predicate over lanes holding the same value
.visible .entry votes(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %laneid;
    mov.u32 %r2, 7;
    mov.u32 %r3, 7;
    setp.ge.u32 %p1, %r1, 24;
    @%p1 bra SKIP;
    setp.lt.u32 %p2, %r1, 20;
    vote.sync.all.pred %p3, %p2, 0xffffff;
    selp.u32 %r2, 1, 0, %p3;
    vote.sync.any.pred %p4, !%p2, 0xffffff;
    selp.u32 %r3, 1, 0, %p4;
SKIP:
    shr.u32 %r4, %r1, 2;
    match.any.sync.b32 %r5, %r4, -1;
    mov.u32 %r6, 5;
    match.all.sync.b32 %r7|%p5, %r6, -1;
    selp.u32 %r8, %r7, 0, %p5;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r2, %r3, %r5, %r8};
    ret;
}

// Warps write their warp id into shared memory in reverse warp order of a round-robin schedule;
// after bar.sync every thread reads the slot of the next warp. Also a second phase with a counted
// named barrier used by warps 0 and 1 only.
.visible .entry barriers(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 slots[8];
    .shared .align 4 .b32 slots2[2];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r3, slots;
    shl.b32 %r4, %r2, 2;
    add.s32 %r5, %r3, %r4;
    // make warp 0 slow: it loops before writing
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra WRITE;
    mov.u32 %r6, 0;
SLOW:
    add.s32 %r6, %r6, 1;
    setp.lt.u32 %p2, %r6, 20000;
    @%p2 bra SLOW;
WRITE:
    add.s32 %r7, %r2, 100;
    st.shared.u32 [%r5], %r7;
    barrier.sync 0;
    add.s32 %r8, %r2, 1;
    mov.u32 %r9, %nwarpid;
    mov.u32 %r9, %ntid.x;
    shr.u32 %r9, %r9, 5;
    rem.u32 %r10, %r8, %r9;
    shl.b32 %r11, %r10, 2;
    add.s32 %r12, %r3, %r11;
    ld.shared.u32 %r13, [%r12];
    // phase 2: warps 0 and 1 exchange through a 64-thread named barrier 1
    setp.gt.u32 %p1, %r2, 1;
    @%p1 bra DONE;
    mov.u32 %r17, slots2;
    add.s32 %r18, %r17, %r4;
    st.shared.u32 [%r18], %r1;
    bar.sync 1, 64;
    xor.b32 %r14, %r4, 4;
    add.s32 %r15, %r17, %r14;
    ld.shared.u32 %r16, [%r15];
    add.s32 %r13, %r13, %r16;
DONE:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r13;
    ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_warp_test");
  Arena mem;
  {
    uint64_t out = mem.alloc(32 * 32);
    CHECK_EQ(k.run(mem, "shuffles", {out}, 1, 32).kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, 32 * 8);
    uint32_t ballot = 0, odd = 0;
    for (int l = 0; l < 32; l++) if (l % 3 == 0) ballot |= 1u << l;
    for (int l = 1; l < 32; l += 2) odd += l;
    int bad = 0;
    for (int l = 0; l < 32; l++) {
      const uint32_t* o = &r[l * 8];
      uint32_t up = l >= 3 ? (l - 3) * 10 : l * 10;
      uint32_t idx = ((l + 5) & 31) * 10;
      uint32_t bfly = (l ^ 6) * 10;
      // c = 0x181f: segmask 0x18 (8-lane segments), clamp 31 -> maxLane = (l & 0x18) | 7
      int maxLane = (l & 0x18) | 7;
      uint32_t down = l + 4 <= maxLane ? (l + 4) * 10 : l * 10;
      uint32_t want[8] = {up, idx, bfly, down, (uint32_t)(l >= 3), ballot, (l & 1) ? 0xaaaaaaaau : 0u, (l & 1) ? odd : 0u};
      for (int q = 0; q < 8; q++)
        if (o[q] != want[q]) { bad++; std::printf("shuffles lane %d field %d: got %u want %u\n", l, q, o[q], want[q]); }
    }
    CHECK_EQ(bad, 0);
  }
  {
    uint64_t out = mem.alloc(32 * 16);
    CHECK_EQ(k.run(mem, "votes", {out}, 1, 32).kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, 32 * 4);
    int bad = 0;
    for (int l = 0; l < 32; l++) {
      uint32_t all = l < 24 ? 0 : 7, any = l < 24 ? 1 : 7;
      uint32_t group = 0xfu << (4 * (l / 4));
      uint32_t want[4] = {all, any, group, 0xffffffffu};
      for (int q = 0; q < 4; q++)
        if (r[l * 4 + q] != want[q]) { bad++; std::printf("votes lane %d field %d: got %x want %x\n", l, q, r[l * 4 + q], want[q]); }
    }
    CHECK_EQ(bad, 0);
  }
  {
    const unsigned nt = 256;
    uint64_t out = mem.alloc(nt * 4);
    tsim::Counters ctr;
    CHECK_EQ(k.run(mem, "barriers", {out}, 3, nt, &ctr).kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, nt);
    int bad = 0;
    // phase 2: every lane of warps 0/1 stores its tid into the warp's slot (one of them survives),
    // so the value read back must be the tid of some lane of the other warp.
    for (unsigned t = 0; t < nt; t++) {
      unsigned w = t / 32, nw = nt / 32;
      uint32_t phase1 = (w + 1) % nw + 100;
      if (w >= 2) { bad += r[t] != phase1; continue; }
      uint32_t other = r[t] - phase1;  // tid of some lane of the other warp
      if (other / 32 != (w ^ 1)) { bad++; std::printf("barriers t=%u got %u\n", t, r[t]); }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(ctr.barriers, 6u);
  }
  {  // bar.red: __syncthreads_count / _and / _or over 96 threads (3 warps)
    const char* red = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry red(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    setp.lt.u32 %p2, %r1, 95;
    bar.red.and.pred %p3, 0, %p2;
    setp.ne.u32 %p4, %r1, 77;
    barrier.red.or.pred %p5, 1, !%p4;
    selp.u32 %r4, 1, 0, %p3;
    selp.u32 %r5, 1, 0, %p5;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 12;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    st.global.u32 [%rd3+8], %r5;
    ret;
}
)";
    Kernel rk(red);
    uint64_t out = mem.alloc(96 * 12);
    CHECK_EQ(rk.run(mem, "red", {out}, 2, 96).kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, 96 * 3);
    int bad = 0;
    for (int t = 0; t < 96; t++) bad += r[t * 3] != 32u || r[t * 3 + 1] != 0u || r[t * 3 + 2] != 1u;
    CHECK_EQ(bad, 0);
  }
  {  // deadlock: only half of the threads reach a full-CTA barrier while the others wait at another
    const char* dl = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry dl()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra A;
    bar.sync 1;
    ret;
A:
    bar.sync 0;
    ret;
}
)";
    Kernel d(dl);
    CHECK_EQ(d.run(mem, "dl", {}, 1, 64).kind, tsim::Fault::Timeout);
  }
  return finish("ptx_warp_test");
}
