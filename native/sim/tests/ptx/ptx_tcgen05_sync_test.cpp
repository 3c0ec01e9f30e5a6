// synccheck on tensor memory: a .sync.aligned tcgen05 instruction (alloc, dealloc,
// relinquish_alloc_permit, ld, st, wait::ld/st) must be executed by every thread of the warp (PTX
// ISA, tcgen05 "sync.aligned"). Reached by part of a warp it cannot run: the sim faults with the
// instruction's name either way, and with synccheck on the report also names the lanes that are not
// there, as for a bar.sync in divergent code (the hazard report is appended to the fault's).
// `sim_ptx_ptx_tcgen05_sync_test --ptxas PATH` also assembles the modules with ptxas -arch=sm_100a.
#include "ptx_harness.h"

using namespace ptxtest;

namespace {

// 64 threads; warp 0 allocates 32 columns (all lanes, or lanes 0..15 when `partialAlloc`), then
// every thread of warp 0 below `ldLanes` reads its lane with tcgen05.ld and waits.
std::string kernel(bool partialAlloc, unsigned ldLanes) {
  return std::string(R"(.version 8.8
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, )") + (partialAlloc ? "16" : "32") + R"(;
  mov.u32 %r4, slot;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  bar.sync 0;
  ld.shared.u32 %r10, [slot];
  mov.u32 %r11, 7;
  @%p1 tcgen05.st.sync.aligned.32x32b.x1.b32 [%r10], {%r11};
  @%p1 tcgen05.wait::st.sync.aligned;
  setp.lt.u32 %p2, %r1, )" + std::to_string(ldLanes) + R"(;
  @%p2 tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r12}, [%r10];
  @%p2 tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  @%p2 st.global.u32 [%rd3], %r12;
  bar.sync 0;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;
  ret;
}
)";
}

tsim::Fault run(const std::string& ptx, unsigned sanitize) {
  Kernel k(ptx);
  CHECK(k.ok());
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  if (!k.ok()) return bad;
  Arena mem;
  uint64_t out = mem.alloc(64 * 4);
  return k.run(mem, "k", {out}, 1, 64, nullptr, 0, 0, 2, 1, 1, sanitize);
}

void expectDetail(const char* what, const tsim::Fault& f, const char* phrase, bool want) {
  bool has = f.detail.find(phrase) != std::string::npos;
  if (has != want) {
    std::printf("%s: expected the detail %s \"%s\", got: %s\n", what, want ? "to contain" : "not to contain", phrase, f.detail.c_str());
    failures++;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // the whole warp: clean under synccheck
  {
    tsim::Fault f = run(kernel(false, 32), 2);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
  }
  // half a warp allocates: the fault names the instruction; synccheck adds the lanes
  for (unsigned san : {0u, 2u}) {
    tsim::Fault f = run(kernel(true, 32), san);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    expectDetail("partial alloc", f, "tcgen05.alloc needs all 32 lanes of the warp (.sync.aligned)", true);
    expectDetail("partial alloc", f, "synccheck x1: tcgen05.alloc in divergent code: lanes 0xffff0000 of warp 0 are not at it", san == 2);
  }
  // a whole-warp alloc, then 20 lanes read: the ld faults, synccheck names lanes 20..31
  for (unsigned san : {0u, 2u}) {
    tsim::Fault f = run(kernel(false, 20), san);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    expectDetail("partial ld", f, "tcgen05.ld needs all 32 lanes of the warp (.sync.aligned)", true);
    expectDetail("partial ld", f, "tcgen05.ld in divergent code: lanes 0xfff00000 of warp 0 are not at it", san == 2);
  }
  expectPtxas(ptxasArg(argc, argv), {kernel(false, 20), kernel(true, 20)});
  return finish("ptx_tcgen05_sync_test");
}
