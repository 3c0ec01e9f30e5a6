// Execution model: parameters, global loads/stores, divergence and reconvergence, loops, barriers
// with shared memory, shuffles, atomics across CTAs, faults and counters.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// out[i] = in[i] * 3 + i, for i < n
.visible .entry affine(
    .param .u64 .ptr .global .align 4 affine_param_0,
    .param .u64 .ptr .global .align 4 affine_param_1,
    .param .u32 affine_param_2
)
.maxntid 256, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [affine_param_0];
    ld.param.u64 %rd2, [affine_param_1];
    ld.param.u32 %r1, [affine_param_2];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra $L__BB0_2;
    cvta.to.global.u64 %rd3, %rd2;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.u32 %r6, [%rd5];
    mad.lo.s32 %r7, %r6, 3, %r5;
    cvta.to.global.u64 %rd6, %rd1;
    add.s64 %rd7, %rd6, %rd4;
    st.global.u32 [%rd7], %r7;
$L__BB0_2:
    ret;
}

// Divergent loop: thread t sums 0..t-1 (different trip counts), then a shuffle-down warp
// reduction of the sums and a block reduction through shared memory.
.visible .entry divsum(.param .u64 out, .param .u64 warpOut)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b32 partial[32];

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    add.s32 %r2, %r2, %r3;
    add.s32 %r3, %r3, 1;
    bra.uni LOOP;
DONE:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    // warp reduction
    mov.u32 %r4, %r2;
    shfl.sync.down.b32 %r5|%p2, %r4, 16, 31, -1;
    add.s32 %r4, %r4, %r5;
    shfl.sync.down.b32 %r5, %r4, 8, 31, -1;
    add.s32 %r4, %r4, %r5;
    shfl.sync.down.b32 %r5, %r4, 4, 31, -1;
    add.s32 %r4, %r4, %r5;
    shfl.sync.down.b32 %r5, %r4, 2, 31, -1;
    add.s32 %r4, %r4, %r5;
    shfl.sync.down.b32 %r5, %r4, 1, 31, -1;
    add.s32 %r4, %r4, %r5;
    and.b32 %r6, %r1, 31;
    shr.u32 %r7, %r1, 5;
    setp.ne.s32 %p3, %r6, 0;
    @%p3 bra SKIP;
    shl.b32 %r8, %r7, 2;
    mov.u32 %r9, partial;
    add.s32 %r10, %r9, %r8;
    st.shared.u32 [%r10], %r4;
SKIP:
    bar.sync 0;
    setp.ne.s32 %p3, %r1, 0;
    @%p3 bra END;
    mov.u32 %r11, %ntid.x;
    shr.u32 %r12, %r11, 5;
    mov.u32 %r13, 0;
    mov.u32 %r14, 0;
    mov.u32 %r15, partial;
SUM:
    ld.shared.u32 %r16, [%r15];
    add.s32 %r13, %r13, %r16;
    add.s32 %r15, %r15, 4;
    add.s32 %r14, %r14, 1;
    setp.lt.u32 %p1, %r14, %r12;
    @%p1 bra SUM;
    ld.param.u64 %rd4, [warpOut];
    st.global.u32 [%rd4], %r13;
END:
    ret;
}

// Global atomics from many CTAs: counter += 1 and max of tid, cas-based increment of a second word
.visible .entry atomics(.param .u64 p)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [p];
    atom.global.add.u32 %r1, [%rd1], 1;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, 1000, %r2;
    red.global.max.u32 [%rd1+4], %r4;
    atom.global.add.f32 %r5, [%rd1+8], 0f3F800000;
    atom.global.add.u64 %rd2, [%rd1+16], 2;
CAS:
    ld.volatile.global.u32 %r6, [%rd1+24];
    add.s32 %r7, %r6, 1;
    atom.global.cas.b32 %r8, [%rd1+24], %r6, %r7;
    setp.ne.s32 %p1, %r8, %r6;
    @%p1 bra CAS;
    ret;
}

.visible .entry oob(.param .u64 p, .param .u32 off)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [off];
    cvt.u64.u32 %rd2, %r1;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    st.global.u32 [%rd1], %r2;
    ret;
}

.visible .entry sharedoob(.param .u32 off)
{
    .reg .b32 %r<4>;
    .shared .align 4 .b8 buf[64];
    ld.param.u32 %r1, [off];
    mov.u32 %r2, buf;
    add.s32 %r3, %r2, %r1;
    st.shared.u32 [%r3], %r1;
    ret;
}

.visible .entry spin()
{
HANG:
    bra.uni HANG;
}

.visible .entry dotrap()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p1, %r1, 5;
    @%p1 trap;
    ret;
}

