// tcgen05.ld / tcgen05.st in every shape against the PTX ISA's matrix-fragment figures (PTX ISA
// 9.7.16.2.3.1, figures 183-187), bit for bit. The mapping of thread t's register j to a
// (lane, column) of the warp's access is written out here on its own (not taken from the sim):
//   32x32b   lane t,                 column j
//   16x32bx2 lane t%16,              column j, plus immHalfSplitoff for t >= 16
//   16x64b   lane t/4 + 8*(t%2),     column 2j + (t/2)%2
//   16x128b  lane t/4 + 8*(j%2),     column 4*(j/2) + t%4
//   16x256b  lane t/4 + 8*((j/2)%2), column 8*(j/4) + 2*(t%4) + j%2
// .pack::16b (ld): the register's column c is the low 16 bits of columns 2c (low half) and 2c+1
// (high half); .unpack::16b (st) writes a register's halves there (the upper 16 bits zero).
//
// Each case runs on 4 warps, each in its own lane quarter (16-lane shapes at lane 16*(q%2) of
// quarter q): the load case fills the quarter with a known pattern through .32x32b.x1 and checks
// every register of the shape's load; the store case fills the quarter with another pattern, stores
// through the shape, and checks every cell of the quarter read back with .32x32b.x1 (the cells
// the shape does not reach keep the first pattern). Then: the lane-access rule for 16-lane shapes,
// unallocated columns, a store not waited for with tcgen05.wait::st leaving stale cells, an ld
// destination read before tcgen05.wait::ld, initcheck on packed loads, racecheck over a wide
// shape's columns (a load of cells an MMA in flight writes), and the .xN / pack forms refused at
// load by name.
//
// `sim_ptx_ptx_tcgen05_ldst_test --ptxas PATH` also assembles every module with ptxas -arch=sm_100a.
#include <algorithm>
#include "ptx_harness.h"

using namespace ptxtest;

