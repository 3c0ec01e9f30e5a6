// .sync warp collectives over each lane's membermask (what cooperative-groups tiles compile to),
// not over the whole warp; bar.warp.sync as a real rendezvous (lanes meeting at different
// bar.warp.sync instructions); elect.sync per tile; parked lanes woken when the rest of their mask
// exits; a membermask mismatch and a collective that can never complete reported as faults.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kHead = R"(
.version 8.0
.target sm_80
.address_size 64
)";

// out[lane*8 + k]: tiles of 8 lanes (mask 0xff << (lane & ~7)):
// k=0 redux.add(lane), 1 redux.min(lane ^ 5), 2 redux.xor(lane), 3 ballot(lane odd) over 16-lane
// halves, 4 vote.all(lane%8 < 7) per tile, 5 vote.uni(tile<2) over halves, 6 match.any(lane&1) per
// tile, 7 match.all(lane < 8 ? 3 : lane) per tile (0 when not all equal)
static const char* kTiles = R"(
.visible .entry tiles(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 0x18;
  shl.b32 %r3, 0xff, %r2;                 // 8-lane tile mask
  and.b32 %r4, %r1, 0x10;
  shl.b32 %r5, 0xffff, %r4;               // 16-lane half mask
  redux.sync.add.u32 %r10, %r1, %r3;
  xor.b32 %r6, %r1, 5;
  redux.sync.min.u32 %r11, %r6, %r3;
  redux.sync.xor.b32 %r12, %r1, %r3;
  and.b32 %r7, %r1, 1;
  setp.eq.u32 %p1, %r7, 1;
  vote.sync.ballot.b32 %r13, %p1, %r5;
  and.b32 %r8, %r1, 7;
  setp.lt.u32 %p2, %r8, 7;
  vote.sync.all.pred %p3, %p2, %r3;
  selp.u32 %r14, 1, 0, %p3;
  setp.lt.u32 %p4, %r1, 16;
  vote.sync.uni.pred %p5, %p4, %r5;
  selp.u32 %r15, 1, 0, %p5;
  match.any.sync.b32 %r16, %r7, %r3;
  setp.lt.u32 %p1, %r1, 8;
  selp.u32 %r9, 3, %r1, %p1;
  match.all.sync.b32 %r17|%p2, %r9, %r3;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd3+16], {%r14, %r15, %r16, %r17};
  ret;
}
)";

// Lanes 16..31 (lower pc, run first) and 0..15 meet at two different bar.warp.sync instructions;
// each lane then reads the value the other half wrote before its bar.warp.sync.
static const char* kBarWarp = R"(
.visible .entry barwarp(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[32];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  add.s32 %r5, %r1, 100;
  xor.b32 %r6, %r1, 16;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r3, %r6;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra A;
  st.shared.u32 [%r4], %r5;
  bar.warp.sync -1;
  ld.shared.u32 %r7, [%r6];
  bra DONE;
A:
  st.shared.u32 [%r4], %r5;
  bar.warp.sync 0xffffffff;
  ld.shared.u32 %r7, [%r6];
DONE:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";

// Lanes 0..15 reach a full-mask redux before lanes 16..31 exit: they wait, and run when the
// others have exited (the mask then covers only the non-exited lanes).
static const char* kExit = R"(
.visible .entry exitwake(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra GONE;
  redux.sync.add.u32 %r2, %r1, -1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
GONE:
  ret;
}
)";

// elect.sync per 8-lane tile: out[lane*2] = leader lane, out[lane*2+1] = is leader
static const char* kElect = R"(
.visible .entry elect(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 0x18;
  shl.b32 %r3, 0xff, %r2;
  elect.sync %r4|%p1, %r3;
  selp.u32 %r5, 1, 0, %p1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r4, %r5};
  ret;
}
)";

