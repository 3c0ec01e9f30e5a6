// tcgen05.mma's collector buffer for A (.collector::a::{fill,use,lastuse,discard}, sm_100a) and
// its refused .ashift, against the PTX ISA, bit for bit. Each case lays three A images (128 x K:
// A0, A1 and an identical copy of A0) and two B images (K x N, B0 and B1) K-major without swizzle
// into shared memory (core matrices of 8 rows x 16 bytes: row r at (r/8)*SBO + (r%8)*16, its
// 16-byte chunk j at j*LBO), fills TMEM with known cells, lets thread 0 issue a sequence of
// tcgen05.mma.cta_group::1 / commit / mbarrier waits / shared-memory stores, reads every TMEM
// lane back and compares with a CPU product of exactly representable values (M = 128: D's row m
// in TMEM lane m, column n at d_tmem + n; A in TMEM: row m in lane m, its 32 bytes of K in 8
// cells from column 256). From the ISA's .collector_usage table:
// - a fill reads A and keeps it; a use / lastuse reads A "from the collector buffer", so with the
//   same A a fill then uses with other B matrices give each product, also when the use names A's
//   identical copy (another a_desc) or A is in TMEM; a use after lastuse, after discard, after a
//   tcgen05.mma with no qualifier (the default .collector::a::discard), or with no fill is a named
//   fault ("requires a previous fill ... still valid");
// - the ISA does not say whether a use reads A's memory again, so (as the sim's .ws B collector)
//   a use whose A in memory differs from what the fill read (another A, or A overwritten since),
//   or whose negate A differs, is a named fault;
// - load errors, each form's validity checked with ptxas under --ptxas: two .collector_usage
//   qualifiers, .collector::bN without .ws, .collector::a with .ws, .ashift with a_desc, with
//   .block_scale, with fill / use (the ISA: illegal), and .ashift where it is valid PTX (the ISA
//   leaves its semantics open: what row 0 holds, whether TMEM changes); fill with .cta_group::2
//   (valid; the ISA does not say where a pair's buffer is). The block-scaled kinds' collector
//   cases are in ptx_tcgen05_scaled_test.cpp.
// `sim_ptx_ptx_tcgen05_collector_a_test --ptxas PATH` also assembles every module with ptxas -arch=sm_100a.
#include "tcgen05_harness.h"

using namespace ptxtest;
using namespace tcgen05test;

