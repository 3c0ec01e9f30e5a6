// The sm_100a tensor-copy modes (PTX ISA 5.5.3.4 ".tile::scatter4 and .tile::gather4 modes",
// 5.5.5 "im2col::w and im2col::w::128 modes"; cp.async.bulk.tensor's tensorCoords / im2colInfo),
// bit for bit against their definitions:
//  - .tile::gather4 (into .shared::cluster and .shared::cta): rows row0..row3 of a 2-D tiled map
//    whose box is one row of boxDim[0] elements, all from column col, laid one after the other;
//    rows or columns outside the tensor read as the fill (zero; NaN with the NaN fill); 128B
//    swizzle as for tile boxes; the data lands when the mbarrier completes (before: the old word).
//  - .tile::scatter4: the box's four rows written to rows row0..row3 from column col, only where
//    inside the tensor; nothing else of the tensor changes.
//  - .im2col::w / .im2col::w::128 (wHalo = 0): pixelsPerColumn (128) pixels along W from
//    W + wOffset, each elementStride[1] apart, at the coordinates' H (D) and N; the first pixel may
//    lie left of the box; pixels outside the tensor read as zero.
// Named faults: gather4 with a box of more than one row or an im2col map, a W mode with the other
// mode's map or a plain im2col map, wOffset / wHalo outside the ISA's ranges, wHalo > 0 and pixels
// past the box's right edge (not implemented). Refused at load: the wrong coordinate count, 3-D
// four-row copies, a gather4 store / scatter4 load, the arch-specific forms on plain sm_100.
// `--ptxas PATH` assembles every kernel with ptxas -arch=sm_100a.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "tma_modes_harness.h"

using namespace ptxtest;
using namespace tmatest;

namespace {

std::vector<std::string> kernelsUsed;  // for --ptxas

Kernel& kernelFor(const std::string& text) {
  static std::map<std::string, std::unique_ptr<Kernel>> cache;
  auto& k = cache[text];
  if (!k) {
    kernelsUsed.push_back(text);
    k.reset(new Kernel(text));
  }
  return *k;
}
Kernel& loadFor(const std::string& instr) { return kernelFor(loadKernel("sm_100a", instr)); }

const std::string kGather = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r11], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [%r10];";
const std::string kGatherCta = "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r11], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [%r10];";

std::string wInstr(unsigned rank, bool w128) {
  std::string c = "{%r1, %r2, %r3";
  if (rank >= 4) c += ", %r4";
  if (rank >= 5) c += ", %r5";
  return "cp.async.bulk.tensor." + std::to_string(rank) + "d.shared::cluster.global.im2col::w" + (w128 ? "::128" : "") +
         ".mbarrier::complete_tx::bytes [%r11], [%rd1, " + c + "}], [%r10], {%rs1, %rs2};";
}

// The scatter4 store: every thread writes word w of the box (at smem+1024) as w + 1, then thread 0
// stores the box with .tile::scatter4 at {c0, rows...} and waits for the bulk group.
const char* kScatterPtx = R"(
.version 8.6
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry st(.param .u64 tm, .param .u32 bytes, .param .u32 c0, .param .u32 c1, .param .u32 c2, .param .u32 c3, .param .u32 c4)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tm];
  ld.param.u32 %r20, [bytes];
  ld.param.u32 %r1, [c0];
  ld.param.u32 %r2, [c1];
  ld.param.u32 %r3, [c2];
  ld.param.u32 %r4, [c3];
  ld.param.u32 %r5, [c4];
  mov.u32 %r9, %tid.x;
  mov.u32 %r10, smem;
  add.u32 %r11, %r10, 1024;
  shl.b32 %r12, %r9, 2;
FILL:
  setp.ge.u32 %p1, %r12, %r20;
  @%p1 bra FILLED;
  add.u32 %r13, %r11, %r12;
  shr.u32 %r14, %r12, 2;
  add.u32 %r14, %r14, 1;
  st.shared.u32 [%r13], %r14;
  add.u32 %r12, %r12, 512;
  bra FILL;
FILLED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p2, %r9, 0;
  @%p2 cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [%r11];
  @%p2 cp.async.bulk.commit_group;
  @%p2 cp.async.bulk.wait_group 0;
  ret;
}
)";

void expectFault(const char* what, const tsim::Fault& f, const char* text) {
  CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
  bool named = f.detail.find(text) != std::string::npos;
  CHECK(named);
  if (!named) std::printf("%s: %s\n", what, f.detail.c_str());
}

