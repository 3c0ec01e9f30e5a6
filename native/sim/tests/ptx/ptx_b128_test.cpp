// .b128 registers and memory, 128-bit atomics and vector atomics (sm_90), from the PTX ISA:
// mov.b128 packs {lo, hi} (the first element is the low 64 bits) and unpacks; ld/st.b128 move 16
// bytes (little-endian: lo at the lower address); atom.cas.b128 swaps only when all 128 bits
// match and returns the old value either way; atom.exch.b128; atom/red.global.add.v2/.v4.f32 and
// .noftz.f16x2/.bf16x2 add each element atomically (64 threads on one address sum exactly) and
// return the old values; misaligned .b128 accesses fault; forms not in the ISA are refused.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.3
.target sm_90a
.address_size 64
.visible .entry b128(.param .u64 out, .param .u64 in)
{
  .reg .b64 %rd<16>;
  .reg .b128 %q<8>;
  .shared .align 16 .b8 sm[32];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.global.b128 %q1, [%rd2];
  mov.b128 {%rd3, %rd4}, %q1;
  mov.b128 %q2, {%rd4, %rd3};        // halves swapped
  st.global.b128 [%rd1], %q2;
  // cas at out+16 (holds in[0..15] copied by the host): matches -> replaced by in[16..31]
  ld.global.b128 %q4, [%rd2+16];
  atom.global.cas.b128 %q3, [%rd1+16], %q1, %q4;
  st.global.b128 [%rd1+32], %q3;     // old value = in[0..15]
  atom.global.cas.b128 %q5, [%rd1+16], %q1, %q2;   // no longer matches: unchanged
  st.global.b128 [%rd1+48], %q5;     // old = in[16..31]
  atom.relaxed.gpu.global.exch.b128 %q6, [%rd1+64], %q2;
  st.global.b128 [%rd1+80], %q6;
  st.shared.b128 [sm+16], %q4;
  ld.shared.b128 %q7, [sm+16];
  mov.b128 %q7, %q7;
  st.global.b128 [%rd1+96], %q7;
  ret;
}

.visible .entry vec(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, %f1;
  mov.f32 %f3, 0f3F800000;
  mov.f32 %f4, 0fC0000000;
  atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
  atom.global.v2.f32.add {%f9, %f10}, [%rd1+16], {%f3, %f3};
  mov.b32 %r2, 0x3c003c00;        // {1.0, 1.0} f16
  mov.b32 %r3, 0x40004000;        // {2.0, 2.0}
  red.global.add.noftz.v2.f16x2 [%rd1+32], {%r2, %r3};
  mov.b32 %r4, 0x3f803f80;        // {1.0, 1.0} bf16
  atom.global.add.noftz.v2.bf16x2 {%r5, %r6}, [%rd1+40], {%r4, %r4};
  ret;
}

// 16-bit vector atomics (128 threads): every thread adds (j + 1) / 4 to f16 element j of a .v8;
// .v4.bf16 max of {tid, -tid, NaN or tid, -1}; .v2.f16x2 min of {tid, -tid} pairs
.visible .entry vec16(.param .u64 buf)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b16 %h<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mov.b16 %h1, 0x3400;
  mov.b16 %h2, 0x3800;
  mov.b16 %h3, 0x3a00;
  mov.b16 %h4, 0x3c00;
  mov.b16 %h5, 0x3d00;
  mov.b16 %h6, 0x3e00;
  mov.b16 %h7, 0x3f00;
  mov.b16 %h8, 0x4000;
  red.global.v8.f16.add.noftz [%rd1], {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8};
  cvt.rn.f32.u32 %f1, %r1;
  cvt.rn.bf16.f32 %h9, %f1;
  neg.f32 %f2, %f1;
  cvt.rn.bf16.f32 %h10, %f2;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  mov.b16 %h11, 0x7fc0;
  @!%p1 mov.b16 %h11, %h9;
  mov.b16 %h12, 0xbf80;
  atom.global.v4.bf16.max.noftz {%h13, %h14, %h15, %h0}, [%rd1+16], {%h9, %h10, %h11, %h12};
  cvt.rn.f16.f32 %h1, %f1;
  cvt.rn.f16.f32 %h2, %f2;
  mov.b32 %r3, {%h1, %h2};
  red.global.v2.f16x2.min.noftz [%rd1+24], {%r3, %r3};
  ret;
}

// a .v8 of f16 (16 bytes) at an 8-byte boundary
.visible .entry vmis(.param .u64 buf)
{
  .reg .b16 %h<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [buf];
  mov.b16 %h1, 0x3c00;
  red.global.v8.f16.add.noftz [%rd1+8], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
  ret;
}