namespace {

std::vector<std::string> modules;         // every module run here, for the ptxas cross-check
std::vector<std::string> invalidForPtxas;  // refused modules that are not valid PTX either

const char* kHead = ".version 8.8\n.target sm_100a\n.address_size 64\n";
constexpr unsigned kThreads = 128, kCols = 512;

enum Shape { S32x32b, S16x32bx2, S16x64b, S16x128b, S16x256b };
const char* kName[] = {"32x32b", "16x32bx2", "16x64b", "16x128b", "16x256b"};
const unsigned kRegs[] = {1, 1, 1, 2, 4};  // registers per .x1 (PTX ISA table 47)
const unsigned kWide[] = {1, 1, 2, 4, 8};  // columns per .x1

// (lane, column) of thread t's register j within the access (before pack doubling)
void frag(Shape s, unsigned t, unsigned j, unsigned& lane, unsigned& col) {
  switch (s) {
    case S32x32b: lane = t; col = j; return;
    case S16x32bx2: lane = t % 16; col = j; return;
    case S16x64b: lane = t / 4 + 8 * (t % 2); col = 2 * j + (t / 2) % 2; return;
    case S16x128b: lane = t / 4 + 8 * (j % 2); col = 4 * (j / 2) + t % 4; return;
    case S16x256b: lane = t / 4 + 8 * ((j / 2) % 2); col = 8 * (j / 4) + 2 * (t % 4) + j % 2; return;
  }
}

struct Case {
  Shape s;
  unsigned num;
  bool pack;
  unsigned nregs() const { return num * kRegs[s]; }
  unsigned width() const { return num * kWide[s] * (pack ? 2 : 1); }
  unsigned split() const { return s != S16x32bx2 ? 0 : (2 * width() + 5 <= kCols ? width() + 5 : width()); }
  unsigned col0() const { return (s == S16x32bx2 ? split() : 0) + width() + 8 <= kCols ? 8 : 0; }
  unsigned laneOff(unsigned q) const { return s == S32x32b ? 0 : 16 * (q % 2); }
  std::string name() const {
    return std::string(kName[s]) + ".x" + std::to_string(num) + (pack ? " pack" : "");
  }
  std::string regs() const {
    std::string r = "{";
    for (unsigned j = 0; j < nregs(); j++) r += (j ? ", %v" : "%v") + std::to_string(j);
    return r + "}";
  }
  // the instruction, at address register %r20
  std::string inst(bool load) const {
    std::string m = std::string(load ? "tcgen05.ld" : "tcgen05.st") + ".sync.aligned." + kName[s] + ".x" + std::to_string(num) +
                    (pack ? (load ? ".pack::16b" : ".unpack::16b") : "") + ".b32 ";
    std::string sp = s == S16x32bx2 ? ", " + std::to_string(split()) : "";
    return load ? m + regs() + ", [%r20]" + sp + ";\n" : m + "[%r20]" + sp + ", " + regs() + ";\n";
  }
};

// The cells (lane within the quarter, column) thread l's register j reaches: one, or two with pack.
unsigned cellsOf(const Case& k, unsigned q, unsigned l, unsigned j, unsigned lane[2], unsigned col[2]) {
  unsigned fl = 0, fc = 0;
  frag(k.s, l, j, fl, fc);
  unsigned L = k.laneOff(q) + fl, C = k.col0() + (k.s == S16x32bx2 && l >= 16 ? k.split() : 0);
  lane[0] = lane[1] = L;
  if (!k.pack) {
    col[0] = C + fc;
    return 1;
  }
  col[0] = C + 2 * fc;
  col[1] = col[0] + 1;
  return 2;
}

// The two fill patterns (distinct low 16 bits per lane and column of the CTA).
uint32_t fillLd(unsigned lane, unsigned col) { return 0xa5000000u | lane << 9 | col; }
uint32_t fillSt(unsigned lane, unsigned col) { return 0x5a000000u | lane << 9 | col; }
// The value thread l stores as register j: low 16 bits l<<7|j, high 16 bits that | 0x8000.
uint32_t stValue(unsigned l, unsigned j) { uint32_t lo = l << 7 | j; return lo * 0x10001u + 0x80000000u; }

// One kernel of 4 warps: alloc 512 columns; %r12 = this warp's quarter address, %r14 = its lane
// (lane 32q + laneid); fill every column of the quarter with `top` | lane << 9 | column; then
// `body` (with %r20 = the address of the access); then dump (when dumpAll: every column of the
// quarter to out[t*512 + c]).
std::string kernel(const Case& k, uint32_t top, const std::string& body, bool dumpAll, const std::string& waitSt = "  tcgen05.wait::st.sync.aligned;\n") {
  std::string v = "  .reg .b32 %v<" + std::to_string(std::max(1u, k.nregs())) + ">;\n";
  char topHex[16];
  std::snprintf(topHex, sizeof topHex, "0x%08x", top);
  std::string ptx = std::string(kHead) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
)" + v + R"(  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.lt.u32 %p1, %r1, 32;
  mov.u32 %r4, slot;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  bar.sync 0;
  ld.shared.u32 %r10, [slot];
  and.b32 %r5, %r2, 3;
  shl.b32 %r11, %r5, 21;
  add.u32 %r12, %r10, %r11;         // lane 32q, column 0
  shl.b32 %r13, %r5, 5;
  add.u32 %r14, %r13, %r3;          // this thread's lane
  shl.b32 %r15, %r14, 9;
  or.b32 %r15, %r15, )" + topHex + R"(;
  mov.u32 %r16, 0;
FILL:
  add.u32 %r17, %r12, %r16;
  add.u32 %r18, %r15, %r16;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r17], {%r18};
  add.u32 %r16, %r16, 1;
  setp.lt.u32 %p2, %r16, 512;
  @%p2 bra FILL;
  tcgen05.wait::st.sync.aligned;
  // the access: lane 32q + laneOff, column col0
  and.b32 %r19, %r5, 1;
  mul.lo.u32 %r19, %r19, )" + std::to_string(k.s == S32x32b ? 0 : 16 << 16) + R"(;
  add.u32 %r20, %r12, %r19;
  add.u32 %r20, %r20, )" + std::to_string(k.col0()) + R"(;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 2048;
  add.s64 %rd3, %rd1, %rd2;
)" + body;
  if (dumpAll)
    ptx += waitSt + R"(  mov.u32 %r16, 0;
  mov.u64 %rd4, %rd3;
DUMP:
  add.u32 %r17, %r12, %r16;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r21}, [%r17];
  tcgen05.wait::ld.sync.aligned;
  st.global.u32 [%rd4], %r21;
  add.s64 %rd4, %rd4, 4;
  add.u32 %r16, %r16, 1;
  setp.lt.u32 %p2, %r16, 512;
  @%p2 bra DUMP;
)";
  ptx += R"(  bar.sync 0;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 512;
  ret;
}
)";
  return ptx;
}

