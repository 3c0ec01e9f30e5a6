// tcgen05.mma with 6- and 4-bit operands and block scaling (sm_100a) against the PTX ISA, bit for
// bit. kind::f8f6f4 in every pair of e4m3, e5m2, e2m3, e3m2, e2m1; the block-scaled
// kind::mxf8f6f4 (.scale_vec::1X / .block32, ue8m0), kind::mxf4 (2X, ue8m0) and kind::mxf4nvf4
// (2X ue8m0, 4X ue8m0 and ue4m3). This file's own reading of the ISA:
//  - formats ("Alternate floating point data formats"): e4m3 bias 7, no infinity, NaN 0x7f/0xff;
//    e5m2 IEEE-like (bias 15, infinities, NaNs); e2m3 bias 1, e3m2 bias 3, e2m1 bias 1, all
//    three without infinity or NaN; subnormals at the smallest exponent; ue8m0 is 2^(b-127), 0xff
//    NaN; ue4m3 an unsigned e4m3 in 7 bits (0x7f NaN) whose top bit must be 0;
//  - shared memory ("Packing format used for matrix A and B by .kind::mxf8f6f4 in Shared
//    Memory"): the 8-bit canonical layouts, each 16-byte chunk holding 16 elements (a 6- or 4-bit
//    chunk packed from its low bits, then padding, as cp.async.bulk.tensor's .b6x16_p32 and
//    .b4x16_p64 write it); kind::mxf4*: two e2m1 in a byte, the even element in the low half,
//    K = 64 per MMA in 32 bytes;
//  - instruction descriptor of the block-scaled kinds (its own table): scale factor B id in bits
//    4-5, A type 7-9, B type 10-12 (10-11), negate 13-14, N >> 3 in 17-22, scale type in 23
//    (0 ue4m3, 1 ue8m0), M >> 7 in 27-28, scale factor A id in 29-30; no D type (f32);
//  - block scaling ("Block Scaling for tcgen05.mma"): D = (A * scale_A) * (B * scale_B) + D, a
//    row's K split in 1, 2 or 4 chunks, chunk j scaled by the byte (id + j) of the scale cell;
//    the scale matrices "duplicated to all 32 lane partitions": scale_A's row m in lane m % 32 of
//    every quarter, column base + m / 32 (scale_B's column n likewise), the layout
//    tcgen05.cp.32x128b.warpx4 writes (Triton's tl.dot_scaled kernels in the corpus store theirs
//    so with tcgen05.st; they pass on the sim against numpy);
// Expected values: each element decoded to a dyadic rational here, products and sums exact in a
// 128-bit fixed-point integer, rounded once per MMA to f32 (nearest even); a NaN product (or
// +inf with -inf) gives the canonical NaN, an infinite one the infinity. Scale factors for
// several MMAs share a cell (ids 0-3 for 1X, 0/2 for 2X), A's and B's at different ids; unused
// lanes and bytes of the scale columns hold noise. Also A in TMEM (e4m3 under mxf8f6f4),
// swizzles none/32B/64B/128B, enable_input_d, negate, an f16 accumulator for kind::f8f6f4, NaN
// and zero scales, e5m2 infinities; .collector::a fill / use / lastuse (the buffer holds A; every
// MMA names A's first K slice with its own scale factors, as read from TMEM each time; a use
// with another A is a named fault); named faults for descriptors outside the ISA's table and
// for what the sim does not run; load errors for the forms ptxas refuses.
//
// `sim_ptx_ptx_tcgen05_scaled_test --ptxas PATH` also checks each module with ptxas -arch=sm_100a.
#include <algorithm>
#include <cmath>

#include "tcgen05_harness.h"

using namespace ptxtest;
// (not all of tcgen05test: its dense types' E4M3 / E5M2 are this file's formats too)
using tcgen05test::f16bits;
using tcgen05test::f16val;
using tcgen05test::kMajorAt;
using tcgen05test::ptxAllocAfterImage;
using tcgen05test::ptxCopyImage;
using tcgen05test::ptxThreadIds;
using tcgen05test::smemDesc;

