// Shared-memory bank conflicts of wide accesses: a warp's access is served in 128-byte phases
// (16-byte accesses and ldmatrix rows: quarter-warps, 8-byte: half-warps), each needing as many
// wavefronts as its busiest bank; the counter is the wavefronts beyond one per phase.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
// lane l reads 16 bytes at (l / 8) * p + (l % 8) * q
.visible .entry v4(.param .u32 p, .param .u32 q)
{
  .reg .b32 %r<12>;
  .shared .align 16 .b8 buf[8192];
  ld.param.u32 %r1, [p];
  ld.param.u32 %r2, [q];
  mov.u32 %r3, %laneid;
  shr.u32 %r4, %r3, 3;
  and.b32 %r5, %r3, 7;
  mul.lo.u32 %r4, %r4, %r1;
  mad.lo.u32 %r4, %r5, %r2, %r4;
  mov.u32 %r6, buf;
  add.u32 %r6, %r6, %r4;
  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r6];
  ret;
}
// lane l reads 8 bytes at (l / 16) * p + (l % 16) * q
.visible .entry v2(.param .u32 p, .param .u32 q)
{
  .reg .b32 %r<12>;
  .shared .align 16 .b8 buf2[8192];
  ld.param.u32 %r1, [p];
  ld.param.u32 %r2, [q];
  mov.u32 %r3, %laneid;
  shr.u32 %r4, %r3, 4;
  and.b32 %r5, %r3, 15;
  mul.lo.u32 %r4, %r4, %r1;
  mad.lo.u32 %r4, %r5, %r2, %r4;
  mov.u32 %r6, buf2;
  add.u32 %r6, %r6, %r4;
  ld.shared.v2.u32 {%r7, %r8}, [%r6];
  ret;
}
// ldmatrix.x4 / .x1 with row address (l / 8) * p + (l % 8) * q
.visible .entry ldm4(.param .u32 p, .param .u32 q)
{
  .reg .b32 %r<12>;
  .shared .align 16 .b8 buf3[8192];
  ld.param.u32 %r1, [p];
  ld.param.u32 %r2, [q];
  mov.u32 %r3, %laneid;
  shr.u32 %r4, %r3, 3;
  and.b32 %r5, %r3, 7;
  mul.lo.u32 %r4, %r4, %r1;
  mad.lo.u32 %r4, %r5, %r2, %r4;
  mov.u32 %r6, buf3;
  add.u32 %r6, %r6, %r4;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r7, %r8, %r9, %r10}, [%r6];
  ret;
}
.visible .entry ldm1(.param .u32 p, .param .u32 q)
{
  .reg .b32 %r<12>;
  .shared .align 16 .b8 buf4[8192];
  ld.param.u32 %r1, [p];
  ld.param.u32 %r2, [q];
  mov.u32 %r3, %laneid;
  and.b32 %r5, %r3, 7;
  mul.lo.u32 %r4, %r5, %r2;
  mov.u32 %r6, buf4;
  add.u32 %r6, %r6, %r4;
  ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r7}, [%r6];
  ret;
}
)";

static uint64_t conflicts(Kernel& k, Arena& mem, const char* name, unsigned p, unsigned q) {
  tsim::Counters ctr;
  tsim::Fault f = k.run(mem, name, {p, q}, 1, 32, &ctr);
  CHECK(f.kind == tsim::Fault::None);
  return ctr.sharedBankConflicts;
}

int main() {
  Kernel k(kPtx);
  if (!k.ok()) return finish("ptx_banks_test");
  Arena mem;
  CHECK_EQ(conflicts(k, mem, "v4", 128, 16), 0u);    // 512 contiguous bytes
  CHECK_EQ(conflicts(k, mem, "v4", 16, 128), 28u);   // each quarter-warp: 8 rows in the same 4 banks
  CHECK_EQ(conflicts(k, mem, "v4", 0, 16), 0u);      // all quarter-warps read the same 128 bytes
  CHECK_EQ(conflicts(k, mem, "v4", 1024, 256), 28u); // stride 256: 8-way in every phase
  CHECK_EQ(conflicts(k, mem, "v4", 128, 32), 4u);    // stride 32: 2 rows per bank pair per phase
  CHECK_EQ(conflicts(k, mem, "v2", 128, 8), 0u);     // 256 contiguous bytes
  CHECK_EQ(conflicts(k, mem, "v2", 8, 128), 30u);    // each half-warp: 16 doublewords in banks 0-1 / 2-3
  CHECK_EQ(conflicts(k, mem, "ldm4", 128, 16), 0u);  // four 8x8 matrices, contiguous rows
  CHECK_EQ(conflicts(k, mem, "ldm4", 1024, 128), 28u);  // rows 128 bytes apart: 8-way per matrix
  CHECK_EQ(conflicts(k, mem, "ldm4", 16, 128), 28u);
  CHECK_EQ(conflicts(k, mem, "ldm1", 0, 128), 7u);   // x1: one phase, 8 rows in one bank group
  CHECK_EQ(conflicts(k, mem, "ldm1", 0, 144), 0u);   // padded rows (128 + 16): conflict-free
  return finish("ptx_banks_test");
}