namespace {

uint32_t encode(Ty t, int v4) { return tcgen05test::encode(t, v4, 0x0ab5); }  // tf32's ignored low bits: 0x0ab5

// K-major, no swizzle: one K slice is 32 bytes (two 16-byte chunks, LBO apart), 8-row groups SBO apart
constexpr unsigned kLbo = 128, kSbo = 256;
size_t kMajorAt(unsigned mn, unsigned kb) { return tcgen05test::kMajorAt(mn, kb, 0, kLbo, kSbo); }
uint64_t smemDesc(unsigned start) { return tcgen05test::smemDesc(start, kLbo, kSbo); }

// A step of thread 0: 'M' an MMA, 'C' a commit, 'W' wait for the next phase, 'O' a store of
// pval to shared memory at pover (then fence.proxy.async)
struct Step {
  char what = 'M';
  std::string coll;  // "" (no qualifier: the default discard) or e.g. "fill"
  unsigned a = 0;    // A image 0, 1 or 2 (2: an identical copy of 0)
  unsigned b = 0;    // B image 0 or 1
  unsigned dCol = 0; // D's first column
  bool negA = false; // the instruction descriptor with negate A (bit 13) set
};
Step M(const std::string& coll, unsigned a, unsigned dCol, unsigned b, bool negA = false) {
  Step s;
  s.coll = coll, s.a = a, s.dCol = dCol, s.b = b, s.negA = negA;
  return s;
}
Step X(char w) { Step s; s.what = w; return s; }

struct Case {
  std::string name;
  Ty ty = F16, tyB = F16;
  unsigned n = 64;
  bool en = false, aTmem = false;
  std::vector<Step> steps;
  unsigned over = 0;  // 'O': A image 0's word at this index gets pval
  const char* fault = nullptr;
};

// the MMA line "@" in the kernel is replaced by `mma` (load-error modules)
std::string issueText(const Case& c, const std::string& mma = "") {
  if (!mma.empty()) return "  " + mma + "\n";
  std::string s;
  unsigned phase = 0, label = 0;
  for (const Step& st : c.steps) {
    if (st.what == 'M') {
      std::string q = ".cta_group::1.kind::" + kindName(c.ty);
      if (!st.coll.empty()) q += ".collector::a::" + st.coll;
      std::string a = c.aTmem ? "[%r54]" : "%rd" + std::to_string(20 + st.a);
      s += "  add.u32 %r53, %r11, " + std::to_string(st.dCol) + ";\n";
      s += "  tcgen05.mma" + q + " [%r53], " + a + ", %rd" + std::to_string(23 + st.b) + ", " + (st.negA ? "%r24" : "%r22") + ", %p6;\n";
    } else {
      s += st.what == 'C' ? ptxCommit() : st.what == 'W' ? ptxWaitNextPhase(label, phase) : ptxStoreShared();
    }
  }
  return s;
}

// negate A's instruction descriptor in %r24
std::string kernelText(const Case& c, unsigned width, const std::string& mma = "") {
  return mmaSeqKernel("", 5, "  xor.b32 %r24, %r22, 8192;\n", issueText(c, mma), width);
}

std::vector<std::string> modules;
std::mt19937 rng(2929);

void runCase(const Case& c) {
  const unsigned es = esize(c.ty), K = 32 / es, N = c.n, M = 128;
  const Ty tb = es == 1 ? c.tyB : c.ty;
  // the image: A0 at 0, A1 at 4096, A0's copy at 8192, B0 at 12288, B1 bBytes on
  const unsigned aBytes = 4096, bBytes = (N / 8) * kSbo, bBase = 3 * aBytes;
  std::vector<int> A[3], B[2];
  for (unsigned i = 0; i < 2; i++) {
    A[i].resize((size_t)M * K);
    for (auto& v : A[i]) v = genValue(c.ty, rng);
    B[i].resize((size_t)K * N);
    for (auto& v : B[i]) v = genValue(tb, rng);
  }
  A[2] = A[0];
  std::vector<uint8_t> img(bBase + 2 * bBytes, 0);
  auto put = [&](size_t off, uint32_t bits) { memcpy(&img[off], &bits, es); };
  for (unsigned i = 0; i < 3; i++)
    for (unsigned m = 0; m < M; m++)
      for (unsigned k = 0; k < K; k++) put(i * aBytes + kMajorAt(m, k * es), encode(c.ty, A[i][m * K + k]));
  for (unsigned i = 0; i < 2; i++)
    for (unsigned n = 0; n < N; n++)
      for (unsigned k = 0; k < K; k++) put(bBase + i * bBytes + kMajorAt(n, k * es), encode(tb, B[i][k * N + n]));
  const std::vector<uint64_t> descs = {smemDesc(0), smemDesc(aBytes), smemDesc(2 * aBytes), smemDesc(bBase), smemDesc(bBase + bBytes)};
  // TMEM: D's columns, then (A in TMEM) A0's rows at column 256
  unsigned W = 0;
  for (const Step& s : c.steps) W = std::max(W, s.dCol + N);
  if (c.aTmem) W = std::max(W, 264u);
  std::vector<uint32_t> init((size_t)128 * W);
  for (auto& v : init) v = genAccumulator(c.ty, rng);
  if (c.aTmem) putATmem(init, W, A[0], M, K, c.ty, 0x0ab5);
  // expected: each MMA's D columns = A_a * B_b {+ D} (A in TMEM: A0); the other cells unchanged
  std::vector<uint32_t> want = init;
  for (const Step& s : c.steps) {
    if (s.what != 'M') continue;
    const std::vector<int>& a = A[c.aTmem ? 0 : s.a];
    for (unsigned m = 0; m < M; m++)
      for (unsigned n = 0; n < N; n++) {
        uint32_t& cell = want[m * W + s.dCol + n];
        cell = denseCell(c.ty, c.en, cell, K, [&](unsigned k) { return a[m * K + k]; }, [&](unsigned k) { return B[s.b][k * N + n]; });
      }
  }
  const uint32_t idesc = (isInt(c.ty) ? 2u : 1u) << 4 | typeCode(c.ty) << 7 | typeCode(tb) << 10 | (c.n >> 3) << 17 | (M >> 4) << 24;
  const std::string ptx = kernelText(c, W);
  modules.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { std::printf("%s: the module does not load\n", c.name.c_str()); failures++; return; }
  Arena mem(1 << 22);
  uint64_t dimg = mem.alloc(img.size()), ddesc = mem.alloc(40), dinit = mem.alloc(init.size() * 4), dout = mem.alloc(init.size() * 4);
  mem.put(dimg, img);
  mem.put(ddesc, descs);
  mem.put(dinit, init);
  tsim::Fault f = k.run(mem, "k", {dimg, img.size() / 4, ddesc, idesc, c.en ? 1u : 0u, dinit, dout, c.over * 4, 0x3c003c00u, img.size()},
                        1, 128, nullptr, (unsigned)img.size() + 16, 0, 2, 1, 1, 0);
  if (expectOutcome(c.name, f, c.fault, nullptr, tsim::Fault::IllegalInstruction)) expectCells(c.name, mem.get<uint32_t>(dout, init.size()), want, W);
}

// A module the decoder must refuse with `phrase` in its log; ptxasValid: whether ptxas assembles
// the form (1 / 0; checked under --ptxas), -1 when the kernel around it makes that moot.
struct LoadError {
  const char* name;
  std::string mma;
  const char* phrase;
  int ptxasValid;
};

void loadError(const LoadError& e, const char* ptxas) {
  Case c;
  const std::string ptx = kernelText(c, 64, e.mma);
  expectLoadError(e.name, ptx, e.phrase);
  if (ptxas && e.ptxasValid >= 0 && ptxasAssembles(ptxas, ptx) != (e.ptxasValid == 1)) {
    std::printf("%s: ptxas -arch=sm_100a %s it, the test says it is %s PTX\n", e.name, e.ptxasValid ? "refuses" : "assembles", e.ptxasValid ? "valid" : "invalid");
    failures++;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* ptxas = ptxasArg(argc, argv);
  const Step C = X('C'), Wt = X('W'), O = X('O');
  auto mk = [](const char* name, std::vector<Step> steps) { Case c; c.name = name; c.steps = std::move(steps); return c; };
  std::vector<Case> cases;
  { Case c = mk("f16: fill, use with another B", {M("fill", 0, 0, 0), M("use", 0, 64, 1), C, Wt}); c.en = true; cases.push_back(c); }
  { Case c = mk("bf16 N=128: fill, lastuse naming A's identical copy", {M("fill", 0, 0, 0), M("lastuse", 2, 128, 1), C, Wt});
    c.ty = BF16; c.n = 128; cases.push_back(c); }
  { Case c = mk("s8 x u8: fill, wait, use, lastuse, fill with A1, use, discard", {M("fill", 0, 0, 0), C, Wt, M("use", 0, 64, 1), M("lastuse", 0, 128, 0),
      M("fill", 1, 192, 1), M("use", 1, 256, 0), M("discard", 0, 320, 1), C, Wt});
    c.ty = S8; c.tyB = U8; c.en = true; cases.push_back(c); }
  { Case c = mk("tf32, A in TMEM: fill, use", {M("fill", 0, 0, 0), M("use", 0, 64, 1), C, Wt}); c.ty = TF32; c.aTmem = true; c.en = true; cases.push_back(c); }
  { Case c = mk("e4m3 x e5m2 N=256: fill, use, lastuse", {M("fill", 0, 0, 1), M("use", 0, 256, 0), C, Wt, M("lastuse", 2, 0, 0), C, Wt});
    c.ty = E4M3; c.tyB = E5M2; c.n = 256; c.en = true; cases.push_back(c); }
  // a use needs a valid fill
  { Case c = mk("use with no fill", {M("use", 0, 0, 0), C, Wt}); c.fault = ".collector::a::use: the collector buffer for A holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill, lastuse, use", {M("fill", 0, 0, 0), M("lastuse", 0, 64, 1), M("use", 0, 128, 0), C, Wt});
    c.fault = ".collector::a::use: the collector buffer for A holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill, a tcgen05.mma without .collector_usage (the default discard), use", {M("fill", 0, 0, 0), M("", 1, 64, 1), M("use", 0, 128, 0), C, Wt});
    c.fault = "the collector buffer for A holds no valid fill"; cases.push_back(c); }
  { Case c = mk("fill, discard, lastuse", {M("fill", 0, 0, 0), M("discard", 1, 64, 1), M("lastuse", 0, 128, 0), C, Wt}); c.ty = TF32;
    c.fault = ".collector::a::lastuse: the collector buffer for A holds no valid fill"; cases.push_back(c); }
  // a use must agree with its fill (the ISA does not say which the use reads)
  { Case c = mk("fill A0, use naming A1", {M("fill", 0, 0, 0), M("use", 1, 64, 1), C, Wt}); c.fault = "A in memory differs from what the fill at PTX line"; cases.push_back(c); }
  { Case c = mk("fill, wait, A overwritten, use", {M("fill", 0, 0, 0), C, Wt, O, M("use", 0, 64, 1), C, Wt}); c.over = 37; c.ty = S8; c.tyB = S8;
    c.fault = "A in memory differs from what the fill at PTX line"; cases.push_back(c); }
  { Case c = mk("fill, use with negate A", {M("fill", 0, 0, 0), M("use", 0, 64, 1, true), C, Wt});
    c.fault = "negate A, transpose A or A's memory (shared / tensor) differ from those of the fill"; cases.push_back(c); }
  for (const Case& c : cases) runCase(c);