namespace {

enum Fmt { E4M3, E5M2, E2M3, E3M2, E2M1 };
enum Kind { F8F6F4, MXF8F6F4, MXF4, MXF4NVF4 };
const char* kindName(Kind k) { return k == F8F6F4 ? "f8f6f4" : k == MXF8F6F4 ? "mxf8f6f4" : k == MXF4 ? "mxf4" : "mxf4nvf4"; }
unsigned fmtBits(Fmt f) { return f == E2M1 ? 4 : (f == E2M3 || f == E3M2) ? 6 : 8; }
unsigned fmtCode(Fmt f) { return f == E4M3 ? 0 : f == E5M2 ? 1 : f == E2M3 ? 3 : f == E3M2 ? 4 : 5; }

// A decoded value: finite (num * 2^exp), or NaN / +-inf.
struct Val {
  bool nan = false;
  int inf = 0;  // +1, -1
  int64_t num = 0;
  int exp = 0;
};
Val fin(int64_t num, int exp) { Val v; v.num = num; v.exp = exp; return v; }
Val nanv() { Val v; v.nan = true; return v; }

// sign, ebits, mbits, bias: a minifloat with subnormals; e4m3 / e5m2 specials handled by callers
Val mini(uint32_t b, int eb, int mb, int bias, bool sign = true) {
  int s = sign ? (b >> (eb + mb)) & 1 : 0, e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
  int64_t sig = e ? (1 << mb) | m : m;
  return fin(s ? -sig : sig, (e ? e : 1) - bias - mb);
}
Val decode(Fmt f, uint32_t b) {
  switch (f) {
    case E4M3: return (b & 0x7f) == 0x7f ? nanv() : mini(b, 4, 3, 7);
    case E5M2:
      if (((b >> 2) & 31) == 31) {
        if (b & 3) return nanv();
        Val v; v.inf = (b & 0x80) ? -1 : 1; return v;
      }
      return mini(b, 5, 2, 15);
    case E2M3: return mini(b, 2, 3, 1);
    case E3M2: return mini(b, 3, 2, 3);
    case E2M1: return mini(b, 2, 1, 1);
  }
  return nanv();
}
Val scaleVal(uint32_t b, bool ue4m3) {
  if (!ue4m3) return b == 0xff ? nanv() : fin(1, (int)b - 127);
  return b == 0x7f ? nanv() : mini(b, 4, 3, 7, false);
}
Val mul(Val a, Val b) {
  if (a.nan || b.nan) return nanv();
  if (a.inf || b.inf) {
    int sa = a.inf ? a.inf : (a.num > 0) - (a.num < 0), sb = b.inf ? b.inf : (b.num > 0) - (b.num < 0);
    if (!sa || !sb) return nanv();  // inf * 0
    Val v; v.inf = sa * sb; return v;
  }
  return fin(a.num * b.num, a.exp + b.exp);
}

constexpr int kS = 72;  // fixed point: units of 2^-72
using I128 = __int128;
I128 fixedOf(const Val& v) {
  int sh = v.exp + kS;
  if (sh < 0 || sh > 100) { std::printf("test bug: value out of the fixed-point range (2^%d)\n", v.exp); failures++; return 0; }
  return (I128)v.num << sh;
}
I128 fixedOfFloat(double x) {  // an f32 / f16 value: exact in units of 2^-72 within this test's ranges
  long double y = std::ldexp((long double)x, kS);
  if (y != std::floor(y)) { std::printf("test bug: %g is not a multiple of 2^-%d\n", x, kS); failures++; }
  return (I128)y;
}
// Rounds v * 2^-kS to nearest even with p significant bits and quantum at least 2^qmin.
double roundFixed(I128 v, int p, int qmin) {
  if (v == 0) return 0.0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  int msb = 127;
  while (!((u >> msb) & 1)) msb--;
  int q = std::max(msb - kS - (p - 1), qmin), drop = q + kS;
  unsigned __int128 r = u;
  if (drop > 0) {
    unsigned __int128 rem = u & (((unsigned __int128)1 << drop) - 1), half = (unsigned __int128)1 << (drop - 1);
    r = u >> drop;
    if (rem > half || (rem == half && (r & 1))) r++;
  } else {
    q = -kS;
  }
  double d = std::ldexp((double)(uint64_t)r, q);
  return neg ? -d : d;
}

// Random codes: every code of the 6- and 4-bit formats; e4m3 / e5m2 with exponents up to 2^3 so
// the products stay in the fixed-point range (specials only where a case puts them).
uint32_t genCode(Fmt f, std::mt19937& g) {
  uint32_t b = g();
  switch (f) {
    case E4M3: { uint32_t e = (b >> 3) & 15; if (e > 10) b = (b & 0x87) | (10 << 3); return b & 0xff; }
    case E5M2: { uint32_t e = (b >> 2) & 31; if (e > 18) b = (b & 0x83) | (18 << 2); return b & 0xff; }
    case E2M3: case E3M2: return b & 63;
    case E2M1: return b & 15;
  }
  return 0;
}

struct Case {
  std::string name;
  Kind kind = MXF8F6F4;
  Fmt ta = E4M3, tb = E4M3;
  unsigned vec = 1;          // scale factors per row of K
  const char* vecQual = "";  // the qualifier written (".scale_vec::2X", ".block32", ...)
  bool ue4m3 = false;
  unsigned n = 64, swz = 128;
  bool en = false, negA = false, negB = false, aTmem = false, f16D = false;
  unsigned special = 0;  // 1: NaN scale in row 5's last chunk, 2: zero scales (ue4m3) in row 3 and column 2, 4: e5m2 infinities in A, 8: scale 0x85, 16: scale_A not duplicated, 32: scale_B in never-written columns
  uint32_t idescXor = 0;
  const char* fault = nullptr;
  unsigned san = 0;              // LaunchConfig::sanitize (1: racecheck)
  bool stScales = false;         // a tcgen05.st to scale_A's first column after the commit, before the wait
  const char* hazard = nullptr;  // the sanitizer report expected
  // .collector::a: MMA 0 fills, the middle ones use, the last one lastuses; 1: every MMA names
  // A's first K slice (a use reads the filled A; scale factors differ per MMA), 2: each MMA its
  // own slice (a use's A differs from the fill's: a named fault)
  unsigned coll = 0;
};

bool scaled(const Case& c) { return c.kind != F8F6F4; }

uint32_t idescOf(const Case& c, unsigned sfa, unsigned sfb) {
  uint32_t v = (c.negA ? 1u << 13 : 0) | (c.negB ? 1u << 14 : 0) | (c.n >> 3) << 17;
  if (!scaled(c)) return v | (c.f16D ? 0u : 1u) << 4 | fmtCode(c.ta) << 7 | fmtCode(c.tb) << 10 | (128u >> 4) << 24;
  unsigned at = c.kind == MXF8F6F4 ? fmtCode(c.ta) : 1, bt = c.kind == MXF8F6F4 ? fmtCode(c.tb) : 1;
  return v | sfb << 4 | at << 7 | bt << 10 | (c.ue4m3 ? 0u : 1u) << 23 | 1u << 27 | sfa << 29;
}

std::vector<std::string> modules;
std::mt19937 rng(2929);

std::string kernelText(const Case& c, unsigned cols, unsigned width) {
  std::string nc = std::to_string(c.n), wc = std::to_string(width), alloc = std::to_string(cols);
  std::string aOp = c.aTmem ? "[%r50]" : "%rd10";
  auto form = [&](const std::string& q) {
    return scaled(c) ? std::string("tcgen05.mma.cta_group::1.kind::") + kindName(c.kind) + ".block_scale" + c.vecQual + q + " [%r11], " + aOp +
                           ", %rd11, %r22, [%r53], [%r54], %p6;"
                     : std::string("tcgen05.mma.cta_group::1.kind::f8f6f4") + q + " [%r11], " + aOp + ", %rd11, %r22, %p6;";
  };
  // .collector::a (c.coll): fill at MMA 0, lastuse at the last, use between (%r21 - 1: the last index)
  std::string mma = !c.coll ? form("")
                            : "sub.u32 %r40, %r21, 1;\n  setp.eq.u32 %p12, %r24, 0;\n  setp.eq.u32 %p13, %r24, %r40;\n  or.pred %p14, %p12, %p13;\n"
                              "  @%p12 " + form(".collector::a::fill") + "\n  @!%p14 " + form(".collector::a::use") + "\n  @%p13 " + form(".collector::a::lastuse");
  return R"(.version 8.8
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 pimg, .param .u32 pwords, .param .u64 pmmas, .param .u32 pnmma, .param .u32 pen,
    .param .u64 pinit, .param .u64 pout, .param .u32 pmisc, .param .u32 pflags)
{
  .reg .b32 %r<64>;
  .reg .b64 %rd<32>;
  .reg .pred %p<16>;
)" + ptxThreadIds() + ptxAllocAfterImage(alloc) + ptxCopyImage() + R"(  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  // this warp's quarter of the lanes: columns 0..width of lane 32*(warp%4)+lane from pinit
  and.b32 %r12, %r2, 3;
  shl.b32 %r13, %r12, 21;
  add.u32 %r14, %r11, %r13;
  shl.b32 %r15, %r12, 5;
  add.u32 %r15, %r15, %r3;
  ld.param.u64 %rd4, [pinit];
  mul.lo.u32 %r51, %r15, )" + wc + R"(;
  mul.wide.u32 %rd5, %r51, 4;
  add.s64 %rd6, %rd4, %rd5;
  mov.u32 %r17, 0;
INIT:
  ld.global.u32 %r18, [%rd6];
  add.u32 %r19, %r14, %r17;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r19], {%r18};
  add.s64 %rd6, %rd6, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + wc + R"(;
  @%p4 bra INIT;
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @!%p2 bra ISSUED;
  // one MMA per record of 4 u64: A's descriptor (or column), B's descriptor, idesc, scale columns
  ld.param.u64 %rd7, [pmmas];
  ld.param.u32 %r21, [pnmma];
  ld.param.u32 %r23, [pen];
  setp.ne.u32 %p6, %r23, 0;
  cvt.u64.u32 %rd8, %r9;
  shr.u64 %rd8, %rd8, 4;
  mov.u32 %r24, 0;
MMA:
  ld.global.u64 %rd10, [%rd7];
  ld.global.u64 %rd11, [%rd7+8];
  ld.global.u32 %r22, [%rd7+16];
  ld.global.u32 %r25, [%rd7+24];
  ld.global.u32 %r26, [%rd7+28];
  cvt.u32.u64 %r27, %rd10;
  add.u32 %r50, %r11, %r27;
  add.s64 %rd10, %rd10, %rd8;
  add.s64 %rd11, %rd11, %rd8;
  add.u32 %r53, %r11, %r25;
  add.u32 %r54, %r11, %r26;
  )" + mma + R"(
  setp.eq.u32 %p6, %r24, %r24;
  add.s64 %rd7, %rd7, 32;
  add.u32 %r24, %r24, 1;
  setp.lt.u32 %p7, %r24, %r21;
  @%p7 bra MMA;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
ISSUED:
  bar.sync 0;
  // pflags: 1 | column << 8: every thread stores to that column of its lane before the wait
  ld.param.u32 %r60, [pflags];
  and.b32 %r28, %r60, 1;
  setp.eq.u32 %p10, %r28, 0;
  @%p10 bra WAIT;
  shr.u32 %r29, %r60, 8;
  add.u32 %r29, %r14, %r29;
  mov.u32 %r31, 0x7f7f7f7f;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r29], {%r31};
  tcgen05.wait::st.sync.aligned;
  bar.sync 0;  // every quarter stored before any thread waits (the copies stay alike)
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p11, [%r5], 0;
  @!%p11 bra WAIT;
  tcgen05.fence::after_thread_sync;
  ld.param.u64 %rd12, [pout];
  mul.lo.u32 %r16, %r15, )" + nc + R"(;
  mul.wide.u32 %rd13, %r16, 4;
  add.s64 %rd14, %rd12, %rd13;
  mov.u32 %r17, 0;
LD:
  add.u32 %r19, %r14, %r17;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r19];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd14], %r30;
  add.s64 %rd14, %rd14, 4;
  add.u32 %r17, %r17, 1;
  setp.lt.u32 %p4, %r17, )" + nc + R"(;
  @%p4 bra LD;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, )" + alloc + R"(;
  ret;
}
)";
}