// sanitize: the sanitizers to run (4: initcheck).
tsim::Fault run(const std::string& ptx, std::vector<uint32_t>* outv = nullptr, unsigned sanitize = 0) {
  modules.push_back(ptx);
  Kernel k(ptx);
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  bad.detail = "load failed: " + k.log;
  if (!k.ok()) return bad;
  Arena mem;
  uint64_t out = mem.alloc(kThreads * kCols * 4);
  mem.put(out, std::vector<uint32_t>(kThreads * kCols, 0xccccccccu));
  std::string log;
  const tsim::KernelInfo* ki = &k.mod->kernels()[0];
  if (!k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  std::memcpy(buf.data() + ki->params[0].offset, &out, 8);
  tsim::LaunchConfig cfg;
  cfg.block[0] = kThreads;
  cfg.params = buf.data();
  cfg.threads = 2;
  cfg.sanitize = sanitize;
  tsim::Counters ctr;
  tsim::Fault f = tsim::launch(*k.mod, *ki, cfg, mem, ctr);
  if (outv) *outv = mem.get<uint32_t>(out, kThreads * kCols);
  return f;
}

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Compares and reports the first few differences of one case.
void compare(const std::string& what, const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, size_t n) {
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i] && bad++ < 4)
      std::printf("%s: thread %zu word %zu: got 0x%08x, want 0x%08x\n", what.c_str(), i / kCols, i % kCols, got[i], want[i]);
  if (bad) failures++;
}

// The load: every register of every thread against the fill pattern at its cell(s).
void loadCase(const Case& k, unsigned sanitize = 0) {
  std::string body = k.inst(true) + "  tcgen05.wait::ld.sync.aligned;\n";
  for (unsigned j = 0; j < k.nregs(); j++) body += "  st.global.u32 [%rd3+" + std::to_string(4 * j) + "], %v" + std::to_string(j) + ";\n";
  std::vector<uint32_t> out;
  tsim::Fault f = run(kernel(k, 0xa5000000u, body, false), &out, sanitize);
  if (f.kind) {
    std::printf("ld %s: fault %s\n", k.name().c_str(), f.detail.c_str());
    failures++;
    return;
  }
  std::vector<uint32_t> want(kThreads * kCols, 0xccccccccu);
  for (unsigned t = 0; t < kThreads; t++) {
    unsigned q = t / 32, l = t % 32;
    for (unsigned j = 0; j < k.nregs(); j++) {
      unsigned lane[2], col[2];
      unsigned m = cellsOf(k, q, l, j, lane, col);
      uint32_t v = fillLd(32 * q + lane[0], col[0]);
      if (m == 2) v = (v & 0xffffu) | (fillLd(32 * q + lane[1], col[1]) & 0xffffu) << 16;
      want[t * kCols + j] = v;
    }
  }
  compare("ld " + k.name(), out, want, want.size());
}

// The store: every cell of every quarter (read back with 32x32b) against the model. With
// waitSt empty the store has not landed when the quarter is read back: the old cells.
void storeCase(const Case& k, bool wait = true) {
  std::string body;
  for (unsigned j = 0; j < k.nregs(); j++)
    body += "  mul.lo.u32 %v" + std::to_string(j) + ", %r3, 8388736;\n  add.u32 %v" + std::to_string(j) + ", %v" + std::to_string(j) + ", " + hex(0x80000000u + j * 0x10001u) + ";\n";  // (l << 7) * 0x10001 + ...
  body += k.inst(false);
  std::vector<uint32_t> out;
  tsim::Fault f = run(kernel(k, 0x5a000000u, body, true, wait ? "  tcgen05.wait::st.sync.aligned;\n" : ""), &out);
  std::string what = std::string(wait ? "st " : "st without wait::st ") + k.name();
  if (f.kind) {
    std::printf("%s: fault %s\n", what.c_str(), f.detail.c_str());
    failures++;
    return;
  }
  std::vector<uint32_t> want(kThreads * kCols);
  for (unsigned t = 0; t < kThreads; t++)
    for (unsigned c = 0; c < kCols; c++) want[t * kCols + c] = fillSt(t, c);
  if (wait)
    for (unsigned q = 0; q < 4; q++)
      for (unsigned l = 0; l < 32; l++)
        for (unsigned j = 0; j < k.nregs(); j++) {
          unsigned lane[2], col[2];
          uint32_t v = stValue(l, j);
          if (cellsOf(k, q, l, j, lane, col) == 1) {
            want[(32 * q + lane[0]) * kCols + col[0]] = v;
          } else {
            want[(32 * q + lane[0]) * kCols + col[0]] = v & 0xffffu;
            want[(32 * q + lane[1]) * kCols + col[1]] = v >> 16;
          }
        }
  compare(what, out, want, want.size());
}

