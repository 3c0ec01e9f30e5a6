// cp.async.bulk.tensor .im2col (sm_90; PTX ISA 5.5.4 "im2col mode", cuTensorMapEncodeIm2col).
// Checked bit for bit:
//  - Triton's im2col tutorial cases (python/tutorials/gluon/13-tma-im2col.py, whose expected pixel
//    values were checked on hardware): a [1|2, 4, 4, 32] f32 NHWC tensor whose pixel p holds p + 1
//    in every channel, 16 pixels x 32 channels, 128B swizzle; plain, padded corners, shifted by the
//    im2col offsets, across two images, padded across two images.
//  - A convolution's im2col matrix, from its definition: row m of the block at m0 is output pixel
//    m = (n, o_D, o_H, o_W) (W fastest), its channels c0.. of input pixel o * stride - pad + tap, zero
//    outside the input or past the batch. The loads use the corners a convolution needs (lower =
//    -pad, upper = (out - 1) * stride + 1 - dim - pad), the traversal strides = the convolution
//    strides, the block's first output pixel as base and the tap as im2col offsets. 3-D (NWC),
//    4-D (NHWC) and 5-D (NDHWC), f16, several blocks that wrap rows, images and run past the batch.
//  - NaN fill: out-of-bounds pixels read the map's NaN.
//  - Asynchrony: right after the copy is issued the box still holds the old word; the box lands
//    and completes exactly its bytes (ppc x cpp x element size) on the mbarrier.
// Named faults: a filter base outside the bounding box, an im2col offset outside the ISA's range,
// .im2col with a tiled map, .tile with an im2col map, rows not a multiple of 16 bytes, an N
// traversal stride, tensormap.replace.tile on an im2col map. Forms refused at load: no offsets, wrong offset count, 2-D, a store, the sm_100
// modes on .target sm_90a. `--ptxas PATH` assembles every kernel with ptxas -arch=sm_90a.
#include <cstdlib>
#include <fstream>
#include <functional>
#include <unistd.h>

#include "tma_modes_harness.h"

using namespace ptxtest;
using namespace tmatest;

