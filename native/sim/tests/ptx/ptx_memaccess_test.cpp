// Global loads/stores by element width (sign and zero extension, narrow stores) and the
// 32-byte-sector counter for coalesced, reversed, broadcast, repeated-row, scattered and
// partial-warp access patterns (the counter has a fast path for ordered full warps).
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// out[t] = in[idx[t]] (u32)
.visible .entry gather(.param .u64 out, .param .u64 in, .param .u64 idx)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u64 %rd3, [idx];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r2, [%rd5];
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd6, %rd2, %rd6;
  ld.global.u32 %r3, [%rd6];
  add.s64 %rd7, %rd1, %rd4;
  st.global.u32 [%rd7], %r3;
  ret;
}

// One thread: loads of every width with sign/zero extension, narrow stores.
.visible .entry widths(.param .u64 out, .param .u64 in)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.global.s8 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  ld.global.u8 %r2, [%rd2];
  st.global.u32 [%rd1+4], %r2;
  ld.global.s16 %r3, [%rd2];
  st.global.u32 [%rd1+8], %r3;
  ld.global.s32 %rd3, [%rd2];
  st.global.u64 [%rd1+16], %rd3;
  ld.global.u32 %rd4, [%rd2];
  st.global.u64 [%rd1+24], %rd4;
  st.global.u8 [%rd1+32], %r3;
  st.global.b16 [%rd1+34], %r3;
  ld.global.v2.u16 {%h0, %h1}, [%rd2];
  st.global.v2.b16 [%rd1+36], {%h1, %h0};
  ret;
}

// Even threads increment the low half-word of [p], odd threads the high one, with CAS loops.
.visible .entry cas16(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b16 %h<4>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd2, %r2, 2;
  add.s64 %rd1, %rd1, %rd2;
  ld.volatile.global.u16 %h1, [%rd1];
RETRY:
  add.u16 %h2, %h1, 1;
  atom.global.cas.b16 %h3, [%rd1], %h1, %h2;
  setp.ne.u16 %p1, %h3, %h1;
  mov.u16 %h1, %h3;
  @%p1 bra RETRY;
  ret;
}

// A CAS whose compare value does not match: returns the old half-word, writes nothing.
.visible .entry cas16miss(.param .u64 p)
{
  .reg .b16 %h<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  atom.global.cas.b16 %h1, [%rd1+6], 7, 9;
  st.global.u16 [%rd1+8], %h1;
  ret;
}

// One warp sums in[i*32 + lane] for i < count: walks along the array (translation cache merges
// the ranges) and, with count past the end, must still fault on the first byte outside.
.visible .entry walk(.param .u64 out, .param .u64 in, .param .u32 count)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [count];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  shl.b32 %r5, %r3, 5;
  add.s32 %r5, %r5, %r2;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r6, [%rd4];
  add.s32 %r4, %r4, %r6;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r4;
  ret;
}

// One warp stores then loads shared word tid*stride (u32), or doubleword tid (u64 when wide != 0).
.visible .entry banks(.param .u32 stride, .param .u32 wide, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b8 buf[4096];
  ld.param.u32 %r1, [stride];
  ld.param.u32 %r6, [wide];
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mov.u32 %r4, buf;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bra WIDE;
  mul.lo.u32 %r3, %r2, %r1;
  shl.b32 %r3, %r3, 2;
  add.u32 %r4, %r4, %r3;
  st.shared.u32 [%r4], %r2;
  ld.shared.u32 %r5, [%r4];
  st.global.u32 [%rd3], %r5;
  ret;
WIDE:
  shl.b32 %r3, %r2, 3;
  add.u32 %r4, %r4, %r3;
  cvt.u64.u32 %rd4, %r2;
  st.shared.u64 [%r4], %rd4;
  ld.shared.u64 %rd5, [%r4];
  cvt.u32.u64 %r5, %rd5;
  st.global.u32 [%rd3], %r5;
  ret;
}

// Reads [a], [b], then [g]: with a and b in two allocations, g between them must still fault
// (the translation cache may not bridge two allocations).
.visible .entry three(.param .u64 a, .param .u64 b, .param .u64 g)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [g];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd2];
  ld.global.u32 %r3, [%rd3];
  ret;
}
)";