  const std::vector<LoadError> errors = {
      {"two collector qualifiers", "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill.collector::a::use [%r53], %rd20, %rd23, %r22, %p6;",
       "tcgen05.mma: more than one .collector_usage modifier", 0},
      {".collector::b0 without .ws", "tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%r53], %rd20, %rd23, %r22, %p6;",
       ".collector::b0::fill is for tcgen05.mma.ws only", 0},
      {".collector::a with .ws", "tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r53], %rd20, %rd23, %r22, %p6;",
       "tcgen05.mma.ws takes .collector::b{0,1,2,3}::*, not .collector::a::fill", 0},
      {".ashift with .ws", "tcgen05.mma.ws.cta_group::1.kind::f16.ashift [%r53], [%r54], %rd23, %r22, %p6;", "tcgen05.mma.ws has no .ashift", 0},
      {".ashift with a_desc", "tcgen05.mma.cta_group::1.kind::f16.ashift [%r53], %rd20, %rd23, %r22, %p6;", ".ashift needs A in tensor memory", 0},
      {".ashift with .block_scale", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.ashift [%r53], [%r54], %rd23, %r22, [%r54], [%r54], %p6;",
       ".ashift is not allowed with .block_scale", 0},
      {".ashift with fill", "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::fill [%r53], [%r54], %rd23, %r22, %p6;",
       ".ashift cannot be combined with .collector::a::fill", 0},
      {".ashift with use", "tcgen05.mma.cta_group::1.kind::i8.ashift.collector::a::use [%r53], [%r54], %rd23, %r22, %p6;",
       ".ashift cannot be combined with .collector::a::use", 0},
      {".ashift (valid)", "tcgen05.mma.cta_group::1.kind::f16.ashift [%r53], [%r54], %rd23, %r22, %p6;",
       "tcgen05.mma .ashift is not simulated: the ISA says only that it \"shifts the rows of the A matrix down by one row", 1},
      {".ashift with lastuse (valid)", "tcgen05.mma.cta_group::1.kind::tf32.ashift.collector::a::lastuse [%r53], [%r54], %rd23, %r22, %p6;",
       "it does not say what row 0 of the shifted A holds", 1},
      // ptxas: the kernel's other tcgen05 instructions are .cta_group::1 (one .cta_group per kernel)
      {"fill with .cta_group::2", "tcgen05.mma.cta_group::2.kind::f16.collector::a::fill [%r53], %rd20, %rd23, %r22, %p6;",
       "tcgen05.mma.cta_group::2 with .collector::a::fill is not simulated (.cta_group::1 is): the ISA speaks of", -1},
  };
  for (const LoadError& e : errors) loadError(e, ptxas);
  expectPtxas(ptxas, modules);
  return finish("ptx_tcgen05_collector_a_test");
}