namespace {

std::string im2colInstr(unsigned rank) {
  std::string c = "{%r1, %r2, %r3", o = "{%rs1";
  if (rank >= 4) c += ", %r4", o += ", %rs2";
  if (rank >= 5) c += ", %r5", o += ", %rs3";
  return "cp.async.bulk.tensor." + std::to_string(rank) + "d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r11], [%rd1, " + c +
         "}], [%r10], " + o + "};";
}

std::vector<std::string> kernelsUsed;  // for --ptxas

Kernel& kernelFor(const std::string& instr) {
  static std::map<std::string, std::unique_ptr<Kernel>> cache;
  auto& k = cache[instr];
  if (!k) {
    std::string text = loadKernel("sm_90a", instr);
    kernelsUsed.push_back(text);
    k.reset(new Kernel(text));
  }
  return *k;
}

// Triton's tutorial tensor: [n, 4, 4, 32] f32, pixel p (NHW order) = p + 1 in every channel.
void tritonCase(Arena& mem, const char* name, unsigned images, std::vector<int> lowerHW, std::vector<int> upperHW, std::vector<int32_t> nhwc,
                std::vector<unsigned> offHW, const std::vector<float>& want, bool nanFill = false) {
  std::vector<float> t(images * 16 * 32);
  for (unsigned p = 0; p < images * 16; p++)
    for (unsigned ch = 0; ch < 32; ch++) t[p * 32 + ch] = (float)(p + 1);
  uint64_t g = mem.alloc(t.size() * 4);
  mem.put(g, t);
  MapSpec s;
  s.kind = tsim::kTmIm2col;
  s.dtype = 7;  // FLOAT32
  s.swizzle = 3;
  s.fill = nanFill;
  s.addr = g;
  s.dim = {32, 4, 4, images};
  s.strideBytes = {128, 512, 2048};
  s.channels = 32;
  s.pixels = 16;
  s.lower = {lowerHW[1], lowerHW[0]};  // W first, as the driver's arrays
  s.upper = {upperHW[1], upperHW[0]};
  // Triton's coord [N, H, W, C] is the PTX vector {C, W, H, N}; its offsets [h, w] are {w, h}
  Landed r = runLoad(kernelFor(im2colInstr(4)), mem, makeMap(s), 16 * 32 * 4, {nhwc[3], nhwc[2], nhwc[1], nhwc[0]}, {offHW[1], offHW[0]});
  CHECK_EQ((int)r.fault.kind, 0);
  if (r.fault.kind) std::printf("%s: %s\n", name, r.fault.detail.c_str());
  unsigned bad = 0;
  for (unsigned px = 0; px < 16; px++)
    for (unsigned ch = 0; ch < 32; ch++) {
      float got;
      std::memcpy(&got, r.box.data() + swizzled(px * 128 + ch * 4, 3), 4);
      uint32_t gb, wb;
      std::memcpy(&gb, &got, 4);
      float w = want[px];
      if (nanFill && w == 0.0f) { wb = 0x7fffffffu; } else std::memcpy(&wb, &w, 4);
      bad += gb != wb;
    }
  if (bad) std::printf("%s: %u elements wrong\n", name, bad);
  CHECK_EQ(bad, 0u);
  CHECK_EQ(r.early, 0x5EED5EEDu);  // not landed before the mbarrier completes
}

// A convolution over an N x (D x) (H x) W x C f16 tensor (spatial dims W first in the vectors).
struct Conv {
  unsigned n, c;
  std::vector<unsigned> dim, k, stride;
  std::vector<int> pad;
};

unsigned convCase(Arena& mem, const char* name, const Conv& cv, unsigned ppc, unsigned cpp) {
  const unsigned ns = (unsigned)cv.dim.size(), rank = ns + 2;
  std::vector<unsigned> out(ns);
  unsigned pixels = 1, outs = 1;
  for (unsigned s = 0; s < ns; s++) {
    out[s] = (cv.dim[s] + 2 * cv.pad[s] - cv.k[s]) / cv.stride[s] + 1;
    pixels *= cv.dim[s];
    outs *= out[s];
  }
  std::vector<uint16_t> t((size_t)cv.n * pixels * cv.c);
  uint32_t x = 12345;
  for (auto& v : t) { x = x * 1664525u + 1013904223u; v = (uint16_t)(x >> 13); }
  uint64_t g = mem.alloc(t.size() * 2);
  mem.put(g, t);
  MapSpec s;
  s.kind = tsim::kTmIm2col;
  s.dtype = 6;  // FLOAT16
  s.addr = g;
  s.dim = {cv.c};
  uint64_t pitch = cv.c * 2;
  for (unsigned d = 0; d < ns; d++) {
    s.dim.push_back(cv.dim[d]);
    s.strideBytes.push_back(pitch);
    pitch *= cv.dim[d];
  }
  s.dim.push_back(cv.n);
  s.strideBytes.push_back(pitch);
  s.estride = {1};
  for (unsigned d = 0; d < ns; d++) {
    s.estride.push_back(cv.stride[d]);
    s.lower.push_back(-cv.pad[d]);
    s.upper.push_back((int)((out[d] - 1) * cv.stride[d] + 1) - (int)cv.dim[d] - cv.pad[d]);
  }
  s.estride.push_back(1);
  s.channels = cpp;
  s.pixels = ppc;
  const tsim::TensorMapBits map = makeMap(s);
  Kernel& k = kernelFor(im2colInstr(rank));
  const unsigned M = cv.n * outs, taps = [&] { unsigned p = 1; for (auto kk : cv.k) p *= kk; return p; }();
  unsigned bad = 0, runs = 0;
  // output pixel m -> (n, o_0 (W), o_1, ...)
  auto split = [&](unsigned m, std::vector<int>& o) {
    o.assign(ns, 0);
    for (unsigned d = 0; d < ns; d++) { o[d] = (int)(m % out[d]); m /= out[d]; }
    return m;  // the image
  };
  for (unsigned m0 = 0; m0 < M; m0 += ppc)
    for (unsigned tap = 0; tap < taps; tap++)
      for (unsigned c0 = 0; c0 < cv.c; c0 += cpp) {
        std::vector<int> tp(ns), o;
        for (unsigned d = 0, r = tap; d < ns; d++) { tp[d] = (int)(r % cv.k[d]); r /= cv.k[d]; }
        unsigned img = split(m0, o);
        std::vector<int32_t> coord = {(int32_t)c0};
        std::vector<unsigned> offs;
        for (unsigned d = 0; d < ns; d++) {
          coord.push_back(o[d] * (int)cv.stride[d] - cv.pad[d]);
          offs.push_back((unsigned)tp[d]);
        }
        coord.push_back((int32_t)img);
        Landed r = runLoad(k, mem, map, ppc * cpp * 2, coord, offs);
        runs++;
        if (r.fault.kind) {
          std::printf("%s: m0 %u tap %u: %s\n", name, m0, tap, r.fault.detail.c_str());
          bad++;
          continue;
        }
        for (unsigned i = 0; i < ppc; i++) {
          unsigned n = split(m0 + i, o);
          bool in = n < cv.n;
          size_t at = n;
          for (int d = (int)ns - 1; d >= 0; d--) {
            int p = o[d] * (int)cv.stride[d] - cv.pad[d] + tp[d];
            in = in && p >= 0 && p < (int)cv.dim[d];
            at = at * cv.dim[d] + (size_t)(in ? p : 0);
          }
          for (unsigned j = 0; j < cpp; j++) {
            uint16_t want = in ? t[at * cv.c + c0 + j] : 0, got;
            std::memcpy(&got, r.box.data() + (i * cpp + j) * 2, 2);
            bad += got != want;
          }
        }
      }
  if (bad) std::printf("%s: %u wrong\n", name, bad);
  CHECK_EQ(bad, 0u);
  return runs;
}

tsim::Fault faultOf(Arena& mem, const std::string& instr, const MapSpec& s, unsigned bytes, std::vector<int32_t> c, std::vector<unsigned> o) {
  return runLoad(kernelFor(instr), mem, makeMap(s), bytes, c, o).fault;
}

}  // namespace