void runCase(const Case& c) {
  const unsigned M = 128, N = c.n;
  const bool packed = c.kind == MXF4 || c.kind == MXF4NVF4;
  const unsigned kSlice = packed ? 64 : 32;  // elements per MMA (32 bytes of K)
  const unsigned nmma = c.swz ? c.swz / 32 : 2, kTot = nmma * kSlice, rowBytes = 32 * nmma;
  std::vector<uint32_t> A(M * kTot), B((size_t)N * kTot);  // codes; B indexed [n][k]
  for (auto& v : A) v = genCode(c.ta, rng);
  for (auto& v : B) v = genCode(c.tb, rng);
  if (c.special & 4)  // e5m2 infinities: +inf in row 1, -inf and +inf in row 2 (NaN), -inf in row 7
    for (unsigned k : {3u, 40u}) { A[1 * kTot + k] = 0x7c; A[7 * kTot + k] = 0xfc; A[2 * kTot + k] = k == 3 ? 0x7c : 0xfc; }
  // operand images (K-major): 16-byte chunks of 16 elements; packed e2m1 two per byte
  const unsigned lbo = c.swz ? 16 : 128, sboA = c.swz ? 8 * c.swz : (rowBytes / 16) * 128;
  auto at = [&](unsigned mn, unsigned k, Fmt f, size_t& byte, unsigned& bit) {
    if (packed) { byte = kMajorAt(mn, k / 2, c.swz, lbo, sboA); bit = 4 * (k % 2); return; }
    unsigned b = fmtBits(f), off = (k % 16) * b;
    byte = kMajorAt(mn, k - k % 16, c.swz, lbo, sboA) + off / 8;
    bit = off % 8;
  };
  size_t aBytes = 0, bBytes = 0;
  for (unsigned mn = 0; mn < std::max(M, N); mn++) {
    size_t byte; unsigned bit;
    at(mn, kTot - 1, c.ta, byte, bit);
    if (mn < M) aBytes = std::max(aBytes, byte + 2);
    if (mn < N) bBytes = std::max(bBytes, byte + 2);
  }
  const unsigned bBase = (unsigned)((aBytes + 1023) / 1024 * 1024);
  std::vector<uint8_t> img(bBase + (bBytes + 1023) / 1024 * 1024, 0);
  for (auto& x : img) x = (uint8_t)rng();  // padding holds noise
  auto put = [&](size_t base, unsigned mn, unsigned k, Fmt f, uint32_t code) {
    size_t byte; unsigned bit;
    at(mn, k, f, byte, bit);
    unsigned nb = packed ? 4 : fmtBits(f);
    uint32_t w = img[base + byte] | (byte + 1 < img.size() - base ? img[base + byte + 1] << 8 : 0);
    w = (w & ~(((1u << nb) - 1) << bit)) | code << bit;
    img[base + byte] = (uint8_t)w;
    if (bit + nb > 8) img[base + byte + 1] = (uint8_t)(w >> 8);
  };
  for (unsigned m = 0; m < M; m++)
    for (unsigned k = 0; k < kTot; k++) put(0, m, k, c.ta, A[m * kTot + k]);
  for (unsigned n = 0; n < N; n++)
    for (unsigned k = 0; k < kTot; k++) put(bBase, n, k, c.tb, B[n * kTot + k]);
  // tensor memory: D's N columns, A's 8 columns per MMA (A in TMEM), the scale columns: per group
  // of MMAs sharing cells, 4 for scale_A (128 rows) and N / 32 (rounded up) for scale_B
  const unsigned per = 4 / c.vec;  // MMAs sharing a scale cell
  const unsigned groups = scaled(c) ? (nmma + per - 1) / per : 0, nbc = (N + 31) / 32;
  const unsigned aCol = N, saCol = N + (c.aTmem ? 8 * nmma : 0), sbCol = saCol + 4 * groups;
  const unsigned W = sbCol + nbc * groups;
  std::vector<uint32_t> initW(128 * W);
  for (auto& x : initW) x = rng();
  for (unsigned l = 0; l < 128; l++)
    for (unsigned n = 0; n < N; n++)
      initW[l * W + n] = c.f16D ? f16bits((int)(rng() % 33) - 16) : fbits((float)((int)(rng() % 33) - 16));
  if (c.aTmem)
    for (unsigned m = 0; m < M; m++)
      for (unsigned k = 0; k < kTot; k++) {
        uint32_t& cell = initW[m * W + aCol + k / 4];
        if (k % 4 == 0) cell = 0;
        cell |= A[m * kTot + k] << (8 * (k % 4));
      }
  // scale factors: scale byte of (row or column r, MMA i, chunk j)
  std::vector<uint32_t> sA(M * nmma * c.vec), sB((size_t)N * nmma * c.vec);
  auto genScale = [&]() -> uint32_t {
    if (!c.ue4m3) return 127 - 6 + rng() % 13;
    uint32_t b = rng() % 0x60;  // exponent field up to 11: values below 32
    return b;
  };
  for (auto& s : sA) s = genScale();
  for (auto& s : sB) s = genScale();
  if (c.special & 1) sA[(5 * nmma + nmma - 1) * c.vec + c.vec - 1] = c.ue4m3 ? 0x7f : 0xff;
  if (c.special & 8) sA[0] = 0x85;
  if (c.special & 2) {
    for (unsigned j = 0; j < nmma * c.vec; j++) sA[3 * nmma * c.vec + j] = 0;
    sB[(2 * nmma + 0) * c.vec + 0] = 0;
  }
  std::vector<unsigned> idA(nmma), idB(nmma);
  // the scale cells: written in lane r % 32 of quarter 0, then copied to the other quarters
  for (unsigned i = 0; i < nmma; i++) {
    idA[i] = (i % per) * c.vec;
    idB[i] = ((i + 1) % per) * c.vec;  // B's ids differ from A's where the cell allows
    for (unsigned j = 0; j < c.vec && scaled(c); j++) {
      for (unsigned m = 0; m < M; m++) {
        uint32_t& cell = initW[(m % 32) * W + saCol + 4 * (i / per) + m / 32];
        unsigned sh = 8 * (idA[i] + j);
        cell = (cell & ~(0xffu << sh)) | sA[(m * nmma + i) * c.vec + j] << sh;
      }
      for (unsigned n = 0; n < N; n++) {
        uint32_t& cell = initW[(n % 32) * W + sbCol + nbc * (i / per) + n / 32];
        unsigned sh = 8 * (idB[i] + j);
        cell = (cell & ~(0xffu << sh)) | sB[(n * nmma + i) * c.vec + j] << sh;
      }
    }
  }
  uint32_t usedA = 0, usedB = 0;  // the bytes of the scale cells some MMA reads
  for (unsigned i = 0; i < nmma; i++) {
    uint32_t v = c.vec == 4 ? ~0u : (1u << (8 * c.vec)) - 1;
    usedA |= v << (8 * idA[i]);
    usedB |= v << (8 * idB[i]);
  }
  for (unsigned q = 1; q < 4; q++)
    for (unsigned l = 0; l < 32; l++)
      for (unsigned col = saCol; col < W; col++) {
        uint32_t& cell = initW[(32 * q + l) * W + col];
        cell = initW[l * W + col];
        // the bytes no MMA reads may differ between the quarters
        if (q == 3) cell ^= ~(col < sbCol ? usedA : usedB);
      }
  if (c.special & 16) initW[(64 + 7) * W + saCol + 1] ^= 1u << (8 * idA[0]);  // row 39's copy in quarter 2 differs
  // MMA records: A's descriptor or TMEM column, B's descriptor, idesc, scale columns
  std::vector<uint64_t> recs;
  for (unsigned i = 0; i < nmma; i++) {
    unsigned step = c.swz ? 32 * i : 2 * lbo * i, ia = c.coll == 1 ? 0 : i;  // coll 1: A's first slice each time
    recs.push_back(c.aTmem ? aCol + 8 * ia : smemDesc(c.swz ? 32 * ia : 2 * lbo * ia, lbo, sboA, c.swz));
    recs.push_back(smemDesc(bBase + step, lbo, sboA, c.swz));
    recs.push_back(idescOf(c, idA[i], idB[i]) ^ c.idescXor);
    recs.push_back((uint64_t)(saCol + 4 * (i / per)) | (uint64_t)((c.special & 32 ? W : sbCol) + nbc * (i / per)) << 32);
  }
  // reference: per MMA, the exact sum of the scaled products plus the accumulator, rounded once
  std::vector<uint32_t> want(128 * N);
  for (unsigned l = 0; l < 128; l++)
    for (unsigned n = 0; n < N; n++) want[l * N + n] = initW[l * W + n];
  const int sgn = (c.negA ? -1 : 1) * (c.negB ? -1 : 1);
  for (unsigned m = 0; m < M; m++)
    for (unsigned n = 0; n < N; n++) {
      bool nan = false, have = c.en;
      uint32_t d = want[m * N + n];
      for (unsigned i = 0; i < nmma; i++) {
        I128 sum = 0;
        bool pinf = false, minf = false, pn = false;
        if (have) {
          double x = c.f16D ? f16val((uint16_t)d) : (double)bitsf(d);
          if (x != x) pn = true;
          else if (std::isinf(x)) (x > 0 ? pinf : minf) = true;
          else sum = fixedOfFloat(x);
        }
        for (unsigned k = i * kSlice; k < (i + 1) * kSlice; k++) {
          const unsigned ka = c.coll == 1 ? k - i * kSlice : k;  // coll 1: A's first slice (as filled)
          Val a = decode(c.ta, A[m * kTot + ka]), b = decode(c.tb, B[n * kTot + k]);
          if (scaled(c)) {
            unsigned j = (k - i * kSlice) / (kSlice / c.vec);
            a = mul(a, scaleVal(sA[(m * nmma + i) * c.vec + j], c.ue4m3));
            b = mul(b, scaleVal(sB[(n * nmma + i) * c.vec + j], c.ue4m3));
          }
          Val p = mul(a, b);
          if (p.nan) pn = true;
          else if (p.inf) (p.inf * sgn > 0 ? pinf : minf) = true;
          else sum += sgn * fixedOf(p);
        }
        if (pn || (pinf && minf)) { d = c.f16D ? 0x7fff : 0x7fffffffu; nan = true; }
        else if (pinf || minf) d = c.f16D ? (pinf ? 0x7c00 : 0xfc00) : (pinf ? 0x7f800000u : 0xff800000u);
        else d = c.f16D ? f16bits(roundFixed(sum, 11, -24)) : fbits((float)roundFixed(sum, 24, -149));
        have = true;
      }
      (void)nan;
      want[m * N + n] = d;
    }
  unsigned cols = 32;
  while (cols < W + (c.special & 32 ? nbc * groups : 0)) cols *= 2;
  std::string ptx = kernelText(c, cols, W);
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem(1 << 21);
  uint64_t dimg = mem.alloc(img.size()), drec = mem.alloc(recs.size() * 8), dinit = mem.alloc(initW.size() * 4), dout = mem.alloc(want.size() * 4);
  mem.put(dimg, img);
  mem.put(drec, recs);
  mem.put(dinit, initW);
  const uint32_t flags = c.stScales ? 1u | saCol << 8 : 0u;
  tsim::Fault f = k.run(mem, "k", {dimg, img.size() / 4, drec, nmma, c.en ? 1u : 0u, dinit, dout, img.size(), flags}, 1, 128, nullptr,
                        (unsigned)img.size() + 16, 0, 2, 1, 1, c.san);
  if (!expectOutcome(c.name, f, c.fault, c.hazard)) return;
  std::vector<uint32_t> got = mem.get<uint32_t>(dout, want.size());
  if (c.f16D)
    for (size_t i = 0; i < got.size(); i++) { got[i] &= 0xffff; want[i] &= 0xffff; }
  expectCells(c.name, got, want, N, "row");
}

