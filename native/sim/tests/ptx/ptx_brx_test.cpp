// brx.idx and .branchtargets (PTX ISA "brx.idx"): each lane branches to entry `index` of a label
// list declared before it (`name: .branchtargets L0, L1, ...;`), divergent lanes reconverging as for
// bra; `.uni` with a uniform index. Triton's Blackwell warp-specialized kernels dispatch their
// partitions this way. An index past the list (undefined in the ISA) is a named fault; a brx.idx
// naming something that is not a list declared before it is a load error.
// `sim_ptx_ptx_brx_test --ptxas PATH` also assembles the module with ptxas -arch=sm_90a.
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

// out[tid] = 10 * (idx + 1) + tid, idx = (tid + shift) % 3 (or `bad` for lane 5 when nonzero);
// then every lane (reconverged) adds 1000. The second entry point branches uniformly (.uni).
const char* kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry brx(.param .u64 out, .param .u32 shift, .param .u32 bad)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [shift];
  ld.param.u32 %r9, [bad];
  add.u32 %r3, %r1, %r2;
  rem.u32 %r3, %r3, 3;
  setp.eq.u32 %p1, %r1, 5;
  setp.ne.u32 %p2, %r9, 0;
  and.pred %p1, %p1, %p2;
  @%p1 mov.u32 %r3, %r9;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
ts: .branchtargets A, B, C;
  brx.idx %r3, ts;
A:
  mov.u32 %r4, 10;
  bra JOIN;
B:
  mov.u32 %r4, 20;
  bra JOIN;
C:
  mov.u32 %r4, 30;
JOIN:
  add.u32 %r4, %r4, %r1;
  add.u32 %r4, %r4, 1000;
  st.global.u32 [%rd1], %r4;
  ret;
}
.visible .entry brxuni(.param .u64 out, .param .u32 which)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [which];
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd1, %rd1, %rd2;
tl: .branchtargets X, Y;
  brx.idx.uni %r1, tl;
X:
  st.global.u32 [%rd1], 111;
  ret;
Y:
  st.global.u32 [%rd1], 222;
  ret;
}
)";

}  // namespace

int main(int argc, char** argv) {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_brx_test");
  Arena mem;
  uint64_t out = mem.alloc(64 * 4);
  for (unsigned shift : {0u, 1u, 2u}) {
    mem.put(out, std::vector<uint32_t>(64, 0xdead));
    tsim::Fault f = k.run(mem, "brx", {out, shift, 0}, 1, 64);
    CHECK_EQ((int)f.kind, 0);
    auto v = mem.get<uint32_t>(out, 64);
    for (unsigned t = 0; t < 64; t++) CHECK_EQ(v[t], 10 * ((t + shift) % 3 + 1) + t + 1000);
  }
  for (unsigned which : {0u, 1u}) {
    tsim::Fault f = k.run(mem, "brxuni", {out, which}, 1, 32);
    CHECK_EQ((int)f.kind, 0);
    auto v = mem.get<uint32_t>(out, 32);
    for (unsigned t = 0; t < 32; t++) CHECK_EQ(v[t], which ? 222u : 111u);
  }
  // lane 5's index 7 is past the list of 3
  {
    tsim::Fault f = k.run(mem, "brx", {out, 0, 7}, 1, 64);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("brx.idx: index 7 is outside its .branchtargets list of 3 labels") != std::string::npos);
  }
  // load errors
  {
    std::string log;
    auto m = tsim::parsePtx(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, 0;\n  brx.idx %r1, L;\nL:\n  ret;\n}\n", log);
    CHECK(!m);
    CHECK(log.find("brx.idx: 'L' is not a .branchtargets list declared before it") != std::string::npos);
    if (log.find("is not a .branchtargets list") == std::string::npos) std::printf("%s\n", log.c_str());
    log.clear();
    m = tsim::parsePtx(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<2>;\nts: .branchtargets A, NOPE;\n  brx.idx %r1, ts;\nA:\n  ret;\n}\n", log);
    CHECK(!m);
    CHECK(log.find("unknown label 'NOPE'") != std::string::npos);
  }
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    std::string file = "/tmp/tsim_brx_" + std::to_string(::getpid()) + ".ptx";
    std::ofstream(file) << kPtx;
    std::string cmd = std::string(argv[2]) + " -arch=sm_90a -o /dev/null " + file;
    if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_90a refuses the module\n"); failures++; }
    std::remove(file.c_str());
  }
  return finish("ptx_brx_test");
}