// A guard switches half the lanes off a full-mask redux: they count as arrived (the warp is
// converged) and the others reduce over themselves; then a CTA barrier (no deadlock).
static const char* kGuarded = R"(
.visible .entry guarded(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  mov.u32 %r2, 0;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 redux.sync.add.u32 %r2, %r1, -1;
  bar.sync 0;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

static const char* kMismatch = R"(
.visible .entry mismatch()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 1;
  mul.lo.u32 %r2, %r2, 3;
  add.u32 %r2, %r2, 3;                    // lane masks 0x3 (even) or 0x6 (odd)
  redux.sync.add.u32 %r3, %r1, %r2;
  ret;
}
)";

static const char* kStuck = R"(
.visible .entry stuck()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra WAIT;
  redux.sync.add.u32 %r2, %r1, -1;
WAIT:
  bar.sync 0;
  ret;
}
)";

int main() {
  Kernel k(std::string(kHead) + kTiles + kBarWarp + kExit + kElect + kGuarded + kMismatch + kStuck);
  if (!k.ok()) return finish("ptx_warpsync_test");
  Arena mem;
  uint64_t out = mem.alloc(32 * 8 * 4);
  CHECK(k.run(mem, "tiles", {out}, 1, 32).kind == tsim::Fault::None);
  auto r = mem.get<uint32_t>(out, 32 * 8);
  int bad = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t t0 = l & ~7u, sum = 0, mn = ~0u, x = 0, ballot = 0;
    for (uint32_t j = t0; j < t0 + 8; j++) { sum += j; mn = std::min(mn, j ^ 5); x ^= j; }
    for (uint32_t j = l & 16; j < (l & 16) + 16; j++) if (j & 1) ballot |= 1u << j;
    uint32_t tile = 0xffu << t0, any = 0;
    for (uint32_t j = t0; j < t0 + 8; j++) if ((j & 1) == (l & 1)) any |= 1u << j;
    uint32_t want[8] = {sum, mn, x, ballot, 0, 1, any, t0 == 0 ? tile : 0};
    for (int q = 0; q < 8; q++) {
      if (r[l * 8 + q] != want[q]) {
        if (bad++ < 8) std::printf("tiles lane %u k=%d: got 0x%x want 0x%x\n", l, q, r[l * 8 + q], want[q]);
      }
    }
  }
  CHECK_EQ(bad, 0);

  CHECK(k.run(mem, "barwarp", {out}, 1, 32).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 32);
  bad = 0;
  for (uint32_t l = 0; l < 32; l++) bad += r[l] != (l ^ 16) + 100;
  CHECK_EQ(bad, 0);

  mem.put(out, std::vector<uint32_t>(32, 0xdead));
  CHECK(k.run(mem, "exitwake", {out}, 1, 32).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 32);
  bad = 0;
  for (uint32_t l = 0; l < 32; l++) bad += r[l] != (l < 16 ? 120u : 0xdeadu);
  CHECK_EQ(bad, 0);

  CHECK(k.run(mem, "elect", {out}, 1, 32).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 64);
  bad = 0;
  for (uint32_t l = 0; l < 32; l++) bad += r[2 * l] != (l & ~7u) || r[2 * l + 1] != (l % 8 == 0 ? 1u : 0u);
  CHECK_EQ(bad, 0);

  CHECK(k.run(mem, "guarded", {out}, 1, 32).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 32);
  bad = 0;
  for (uint32_t l = 0; l < 32; l++) bad += r[l] != (l < 16 ? 120u : 0u);
  CHECK_EQ(bad, 0);

  tsim::Fault f = k.run(mem, "mismatch", {}, 1, 32);
  CHECK_EQ(f.kind, tsim::Fault::IllegalInstruction);
  CHECK(f.detail.find("different membermasks") != std::string::npos);

  f = k.run(mem, "stuck", {}, 1, 32);
  CHECK_EQ(f.kind, tsim::Fault::Timeout);
  CHECK(f.detail.find(".sync warp collective") != std::string::npos);
  return finish("ptx_warpsync_test");
}