// gather4 over an R x W tensor of 4-byte words (value r * 1000 + c + 1), box `cols` wide
void gatherCase(Arena& mem, const char* name, const std::string& instr, unsigned W, unsigned R, unsigned cols, int col,
                std::vector<int> rows, unsigned swizzle, bool nanFill) {
  std::vector<uint32_t> t(R * W);
  for (unsigned r = 0; r < R; r++)
    for (unsigned c = 0; c < W; c++) t[r * W + c] = r * 1000 + c + 1;
  uint64_t g = mem.alloc(t.size() * 4);
  mem.put(g, t);
  MapSpec s;
  s.dtype = 7;  // FLOAT32 (the fill NaN is 0x7fffffff)
  s.swizzle = (uint8_t)swizzle;
  s.fill = nanFill;
  s.addr = g;
  s.dim = {W, R};
  s.strideBytes = {W * 4};
  s.box = {cols, 1};
  unsigned bytes = 4 * cols * 4;
  Landed r = runLoad(loadFor(instr), mem, makeMap(s), bytes, {col, rows[0], rows[1], rows[2], rows[3]});
  CHECK_EQ((int)r.fault.kind, 0);
  if (r.fault.kind) std::printf("%s: %s\n", name, r.fault.detail.c_str());
  unsigned bad = 0;
  for (unsigned i = 0; i < 4; i++)
    for (unsigned j = 0; j < cols; j++) {
      int rr = rows[i], cc = col + (int)j;
      bool in = rr >= 0 && rr < (int)R && cc >= 0 && cc < (int)W;
      uint32_t want = in ? t[rr * W + cc] : nanFill ? 0x7fffffffu : 0u, got;
      std::memcpy(&got, r.box.data() + swizzled((i * cols + j) * 4, swizzle), 4);
      bad += got != want;
    }
  if (bad) std::printf("%s: %u wrong\n", name, bad);
  CHECK_EQ(bad, 0u);
  CHECK_EQ(r.early, 0x5EED5EEDu);
}

void scatterCase(Arena& mem, const char* name, unsigned W, unsigned R, unsigned cols, int col, std::vector<int> rows, unsigned swizzle) {
  std::vector<uint32_t> t(R * W, 0xAAAAAAAAu);
  uint64_t g = mem.alloc(t.size() * 4), tm = mem.alloc(128);
  mem.put(g, t);
  MapSpec s;
  s.dtype = 7;
  s.swizzle = (uint8_t)swizzle;
  s.addr = g;
  s.dim = {W, R};
  s.strideBytes = {W * 4};
  s.box = {cols, 1};
  mem.put(tm, std::vector<tsim::TensorMapBits>{makeMap(s)});
  unsigned bytes = 4 * cols * 4;
  Kernel& k = kernelFor(kScatterPtx);
  tsim::Fault f = k.run(mem, "st", {tm, bytes, (uint32_t)col, (uint32_t)rows[0], (uint32_t)rows[1], (uint32_t)rows[2], (uint32_t)rows[3]}, 1, 128,
                        nullptr, 1024 + bytes);
  CHECK_EQ((int)f.kind, 0);
  if (f.kind) std::printf("%s: %s\n", name, f.detail.c_str());
  auto got = mem.get<uint32_t>(g, t.size());
  std::vector<uint32_t> want = t;
  for (unsigned i = 0; i < 4; i++)
    for (unsigned j = 0; j < cols; j++) {
      int rr = rows[i], cc = col + (int)j;
      if (rr < 0 || rr >= (int)R || cc < 0 || cc >= (int)W) continue;  // not written
      want[rr * W + cc] = swizzled((i * cols + j) * 4, swizzle) / 4 + 1;  // the word the box holds there
    }
  unsigned bad = 0;
  for (size_t i = 0; i < t.size(); i++) bad += got[i] != want[i];
  if (bad) std::printf("%s: %u wrong\n", name, bad);
  CHECK_EQ(bad, 0u);
}

// An N x (H x) W x 32 f16 tensor (element i holds bits i * 7 + 1), a wide map with 64B swizzle
struct Wide {
  uint64_t g;
  std::vector<uint16_t> t;
  MapSpec s;
};
Wide wideTensor(Arena& mem, std::vector<uint64_t> dims /* C, W, (H,) N */, int lower, int upper, unsigned pixels, unsigned strideW, bool w128) {
  Wide w;
  size_t n = 1;
  for (auto d : dims) n *= d;
  w.t.resize(n);
  for (size_t i = 0; i < n; i++) w.t[i] = (uint16_t)(i * 7 + 1);
  w.g = mem.alloc(n * 2);
  mem.put(w.g, w.t);
  w.s.kind = w128 ? tsim::kTmIm2colW128 : tsim::kTmIm2colW;
  w.s.dtype = 6;
  w.s.swizzle = 2;  // 64B: a 32-channel f16 pixel is one 64-byte span
  w.s.addr = w.g;
  w.s.dim = dims;
  uint64_t pitch = dims[0] * 2;
  for (size_t d = 1; d < dims.size(); d++) {
    w.s.strideBytes.push_back(pitch);
    pitch *= dims[d];
  }
  w.s.estride.assign(dims.size(), 1);
  w.s.estride[1] = strideW;
  w.s.channels = (unsigned)dims[0];
  w.s.pixels = w128 ? 128 : pixels;
  w.s.lower = {lower};
  w.s.upper = {upper};
  return w;
}

