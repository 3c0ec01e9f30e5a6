// wgmma (sm_90a) against the PTX ISA, bit for bit. Each case lays A and B into shared memory with
// this file's own reading of the ISA's canonical layouts (core matrices of 8 rows x 16 bytes;
// K-major and MN-major; no swizzle with explicit leading/stride byte offsets, and the 32B/64B/128B
// swizzles, where the 16-byte chunk c of row r of an 8-row atom is stored at chunk
// c ^ (r >> (3 - log2(R/16))) of that row), runs one warpgroup, reads every accumulator register
// of every thread back and places it with the ISA's fragment layout (row 16*warp + lane/4 (+8),
// column 8j + 2*(lane%4) (+1)), and compares with a CPU product of exactly representable values.
// Also: scale-d = 0, imm-scale-a/b = -1, A from registers, f16 accumulators (one rounding), tf32
// ignoring the low 13 mantissa bits, e4m3 x e5m2, s8/u8 with and without .satfinite, a start
// address advanced inside a swizzle atom; asynchrony: reading an accumulator before the covering
// wait_group is a named fault (the register holds the poison value) and shared memory overwritten
// before the wait is what the wgmma reads; without fence.proxy.async the generic writes of the
// operands are not seen; a partial warpgroup and divergent lanes are faults; forms the ISA does not have are
// refused at load.
#include <cstdint>
#include <functional>
#include <random>

#include "ptx_harness.h"

using namespace ptxtest;