int main(int argc, char** argv) {
  Arena mem;
  // Triton's tutorial (its expected pixel values)
  tritonCase(mem, "basic", 1, {0, 0}, {0, 0}, {0, 0, 0, 0}, {0, 0},
             {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  tritonCase(mem, "padded", 1, {-1, -1}, {-1, -1}, {0, -1, -1, 0}, {0, 0}, {0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11});
  tritonCase(mem, "offset", 1, {-1, -1}, {-1, -1}, {0, -1, -1, 0}, {1, 1},
             {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  tritonCase(mem, "multi-batch", 2, {0, 0}, {0, 0}, {0, 1, 3, 0}, {0, 0},
             {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  tritonCase(mem, "multi-batch padded", 2, {-1, -1}, {-1, -1}, {0, 1, 2, 0}, {0, 0},
             {7, 0, 9, 10, 11, 0, 0, 0, 0, 0, 17, 18, 19, 0, 21, 22});
  tritonCase(mem, "padded, NaN fill", 1, {-1, -1}, {-1, -1}, {0, -1, -1, 0}, {0, 0},
             {0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11}, true);
  // convolutions: the im2col matrix from its definition
  unsigned runs = 0;
  runs += convCase(mem, "conv 1-D", {2, 16, {11}, {4}, {3}, {2}}, 5, 16);
  runs += convCase(mem, "conv 2-D", {2, 32, {6, 5}, {3, 3}, {2, 1}, {1, 1}}, 16, 32);
  runs += convCase(mem, "conv 3-D", {1, 16, {4, 4, 3}, {2, 2, 2}, {1, 2, 1}, {0, 1, 1}}, 24, 8);
  CHECK(runs > 40);
  // faults
  {
    std::vector<float> t(2 * 16 * 32, 1.0f);
    uint64_t g = mem.alloc(t.size() * 4);
    mem.put(g, t);
    MapSpec s;
    s.kind = tsim::kTmIm2col;
    s.addr = g;
    s.dim = {32, 4, 4, 2};
    s.strideBytes = {128, 512, 2048};
    s.channels = 32;
    s.pixels = 16;
    s.lower = {-1, -1};
    s.upper = {-1, -1};
    const std::string i4 = im2colInstr(4);
    auto expect = [&](const char* what, const tsim::Fault& f, const char* text) {
      CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
      bool named = f.detail.find(text) != std::string::npos;
      CHECK(named);
      if (!named) std::printf("%s: %s\n", what, f.detail.c_str());
    };
    expect("base right of the box", faultOf(mem, i4, s, 2048, {0, 3, 0, 0}, {0, 0}), "outside the bounding box");
    expect("base left of the box", faultOf(mem, i4, s, 2048, {0, 0, -2, 0}, {0, 0}), "outside the bounding box");
    expect("offset range", faultOf(mem, i4, s, 2048, {0, 0, 0, 0}, {256, 0}), "outside [0, 255]");
    MapSpec n2 = s;
    n2.estride = {1, 1, 1, 2};
    expect("N stride", faultOf(mem, i4, n2, 2048, {0, 0, 0, 0}, {0, 0}), "elementStride on N");
    MapSpec narrow = s;
    narrow.dtype = 6;
    narrow.channels = 4;  // 8 bytes a pixel
    narrow.strideBytes = {64, 256, 1024};
    expect("8-byte rows", faultOf(mem, i4, narrow, 16 * 8, {0, 0, 0, 0}, {0, 0}), "multiple of 16");
    MapSpec tiled;
    tiled.addr = g;
    tiled.dim = {32, 4, 4, 2};
    tiled.strideBytes = {128, 512, 2048};
    tiled.box = {32, 4, 4, 1};
    expect("tiled map", faultOf(mem, i4, tiled, 2048, {0, 0, 0, 0}, {0, 0}), "cuTensorMapEncodeIm2col");
    expect(".tile with an im2col map",
           faultOf(mem, "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r11], [%rd1, {%r1, %r2, %r3, %r4}], [%r10];", s,
                   2048, {0, 0, 0, 0}, {}),
           "im2col tensor map");
  }
  // tensormap.replace.tile edits tiled maps only: on an im2col map it is a named fault
  {
    Kernel rk(R"(
.version 8.3
.target sm_90a
.address_size 64
.visible .entry rp(.param .u64 tm)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [tm];
  tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 0, 8;
  ret;
}
)");
    MapSpec s;
    s.kind = tsim::kTmIm2col;
    s.addr = mem.alloc(4096);
    s.dim = {32, 4, 4, 1};
    s.strideBytes = {128, 512, 2048};
    s.channels = 32;
    s.pixels = 16;
    s.lower = {0, 0};
    s.upper = {0, 0};
    uint64_t tm = mem.alloc(128);
    mem.put(tm, std::vector<tsim::TensorMapBits>{makeMap(s)});
    tsim::Fault f = rk.run(mem, "rp", {tm}, 1, 32);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("on an im2col tensor map") != std::string::npos);
  }
  // forms refused at load
  const char* refused[] = {
      // the offsets are required (ptxas: "Arguments mismatch"), one per spatial dimension
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1}], [%r1], {%rs1};",
      "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r1], {};",
      "cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd1, {%r1, %r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1}], [%r1], {%rs1};",
  };
  auto refusedBy = [](const char* body, const char* target, const char* why) {
    std::string ptx = std::string(".version 8.6\n.target ") + target +
                      "\n.address_size 64\n.visible .entry k()\n{\n .reg .b16 %rs<2>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n " + body + "\n ret;\n}\n";
    std::string lg;
    auto m = tsim::parsePtx(ptx, lg);
    if (m) std::printf("accepted: %s\n", body);
    CHECK(!m);
    if (!m && why && lg.find(why) == std::string::npos) {
      std::printf("refused without naming the target: %s", lg.c_str());
      failures++;
    }
  };
  for (const char* b : refused) refusedBy(b, "sm_90a", nullptr);
  // the sm_100 modes on .target sm_90a (ptxas: "not supported on .target 'sm_90a'"), named
  const char* newer[] = {
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1}], [%r1], {%rs1, %rs1};",
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1, %r1}], [%r1], {%rs1, %rs1};",
  };
  for (const char* b : newer) refusedBy(b, "sm_90a", "needs .target sm_100");
  if (argc == 3 && std::string(argv[1]) == "--ptxas") {
    for (size_t i = 0; i < kernelsUsed.size(); i++) {
      std::string file = "/tmp/tsim_tma_im2col_" + std::to_string(::getpid()) + "_" + std::to_string(i) + ".ptx";
      std::ofstream(file) << kernelsUsed[i];
      std::string cmd = std::string(argv[2]) + " -arch=sm_90a -o /dev/null " + file;
      if (std::system(cmd.c_str()) != 0) { std::printf("ptxas -arch=sm_90a refuses kernel %zu\n", i); failures++; }
      std::remove(file.c_str());
    }
  }
  return finish("ptx_tma_im2col_test");
}
