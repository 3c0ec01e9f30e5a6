// cp.async: copies land at the wait that covers their commit group, not at issue (a read before
// the wait sees the old shared memory); wait_group N leaves the N most recent groups in flight;
// wait_all also lands uncommitted copies; src-size zero fill (src-size 0 never touches the
// source); the ignore-src predicate (and its negation); cp-size in hex; 4/8/16-byte .ca copies.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry t(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sh[128];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, sh;
  // 1: land at wait
  cp.async.cg.shared.global [%r1], [%rd2], 0x10;
  cp.async.commit_group;
  ld.shared.u32 %r2, [%r1];               // before the wait: still 0
  cp.async.wait_group 0;
  ld.shared.u32 %r3, [%r1];               // after: in[0]
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  // 2: two groups, wait_group 1 lands only the older
  cp.async.ca.shared.global [%r1+16], [%rd2+16], 16;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r1+32], [%rd2+32], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ld.shared.u32 %r4, [%r1+16];            // in[4]
  ld.shared.u32 %r5, [%r1+32];            // still 0
  cp.async.wait_group 0;
  ld.shared.u32 %r6, [%r1+32];            // in[8]
  st.global.u32 [%rd1+8], %r4;
  st.global.u32 [%rd1+12], %r5;
  st.global.u32 [%rd1+16], %r6;
  // 3: src-size 4 of 16 (rest zero), src-size 0 at address 0 (never read)
  mov.u32 %r7, 4;
  cp.async.cg.shared.global [%r1+48], [%rd2+48], 16, %r7;
  mov.u64 %rd3, 0;
  mov.u32 %r8, 0;
  cp.async.cg.shared.global [%r1+64], [%rd3], 16, %r8;
  // 4: ignore-src predicate: true -> zeros; negated false -> zeros; negated true -> copy
  setp.eq.u32 %p1, %r8, 0;
  cp.async.ca.shared.global [%r1+80], [%rd2+80], 8, %p1;
  cp.async.ca.shared.global [%r1+88], [%rd2+88], 8, !%p1;
  cp.async.ca.shared.global [%r1+96], [%rd2+96], 4, 4;   // immediate src-size
  cp.async.wait_all;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r1+48];
  ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r1+64];
  ld.shared.v2.u32 {%r18, %r19}, [%r1+80];
  ld.shared.v2.u32 {%r20, %r21}, [%r1+88];
  ld.shared.u32 %r22, [%r1+96];
  st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+48], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd1+64], {%r18, %r19, %r20, %r21};
  st.global.u32 [%rd1+80], %r22;
  ret;
}

// the same shared word written by a plain store after a copy was issued: the copy lands at the
// wait and wins
.visible .entry order(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 16 .b8 sh2[16];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, sh2;
  cp.async.ca.shared.global [%r1], [%rd2], 4;
  st.shared.u32 [%r1], 77;
  ld.shared.u32 %r2, [%r1];
  cp.async.commit_group;
  cp.async.wait_group 0;
  ld.shared.u32 %r3, [%r1];
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  ret;
}

.visible .entry misaligned(.param .u64 in)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  .shared .align 16 .b8 sh3[16];
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, sh3;
  cp.async.cg.shared.global [%r1], [%rd1+4], 16;
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  if (!k.ok()) return finish("ptx_cpasync_test");
  Arena mem;
  uint64_t in = mem.alloc(128), out = mem.alloc(128);
  std::vector<uint32_t> src(32);
  for (uint32_t i = 0; i < 32; i++) src[i] = 0x1000 + i;
  mem.put(in, src);
  mem.put(out, std::vector<uint32_t>(32, 0xdead));
  CHECK(k.run(mem, "t", {out, in}, 1, 1).kind == tsim::Fault::None);
  auto r = mem.get<uint32_t>(out, 21);
  CHECK_EQ(r[0], 0u);
  CHECK_EQ(r[1], 0x1000u);
  CHECK_EQ(r[2], 0x1004u);
  CHECK_EQ(r[3], 0u);
  CHECK_EQ(r[4], 0x1008u);
  CHECK_EQ(r[8], 0x100cu);  // src-size 4: first word copied
  CHECK_EQ(r[9], 0u);
  CHECK_EQ(r[10], 0u);
  CHECK_EQ(r[11], 0u);
  for (int i = 12; i < 16; i++) CHECK_EQ(r[i], 0u);  // src-size 0
  CHECK_EQ(r[16], 0u);  // ignore-src true
  CHECK_EQ(r[17], 0u);
  CHECK_EQ(r[18], 0x1016u);  // !%p with p true: copied
  CHECK_EQ(r[19], 0x1017u);
  CHECK_EQ(r[20], 0x1018u);  // src-size as an immediate

  CHECK(k.run(mem, "order", {out, in}, 1, 1).kind == tsim::Fault::None);
  r = mem.get<uint32_t>(out, 2);
  CHECK_EQ(r[0], 77u);
  CHECK_EQ(r[1], 0x1000u);

  CHECK_EQ(k.run(mem, "misaligned", {in}, 1, 1).kind, tsim::Fault::Misaligned);

  auto refused = [](const char* inst, const char* why) {
    std::string ptx = std::string(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry t(.param .u64 p)\n{\n"
                                  ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n") + inst + "\nret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m || log.find(why) == std::string::npos) {
      std::printf("FAIL refusal of '%s': %s\n", inst, log.c_str());
      failures++;
    }
  };
  refused("cp.async.cg.shared.global [%r1], [%rd1], 8;", "cp.async.cg copies 16 bytes");
  refused("cp.async.ca.shared.global [%r1], [%rd1], 12;", "cp-size must be 4, 8 or 16");
  refused("cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16;", "needs a cache-policy operand");
  refused("cp.async.wait_group %r1;", "integer constant");
  refused("cp.async.bulk.shared::cluster.global [%r1], [%rd1], 16;", "mbarrier::complete_tx::bytes");  // no completion mechanism
  return finish("ptx_cpasync_test");
}
