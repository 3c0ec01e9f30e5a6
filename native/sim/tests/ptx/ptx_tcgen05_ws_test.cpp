// tcgen05.mma.ws (sm_100a) against the PTX ISA, bit for bit. Each case lays A (128 x K) and B
// (K x N', N' = N + the column shift) K-major without swizzle into shared memory (core matrices
// of 8 rows x 16 bytes: row r at (r/8)*SBO + (r%8)*16, its 16-byte chunk j at j*LBO), fills TMEM
// with known cells, lets thread 0 issue a sequence of tcgen05.mma.ws / commit / mbarrier waits /
// shared-memory stores, reads every TMEM lane back and compares with a CPU product of exactly
// representable values, from the ISA's definitions:
// - M = 128 uses the data path layout D: D's row m in TMEM lane m, column n at d_tmem + n;
//   N 64, 128, 256; kinds f16 (f16/bf16), tf32, f8f6f4 (e4m3 x e5m2), i8 (s8 x u8, wrapping);
//   A from shared memory or from TMEM (row m in lane m, its 32 bytes of K in 8 cells);
// - the zero-column mask descriptor: Non-Zero Mask 0 leaves every column of B in use whatever the
//   other fields hold (the ISA's example 1); the column shift s computes D's column n from B's
//   column n + s (its example: N = 128, shift 2 uses B's columns 2..129);
// - the collector buffers: a fill then a use of the same buffer with another A gives both
//   products; a use after lastuse, after the default .collector::b0::discard, or with no fill is a
//   named fault (the ISA requires a previous fill still valid), as is a use whose B in shared
//   memory changed since the fill or whose column shift differs (the ISA does not say which the
//   use reads, so the sim requires them to agree);
// - named faults for M 64 / 32 (layouts E and G: figures only), N outside 64/128/256, a
//   generated zero-column mask (the ISA's field table and examples disagree), a shift above 32,
//   reserved bits; load errors for .cta_group::2, block-scaled kinds, two collector qualifiers,
//   disable_output_lane; racecheck reports a store to a B column read only through the shift.
// `sim_ptx_ptx_tcgen05_ws_test --ptxas PATH` also assembles every module with ptxas -arch=sm_100a.
#include "tcgen05_harness.h"

using namespace ptxtest;
using namespace tcgen05test;