// Forms refused when the module loads (and by ptxas, unless the sim merely does not run them).
std::vector<std::string> validForPtxas, invalidForPtxas;
void loadError(const char* name, const std::string& line, const char* phrase, bool validPtx) {
  std::string ptx = ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n" +
                    line + "\n  ret;\n}\n";
  (validPtx ? validForPtxas : invalidForPtxas).push_back(ptx);
  expectLoadError(name, ptx, phrase);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  const Fmt fmts[] = {E4M3, E5M2, E2M3, E3M2, E2M1};
  const char* fn[] = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"};
  const unsigned swzs[] = {128, 64, 32, 0};
  // every ordered pair, unscaled (kind::f8f6f4) and scaled (kind::mxf8f6f4, 1X and .block32)
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++) {
      Case c;
      c.kind = F8F6F4;
      c.ta = fmts[a];
      c.tb = fmts[b];
      c.swz = swzs[(a + b) % 4];
      c.n = 16 * (1 + (a + 2 * b) % 8);
      c.en = (a + b) % 2;
      c.name = std::string("f8f6f4 ") + fn[a] + " x " + fn[b] + " swizzle " + std::to_string(c.swz);
      cases.push_back(c);
      c.kind = MXF8F6F4;
      c.vecQual = (a + b) % 3 == 0 ? "" : (a + b) % 3 == 1 ? ".scale_vec::1X" : ".block32";
      c.swz = swzs[(a + 2 * b + 1) % 4];
      c.name = std::string("mxf8f6f4") + c.vecQual + " " + fn[a] + " x " + fn[b] + " swizzle " + std::to_string(c.swz);
      cases.push_back(c);
    }
  auto mk = [](const char* name, Kind k) { Case c; c.name = name; c.kind = k; c.ta = c.tb = E2M1; return c; };
  { Case c = mk("f8f6f4 e2m3 x e3m2, f16 accumulator", F8F6F4); c.ta = E2M3; c.tb = E3M2; c.f16D = true; c.en = true; cases.push_back(c); }
  { Case c = mk("f8f6f4 e2m1 x e4m3, negate A", F8F6F4); c.tb = E4M3; c.negA = true; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e4m3, A in TMEM", MXF8F6F4); c.ta = c.tb = E4M3; c.aTmem = true; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e4m3 x e2m1, A in TMEM, N=128", MXF8F6F4); c.ta = E4M3; c.aTmem = true; c.n = 128; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e3m2 x e5m2, negate B, NaN scale", MXF8F6F4); c.ta = E3M2; c.tb = E5M2; c.negB = true; c.special = 1; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e5m2 infinities", MXF8F6F4); c.ta = E5M2; c.tb = E2M3; c.special = 4; cases.push_back(c); }
  for (unsigned swz : swzs) {
    Case c = mk("mxf4", MXF4);
    c.vec = 2;
    c.vecQual = swz == 128 ? "" : swz == 64 ? ".scale_vec::2X" : ".block32";
    c.swz = swz;
    c.n = swz ? swz / 2 : 48;
    c.en = swz != 64;
    c.name = std::string("mxf4") + c.vecQual + " swizzle " + std::to_string(swz);
    cases.push_back(c);
  }
  { Case c = mk("mxf4 negate A and B, NaN scale", MXF4); c.vec = 2; c.negA = c.negB = true; c.special = 1; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .scale_vec::2X ue8m0", MXF4NVF4); c.vec = 2; c.vecQual = ".scale_vec::2X"; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .block32 ue8m0, swizzle 32", MXF4NVF4); c.vec = 2; c.vecQual = ".block32"; c.swz = 32; c.n = 112; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .scale_vec::4X ue8m0", MXF4NVF4); c.vec = 4; c.vecQual = ".scale_vec::4X"; c.swz = 64; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .scale_vec::4X ue4m3, zero scales", MXF4NVF4); c.vec = 4; c.vecQual = ".scale_vec::4X"; c.ue4m3 = true; c.special = 2; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .block16 ue4m3, NaN scale, swizzle none", MXF4NVF4); c.vec = 4; c.vecQual = ".block16"; c.ue4m3 = true; c.special = 1; c.swz = 0; c.n = 32; cases.push_back(c); }
  // .collector::a with block scaling: the buffer holds A; the scale factors differ per MMA
  { Case c = mk("mxf8f6f4 e4m3 x e2m1 .collector::a fill/use/use/lastuse", MXF8F6F4); c.ta = E4M3; c.coll = 1; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e4m3 A in TMEM .collector::a fill/use/use/lastuse", MXF8F6F4); c.ta = E4M3; c.tb = E5M2; c.aTmem = true; c.coll = 1; cases.push_back(c); }
  { Case c = mk("mxf4 .collector::a fill/lastuse, swizzle none", MXF4); c.vec = 2; c.swz = 0; c.n = 32; c.coll = 1; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 .scale_vec::4X ue4m3 .collector::a fill/use/use/lastuse", MXF4NVF4); c.vec = 4; c.vecQual = ".scale_vec::4X"; c.ue4m3 = true; c.coll = 1; cases.push_back(c); }
  { Case c = mk("mxf4 .collector::a use with another A", MXF4); c.vec = 2; c.swz = 64; c.coll = 2;
    c.fault = ".collector::a::lastuse: A in memory differs from what the fill at PTX line"; cases.push_back(c); }
  // instruction descriptors outside the ISA's table (and what the sim does not run), by name
  auto bad = [&](const char* name, Kind k, unsigned vec, const char* q, uint32_t x, const char* fault, bool ue4m3 = false) {
    Case c = mk(name, k);
    if (k == MXF8F6F4 || k == F8F6F4) c.ta = c.tb = E4M3;
    c.vec = vec; c.vecQual = q; c.idescXor = x; c.fault = fault; c.ue4m3 = ue4m3; c.swz = 32; c.n = 16;
    cases.push_back(c);
  };
  bad("ue4m3 with mxf8f6f4", MXF8F6F4, 1, "", 1u << 23, "ue4m3 scale factors (bit 23 = 0) are for kind::mxf4nvf4 only");
  bad("ue4m3 with mxf4", MXF4, 2, "", 1u << 23, "ue4m3 scale factors (bit 23 = 0) are for kind::mxf4nvf4 only");
  bad("ue4m3 with mxf4nvf4 2X", MXF4NVF4, 2, ".scale_vec::2X", 1u << 23, "ue4m3 scale factors (bit 23 = 0) need .scale_vec::4X");
  bad("2X scale factor id 1", MXF4, 2, "", 1u << 29, ".scale_vec::2X takes scale factor ids 0 or 2");
  bad("4X scale factor B id 2", MXF4NVF4, 4, ".block16", 2u << 4, ".scale_vec::4X takes scale factor ids 0");
  bad("mxf4 with e4m3 types", MXF4, 2, "", 1u << 7, "kind::mxf4 takes A/B type 1 (e2m1); got 0/1");
  bad("mxf4 transposed B", MXF4, 2, "", 1u << 16, "kind::mxf4 has no transpose");
  bad("mxf8f6f4 type 2", MXF8F6F4, 1, "", 2u << 10, "kind::mxf8f6f4 takes A/B type 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1); got 2");
  bad("block-scaled M=256", MXF8F6F4, 1, "", 3u << 27, "M = 256 (bits 27-28, M >> 7) is not a .cta_group::1 shape");
  bad("block-scaled reserved bit 24", MXF8F6F4, 1, "", 1u << 24, "reserved bits 0-1, 3, 6 and 24-26 must be 0 for kind::mxf8f6f4");
  bad("mxf4nvf4 K=96", MXF4NVF4, 4, ".block16", 1u << 31, "K = 96 (instruction descriptor bit 31) is for sm_103a only");
  bad("block-scaled sparsity", MXF4, 2, "", 4u, "sparsity (bit 2), which needs tcgen05.mma.sp");
  bad("f8f6f4 type 6", F8F6F4, 1, "", 6u << 7, "kind::f8f6f4 takes A/B type 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1); got 6");
  bad("f8f6f4 MN-major e2m1", F8F6F4, 1, "", (5u << 7) | (1u << 15), "MN-major (transposed) 6- and 4-bit operands are not a valid combination");
  { Case c = mk("mxf4 N=144 (scale_B in 5 columns)", MXF4); c.vec = 2; c.swz = 32; c.n = 144; c.en = true; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e2m1 x e3m2 N=256", MXF8F6F4); c.tb = E3M2; c.n = 256; cases.push_back(c); }
  { Case c = mk("mxf4nvf4 4X ue4m3 N=256", MXF4NVF4); c.vec = 4; c.vecQual = ".block16"; c.ue4m3 = true; c.n = 256; c.swz = 64; cases.push_back(c); }
  { Case c = mk("scale_A not duplicated", MXF8F6F4); c.ta = c.tb = E4M3; c.swz = 32; c.n = 16; c.special = 16;
    c.fault = "tcgen05.mma (its scale_A) is not duplicated to all four 32-lane quarters (column"; cases.push_back(c); }
  { Case c = mk("mxf8f6f4 e2m1 A in TMEM", MXF8F6F4); c.tb = E4M3; c.aTmem = true; c.swz = 32; c.fault = "A in tensor memory with a 6- or 4-bit type is not simulated"; cases.push_back(c); }
  // a ue4m3 byte with its top bit set is no ue4m3 (a 7-bit format): named fault when the MMA completes
  { Case c = mk("ue4m3 byte 0x85", MXF4NVF4); c.vec = 4; c.vecQual = ".block16"; c.ue4m3 = true; c.swz = 32; c.n = 16; c.special = 8;
    c.fault = "tcgen05.mma (its scale_A) byte 0x85 in lane 0, column"; cases.push_back(c); }
  { Case c = mk("block-scaled N=264", MXF4); c.vec = 2; c.swz = 32; c.n = 16; c.idescXor = (2u ^ 33u) << 17; c.fault = "N = 264 (bits 17-22) is not a shape for M = 128"; cases.push_back(c); }
  // racecheck: clean as issued; a tcgen05.st to the scale columns before the covering commit has
  // arrived is reported (the MMA reads them until then)
  // initcheck: scale cells never written since the alloc are reported; the written ones are clean
  { Case c = mk("initcheck clean", MXF4NVF4); c.vec = 2; c.vecQual = ".block32"; c.san = 4; c.en = true; cases.push_back(c); }
  { Case c = mk("initcheck: scale_B never written", MXF4NVF4); c.vec = 2; c.vecQual = ".block32"; c.san = 4; c.special = 32; c.swz = 32; c.n = 48;
    c.hazard = ") by tcgen05.mma (its scale_B) at PTX line"; cases.push_back(c); }
  { Case c = mk("racecheck clean, mxf4nvf4 4X ue4m3", MXF4NVF4); c.vec = 4; c.vecQual = ".block16"; c.ue4m3 = true; c.san = 1; c.en = true; cases.push_back(c); }
  { Case c = mk("racecheck clean, mxf8f6f4 A in TMEM", MXF8F6F4); c.ta = c.tb = E4M3; c.aTmem = true; c.san = 1; cases.push_back(c); }
  { Case c = mk("racecheck: scale_A stored before the wait", MXF4); c.vec = 2; c.san = 1; c.stScales = true; c.swz = 32; c.n = 32;
    c.hazard = "write-after-read hazard on tensor memory (lane 0, column"; cases.push_back(c); }
  { Case c = mk("racecheck: scale_A stored before the wait (its role)", MXF8F6F4); c.ta = c.tb = E4M3; c.san = 1; c.stScales = true; c.swz = 64; c.n = 16;
    c.hazard = "reads (its scale factors), before the tcgen05.commit that covers the MMA has arrived on its mbarrier"; cases.push_back(c); }
  for (const Case& c : cases) runCase(c);
  // forms refused when loading: the ISA's table of kinds and scale vector sizes (ptxas agrees)
  const std::string ops = " [%r1], %rd1, %rd1, %r1, [%r1], [%r1], %p1;";
  loadError("mxf4nvf4 1X", "  tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::1X" + ops, "takes .scale_vec::2X or ::4X", false);
  loadError("mxf4nvf4 without a vector size", "  tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale" + ops, "needs .scale_vec::2X/4X", false);
  loadError("mxf8f6f4 2X", "  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::2X" + ops, "takes .scale_vec::1X (.block32), not 2X", false);
  loadError("mxf8f6f4 block16", "  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block16" + ops, "takes .scale_vec::1X (.block32), not 4X", false);
  loadError("mxf4 4X", "  tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::4X" + ops, "takes .scale_vec::2X (.block32), not 4X", false);
  loadError("two vector sizes", "  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X.block32" + ops, "give one of", false);
  loadError("mxf8f6f4 without block_scale", "  tcgen05.mma.cta_group::1.kind::mxf8f6f4" + ops, "needs .block_scale", false);
  loadError("block_scale with disable_output_lane", "  tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd1, %r1, [%r1], [%r1], {%r1, %r1, %r1, %r1}, %p1;",
            "expected [d_tmem], a_desc, b_desc, idesc, [scale_A_tmem], [scale_B_tmem], enable_input_d", false);
  loadError("block_scale with f16", "  tcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd1, %rd1, %r1, %p1;", ".block_scale needs .kind::mxf8f6f4", false);
  const char* ptxas = ptxasArg(argc, argv);
  expectPtxas(ptxas, modules);
  expectPtxas(ptxas, validForPtxas);
  expectPtxas(ptxas, invalidForPtxas, false);
  return finish("ptx_tcgen05_scaled_test");
}