// coords {C, W, (H,) N}: pixel k at W + wOffset + k * strideW
void wideCase(Arena& mem, const char* name, const Wide& w, bool w128, std::vector<int32_t> coord, unsigned wOffset) {
  const unsigned rank = (unsigned)w.s.dim.size(), C = (unsigned)w.s.dim[0], P = w.s.pixels, sw = w.s.estride[1];
  Landed r = runLoad(loadFor(wInstr(rank, w128)), mem, makeMap(w.s), P * C * 2, coord, {0, wOffset});
  CHECK_EQ((int)r.fault.kind, 0);
  if (r.fault.kind) std::printf("%s: %s\n", name, r.fault.detail.c_str());
  unsigned bad = 0;
  for (unsigned k = 0; k < P; k++) {
    int64_t x = (int64_t)coord[1] + wOffset + (int64_t)k * sw;
    bool in = x >= 0 && x < (int64_t)w.s.dim[1];
    size_t at = 0;  // pixel index: ((n * H + h) * W + x)
    int32_t nImg = coord[rank - 1];
    in = in && nImg >= 0 && nImg < (int32_t)w.s.dim[rank - 1];
    at = (size_t)nImg;
    for (int d = (int)rank - 2; d >= 2; d--) {
      in = in && coord[d] >= 0 && coord[d] < (int32_t)w.s.dim[d];
      at = at * w.s.dim[d] + (size_t)coord[d];
    }
    at = at * w.s.dim[1] + (size_t)x;
    for (unsigned c = 0; c < C; c++) {
      uint16_t want = in ? w.t[at * C + c] : 0, got;
      std::memcpy(&got, r.box.data() + swizzled((k * C + c) * 2, 2), 2);
      bad += got != want;
    }
  }
  if (bad) std::printf("%s: %u wrong\n", name, bad);
  CHECK_EQ(bad, 0u);
  CHECK_EQ(r.early, 0x5EED5EEDu);
}

}  // namespace