.visible .entry mis(.param .u64 buf)
{
  .reg .b64 %rd<4>;
  .reg .b128 %q<2>;
  ld.param.u64 %rd1, [buf];
  ld.global.b128 %q1, [%rd1+8];
  ret;
}
)";

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_b128_test");
  Arena mem;
  {
    std::vector<uint64_t> in = {0x1111222233334444ull, 0x5555666677778888ull, 0x99990000aaaabbbbull, 0xccccddddeeeeffffull};
    uint64_t ib = mem.alloc(32), ob = mem.alloc(128);
    mem.put(ib, in);
    std::vector<uint64_t> init(16, 0);
    init[2] = in[0]; init[3] = in[1];          // cas target = in[0..15]
    init[8] = 0xdeadull; init[9] = 0xbeefull;  // exch target
    mem.put(ob, init);
    tsim::Fault f = k.run(mem, "b128", {ob, ib}, 1, 1);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint64_t>(ob, 14);
    CHECK_EQ(r[0], in[1]); CHECK_EQ(r[1], in[0]);    // swapped halves
    CHECK_EQ(r[2], in[2]); CHECK_EQ(r[3], in[3]);    // cas replaced the target
    CHECK_EQ(r[4], in[0]); CHECK_EQ(r[5], in[1]);    // old value of the first cas
    CHECK_EQ(r[6], in[2]); CHECK_EQ(r[7], in[3]);    // old value of the failed cas (target unchanged)
    CHECK_EQ(r[8], in[1]); CHECK_EQ(r[9], in[0]);    // exch wrote q2
    CHECK_EQ(r[10], 0xdeadull); CHECK_EQ(r[11], 0xbeefull);
    CHECK_EQ(r[12], in[2]); CHECK_EQ(r[13], in[3]);  // shared round trip
  }
  {
    uint64_t b = mem.alloc(64);
    mem.put(b, std::vector<uint32_t>(16, 0));
    tsim::Fault f = k.run(mem, "vec", {b}, 2, 64);  // 128 threads on 2 CTAs
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(b, 12);
    // sum over t < 64, twice (2 CTAs): t -> 2016*2, 2t -> 4032*2, 1 -> 128, -2 -> -256
    CHECK_EQ(bitsf(r[0]), 4032.0f);
    CHECK_EQ(bitsf(r[1]), 8064.0f);
    CHECK_EQ(bitsf(r[2]), 128.0f);
    CHECK_EQ(bitsf(r[3]), -256.0f);
    CHECK_EQ(bitsf(r[4]), 128.0f);
    CHECK_EQ(bitsf(r[5]), 128.0f);
    // f16x2: 128 x {1, 2} in both halves; bf16x2: 128 x 1
    CHECK_EQ(r[8], 0x58005800u);   // 128.0 in both halves (f16 0x5800)
    CHECK_EQ(r[9], 0x5c005c00u);   // 256.0
    CHECK_EQ(r[10], 0x43004300u);  // bf16 128.0
  }
  {
    uint64_t b = mem.alloc(64);
    mem.put(b, std::vector<uint32_t>(16, 0));
    tsim::Fault f = k.run(mem, "vec16", {b}, 2, 64);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto r = mem.get<uint32_t>(b, 8);
    // f16 .v8 add: 128 x (j + 1) / 4 = 32 (j + 1): 32, 64, ..., 256 (every partial sum exact)
    CHECK_EQ(r[0], 0x54005000u);
    CHECK_EQ(r[1], 0x58005600u);
    CHECK_EQ(r[2], 0x5a005900u);
    CHECK_EQ(r[3], 0x5c005b00u);
    // bf16 .v4 max from 0: {63, +0 (max of +0 and -0), 63 (NaN operands ignored), +0}
    CHECK_EQ(r[4], 0x0000427cu);
    CHECK_EQ(r[5], 0x0000427cu);
    // f16x2 .v2 min from 0: low halves 0, high halves -63
    CHECK_EQ(r[6], 0xd3e00000u);
    CHECK_EQ(r[7], 0xd3e00000u);
  }
  {
    uint64_t b = mem.alloc(64);
    CHECK_EQ((int)k.run(mem, "mis", {b}, 1, 1).kind, (int)tsim::Fault::Misaligned);
    CHECK_EQ((int)k.run(mem, "vmis", {b}, 1, 1).kind, (int)tsim::Fault::Misaligned);
  }
  const char* refused[] = {
      "red.global.cas.b128 [%rd1], %q1, %q1;",
      "atom.global.add.b128 %q1, [%rd1], %q1;",
      "atom.global.cas.b128 %q1, [%rd1], %rd1, %q1;",
      "mov.b128 %q1, {%r1, %r1};",
      "atom.global.add.v2.f16x2 {%r1, %r1}, [%rd1], {%r1, %r1};",
      "atom.global.min.v2.f32 {%r1, %r1}, [%rd1], {%r1, %r1};",
      "atom.shared.add.v2.f32 {%r1, %r1}, [%rd1], {%r1, %r1};",
      "atom.global.add.v8.f32 {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, [%rd1], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1};",
      "red.global.add.noftz.v8.f16x2 [%rd1], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1};",
      "red.global.exch.noftz.v2.f16 [%rd1], {%r1, %r1};",
      "red.global.add.v2.f16 [%rd1], {%r1, %r1};",
      "ld.global.v2.b128 {%q1, %q1}, [%rd1];",
  };
  for (const char* b : refused) {
    std::string ptx = std::string(".version 8.3\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n .reg .b128 %q<4>;\n ") + b + "\n ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m) std::printf("accepted: %s\n", b);
    CHECK(!m);
  }
  return finish("ptx_b128_test");
}