namespace {

enum Ty { F16, BF16, TF32, E4M3, E5M2, S8, U8 };
const char* tyName(Ty t) {
  static const char* n[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"};
  return n[t];
}
unsigned esize(Ty t) { return t == TF32 ? 4 : (t == F16 || t == BF16) ? 2 : 1; }

// Small exactly representable values -> bits of each type.
uint32_t encode(Ty t, int v4) {  // value v4 / 4 for floats, v4 for integers
  double v = v4 / 4.0;
  switch (t) {
    case F16: { _Float16 h = (_Float16)v; uint16_t b; memcpy(&b, &h, 2); return b; }
    case BF16: return fbits((float)v) >> 16;
    case TF32: return fbits((float)v) | 0x1abc;  // low 13 bits: ignored by tf32 (ISA)
    case E4M3: case E5M2: {
      // v = m * 2^e with |m| in {0} or 1.xx: build from the float bits (values are exact)
      if (v == 0) return 0;
      uint32_t f = fbits((float)v);
      uint32_t s = f >> 31, e = (f >> 23) & 255, m = f >> 20 & 7;  // 3 mantissa bits
      if (t == E4M3) return s << 7 | (e - 127 + 7) << 3 | m;
      return s << 7 | (e - 127 + 15) << 2 | (m >> 1);
    }
    case S8: return (uint8_t)(int8_t)v4;
    case U8: return (uint8_t)v4;
  }
  return 0;
}
double valueOf(Ty t, int v4) {
  if (t == S8 || t == U8) return v4;
  if (t == E5M2) {  // only 2 mantissa bits: the generator keeps to values e5m2 holds
    return v4 / 4.0;
  }
  return v4 / 4.0;
}
// Values each type holds exactly (in quarters): e5m2 has 2 mantissa bits, so {0, +-1, +-2, +-3,
// +-4, +-6, +-8} quarters; the others take -8..8 quarters (integers -8..8 for s8, 0..15 for u8).
int genValue(Ty t, std::mt19937& g) {
  static const int e5[] = {0, 1, 2, 3, 4, 6, 8, -1, -2, -3, -4, -6, -8};
  if (t == E5M2) return e5[g() % 13];
  if (t == E4M3) { static const int e4[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -5, -6, -7}; return e4[g() % 15]; }
  if (t == U8) return (int)(g() % 16);
  return (int)(g() % 17) - 8;
}

// Byte offset of element (mn, byte kb along K) of a K-major matrix; (mn byte mb, k) for MN-major.
unsigned swizzleShift(unsigned swz) { return swz == 32 ? 2 : swz == 64 ? 1 : 0; }
size_t kMajorAt(unsigned mn, unsigned kb, unsigned swz, unsigned lbo, unsigned sbo) {
  if (!swz) return (mn / 8) * sbo + (mn % 8) * 16 + (kb / 16) * lbo + kb % 16;
  unsigned r = mn % 8, chunk = kb / 16;
  return (mn / 8) * sbo + r * swz + ((chunk ^ (r >> swizzleShift(swz))) % (swz / 16)) * 16 + kb % 16 + (kb / swz) * 0;
}
size_t mnMajorAt(unsigned mb, unsigned k, unsigned swz, unsigned lbo, unsigned sbo) {
  if (!swz) return (k / 8) * lbo + (k % 8) * 16 + (mb / 16) * sbo + mb % 16;
  unsigned r = k % 8, chunk = (mb % swz) / 16;
  return (mb / swz) * lbo + (k / 8) * sbo + r * swz + (chunk ^ (r >> swizzleShift(swz))) * 16 + mb % 16;
}

uint64_t desc(unsigned start, unsigned lbo, unsigned sbo, unsigned swz) {
  uint64_t mode = swz == 0 ? 0 : swz == 128 ? 1 : swz == 64 ? 2 : 3;
  return (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | mode << 62;
}

struct Case {
  std::string name;
  Ty a = F16, b = F16;
  const char* acc = "f32";  // f32, f16, s32
  unsigned n = 16;
  bool aReg = false, transA = false, transB = false, satf = false, scaleD = true;
  int scaleA = 1, scaleB = 1;
  unsigned swzA = 0, swzB = 0;
  unsigned lboA = 1024, sboA = 128, lboB = 2048, sboB = 128;  // for no swizzle
  unsigned sliceA = 0;  // K-major swizzled A: start address advanced by 32 * sliceA bytes
  // B's swizzle pattern starts baseB 128-byte rows past a pattern boundary (1024/512/256 bytes):
  // the descriptor's base offset (bits 49-51) is (start >> 7) & 7 when descBase, else left 0
  unsigned baseB = 0;
  bool descBase = true;
  unsigned waitN = 0;
  bool overwriteB = false;  // zero B's shared memory between commit and wait
  bool noFence = false;     // leave out the fence.proxy.async after the generic writes
  unsigned threads = 128;
  bool divergent = false;
};

std::string kernelText(const Case& c, unsigned nacc) {
  std::string accList, st, ld, aList;
  for (unsigned i = 0; i < nacc; i++) {
    accList += (i ? "," : "") + std::string("%c") + std::to_string(i);
    ld += "  ld.global.b32 %c" + std::to_string(i) + ", [%rd9+" + std::to_string(4 * i) + "];\n";
    st += "  st.global.b32 [%rd10+" + std::to_string(4 * i) + "], %c" + std::to_string(i) + ";\n";
  }
  std::string dt = c.acc;
  std::string shape = "m64n" + std::to_string(c.n) + "k" + std::to_string(32 / esize(c.a));
  std::string op = "wgmma.mma_async.sync.aligned." + shape + (c.satf ? ".satfinite" : "") + "." + dt + "." + tyName(c.a) + "." + tyName(c.b);
  std::string aOp = c.aReg ? "{%ar0,%ar1,%ar2,%ar3}" : "%rd3";
  std::string tail;
  bool isInt = c.a == S8 || c.a == U8;
  bool halves = c.a == F16 || c.a == BF16;
  if (!isInt) {
    tail = ", " + std::to_string(c.scaleA) + ", " + std::to_string(c.scaleB);
    if (halves) tail += (c.aReg ? "" : ", " + std::to_string(c.transA ? 1 : 0)) + ", " + std::to_string(c.transB ? 1 : 0);
  }
  std::string over;
  if (c.overwriteB)
    over = "  // overwrite B (16 KiB at 8192) while the wgmma is in flight\n"
           "  shl.b32 %r7, %r2, 2;\n"
           "OV:\n  setp.ge.u32 %p3, %r7, 16384;\n  @%p3 bra OVD;\n  cvt.u64.u32 %rd13, %r7;\n  add.s64 %rd14, %rd11, %rd13;\n"
           "  st.shared.u32 [%rd14+8192], 0;\n  add.u32 %r7, %r7, 512;\n  bra OV;\nOVD:\n  bar.sync 0;\n";
  std::string div = c.divergent ? "  setp.eq.u32 %p3, %r2, 5;\n  @%p3 bra SKIP;\n" : "";
  return R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pda, .param .u64 pdb, .param .u32 pbytes, .param .u64 pc, .param .u64 pa)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b32 %c<)" + std::to_string(nacc) + R"(>;
  .reg .b32 %ar<4>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u64 %rd3, [pda];
  ld.param.u64 %rd4, [pdb];
  ld.param.u32 %r1, [pbytes];
  ld.param.u64 %rd5, [pc];
  ld.param.u64 %rd15, [pa];
  mov.u32 %r2, %tid.x;
  mov.u64 %rd11, smem;
  shl.b32 %r3, %r2, 2;
LOOP:
  setp.ge.u32 %p1, %r3, %r1;
  @%p1 bra DONE;
  cvt.u64.u32 %rd6, %r3;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.u32 %r4, [%rd7];
  add.s64 %rd12, %rd11, %rd6;
  st.shared.u32 [%rd12], %r4;
  add.u32 %r3, %r3, 512;
  bra LOOP;
DONE:
  bar.sync 0;
)" + std::string(c.noFence ? "" : "  fence.proxy.async.shared::cta;\n") + R"(  mul.wide.u32 %rd8, %r2, )" + std::to_string(4 * nacc) + R"(;
  add.s64 %rd9, %rd5, %rd8;
)" + ld + R"(  mul.wide.u32 %rd16, %r2, 16;
  add.s64 %rd17, %rd15, %rd16;
  ld.global.v4.b32 {%ar0,%ar1,%ar2,%ar3}, [%rd17];
  setp.ne.u32 %p2, )" + std::to_string(c.scaleD ? 1 : 0) + R"(, 0;
)" + div + R"(  wgmma.fence.sync.aligned;
  )" + op + " {" + accList + "}, " + aOp + ", %rd4, %p2" + tail + R"(;
  wgmma.commit_group.sync.aligned;
)" + over + R"(  wgmma.wait_group.sync.aligned )" + std::to_string(c.waitN) + R"(;
SKIP:
  add.s64 %rd10, %rd2, %rd8;
)" + st + R"(  ret;
}
)";
}