int main(int argc, char** argv) {
  Arena mem;
  // gather4: rows inside, above and below the tensor; columns running past its right edge
  gatherCase(mem, "gather4", kGather, 40, 20, 16, 30, {5, -1, 19, 20}, 0, false);
  gatherCase(mem, "gather4 shared::cta", kGatherCta, 40, 20, 16, -4, {7, 7, 0, 3}, 0, false);
  gatherCase(mem, "gather4 NaN fill", kGather, 40, 20, 8, 36, {-3, 2, 25, 11}, 0, true);
  gatherCase(mem, "gather4 128B swizzle", kGather, 64, 12, 32, 16, {9, 1, 4, 11}, 3, false);
  // scatter4: rows in any order, some outside the tensor, columns past its edge
  scatterCase(mem, "scatter4", 40, 20, 16, 30, {5, -1, 19, 12}, 0);
  scatterCase(mem, "scatter4 128B swizzle", 64, 12, 32, 16, {9, 1, 40, 3}, 3);
  // im2col::w: NHWC 32 x 12 x 3 x 2, W box [-1, 10], wOffset 1 shifts the start to W 0
  {
    Wide w = wideTensor(mem, {32, 12, 3, 2}, -1, -1, 8, 1, false);
    wideCase(mem, "im2col::w", w, false, {0, -1, 2, 1}, 1);
    // the first pixel left of the box (W -2 < 0 = lower), stride 2: W -2, 0, 2, ..., 10
    Wide s2 = wideTensor(mem, {32, 12, 3, 2}, 0, 0, 7, 2, false);
    wideCase(mem, "im2col::w stride 2", s2, false, {0, -2, 0, 0}, 0);
    // NWC (3-D)
    Wide w3 = wideTensor(mem, {32, 20, 2}, 0, 0, 16, 1, false);
    wideCase(mem, "im2col::w 3-D", w3, false, {0, 3, 1}, 0);
    // faults
    auto f = [&](const Wide& m, bool w128, std::vector<int32_t> c, unsigned halo, unsigned off) {
      return runLoad(loadFor(wInstr((unsigned)m.s.dim.size(), w128)), mem, makeMap(m.s), m.s.pixels * 64, c, {halo, off}).fault;
    };
    expectFault("wHalo", f(w, false, {0, 0, 0, 0}, 1, 0), "wHalo > 0 is not implemented");
    expectFault("wHalo range", f(w, false, {0, 0, 0, 0}, 512, 0), "wHalo 512 is outside");
    expectFault("wOffset range", f(w, false, {0, 0, 0, 0}, 0, 32), "wOffset 32 is outside");
    expectFault("past the box", f(w, false, {0, 4, 0, 0}, 0, 0), "past the bounding box");
    expectFault("W128 instruction, W map", f(w, true, {0, 0, 0, 0}, 0, 0), "MODE_W128");
    Wide plain = w;
    plain.s.kind = tsim::kTmIm2col;
    plain.s.lower = {-1, 0};
    plain.s.upper = {-1, 0};
    expectFault("plain im2col map", f(plain, false, {0, 0, 0, 0}, 0, 0), "cuTensorMapEncodeIm2colWide");
  }
  // im2col::w::128: 128 pixels from W 2 of row H 1
  {
    Wide w = wideTensor(mem, {32, 131, 2, 1}, 0, 0, 0, 1, true);
    wideCase(mem, "im2col::w::128", w, true, {0, 1, 1, 0}, 1);
    expectFault("W128 wHalo range", runLoad(loadFor(wInstr(4, true)), mem, makeMap(w.s), 128 * 64, {0, 0, 0, 0}, {32, 0}).fault, "wHalo 32 is outside");
  }
  // gather4 faults
  {
    uint64_t g = mem.alloc(40 * 20 * 4);
    MapSpec s;
    s.addr = g;
    s.dim = {40, 20};
    s.strideBytes = {160};
    s.box = {16, 2};
    expectFault("two-row box", runLoad(loadFor(kGather), mem, makeMap(s), 256, {0, 0, 1, 2, 3}).fault, "boxDim[1] = 1");
  }
  // forms refused at load
  auto refusedBy = [](const char* body, const char* target, const char* why) {
    std::string ptx = std::string(".version 8.6\n.target ") + target +
                      "\n.address_size 64\n.visible .entry k()\n{\n .reg .b16 %rs<2>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n " + body + "\n ret;\n}\n";
    std::string lg;
    auto m = tsim::parsePtx(ptx, lg);
    if (m) std::printf("accepted: %s\n", body);
    CHECK(!m);
    if (!m && why && lg.find(why) == std::string::npos) {
      std::printf("refused without saying '%s': %s", why, lg.c_str());
      failures++;
    }
  };
  refusedBy("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r1];", "sm_100a",
            "must have 5 elements");
  refusedBy("cp.async.bulk.tensor.3d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
            "sm_100a", "needs .2d");
  refusedBy("cp.async.bulk.tensor.2d.shared::cluster.global.tile::scatter4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
            "sm_100a", "store mode");
  refusedBy("cp.async.bulk.tensor.2d.global.shared::cta.tile::gather4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];", "sm_100a", "load mode");
  refusedBy("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1}], [%r1], {%rs1};",
            "sm_100a", "{wHalo, wOffset}");
  // arch-specific (ptxas: "not supported on .target 'sm_100'"); gather4 into .shared::cta is not
  refusedBy("cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];", "sm_100",
            "needs .target sm_100a");
  refusedBy("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
            "sm_100", "needs .target sm_100a");
  {
    std::string lg;
    std::string body = std::string(".version 8.6\n.target sm_100\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<16>;\n .reg .b64 %rd<4>;\n ") +
                       kGatherCta + "\n ret;\n}\n";
    auto m = tsim::parsePtx(body, lg);
    CHECK(m != nullptr);
    if (!m) std::printf("gather4 into .shared::cta on sm_100 refused: %s", lg.c_str());
  }
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    for (size_t i = 0; i < kernelsUsed.size(); i++) {
      std::string file = "/tmp/tsim_tma_sm100_" + std::to_string(::getpid()) + "_" + std::to_string(i) + ".ptx";
      std::ofstream(file) << kernelsUsed[i];
      std::string cmd = std::string(argv[2]) + " -arch=sm_100a -o /dev/null " + file;
      if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_100a refuses kernel %zu\n", i); failures++; }
      std::remove(file.c_str());
    }
  }
  return finish("ptx_tma_sm100_test");
}