namespace {

uint32_t encode(Ty t, int v4) { return tcgen05test::encode(t, v4, 0x0ab5); }  // tf32's ignored low bits: 0x0ab5

// K-major, no swizzle: one K slice is 32 bytes (two 16-byte chunks, LBO apart), 8-row groups SBO apart
constexpr unsigned kLbo = 128, kSbo = 256;
size_t kMajorAt(unsigned mn, unsigned kb) { return tcgen05test::kMajorAt(mn, kb, 0, kLbo, kSbo); }
uint64_t smemDesc(unsigned start) { return tcgen05test::smemDesc(start, kLbo, kSbo); }

// Zero-column mask descriptor fields (PTX ISA Table 45)
uint64_t zcmDesc(unsigned shift, bool nonZero = false, unsigned skip = 0, unsigned use = 0, uint64_t extra = 0) {
  return (uint64_t)shift << 56 | (uint64_t)use << 48 | (uint64_t)skip << 40 | (uint64_t)nonZero << 39 | extra;
}

// A step of thread 0: 'M' an MMA, 'C' a commit, 'W' wait for the next phase, 'O' a store of
// pval to shared memory at pover (then fence.proxy.async)
struct Step {
  char what = 'M';
  std::string coll;  // "" (default b0::discard) or e.g. "b1::fill"
  unsigned a = 0;    // A image 0 or 1 (shared memory) ...
  unsigned b = 0;    // B image 0 or 1 (an identical copy elsewhere)
  unsigned dCol = 0; // D's first column
  int z = -1;        // zero-column mask: -1 none, 0 pz0, 1 pz1
};
Step M(const std::string& coll, unsigned a = 0, unsigned dCol = 0, int z = -1, unsigned b = 0) {
  Step s;
  s.coll = coll, s.a = a, s.dCol = dCol, s.z = z, s.b = b;
  return s;
}
Step X(char w) { Step s; s.what = w; return s; }

struct Case {
  std::string name;
  Ty ty = F16, tyB = F16;
  unsigned m = 128, n = 64;
  bool en = false, aTmem = false;
  uint64_t z0 = 0, z1 = 0;
  unsigned shift = 0;        // the column shift the expected values use (of pz0)
  uint32_t idescXor = 0;
  std::vector<Step> steps;
  unsigned over = 0;         // 'O': B image 0's word at this index (of B) gets pval
  const char* fault = nullptr;
  const char* hazard = nullptr;
  unsigned san = 0;
  std::string kindOverride;  // the .kind / extra qualifiers text, for load-error cases
};

std::string issueText(const Case& c) {
  std::string s;
  unsigned phase = 0, label = 0;
  for (const Step& st : c.steps) {
    if (st.what == 'M') {
      std::string q = c.kindOverride.empty() ? ".cta_group::1.kind::" + kindName(c.ty) : c.kindOverride;
      if (!st.coll.empty()) q += ".collector::" + st.coll;
      std::string a = c.aTmem ? "[%r54]" : st.a ? "%rd21" : "%rd20";
      s += "  add.u32 %r53, %r11, " + std::to_string(st.dCol) + ";\n";
      s += "  tcgen05.mma.ws" + q + " [%r53], " + a + ", " + (st.b ? "%rd23" : "%rd22") + ", %r22, %p6" +
           (st.z < 0 ? "" : st.z ? ", %rd31" : ", %rd30") + ";\n";
    } else {
      s += st.what == 'C' ? ptxCommit() : st.what == 'W' ? ptxWaitNextPhase(label, phase) : ptxStoreShared();
    }
  }
  return s;
}

// the zero-column mask descriptors in %rd30 / %rd31
std::string kernelText(const Case& c, unsigned width) {
  return mmaSeqKernel(".param .u64 pz0, .param .u64 pz1, ", 4, "  ld.param.u64 %rd30, [pz0];\n  ld.param.u64 %rd31, [pz1];\n", issueText(c), width);
}

std::vector<std::string> modules;
std::mt19937 rng(2029);

void runCase(const Case& c) {
  const unsigned es = esize(c.ty), K = 32 / es, N = c.n, M = 128, NB = N + 32;  // B: 32 columns past N for shifts
  const Ty tb = es == 1 ? c.tyB : c.ty;
  // the image: A0 at 0, A1 at 4096, B at 8192, its copy at 8192 + bBytes
  const unsigned aBytes = 4096, bBytes = (NB / 8) * kSbo, bBase = 2 * aBytes, b2Base = bBase + bBytes;
  std::vector<int> A[2], B((size_t)K * NB);
  for (auto& a : A) {
    a.resize((size_t)M * K);
    for (auto& v : a) v = genValue(c.ty, rng);
  }
  for (auto& v : B) v = genValue(tb, rng);
  std::vector<uint8_t> img(b2Base + bBytes, 0);
  auto put = [&](size_t off, uint32_t bits) { memcpy(&img[off], &bits, es); };
  for (unsigned i = 0; i < 2; i++)
    for (unsigned m = 0; m < M; m++)
      for (unsigned k = 0; k < K; k++) put(i * aBytes + kMajorAt(m, k * es), encode(c.ty, A[i][m * K + k]));
  for (unsigned n = 0; n < NB; n++)
    for (unsigned k = 0; k < K; k++) {
      put(bBase + kMajorAt(n, k * es), encode(tb, B[k * NB + n]));
      put(b2Base + kMajorAt(n, k * es), encode(tb, B[k * NB + n]));
    }
  const std::vector<uint64_t> descs = {smemDesc(0), smemDesc(aBytes), smemDesc(bBase), smemDesc(b2Base)};
  // TMEM: D's columns, then (A in TMEM) A0's rows at column 256
  unsigned W = 0;
  for (const Step& s : c.steps) W = std::max(W, s.dCol + N);
  if (c.aTmem) W = 264;
  std::vector<uint32_t> init((size_t)128 * W);
  for (auto& v : init) v = genAccumulator(c.ty, rng);
  if (c.aTmem) putATmem(init, W, A[0], M, K, c.ty, 0x0ab5);
  // expected: each MMA's D columns = A_a * B(columns shift ..) {+ D}; the other cells unchanged
  std::vector<uint32_t> want = init;
  for (const Step& s : c.steps) {
    if (s.what != 'M') continue;
    const unsigned shift = s.z == 0 ? c.shift : 0;
    for (unsigned m = 0; m < M; m++)
      for (unsigned n = 0; n < N; n++) {
        uint32_t& cell = want[m * W + s.dCol + n];
        cell = denseCell(c.ty, c.en, cell, K, [&](unsigned k) { return A[s.a][m * K + k]; }, [&](unsigned k) { return B[k * NB + n + shift]; });
      }
  }
  const uint32_t idesc = (isInt(c.ty) ? 2u : 1u) << 4 | typeCode(c.ty) << 7 | typeCode(tb) << 10 | (c.n >> 3) << 17 | (c.m >> 4) << 24;
  const std::string ptx = kernelText(c, W);
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { failures++; return; }
  Arena mem(1 << 22);
  uint64_t dimg = mem.alloc(img.size()), ddesc = mem.alloc(32), dinit = mem.alloc(init.size() * 4), dout = mem.alloc(init.size() * 4);
  mem.put(dimg, img);
  mem.put(ddesc, descs);
  mem.put(dinit, init);
  const unsigned overAt = bBase + c.over * 4;
  tsim::Fault f = k.run(mem, "k", {dimg, img.size() / 4, ddesc, idesc ^ c.idescXor, c.en ? 1u : 0u, dinit, dout, c.z0, c.z1, overAt, 0x7c007c00u, img.size()},
                        1, 128, nullptr, (unsigned)img.size() + 16, 0, 2, 1, 1, c.san);
  if (expectOutcome(c.name, f, c.fault, c.hazard)) expectCells(c.name, mem.get<uint32_t>(dout, init.size()), want, W);
}

// a module the decoder must refuse, with `phrase` in its log
void loadError(const char* name, const std::string& mma, const char* phrase) {
  Case c;
  c.steps = {M("")};
  c.kindOverride = "@";  // placeholder, replaced below
  std::string ptx = kernelText(c, 64);
  const size_t at = ptx.find("  tcgen05.mma.ws@");
  const size_t end = ptx.find('\n', at);
  ptx.replace(at, end - at, "  " + mma);
  expectLoadError(name, ptx, phrase);
}

}  // namespace