double accValue(const char* acc, uint32_t bits, unsigned half) {
  if (!strcmp(acc, "f32")) return bitsf(bits);
  if (!strcmp(acc, "s32")) return (int32_t)bits;
  uint16_t h = (uint16_t)(bits >> (16 * half));
  _Float16 x;
  memcpy(&x, &h, 2);
  return (double)x;
}

// Runs one case; returns the number of mismatching elements (and prints the first few).
void runCase(const Case& c, std::function<void(const tsim::Fault&)> onFault = nullptr,
             std::function<void(const std::vector<uint32_t>&)> onRaw = nullptr) {
  std::mt19937 g(1234 + (unsigned)c.name.size() * 7);
  const unsigned M = 64, N = c.n, K = 32 / esize(c.a), ea = esize(c.a), eb = esize(c.b);
  bool isInt = c.a == S8 || c.a == U8;
  unsigned nacc = !strcmp(c.acc, "f16") ? N / 4 : N / 2;
  // A is 64 x KA (KA wider than K when the case reads a slice of a swizzled row)
  unsigned KA = c.sliceA ? c.swzA / ea : K;
  std::vector<int> A(M * KA), B(K * N);
  for (auto& x : A) x = genValue(c.a, g);
  for (auto& x : B) x = genValue(c.b, g);
  std::vector<uint8_t> img(8192 + 32768, 0xEE);  // A at 0, B at 8192; 0xEE where nothing is placed
  auto put = [&](size_t at, uint32_t bits, unsigned bytes) {
    CHECK(at + bytes <= img.size());
    if (at + bytes <= img.size()) memcpy(img.data() + at, &bits, bytes);
  };
  for (unsigned m = 0; m < M; m++)
    for (unsigned k = 0; k < KA; k++) {
      size_t at = c.transA ? mnMajorAt(m * ea, k, c.swzA, c.lboA, c.sboA) : kMajorAt(m, k * ea, c.swzA, c.lboA, c.swzA ? 8 * c.swzA : c.sboA);
      put(at, encode(c.a, A[m * KA + k]), ea);
    }
  for (unsigned k = 0; k < K; k++)
    for (unsigned n = 0; n < N; n++) {
      size_t at = c.transB ? mnMajorAt(n * eb, k, c.swzB, c.lboB, c.sboB) : kMajorAt(n, k * eb, c.swzB, c.lboB, c.swzB ? 8 * c.swzB : c.sboB);
      put(8192 + 128 * c.baseB + at, encode(c.b, B[k * N + n]), eb);
    }
  // descriptors: K-major swizzled use SBO = 8 rows of R bytes (LBO unused: give it garbage)
  uint64_t dA = c.transA ? desc(0, c.lboA, c.sboA, c.swzA) : desc(32 * c.sliceA, c.swzA ? 0x3ff0 : c.lboA, c.swzA ? 8 * c.swzA : c.sboA, c.swzA);
  const unsigned startB = 8192 + 128 * c.baseB;
  uint64_t dB = c.transB ? desc(startB, c.lboB, c.sboB, c.swzB) : desc(startB, c.swzB ? 0x3ff0 : c.lboB, c.swzB ? 8 * c.swzB : c.sboB, c.swzB);
  if (c.descBase) dB |= (uint64_t)((startB >> 7) & 7) << 49;
  // C: initial accumulators, per thread, in fragment order
  std::vector<uint32_t> C(128 * nacc), Areg(128 * 4, 0);
  std::vector<double> Cv(M * N, 0);
  for (unsigned t = 0; t < 128; t++) {
    unsigned w = t / 32, l = t % 32, gq = l / 4, tq = l % 4;
    for (unsigned j = 0; j < N / 8; j++)
      for (unsigned i = 0; i < 4; i++) {
        unsigned row = 16 * w + gq + 8 * (i >> 1), col = 8 * j + 2 * tq + (i & 1);
        int v = (int)(g() % 9) - 4;
        Cv[row * N + col] = isInt ? v : v / 2.0;
        if (!strcmp(c.acc, "f32")) C[t * nacc + 4 * j + i] = fbits((float)(v / 2.0));
        else if (!strcmp(c.acc, "s32")) C[t * nacc + 4 * j + i] = (uint32_t)v;
        else {
          _Float16 h = (_Float16)(v / 2.0);
          uint16_t hb;
          memcpy(&hb, &h, 2);
          C[t * nacc + 2 * j + (i >> 1)] |= (uint32_t)hb << (16 * (i & 1));
        }
      }
    if (c.aReg) {  // f16/bf16: reg i = (row g + 8(i&1), cols 2t + 8(i>>1) + {0,1})
      for (unsigned i = 0; i < 4; i++)
        for (unsigned h = 0; h < 2; h++) {
          unsigned row = 16 * w + gq + 8 * (i & 1), col = 2 * tq + 8 * (i >> 1) + h;
          Areg[t * 4 + i] |= encode(c.a, A[row * KA + col]) << (16 * h);
        }
    }
  }
  Arena mem;
  uint64_t in = mem.alloc(img.size()), out = mem.alloc(C.size() * 4), cbuf = mem.alloc(C.size() * 4), abuf = mem.alloc(Areg.size() * 4);
  std::vector<uint32_t> words(img.size() / 4);
  memcpy(words.data(), img.data(), img.size());
  mem.put(in, words);
  mem.put(cbuf, C);
  mem.put(abuf, Areg);
  Kernel k(kernelText(c, nacc));
  if (!k.ok()) { std::printf("%s: load failed\n", c.name.c_str()); failures++; return; }
  tsim::Fault f = k.run(mem, "k", {in, out, dA, dB, (uint64_t)img.size(), cbuf, abuf}, 1, c.threads, nullptr, (unsigned)img.size());
  if (onFault) { onFault(f); return; }
  if (f.kind != tsim::Fault::None) { std::printf("%s: fault %d %s\n", c.name.c_str(), (int)f.kind, f.detail.c_str()); failures++; return; }
  auto got = mem.get<uint32_t>(out, C.size());
  if (onRaw) { onRaw(got); return; }
  unsigned bad = 0;
  double sa = c.scaleA, sb = c.scaleB;
  for (unsigned t = 0; t < 128; t++) {
    unsigned w = t / 32, l = t % 32, gq = l / 4, tq = l % 4;
    for (unsigned j = 0; j < N / 8; j++)
      for (unsigned i = 0; i < 4; i++) {
        unsigned row = 16 * w + gq + 8 * (i >> 1), col = 8 * j + 2 * tq + (i & 1);
        double want = c.scaleD ? Cv[row * N + col] : 0;
        for (unsigned kk = 0; kk < K; kk++)
          want += sa * valueOf(c.a, A[row * KA + kk + (c.sliceA ? 32 * c.sliceA / ea : 0)]) * sb * valueOf(c.b, B[kk * N + col]);
        double have;
        uint32_t bits;
        if (!strcmp(c.acc, "f16")) {
          bits = got[t * nacc + 2 * j + (i >> 1)];
          have = accValue("f16", bits, i & 1);
          _Float16 h = (_Float16)want;  // one rounding of the exact sum
          want = (double)h;
        } else {
          bits = got[t * nacc + 4 * j + i];
          have = accValue(c.acc, bits, 0);
          if (isInt && c.satf) want = std::min(std::max(want, -2147483648.0), 2147483647.0);
        }
        if (have != want) {
          if (bad++ < 4) std::printf("%s: D[%u][%u] = %g (0x%08x), want %g\n", c.name.c_str(), row, col, have, bits, want);
        }
      }
  }
  if (bad) { std::printf("%s: %u wrong\n", c.name.c_str(), bad); failures++; }
}

