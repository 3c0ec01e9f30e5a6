// Shared by ptx_tma_im2col_test and ptx_tma_sm100_test: a kernel around one cp.async.bulk.tensor
// load (the instruction text is substituted per case), tensor maps built as the driver builds them
// (tensormap.h), and the run that returns the landed box.
//
// The kernel: thread 0 initialises the mbarrier at smem+0, writes the sentinel word 0x5EED5EED at
// the box (smem+1024), arms expect_tx(bytes) and issues the copy (tensorCoords %r1..%r5, im2colInfo
// %rs1..%rs3, mbarrier %r10, destination %r11, map %rd1), then reads the box's first word into
// early[0]: before the mbarrier completes it is still the sentinel. Everyone waits on phase 0 and
// copies `bytes` of the box to out.
#pragma once
#include <string>
#include <vector>

#include "ptx_harness.h"
#include "tensormap.h"

namespace tmatest {

inline std::string loadKernel(const std::string& target, const std::string& instr) {
  return std::string(".version 8.6\n.target ") + target + R"(
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry ld(.param .u64 tm, .param .u64 out, .param .u64 early, .param .u32 bytes, .param .u32 c0, .param .u32 c1,
                   .param .u32 c2, .param .u32 c3, .param .u32 c4, .param .u32 o0, .param .u32 o1, .param .u32 o2)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tm];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [early];
  ld.param.u32 %r20, [bytes];
  ld.param.u32 %r1, [c0];
  ld.param.u32 %r2, [c1];
  ld.param.u32 %r3, [c2];
  ld.param.u32 %r4, [c3];
  ld.param.u32 %r5, [c4];
  ld.param.u32 %r6, [o0];
  ld.param.u32 %r7, [o1];
  ld.param.u32 %r8, [o2];
  cvt.u16.u32 %rs1, %r6;
  cvt.u16.u32 %rs2, %r7;
  cvt.u16.u32 %rs3, %r8;
  mov.u32 %r9, %tid.x;
  mov.u32 %r10, smem;
  add.u32 %r11, %r10, 1024;
  setp.eq.u32 %p1, %r9, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r10], 1;
  mov.u32 %r22, 0x5EED5EED;
  @%p1 st.shared.u32 [%r11], %r22;
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], %r20;
  @%p1 )" + instr + R"(
  @%p1 ld.shared.u32 %r21, [%r11];
  @%p1 st.global.u32 [%rd3], %r21;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], 0;
  @!%p2 bra WAIT;
  shl.b32 %r12, %r9, 2;
COPY:
  setp.ge.u32 %p3, %r12, %r20;
  @%p3 bra DONE;
  add.u32 %r13, %r11, %r12;
  ld.shared.u32 %r14, [%r13];
  cvt.u64.u32 %rd4, %r12;
  add.s64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r14;
  add.u32 %r12, %r12, 512;
  bra COPY;
DONE:
  ret;
}
)";
}

// A map as cuTensorMapEncodeTiled / Im2col / Im2colWide writes it (driver_tensormap.cpp).
struct MapSpec {
  uint8_t kind = tsim::kTmTiled, dtype = 7, swizzle = 0, fill = 0;
  uint64_t addr = 0;
  std::vector<uint64_t> dim, strideBytes;  // strideBytes: dimensions 1..rank-1
  std::vector<unsigned> box, estride;      // tiled: boxDim
  unsigned channels = 0, pixels = 0;       // im2col kinds
  std::vector<int> lower, upper;           // im2col kinds: W, H, D
};
inline tsim::TensorMapBits makeMap(const MapSpec& s) {
  tsim::TensorMapBits m{};
  m.magic = tsim::kTensorMapMagic;
  m.version = 1;
  m.kind = s.kind;
  m.rank = (uint8_t)s.dim.size();
  m.dtype = s.dtype;
  m.swizzle = s.swizzle;
  m.oobFill = s.fill;
  m.esize = (uint8_t)tsim::tensorMapElemBytes(s.dtype);
  m.addr = s.addr;
  for (unsigned i = 0; i < m.rank; i++) {
    m.dim[i] = s.dim[i];
    m.stride[i] = i == 0 ? m.esize : s.strideBytes[i - 1];
    m.estride[i] = (uint8_t)(i < s.estride.size() ? s.estride[i] : 1);
    if (s.kind == tsim::kTmTiled) m.box[i] = (uint16_t)s.box[i];
  }
  if (s.kind != tsim::kTmTiled) tsim::setIm2colBox(m, s.channels, s.pixels, s.lower.data(), s.upper.data(), (unsigned)s.lower.size());
  return m;
}

struct Landed {
  tsim::Fault fault;
  std::vector<uint8_t> box;
  uint32_t early = 0;  // the box's first word right after the copy was issued
};
// Runs the kernel on one CTA of 128 threads: coords c (up to 5), im2colInfo o (up to 3).
inline Landed runLoad(ptxtest::Kernel& k, ptxtest::Arena& mem, const tsim::TensorMapBits& map, unsigned bytes, std::vector<int32_t> c,
                      std::vector<unsigned> o = {}) {
  c.resize(5, 0);
  o.resize(3, 0);
  uint64_t tm = mem.alloc(128), out = mem.alloc(bytes + 4), early = mem.alloc(4);
  mem.put(tm, std::vector<tsim::TensorMapBits>{map});
  mem.put(out, std::vector<uint8_t>(bytes + 4, 0xCC));
  Landed r;
  r.fault = k.run(mem, "ld", {tm, out, early, bytes, (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2], (uint32_t)c[3], (uint32_t)c[4], o[0], o[1], o[2]},
                  1, 128, nullptr, 1024 + bytes + 1024);
  r.box = mem.get<uint8_t>(out, bytes);
  r.early = mem.get<uint32_t>(early, 1)[0];
  return r;
}

// The 16-byte chunk at byte offset `at` of a box starting 1024-aligned lands at this offset under
// the 32B/64B/128B swizzle (swizzle = 1, 2, 3): chunk bits 4.. XOR (bits 7..) as the ISA's
// swizzling modes and wgmma's descriptors read it.
inline unsigned swizzled(unsigned at, unsigned swizzle) {
  if (!swizzle) return at;
  unsigned mask = (1u << swizzle) - 1;
  return at ^ (((at >> 7) & mask) << 4);
}

}  // namespace tmatest