int main(int argc, char** argv) {
  const Step C = X('C'), Wt = X('W'), O = X('O');
  auto mk = [](const char* name, std::vector<Step> steps) { Case c; c.name = name; c.steps = std::move(steps); return c; };
  std::vector<Case> cases;
  { Case c = mk("f16 N=64", {M(""), C, Wt}); cases.push_back(c); }
  { Case c = mk("bf16 N=128, enable_input_d, mask descriptor with Non-Zero Mask 0 (ISA example 1)", {M("", 0, 0, 0), C, Wt});
    c.ty = BF16; c.n = 128; c.en = true; c.z0 = zcmDesc(0, false, 4, 3); cases.push_back(c); }
  { Case c = mk("f16 N=64, column shift 2", {M("b0::discard", 0, 0, 0), C, Wt}); c.z0 = zcmDesc(2); c.shift = 2; c.en = true; cases.push_back(c); }
  { Case c = mk("s8 x u8 N=256, wrapping", {M(""), C, Wt}); c.ty = S8; c.tyB = U8; c.n = 256; c.en = true; cases.push_back(c); }
  { Case c = mk("tf32 N=64, A in TMEM", {M("b2::fill"), C, Wt}); c.ty = TF32; c.aTmem = true; c.en = true; cases.push_back(c); }
  { Case c = mk("e4m3 x e5m2 N=128, column shift 32, maximum shift 32 in the instruction descriptor", {M("", 0, 0, 0), C, Wt});
    c.ty = E4M3; c.tyB = E5M2; c.n = 128; c.z0 = zcmDesc(32); c.shift = 32; c.idescXor = 3u << 30; cases.push_back(c); }
  // collector buffers
  { Case c = mk("fill b1, use b1 with another A", {M("b1::fill", 0, 0), M("b1::use", 1, 64), C, Wt}); c.en = true; cases.push_back(c); }
  { Case c = mk("fill b3, wait, lastuse b3 (B at an identical copy), fill b3 again, use", {M("b3::fill", 0, 0), C, Wt, M("b3::lastuse", 1, 64, -1, 1), M("b3::fill", 1, 128), M("b3::use", 0, 192), C, Wt});
    c.ty = S8; c.tyB = S8; cases.push_back(c); }
  { Case c = mk("fill b1, column shift 2 in both", {M("b1::fill", 0, 0, 0), M("b1::use", 1, 64, 0), C, Wt}); c.z0 = zcmDesc(2); c.shift = 2; cases.push_back(c); }
  { Case c = mk("fill b2, lastuse b2, use b2", {M("b2::fill", 0, 0), M("b2::lastuse", 1, 64), M("b2::use", 0, 128), C, Wt});
    c.fault = "collector::b2::use: collector buffer #2 holds no valid fill"; cases.push_back(c); }
  { Case c = mk("use b3 with no fill", {M("b3::use"), C, Wt}); c.fault = "collector buffer #3 holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill b0, the default b0::discard, use b0", {M("b0::fill", 0, 0), M("", 1, 64), M("b0::use", 0, 128), C, Wt});
    c.fault = "collector buffer #0 holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill b1, discard b1, lastuse b1", {M("b1::fill", 0, 0), M("b1::discard", 1, 64), M("b1::lastuse", 0, 128), C, Wt});
    c.fault = "collector buffer #1 holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill b1, B overwritten, use b1", {M("b1::fill", 0, 0), C, Wt, O, M("b1::use", 1, 64), C, Wt}); c.over = 5;
    c.fault = "B in shared memory differs from what the fill at PTX line"; cases.push_back(c); }
  { Case c = mk("fill b1 without shift, use b1 with shift 2", {M("b1::fill", 0, 0), M("b1::use", 1, 64, 0), C, Wt}); c.z0 = zcmDesc(2);
    c.fault = "column shift differ from those of the fill at PTX line"; cases.push_back(c); }
  // shapes and the zero-column mask descriptor
  { Case c = mk("M=64 (layout E)", {M(""), C, Wt}); c.idescXor = (8u ^ 4u) << 24; c.fault = "M = 64 with .ws (the ISA's data path layout E) is not simulated"; cases.push_back(c); }
  { Case c = mk("M=32 (layout G)", {M(""), C, Wt}); c.idescXor = (8u ^ 2u) << 24; c.fault = "M = 32 with .ws (the ISA's data path layout G) is not simulated"; cases.push_back(c); }
  { Case c = mk("N=32", {M(""), C, Wt}); c.idescXor = (8u ^ 4u) << 17; c.fault = "N = 32 (bits 17-22) is not a .ws shape (64, 128 or 256)"; cases.push_back(c); }
  { Case c = mk("generated mask (ISA example 2)", {M("", 0, 0, 0), C, Wt}); c.z0 = zcmDesc(0, true, 2, 3);
    c.fault = "a generated zero-column mask (Non-Zero Mask, bit 39 = 1) is not simulated"; cases.push_back(c); }
  { Case c = mk("column shift 33", {M("", 0, 0, 0), C, Wt}); c.z0 = zcmDesc(33); c.fault = "column shift (bits 56-61) is 33, more than the maximum 32 for M = 128"; cases.push_back(c); }
  { Case c = mk("mask reserved bit 37", {M("", 0, 0, 0), C, Wt}); c.z0 = 1ull << 37; c.fault = "reserved bits 36-38 and 62-63 must be 0"; cases.push_back(c); }
  // racecheck: a B column only the shift reads, overwritten before the covering commit arrived
  { Case c = mk("racecheck clean, fill and use with a shift", {M("b1::fill", 0, 0, 0), M("b1::use", 1, 64, 0), C, Wt}); c.z0 = zcmDesc(4); c.shift = 4; c.san = 1; cases.push_back(c); }
  { Case c = mk("racecheck: a shifted-in B column overwritten before the wait", {M("", 0, 0, 0), C, O, Wt}); c.z0 = zcmDesc(4);
    c.over = (64 + 2) / 8 * (kSbo / 4) + ((64 + 2) % 8) * 4;  // column 66's first word: read through the shift only
    c.san = 1; c.hazard = "conflicts with tcgen05.mma operand read at PTX line"; cases.push_back(c); }
  for (const Case& c : cases) runCase(c);

  loadError("cta_group::2", "tcgen05.mma.ws.cta_group::2.kind::f16 [%r53], %rd20, %rd22, %r22, %p6;", ".ws with .cta_group::2 is invalid");
  loadError("block-scaled", "tcgen05.mma.ws.cta_group::1.kind::mxf8f6f4.block_scale [%r53], %rd20, %rd22, %r22, [%r54], [%r54], %p6;",
            "tcgen05.mma.ws has no block-scaled kinds");
  loadError("two collectors", "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill.collector::b1::use [%r53], %rd20, %rd22, %r22, %p6;",
            "more than one .collector_usage modifier");
  loadError("disable_output_lane", "tcgen05.mma.ws.cta_group::1.kind::f16 [%r53], %rd20, %rd22, %r22, {%r1, %r1, %r1, %r1}, %p6;",
            "tcgen05.mma.ws has no disable_output_lane operand");
  loadError("scale_input_d", "tcgen05.mma.ws.cta_group::1.kind::f16 [%r53], %rd20, %rd22, %r22, %p6, 2;", "zero_column_mask_desc is a 64-bit register");
  loadError("collector of A", "tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r53], %rd20, %rd22, %r22, %p6;", "tcgen05.mma.ws takes .collector::b{0,1,2,3}::*, not .collector::a::fill");
  expectPtxas(ptxasArg(argc, argv), modules);
  return finish("ptx_tcgen05_ws_test");
}