// The summation's precision: D = C + A*B in k order with a 64-bit mantissa, rounded once. Row 0,
// column 0: 2^20 + 2^-20 * 2^-20 - 1024 * 1024 = 2^-40 (the partial sum 2^20 + 2^-40 needs 61
// bits: exact in long double, not in double, so a double sum would give 0). Row 1, column 2:
// 2^20 + 2^-24 * 2^-24 - 2^20 = 0, as 2^20 + 2^-48 needs 69 bits and rounds to 2^20.
void precisionCase() {
  std::vector<uint8_t> img(8192 + 32768, 0);
  auto putH = [&](size_t at, uint16_t bits) { memcpy(img.data() + at, &bits, 2); };
  const unsigned lboA = 1024, sboA = 128, lboB = 2048, sboB = 128;
  putH(kMajorAt(0, 0, 0, lboA, sboA), 0x0010);  // A[0][0] = 2^-20 (subnormal)
  putH(kMajorAt(0, 2, 0, lboA, sboA), 0xe400);  // A[0][1] = -1024
  putH(kMajorAt(1, 0, 0, lboA, sboA), 0x0001);  // A[1][0] = 2^-24
  putH(kMajorAt(1, 2, 0, lboA, sboA), 0xe400);  // A[1][1] = -1024
  putH(8192 + kMajorAt(0, 0, 0, lboB, sboB), 0x0010);  // B[0][0] = 2^-20
  putH(8192 + kMajorAt(0, 2, 0, lboB, sboB), 0x6400);  // B[1][0] = 1024
  putH(8192 + kMajorAt(2, 0, 0, lboB, sboB), 0x0001);  // B[0][2] = 2^-24
  putH(8192 + kMajorAt(2, 2, 0, lboB, sboB), 0x6400);  // B[1][2] = 1024
  const unsigned nacc = 8;  // m64n16 f32
  std::vector<uint32_t> C(128 * nacc, 0), Areg(128 * 4, 0);
  C[0 * nacc + 0] = 0x49800000;  // C[0][0] = 2^20: thread 0, register 0
  C[5 * nacc + 0] = 0x49800000;  // C[1][2] = 2^20: lane 1 * 4 + 1, register 0
  Arena mem;
  uint64_t in = mem.alloc(img.size()), out = mem.alloc(C.size() * 4), cbuf = mem.alloc(C.size() * 4), abuf = mem.alloc(Areg.size() * 4);
  std::vector<uint32_t> words(img.size() / 4);
  memcpy(words.data(), img.data(), img.size());
  mem.put(in, words);
  mem.put(cbuf, C);
  mem.put(abuf, Areg);
  Case c;
  Kernel k(kernelText(c, nacc));
  CHECK(k.ok());
  tsim::Fault f = k.run(mem, "k", {in, out, desc(0, lboA, sboA, 0), desc(8192, lboB, sboB, 0), (uint64_t)img.size(), cbuf, abuf}, 1,
                        128, nullptr, (unsigned)img.size());
  CHECK_EQ((int)f.kind, 0);
  auto got = mem.get<uint32_t>(out, C.size());
  CHECK_EQ(got[0 * nacc + 0], 0x2b800000u);  // 2^-40
  CHECK_EQ(got[5 * nacc + 0], 0u);
  CHECK_EQ(got[0 * nacc + 1], 0u);  // C[0][1] = 0 + 2^-20 * 0 ...: nothing else is touched
}

}  // namespace