const Case kCases[] = {
    {S32x32b, 1, false},   {S32x32b, 4, true},    {S32x32b, 128, false}, {S32x32b, 64, true},
    {S16x32bx2, 1, false}, {S16x32bx2, 8, true},  {S16x32bx2, 128, false}, {S16x32bx2, 64, true},
    {S16x64b, 1, false},   {S16x64b, 2, false},   {S16x64b, 8, true},    {S16x64b, 32, false}, {S16x64b, 128, false}, {S16x64b, 64, true},
    {S16x128b, 1, false},  {S16x128b, 2, true},   {S16x128b, 16, false}, {S16x128b, 64, false}, {S16x128b, 32, true},
    {S16x256b, 1, false},  {S16x256b, 2, false},  {S16x256b, 4, true},   {S16x256b, 32, false}, {S16x256b, 16, true}, {S16x256b, 32, true},
};

void expectFault(const std::string& name, const std::string& ptx, const std::string& phrase) { expectOutcome(name, run(ptx), phrase.c_str()); }

void faults() {
  // warp 1 (lanes 32..63) naming lanes 16..31 with 16x256b
  Case k{S16x256b, 1, false};
  std::string body = "  setp.eq.u32 %p3, %r2, 1;\n  @%p3 sub.u32 %r20, %r20, 2097152;\n" + k.inst(true) + "  tcgen05.wait::ld.sync.aligned;\n";
  expectFault("16x256b quarter", kernel(k, 0xa5000000u, body, false),
              "tcgen05.ld.16x256b: warp 1 (warp id % 4 = 1) may access TMEM lanes 32..63 only; the address names lanes 16..31");
  // a 16-lane access from lane 32q + 20 runs past the quarter (lanes 32q+20 .. 32q+35)
  Case k2{S16x64b, 2, false};
  body = "  setp.eq.u32 %p3, %r2, 0;\n  @%p3 add.u32 %r20, %r12, 1310720;\n" + k2.inst(false);
  expectFault("16x64b past the quarter", kernel(k2, 0x5a000000u, body, false),
              "tcgen05.st.16x64b: warp 0 (warp id % 4 = 0) may access TMEM lanes 0..31 only; the address names lanes 20..35");
  // 16x128b.x16 pack from column 500: 128 columns, past the 512
  Case k3{S16x128b, 16, true};
  body = "  add.u32 %r20, %r12, 500;\n" + k3.inst(true) + "  tcgen05.wait::ld.sync.aligned;\n";
  expectFault("16x128b columns", kernel(k3, 0xa5000000u, body, false), "tcgen05.ld: tensor-memory columns 500..627 are not all allocated");
  // a 16x64b destination read before tcgen05.wait::ld
  Case k4{S16x64b, 4, false};
  body = k4.inst(true) + "  st.global.u32 [%rd3], %v2;\n  tcgen05.wait::ld.sync.aligned;\n";
  expectFault("16x64b no wait::ld", kernel(k4, 0xa5000000u, body, false), "reads a destination register of the tcgen05.ld at PTX line");
}

// initcheck: every cell a packed load reads was written (clean); with column 9 never written, the
// high half of thread 0's first register (16x64b.pack: columns 8 and 9 of lane 0) is reported.
void initcheck() {
  loadCase({S16x256b, 4, true}, 4);
  loadCase({S16x64b, 2, true}, 4);
  Case k{S16x64b, 1, true};
  std::string body = k.inst(true) + "  tcgen05.wait::ld.sync.aligned;\n";
  std::string ptx = kernel(k, 0xa5000000u, body, false);
  const std::string st = "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r17], {%r18};\n";
  ptx.replace(ptx.find(st), st.size(), "  setp.ne.u32 %p3, %r16, 9;\n  @%p3 " + st.substr(2));
  tsim::Fault f = run(ptx, nullptr, 4);
  if (f.kind != tsim::Fault::Hazard || f.detail.find("read of uninitialised tensor memory (lane 0, column 9) by tcgen05.ld") == std::string::npos) {
    std::printf("initcheck 16x64b pack: got kind %d: %s\n", (int)f.kind, f.detail.c_str());
    failures++;
  }
}