// dynamic shared memory + generic addressing through cvta.shared
.visible .entry dynshared(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .extern .shared .align 16 .b8 dsm[];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, dsm;
    cvta.shared.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    mul.lo.s32 %r2, %r1, %r1;
    st.u32 [%rd4], %r2;
    bar.sync 0;
    mov.u32 %r3, %ntid.x;
    sub.s32 %r4, %r3, 1;
    sub.s32 %r5, %r4, %r1;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd2, %rd5;
    ld.u32 %r6, [%rd6];
    ld.param.u64 %rd7, [out];
    add.s64 %rd7, %rd7, %rd3;
    st.global.u32 [%rd7], %r6;
    ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_exec_test");
  Arena mem;

  {  // affine: 1000 elements, partial last CTA
    const unsigned n = 1000;
    uint64_t in = mem.alloc(n * 4), out = mem.alloc(n * 4);
    std::vector<int32_t> v(n);
    for (unsigned i = 0; i < n; i++) v[i] = (int32_t)(i * 7) - 300;
    mem.put(in, v);
    tsim::Counters ctr;
    tsim::Fault f = k.run(mem, "affine", {out, in, n}, (n + 127) / 128, 128, &ctr);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto r = mem.get<int32_t>(out, n);
    int bad = 0;
    for (unsigned i = 0; i < n; i++) bad += r[i] != v[i] * 3 + (int32_t)i;
    CHECK_EQ(bad, 0);
    // 8 CTAs x 4 warps; the last CTA's last 3 warps... all warps issue the loads
    CHECK(ctr.globalLoadRequests > 0);
    CHECK_EQ(ctr.globalLoadSectors, (uint64_t)((n * 4 + 31) / 32));
    CHECK(ctr.threadInstructions > 0);
  }
  {  // divergence + shuffle + barrier reduction
    const unsigned nt = 128;
    uint64_t out = mem.alloc(nt * 4), total = mem.alloc(4);
    tsim::Counters ctr;
    tsim::Fault f = k.run(mem, "divsum", {out, total}, 1, nt, &ctr);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, nt);
    uint32_t expect = 0;
    int bad = 0;
    for (unsigned t = 0; t < nt; t++) {
      bad += r[t] != t * (t - (t ? 1 : 0)) / 2 + (t ? 0 : 0);
      expect += t * (t ? t - 1 : 0) / 2;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(mem.get<uint32_t>(total, 1)[0], expect);
    CHECK_EQ(ctr.barriers, 1u);
  }
  {  // atomics across CTAs running on 2 worker threads
    uint64_t p = mem.alloc(32);
    mem.put(p, std::vector<uint32_t>(8, 0));
    tsim::Fault f = k.run(mem, "atomics", {p}, 50, 64);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(p, 8);
    CHECK_EQ(r[0], 50u * 64u);
    CHECK_EQ(r[1], 49u * 1000u + 63u);
    CHECK_EQ(bitsf(r[2]), 3200.0f);
    CHECK_EQ(mem.get<uint64_t>(p + 16, 1)[0], 6400u);
    CHECK_EQ(r[6], 3200u);
  }
  {  // out of bounds, misaligned, shared out of bounds, timeout, trap
    uint64_t p = mem.alloc(64);
    tsim::Fault f = k.run(mem, "oob", {p, 64}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::OutOfBounds);
    CHECK_EQ(f.addr, p + 64);
    CHECK_EQ(f.size, 4u);
    CHECK_EQ(f.kernel == "oob", true);
    CHECK(f.ptxLine > 0);
    f = k.run(mem, "oob", {p, 2}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::Misaligned);
    f = k.run(mem, "oob", {p, 60}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
    uint64_t q = mem.alloc(64);
    mem.free(q);
    f = k.run(mem, "oob", {q, 0}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::UseAfterFree);
    f = k.run(mem, "sharedoob", {64}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::SharedOutOfBounds);
    f = k.run(mem, "sharedoob", {60}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
    f = k.run(mem, "spin", {}, 2, 32, nullptr, 0, 100000);
    CHECK_EQ(f.kind, tsim::Fault::Timeout);
    f = k.run(mem, "dotrap", {}, 3, 8, nullptr, 0, 0, 1);
    CHECK_EQ(f.kind, tsim::Fault::Trap);
    CHECK_EQ(f.tid[0], 5u);
    CHECK_EQ(f.ctaid[0], 0u);
  }
  {  // dynamic shared + generic addressing
    const unsigned nt = 96;
    uint64_t out = mem.alloc(nt * 4);
    tsim::Fault f = k.run(mem, "dynshared", {out}, 1, nt, nullptr, nt * 4);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, nt);
    int bad = 0;
    for (unsigned t = 0; t < nt; t++) bad += r[t] != (nt - 1 - t) * (nt - 1 - t);
    CHECK_EQ(bad, 0);
    f = k.run(mem, "dynshared", {out}, 1, nt, nullptr, nt * 4 - 4);
    CHECK_EQ(f.kind, tsim::Fault::SharedOutOfBounds);
  }
  return finish("ptx_exec_test");
}