int main() {
  precisionCase();
  // layouts: K-major without swizzle (explicit LBO/SBO), each swizzle, MN-major, both operands
  { Case c; c.name = "f16 K-major none"; runCase(c); }
  { Case c; c.name = "f16 K-major none, other offsets"; c.lboA = 128; c.sboA = 256; c.lboB = 128; c.sboB = 256; c.n = 24; runCase(c); }
  for (unsigned s : {32u, 64u, 128u}) {
    Case c; c.name = "f16 K-major swizzle " + std::to_string(s); c.swzA = s; c.swzB = s; c.n = 32; runCase(c);
  }
  // a swizzle pattern that starts off its boundary: the base offset names the pattern's phase
  for (unsigned s : {32u, 64u, 128u}) {
    Case c; c.name = "f16 B pattern 3 rows off its boundary, swizzle " + std::to_string(s); c.swzA = 128; c.swzB = s;
    c.baseB = 3; c.n = 32; runCase(c);
    c.name = "f16 B MN-major pattern 5 rows off, swizzle " + std::to_string(s); c.transB = true; c.baseB = 5;
    c.lboB = 8 * s; c.sboB = 8 * s * (32 * 2 / s + 1); runCase(c);
  }
  {
    // the same layout with the base offset left 0 reads the rows in the wrong phase
    Case c; c.name = "base offset left out"; c.swzB = 128; c.baseB = 3; c.descBase = false; c.n = 32;
    unsigned wrong = 0;
    Case r = c;
    r.descBase = true;
    std::vector<uint32_t> good, bad;
    runCase(r, nullptr, [&](const std::vector<uint32_t>& v) { good = v; });
    runCase(c, nullptr, [&](const std::vector<uint32_t>& v) { bad = v; });
    for (size_t i = 0; i < good.size() && i < bad.size(); i++) wrong += good[i] != bad[i];
    CHECK(!good.empty() && wrong > good.size() / 2);
    // no swizzle: the base offset does not apply (the ISA: valid for the swizzling modes only)
    Case n; n.name = "base offset ignored without swizzle"; n.baseB = 2; n.n = 24; runCase(n);
  }
  { Case c; c.name = "f16 A slice 1 of a 64B-swizzled row"; c.swzA = 64; c.sliceA = 1; runCase(c); }
  { Case c; c.name = "f16 A slice 3 of a 128B-swizzled row"; c.swzA = 128; c.sliceA = 3; c.swzB = 128; runCase(c); }
  { Case c; c.name = "f16 MN-major B none"; c.transB = true; c.lboB = 256; c.sboB = 128; c.n = 16; runCase(c); }
  { Case c; c.name = "f16 MN-major A and B none"; c.transA = true; c.transB = true; c.lboA = 128; c.sboA = 256; c.lboB = 256; c.sboB = 128; runCase(c); }
  for (unsigned s : {32u, 64u, 128u}) {
    // MN-major swizzled: a row of R bytes holds R/2 MN elements; 8 K-rows per atom; LBO steps MN
    // atoms, SBO steps the 8-row K groups
    Case c; c.name = "bf16 MN-major swizzle " + std::to_string(s); c.a = c.b = BF16; c.transA = true; c.transB = true;
    c.swzA = c.swzB = s; c.lboA = 8 * s; c.sboA = 2 * 8 * s; c.lboB = 8 * s; c.sboB = 8 * s * (64 * 2 / s + 1); c.n = 64;
    c.lboA = 2 * 8 * s; c.sboA = 8 * s;  // A: K groups at 8*R, MN atoms at 16*R
    runCase(c);
  }
  // scale-d, imm-scale, A from registers, f16 accumulators
  { Case c; c.name = "scale-d 0"; c.scaleD = false; runCase(c); }
  { Case c; c.name = "imm-scale-a -1"; c.scaleA = -1; runCase(c); }
  { Case c; c.name = "imm-scale-b -1, MN-major B"; c.scaleB = -1; c.transB = true; c.lboB = 256; c.sboB = 128; runCase(c); }
  { Case c; c.name = "A from registers"; c.aReg = true; c.swzB = 128; c.n = 64; runCase(c); }
  { Case c; c.name = "bf16 A from registers"; c.a = c.b = BF16; c.aReg = true; runCase(c); }
  { Case c; c.name = "f16 accumulators"; c.acc = "f16"; c.n = 32; runCase(c); }
  // other types
  { Case c; c.name = "tf32"; c.a = c.b = TF32; c.swzA = c.swzB = 32; runCase(c); }
  { Case c; c.name = "e4m3 x e5m2"; c.a = E4M3; c.b = E5M2; c.swzB = 64; runCase(c); }
  { Case c; c.name = "e5m2 x e4m3, f16 acc"; c.a = E5M2; c.b = E4M3; c.acc = "f16"; runCase(c); }
  { Case c; c.name = "s8 x u8"; c.a = S8; c.b = U8; c.acc = "s32"; c.n = 48; runCase(c); }
  { Case c; c.name = "u8 x s8 satfinite"; c.a = U8; c.b = S8; c.acc = "s32"; c.satf = true; runCase(c); }
  { Case c; c.name = "n256"; c.n = 256; c.swzB = 128; runCase(c); }

  // asynchrony: wait_group 1 leaves the only group in flight, so the store that reads the
  // accumulators is reported, naming the wgmma
  {
    Case c; c.name = "short wait"; c.waitN = 1;
    runCase(c, [](const tsim::Fault& f) {
      CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
      CHECK(f.detail.find("reads an accumulator register of the wgmma.mma_async at PTX line") != std::string::npos);
      CHECK(f.detail.find("before a wgmma.wait_group covers it") != std::string::npos);
    });
  }
  // shared memory overwritten between commit and wait: the wgmma reads the zeros, so D = C
  {
    Case c; c.name = "operand overwritten in flight"; c.overwriteB = true; c.n = 16;
    runCase(c, nullptr, [](const std::vector<uint32_t>& got) {
      // every element equals its C input (B read as zeros): C values are k/2 for k in -4..4
      unsigned ok = 0;
      for (uint32_t v : got) {
        float x = bitsf(v);
        ok += x == std::round(x * 2) / 2 && std::fabs(x) <= 2;
      }
      CHECK_EQ(ok, (unsigned)got.size());
    });
  }
  // without fence.proxy.async the generic writes of A and B are not visible to wgmma (the async
  // proxy): it reads the zero-filled shared memory, so D = C
  {
    Case c; c.name = "no proxy fence"; c.noFence = true; c.n = 16;
    runCase(c, nullptr, [](const std::vector<uint32_t>& got) {
      unsigned asC = 0;
      for (uint32_t v : got) {
        float x = bitsf(v);
        asC += x == std::round(x * 2) / 2 && std::fabs(x) <= 2;
      }
      CHECK_EQ(asC, (unsigned)got.size());
    });
  }
  // a warpgroup needs 4 full warps
  {
    Case c; c.name = "partial warpgroup"; c.threads = 96;
    runCase(c, [](const tsim::Fault& f) {
      CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
      CHECK(f.detail.find("warpgroup") != std::string::npos);
    });
  }
  {
    Case c; c.name = "divergent"; c.divergent = true;
    runCase(c, [](const tsim::Fault& f) {
      CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
      CHECK(f.detail.find("32 lanes") != std::string::npos);
    });
  }
  // forms the ISA does not have
  const char* bad[] = {
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.bf16 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n16k8.f32.f16.f16 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f0,%f1,%f2,%f3,%f4,%f5}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%f0,%f1}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8,%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16,%f17,%f18,%f19}, %rd1, %rd1, 1;",
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0,%f1,%f2,%f3}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0,%f1,%f2,%f3}, %rd1, %rd1, 1, 2, 1, 0, 0;",
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0,%f1,%f2}, %rd1, %rd1, 1, 1, 1, 0, 0;",
      "wgmma.wait_group.sync.aligned %r1;",
      "wgmma.fence.aligned;",
  };
  for (const char* b : bad) {
    std::string ptx = std::string(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %f<24>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ") + b + "\n ret;\n}\n";
    std::string log;
    auto m = tsim::parsePtx(ptx, log);
    if (m) std::printf("accepted: %s\n", b);
    CHECK(!m);
    CHECK(log.find("unsupported instruction") != std::string::npos);
  }
  return finish("ptx_wgmma_test");
}
