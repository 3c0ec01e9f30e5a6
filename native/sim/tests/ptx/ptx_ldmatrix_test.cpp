// ldmatrix x1/x2/x4, with and without .trans, exact per the PTX ISA: lanes 8i..8i+7 give the row
// addresses of matrix i; lane L receives in register i row L/4, columns 2(L%4) and 2(L%4)+1 of
// matrix i (.trans: of its transpose). Row addresses are permuted so that each row is found only
// through its lane's address.
#include "ptx_harness.h"

using namespace ptxtest;

static std::string kernel(int n, bool trans) {
  std::string regs = "{%r10";
  for (int i = 1; i < n; i++) regs += ", %r1" + std::to_string(i);
  regs += "}";
  std::string name = "ldm" + std::to_string(n) + (trans ? "t" : "");
  return ".visible .entry " + name + R"((.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 m_)" + name + R"([512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, m_)" + name + R"(;
  // copy 512 bytes: 16 per lane
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd4];
  shl.b32 %r7, %r1, 4;
  add.u32 %r7, %r2, %r7;
  st.shared.v4.u32 [%r7], {%r3, %r4, %r5, %r6};
  bar.sync 0;
  // row address of lane l: matrix l/8, row (3 * (l%8)) % 8
  shr.u32 %r8, %r1, 3;
  and.b32 %r9, %r1, 7;
  mul.lo.u32 %r9, %r9, 3;
  and.b32 %r9, %r9, 7;
  shl.b32 %r8, %r8, 7;
  shl.b32 %r9, %r9, 4;
  add.u32 %r8, %r8, %r9;
  add.u32 %r8, %r8, %r2;
  ldmatrix.sync.aligned.m8n8.x)" + std::to_string(n) + (trans ? ".trans" : "") + ".shared.b16 " + regs + R"(, [%r8];
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
  ret;
}
)";
}

int main() {
  std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n";
  for (int n : {1, 2, 4})
    for (bool t : {false, true}) ptx += kernel(n, t);
  Kernel k(ptx);
  if (!k.ok()) return finish("ptx_ldmatrix_test");
  Arena mem;
  std::vector<uint16_t> data(256);
  for (int i = 0; i < 256; i++) data[i] = (uint16_t)(0x1000 + i);  // matrix m, row r, col c at m*64 + r*8 + c
  uint64_t in = mem.alloc(512), out = mem.alloc(512);
  mem.put(in, data);
  auto perm = [](unsigned r) { return (3 * r) % 8; };
  for (int n : {1, 2, 4})
    for (bool t : {false, true}) {
      std::string name = "ldm" + std::to_string(n) + (t ? "t" : "");
      mem.put(out, std::vector<uint32_t>(128, 0));
      CHECK(k.run(mem, name.c_str(), {in, out}, 1, 32).kind == tsim::Fault::None);
      auto r = mem.get<uint32_t>(out, 128);
      int bad = 0;
      for (unsigned L = 0; L < 32; L++)
        for (int i = 0; i < n; i++) {
          uint32_t lo, hi;
          if (!t) {
            unsigned row = perm(L / 4), col = 2 * (L % 4);
            lo = 0x1000 + i * 64 + row * 8 + col;
            hi = lo + 1;
          } else {
            unsigned col = L / 4;
            lo = 0x1000 + i * 64 + perm(2 * (L % 4)) * 8 + col;
            hi = 0x1000 + i * 64 + perm(2 * (L % 4) + 1) * 8 + col;
          }
          uint32_t want = lo | hi << 16;
          if (r[L * 4 + i] != want && bad++ < 4)
            std::printf("%s lane %u reg %d: got 0x%08x want 0x%08x\n", name.c_str(), L, i, r[L * 4 + i], want);
        }
      CHECK_EQ(bad, 0);
    }
  return finish("ptx_ldmatrix_test");
}