// racecheck over a wide shape's columns: an f16 MMA (M 128, N 16) writes columns 16..31 and is
// committed; before the mbarrier wait each warp loads 16x256b.x1 (8 columns, 4 registers) at
// column `col`. From column 10 (columns 10..17) it reads cells the MMA still writes: reported;
// from column 8 (8..15) it does not.
std::string raceKernel(unsigned col) {
  return std::string(kHead) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p<8>;
  .reg .b32 %v<4>;
  .shared .align 128 .b8 smem[4608];
  .shared .align 8 .b64 mbar;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.lt.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r1, 0;
  mov.u32 %r4, slot;
  mov.u32 %r5, mbar;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.proxy.async.shared::cta;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [slot];
  @!%p2 bra ISSUED;
  mov.u32 %r9, smem;
  cvt.u64.u32 %rd1, %r9;
  shr.u64 %rd1, %rd1, 4;
  or.b64 %rd2, %rd1, 0x401000080000;   // A: 128 rows x 32 bytes, LBO 128, SBO 256, no swizzle
  add.s64 %rd3, %rd2, 256;             // B at smem + 4096
  mov.u32 %r22, 0x08040010;            // D f32, A/B f16, N 16, M 128
  setp.ne.u32 %p3, %r1, %r1;           // enable_input_d false
  add.u32 %r11, %r10, 16;
  tcgen05.mma.cta_group::1.kind::f16 [%r11], %rd2, %rd3, %r22, %p3;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
ISSUED:
  bar.sync 0;
  and.b32 %r12, %r2, 3;
  shl.b32 %r13, %r12, 21;
  and.b32 %r14, %r12, 1;
  shl.b32 %r14, %r14, 20;
  add.u32 %r15, %r10, %r13;
  add.u32 %r15, %r15, %r14;
  tcgen05.ld.sync.aligned.16x256b.x1.b32 {%v0, %v1, %v2, %v3}, [%r15+)" + std::to_string(col) + R"(];
  tcgen05.wait::ld.sync.aligned;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r5], 0;
  @!%p4 bra WAIT;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;
  ret;
}
)";
}

void racecheck() {
  tsim::Fault f = run(raceKernel(8), nullptr, 1);
  if (f.kind) {
    std::printf("racecheck 16x256b clean: %s\n", f.detail.c_str());
    failures++;
  }
  f = run(raceKernel(10), nullptr, 1);
  if (f.kind != tsim::Fault::Hazard || f.detail.find("read-after-write hazard on tensor memory (lane 0, column 16): tcgen05.ld") == std::string::npos) {
    std::printf("racecheck 16x256b: got kind %d: %s\n", (int)f.kind, f.detail.c_str());
    failures++;
  }
}

void loadError(const std::string& name, const std::string& line, const std::string& phrase, bool validPtx) {
  std::string ptx = std::string(kHead) + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<40>;\n  .reg .b32 %v<300>;\n" + line + "\n  ret;\n}\n";
  (validPtx ? modules : invalidForPtxas).push_back(ptx);
  expectLoadError(name, ptx, phrase.c_str());
}

void refusals() {
  Case big{S16x256b, 64, false}, big2{S16x128b, 128, false};
  loadError("16x256b.x64", "  " + big.inst(true), "tcgen05.ld.16x256b allows .x32 at most (128 registers), got .x64", false);
  loadError("16x128b.x128", "  " + big2.inst(false), "tcgen05.st.16x128b allows .x64 at most (128 registers), got .x128", false);
  loadError("16x128b count", "  tcgen05.ld.sync.aligned.16x128b.x2.b32 {%v0, %v1}, [%r1];", "expected a vector of 4 registers", false);
  loadError("ld unpack", "  tcgen05.ld.sync.aligned.16x64b.x1.unpack::16b.b32 {%v0}, [%r1];", "tcgen05.ld packs (.pack::16b), it does not unpack", false);
  loadError("st pack", "  tcgen05.st.sync.aligned.16x64b.x1.pack::16b.b32 [%r1], {%v0};", "tcgen05.st unpacks (.unpack::16b), it does not pack", false);
  loadError("two shapes", "  tcgen05.ld.sync.aligned.16x64b.32x32b.x1.b32 {%v0}, [%r1];", "takes one shape", false);
}

}  // namespace

int main(int argc, char** argv) {
  for (const Case& k : kCases) {
    loadCase(k);
    storeCase(k);
  }
  // no tcgen05.wait::st before the read-back: the stores have not landed, the old cells are read
  storeCase({S16x256b, 2, false}, false);
  storeCase({S16x64b, 4, true}, false);
  faults();
  initcheck();
  racecheck();
  refusals();
  const char* ptxas = ptxasArg(argc, argv);
  expectPtxas(ptxas, modules);
  expectPtxas(ptxas, invalidForPtxas, false);
  return finish("ptx_tcgen05_ldst_test");
}