// Extra wavefronts of the two shared accesses of `banks` (values checked unless all lanes share
// one word).
static uint64_t bankConflicts(Kernel& k, Arena& mem, unsigned stride, unsigned wide) {
  uint64_t out = mem.alloc(32 * 4);
  tsim::Counters ctr;
  tsim::Fault f = k.run(mem, "banks", {stride, wide, out}, 1, 32, &ctr);
  CHECK_EQ(f.kind, tsim::Fault::None);
  CHECK_EQ(ctr.sharedAccesses, 2u);
  if (stride != 0 || wide) {
    auto r = mem.get<uint32_t>(out, 32);
    int bad = 0;
    for (unsigned t = 0; t < 32; t++) bad += r[t] != t;
    CHECK_EQ(bad, 0);
  }
  return ctr.sharedBankConflicts;
}

// Runs gather with one CTA of `threads` lanes; returns the sectors of the in[] load alone.
static uint64_t gatherSectors(Kernel& k, Arena& mem, const std::vector<uint32_t>& idx) {
  const unsigned n = (unsigned)idx.size();
  uint64_t in = mem.alloc(1024 * 4), out = mem.alloc(n * 4), ix = mem.alloc(n * 4);
  std::vector<uint32_t> v(1024);
  for (unsigned i = 0; i < 1024; i++) v[i] = i * 3 + 1;
  mem.put(in, v);
  mem.put(ix, idx);
  tsim::Counters ctr;
  tsim::Fault f = k.run(mem, "gather", {out, in, ix}, 1, n, &ctr);
  CHECK_EQ(f.kind, tsim::Fault::None);
  auto r = mem.get<uint32_t>(out, n);
  int bad = 0;
  for (unsigned t = 0; t < n; t++) bad += r[t] != v[idx[t]];
  CHECK_EQ(bad, 0);
  uint64_t contiguous = (n * 4 + 31) / 32;  // idx[] load and out[] store, both coalesced
  CHECK_EQ(ctr.globalLoadRequests, 2u);
  CHECK_EQ(ctr.globalStoreRequests, 1u);
  CHECK_EQ(ctr.globalStoreSectors, contiguous);
  return ctr.globalLoadSectors - contiguous;
}

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_memaccess_test");
  Arena mem;

  std::vector<uint32_t> idx(32);
  for (unsigned t = 0; t < 32; t++) idx[t] = t;
  CHECK_EQ(gatherSectors(k, mem, idx), 4u);  // coalesced: 128 bytes
  for (unsigned t = 0; t < 32; t++) idx[t] = 31 - t;
  CHECK_EQ(gatherSectors(k, mem, idx), 4u);  // reversed: same sectors
  for (unsigned t = 0; t < 32; t++) idx[t] = 5;
  CHECK_EQ(gatherSectors(k, mem, idx), 1u);  // broadcast
  for (unsigned t = 0; t < 32; t++) idx[t] = t % 16;
  CHECK_EQ(gatherSectors(k, mem, idx), 2u);  // two half-warps read the same 64 bytes
  for (unsigned t = 0; t < 32; t++) idx[t] = 8 * ((t * 7) % 32);
  CHECK_EQ(gatherSectors(k, mem, idx), 32u);  // one sector per lane, permuted
  for (unsigned t = 0; t < 32; t++) idx[t] = 8 * t + (t & 1);
  CHECK_EQ(gatherSectors(k, mem, idx), 32u);  // ordered, 32-byte stride
  for (unsigned t = 0; t < 32; t++) idx[t] = t < 16 ? t : 1007 - t;
  CHECK_EQ(gatherSectors(k, mem, idx), 4u);  // two runs, second one descending: 2 + 2 sectors
  std::vector<uint32_t> part(20);
  for (unsigned t = 0; t < 20; t++) part[t] = t + 6;
  CHECK_EQ(gatherSectors(k, mem, part), 4u);  // partial warp: elements 6..25 span 4 sectors

  {  // widths: input bytes f0 f0 01 80
    uint64_t in = mem.alloc(8), out = mem.alloc(64);
    mem.put(in, std::vector<uint32_t>{0x8001f0f0u, 0});
    mem.put(out, std::vector<uint8_t>(64, 0xaa));
    tsim::Fault f = k.run(mem, "widths", {out, in}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto w = mem.get<uint32_t>(out, 10);
    auto q = mem.get<uint64_t>(out, 4);
    CHECK_EQ(w[0], 0xfffffff0u);               // ld.s8
    CHECK_EQ(w[1], 0xf0u);                     // ld.u8
    CHECK_EQ(w[2], 0xfffff0f0u);               // ld.s16
    CHECK_EQ(w[3], 0xaaaaaaaau);               // untouched padding
    CHECK_EQ(q[2], 0xffffffff8001f0f0ull);     // ld.s32 into 64 bits
    CHECK_EQ(q[3], 0x000000008001f0f0ull);     // ld.u32 into 64 bits
    CHECK_EQ(w[8], 0xf0f0aaf0u);               // st.u8 at 32, st.b16 at 34
    CHECK_EQ(w[9], 0xf0f08001u);               // v2.u16 swapped
  }
  {  // atom.cas.b16 from 50 CTAs on 2 workers: both half-words of one word counted exactly
    uint64_t p = mem.alloc(16);
    mem.put(p, std::vector<uint32_t>{0, 0x1234abcdu, 0x5678ffffu, 0});
    tsim::Fault f = k.run(mem, "cas16", {p}, 50, 64);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto w = mem.get<uint32_t>(p, 2);
    CHECK_EQ(w[0], (1600u << 16) | 1600u);
    CHECK_EQ(w[1], 0x1234abcdu);
    f = k.run(mem, "cas16miss", {p}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto h = mem.get<uint16_t>(p, 6);
    CHECK_EQ(h[3], 0x1234u);  // unchanged at +6
    CHECK_EQ(h[4], 0x1234u);  // the returned old value, stored at +8
    CHECK_EQ(h[5], 0x5678u);
  }
  {  // walk: 4 rows of 32 words in bounds, then one row too many faults at the first word past
    uint64_t in = mem.alloc(128 * 4), out = mem.alloc(32 * 4);
    std::vector<uint32_t> v(128);
    for (unsigned i = 0; i < 128; i++) v[i] = i;
    mem.put(in, v);
    tsim::Fault f = k.run(mem, "walk", {out, in, 4}, 1, 32);
    CHECK_EQ(f.kind, tsim::Fault::None);
    auto r = mem.get<uint32_t>(out, 32);
    int bad = 0;
    for (unsigned t = 0; t < 32; t++) bad += r[t] != 4 * t + 192;
    CHECK_EQ(bad, 0);
    f = k.run(mem, "walk", {out, in, 5}, 1, 32);
    CHECK_EQ(f.kind, tsim::Fault::OutOfBounds);
    CHECK_EQ(f.addr, in + 512);
    CHECK_EQ(f.tid[0], 0u);
  }
  {  // no bridging between allocations: a gap between two allocations faults
    uint64_t a = mem.alloc(64), b = mem.alloc(64);
    CHECK(b > a + 64);
    tsim::Fault f = k.run(mem, "three", {a, b, b - 4}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::OutOfBounds);
    CHECK_EQ(f.addr, b - 4);
    f = k.run(mem, "three", {a, b, a + 60}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
  }
  // shared bank conflicts: extra wavefronts beyond the minimum per access, two accesses each
  CHECK_EQ(bankConflicts(k, mem, 1, 0), 0u);    // consecutive words
  CHECK_EQ(bankConflicts(k, mem, 0, 0), 0u);    // one word (broadcast)
  CHECK_EQ(bankConflicts(k, mem, 3, 0), 0u);    // odd stride: still one word per bank
  CHECK_EQ(bankConflicts(k, mem, 2, 0), 2u);    // 2 words per bank
  CHECK_EQ(bankConflicts(k, mem, 16, 0), 30u);  // 16 words in banks 0 and 16
  CHECK_EQ(bankConflicts(k, mem, 32, 0), 62u);  // all 32 words in bank 0
  CHECK_EQ(bankConflicts(k, mem, 0, 1), 0u);    // 8-byte accesses: 2 wavefronts is the minimum
  return finish("ptx_memaccess_test");
}
