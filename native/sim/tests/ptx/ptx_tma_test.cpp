// cp.async.bulk.tensor (TMA tile mode) against the CUDA driver's and the PTX ISA's description:
// the box is laid densely (dimension 0 fastest) into shared memory, elements outside the tensor
// read as zero, elementStrides > 1 take every k-th coordinate of dimensions above 0, the 128B
// swizzle places the 16-byte chunk c of row r (128-byte rows of a 1024-byte aligned box) at chunk
// c ^ (r % 8), stores write only in-bounds elements and read the (swizzled) box back; the load
// completes tx bytes on its mbarrier and lands when the mbarrier is tested; a store reads its box
// at the covering wait_group.read and writes global memory only at the full wait_group (or at
// exit), so a read-back after only the .read wait sees the old words. Faults: a misaligned
// box, a rank that differs from the tensor map's, something that is not a tensor map.
#include <functional>

#include "ptx_harness.h"
#include "tensormap.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
// thread 0 loads the box at (c0, c1[, c2]) into smem+1024 (mbarrier at smem+0), everyone waits,
// then all threads copy `bytes` of smem+1024 to out; then (store = 1) thread 0 stores the box
// back to the tensor at (s0, s1[, s2]).
.visible .entry tma(.param .align 64 .b8 tm[128], .param .u64 out, .param .u32 bytes, .param .u32 c0, .param .u32 c1, .param .u32 c2,
                    .param .u32 store, .param .u32 s0, .param .u32 s1, .param .u32 s2, .param .u32 rank3)
{
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r1, [bytes];
  ld.param.u32 %r2, [c0];
  ld.param.u32 %r3, [c1];
  ld.param.u32 %r4, [c2];
  ld.param.u32 %r5, [store];
  ld.param.u32 %r6, [s0];
  ld.param.u32 %r7, [s1];
  ld.param.u32 %r8, [s2];
  ld.param.u32 %r20, [rank3];
  mov.u32 %r9, %tid.x;
  mov.u32 %r10, smem;
  add.u32 %r11, %r10, 1024;
  setp.eq.u32 %p1, %r9, 0;
  setp.ne.u32 %p5, %r20, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r10], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], %r1;
  and.pred %p6, %p1, %p5;
  and.pred %p7, %p1, !%p5;
  @%p7 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r11], [%rd2, {%r2, %r3}], [%r10];
  @%p6 cp.async.bulk.tensor.3d.shared::cta.global.mbarrier::complete_tx::bytes [%r11], [%rd2, {%r2, %r3, %r4}], [%r10];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], 0;
  @!%p2 bra WAIT;
  shl.b32 %r12, %r9, 2;
COPY:
  setp.ge.u32 %p3, %r12, %r1;
  @%p3 bra DONE;
  add.u32 %r13, %r11, %r12;
  ld.shared.u32 %r14, [%r13];
  cvt.u64.u32 %rd4, %r12;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r14;
  add.u32 %r12, %r12, 512;
  bra COPY;
DONE:
  setp.ne.u32 %p4, %r5, 0;
  and.pred %p4, %p4, %p1;
  @!%p4 bra END;
  fence.proxy.async.shared::cta;
  @%p5 bra S3;
  cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r6, %r7}], [%r11];
  bra SC;
S3:
  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd2, {%r6, %r7, %r8}], [%r11];
SC:
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
END:
  ret;
}
)";

// A tensor map built on the device (PTX ISA tensormap.replace: zero-based .rank, .elemtype in the
// ISA's numbering, where 10 is .bf16 although CUtensorMapDataType's 10 is FLOAT32_FTZ), copied to
// global memory with tensormap.cp_fenceproxy and used by a 2D load of a bf16 tensor (16 x 8,
// box 8 x 4 at (4, 2)).
static const char* kReplacePtx = R"(
.version 8.3
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry build(.param .u64 tmap, .param .u64 tensor, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [tmap];
  ld.param.u64 %rd2, [tensor];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4+1024], 0;           // zero the 128-byte staging object at smem+1024
  bar.warp.sync -1;
  add.u32 %r5, %r2, 1024;
  cvt.u64.u32 %rd4, %r5;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd4], %rd2;
  @%p1 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd4], 1;
  @%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd4], 0, 8;
  @%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd4], 1, 4;
  @%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd4], 0, 16;
  @%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd4], 1, 8;
  mov.u64 %rd5, 32;
  @%p1 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%rd4], 0, %rd5;
  @%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd4], 0, 1;
  @%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd4], 1, 1;
  @%p1 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd4], 10;
  @%p1 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%rd4], 0;
  @%p1 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%rd4], 0;
  @%p1 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%rd4], 0;
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%rd4], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 64;
  mov.u32 %r6, 4;
  mov.u32 %r7, 2;
  add.u32 %r8, %r2, 128;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r8], [%rd1, {%r6, %r7}], [%r2];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  setp.lt.u32 %p3, %r1, 16;
  @!%p3 bra E;
  add.u32 %r9, %r8, %r3;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd6, %r3;
  add.s64 %rd7, %rd3, %rd6;
  st.global.u32 [%rd7], %r10;
E:
  ret;
}
)";

// cp.reduce.async.bulk.tensor: each of the CTAs writes box value 1 + i (element i) into shared
// memory and adds the box into the tensor at (c0, c1); only in-bounds elements are updated
static const char* kReducePtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry red(.param .align 64 .b8 tm[128], .param .u32 c0, .param .u32 c1)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r1, [c0];
  ld.param.u32 %r2, [c1];
  mov.u32 %r3, %tid.x;
  add.u32 %r4, %r3, 1;
  cvt.rn.f32.u32 %f1, %r4;
  shl.b32 %r5, %r3, 2;
  mov.u32 %r6, smem;
  add.u32 %r7, %r6, %r5;
  st.shared.f32 [%r7], %f1;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r1, %r2}], [%r6];
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group 0;
  ret;
}
)";

// A tensor store read back by the CTA: 32 threads write words t+1 into the 8 x 4 box (u32 bits of
// an f32 map), thread 0 stores it at (0, 0); after a barrier thread t reads word 31-t of the tensor
// into out[t]. mode 0: thread 0 waits with wait_group.read 0 only (the writes may be pending: the
// old words read back), then the box is overwritten (999), which must not change what lands at
// exit; mode 1: full wait_group 0 (the stored words); mode 2: the box is overwritten (100+t)
// before the .read wait (those words land).
static const char* kReadbackPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry rb(.param .align 64 .b8 tm[128], .param .u64 g, .param .u64 out, .param .u32 mode)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [g];
  ld.param.u64 %rd4, [out];
  ld.param.u32 %r9, [mode];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, smem;
  add.u32 %r4, %r3, %r2;
  add.u32 %r5, %r1, 1;
  st.shared.u32 [%r4], %r5;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r6, 0;
  @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r6, %r6}], [%r3];
  @%p1 cp.async.bulk.commit_group;
  setp.eq.u32 %p2, %r9, 2;
  add.u32 %r7, %r1, 100;
  @%p2 st.shared.u32 [%r4], %r7;
  @%p2 fence.proxy.async.shared::cta;
  @%p2 bar.sync 0;
  setp.eq.u32 %p3, %r9, 1;
  and.pred %p4, %p1, %p3;
  @%p4 cp.async.bulk.wait_group 0;
  not.pred %p5, %p3;
  and.pred %p6, %p1, %p5;
  @%p6 cp.async.bulk.wait_group.read 0;
  bar.sync 0;
  @%p5 st.shared.u32 [%r4], 999;
  @%p5 fence.proxy.async.shared::cta;
  sub.u32 %r8, 31, %r1;
  mul.wide.u32 %rd5, %r8, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r10, [%rd6];
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  st.global.u32 [%rd8], %r10;
  ret;
}
)";

struct Map {
  tsim::TensorMapBits m{};
  Map(unsigned rank, unsigned esize, uint64_t addr, std::vector<uint64_t> dim, std::vector<uint64_t> strideBytes,
      std::vector<unsigned> box, std::vector<unsigned> es, unsigned swizzle) {
    m.magic = tsim::kTensorMapMagic;
    m.version = 1;
    m.rank = (uint8_t)rank;
    m.dtype = esize == 2 ? 6 : 7;
    m.swizzle = (uint8_t)swizzle;
    m.esize = (uint8_t)esize;
    m.addr = addr;
    for (unsigned i = 0; i < rank; i++) {
      m.dim[i] = dim[i];
      m.stride[i] = i == 0 ? esize : strideBytes[i - 1];
      m.box[i] = (uint16_t)box[i];
      m.estride[i] = (uint8_t)es[i];
    }
  }
};

tsim::Fault launch(tsim::Module& mod, Arena& mem, const Map& map, uint64_t out, unsigned bytes, std::vector<int32_t> c,
                   bool store, std::vector<int32_t> s, bool rank3) {
  const tsim::KernelInfo* k = &mod.kernels()[0];
  std::vector<uint8_t> buf(k->paramBytes + 8, 0);
  memcpy(buf.data() + k->params[0].offset, &map.m, sizeof map.m);
  auto put = [&](int i, uint64_t v) { memcpy(buf.data() + k->params[i].offset, &v, k->params[i].size); };
  put(1, out);
  put(2, bytes);
  for (int i = 0; i < 3; i++) put(3 + i, (uint32_t)c[i]);
  put(6, store);
  for (int i = 0; i < 3; i++) put(7 + i, (uint32_t)s[i]);
  put(10, rank3);
  tsim::LaunchConfig cfg;
  cfg.block[0] = 128;
  cfg.dynamicSharedBytes = 1024 + 16384;
  cfg.params = buf.data();
  cfg.threads = 1;
  tsim::Counters ctr;
  return tsim::launch(mod, *k, cfg, mem, ctr);
}

int main() {
  std::string log;
  auto mod = tsim::parsePtx(kPtx, log);
  if (!mod) { std::printf("%s\n", log.c_str()); return 1; }
  Arena mem;
  {
    // 2D f32: W = 20 (dim 0), H = 13, rows padded to 96 bytes; box 8 x 4 at (16, 10): columns
    // 16..23 (20..23 outside), rows 10..13 (13 outside)
    const unsigned W = 20, H = 13, pitch = 24;
    std::vector<float> t(pitch * H);
    for (unsigned r = 0; r < H; r++)
      for (unsigned c = 0; c < pitch; c++) t[r * pitch + c] = c < W ? (float)(r * 100 + c) : -1.0f;
    uint64_t g = mem.alloc(t.size() * 4), out = mem.alloc(16384);
    mem.put(g, t);
    Map map(2, 4, g, {W, H}, {pitch * 4}, {8, 4}, {1, 1}, 0);
    tsim::Fault f = launch(*mod, mem, map, out, 8 * 4 * 4, {16, 10, 0}, true, {4, 2, 0}, false);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto got = mem.get<float>(out, 32);
    unsigned bad = 0;
    for (unsigned r = 0; r < 4; r++)
      for (unsigned c = 0; c < 8; c++) {
        unsigned gr = 10 + r, gc = 16 + c;
        float want = gr < H && gc < W ? (float)(gr * 100 + gc) : 0.0f;
        if (got[r * 8 + c] != want) bad++;
      }
    CHECK_EQ(bad, 0u);
    // the store put the same box (in-bounds part of it) at (4, 2): rows 2..5, columns 4..11
    auto t2 = mem.get<float>(g, t.size());
    unsigned sbad = 0;
    for (unsigned r = 0; r < H; r++)
      for (unsigned c = 0; c < pitch; c++) {
        float want = t[r * pitch + c];
        if (r >= 2 && r < 6 && c >= 4 && c < 12) {
          unsigned br = r - 2, bc = c - 4, gr = 10 + br, gc = 16 + bc;
          want = gr < H && gc < W ? (float)(gr * 100 + gc) : 0.0f;
        }
        if (t2[r * pitch + c] != want) sbad++;
      }
    CHECK_EQ(sbad, 0u);
    // negative coordinates: the box at (-4, -2) has its first 4 columns and 2 rows zero
    f = launch(*mod, mem, map, out, 8 * 4 * 4, {-4, -2, 0}, false, {0, 0, 0}, false);
    CHECK_EQ((int)f.kind, 0);
    got = mem.get<float>(out, 32);
    bad = 0;
    for (unsigned r = 0; r < 4; r++)
      for (unsigned c = 0; c < 8; c++) {
        int gr = (int)r - 2, gc = (int)c - 4;
        float want = gr >= 0 && gc >= 0 ? t2[gr * pitch + gc] : 0.0f;
        if (got[r * 8 + c] != want) bad++;
      }
    CHECK_EQ(bad, 0u);
  }
  {
    // 128B swizzle, f16: W = 128, H = 16, box 64 x 8 (128-byte rows) at (64, 4)
    const unsigned W = 128, H = 16;
    std::vector<uint16_t> t(W * H);
    for (unsigned i = 0; i < t.size(); i++) t[i] = (uint16_t)(i * 7 + 3);
    uint64_t g = mem.alloc(t.size() * 2), out = mem.alloc(16384);
    mem.put(g, t);
    Map map(2, 2, g, {W, H}, {W * 2}, {64, 8}, {1, 1}, 3);
    tsim::Fault f = launch(*mod, mem, map, out, 64 * 8 * 2, {64, 4, 0}, true, {0, 8, 0}, false);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto got = mem.get<uint16_t>(out, 64 * 8);
    unsigned bad = 0;
    for (unsigned r = 0; r < 8; r++)
      for (unsigned c = 0; c < 64; c++) {
        unsigned chunk = (c * 2) / 16, within = (c * 2) % 16;
        unsigned at = r * 128 + ((chunk ^ (r % 8)) * 16) + within;  // the box starts 1024-aligned
        if (got[at / 2] != t[(4 + r) * W + 64 + c]) bad++;
      }
    CHECK_EQ(bad, 0u);
    // the store (at (0, 8)) un-swizzles: rows 8..15, columns 0..63 now hold the box
    auto t2 = mem.get<uint16_t>(g, t.size());
    unsigned sbad = 0;
    for (unsigned r = 0; r < 8; r++)
      for (unsigned c = 0; c < 64; c++) sbad += t2[(8 + r) * W + c] != t[(4 + r) * W + 64 + c];
    CHECK_EQ(sbad, 0u);
  }
  {
    // 3D with elementStrides {1, 2, 1}: dims 16 x 10 x 3 f32, box 4 x 6 x 2 -> 4 x 3 x 2 elements,
    // rows taken at y = c1, c1 + 2, c1 + 4
    std::vector<float> t(16 * 10 * 3);
    for (unsigned i = 0; i < t.size(); i++) t[i] = (float)i;
    uint64_t g = mem.alloc(t.size() * 4), out = mem.alloc(16384);
    mem.put(g, t);
    Map map(3, 4, g, {16, 10, 3}, {64, 640}, {4, 6, 2}, {1, 2, 1}, 0);
    tsim::Fault f = launch(*mod, mem, map, out, 4 * 3 * 2 * 4, {12, 5, 2}, false, {0, 0, 0}, true);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto got = mem.get<float>(out, 24);
    unsigned bad = 0;
    for (unsigned z = 0; z < 2; z++)
      for (unsigned y = 0; y < 3; y++)
        for (unsigned x = 0; x < 4; x++) {
          unsigned gz = 2 + z, gy = 5 + 2 * y, gx = 12 + x;
          float want = gz < 3 && gy < 10 && gx < 16 ? t[(gz * 10 + gy) * 16 + gx] : 0.0f;
          if (got[(z * 3 + y) * 4 + x] != want) bad++;
        }
    CHECK_EQ(bad, 0u);
    // a 2d instruction on a rank-3 map is a fault
    f = launch(*mod, mem, map, out, 4 * 3 * 2 * 4, {0, 0, 0}, false, {0, 0, 0}, false);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("rank") != std::string::npos);
    Map bad2 = map;
    bad2.m.magic = 0;
    f = launch(*mod, mem, bad2, out, 96, {0, 0, 0}, false, {0, 0, 0}, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    // a 64B-swizzled box narrower than the span is not implemented: named
    Map narrow(2, 4, g, {16, 30}, {64}, {4, 4}, {1, 1}, 2);
    f = launch(*mod, mem, narrow, out, 64, {0, 0, 0}, false, {0, 0, 0}, false);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("not implemented") != std::string::npos);
  }
  {
    Kernel rk(kReplacePtx);
    CHECK(rk.ok());
    std::vector<uint16_t> t(16 * 8);
    for (unsigned i = 0; i < t.size(); i++) t[i] = (uint16_t)(0x3f80 + i);
    uint64_t tm = mem.alloc(128), g = mem.alloc(256), out = mem.alloc(64);
    mem.put(g, t);
    tsim::Fault f = rk.run(mem, "build", {tm, g, out}, 1, 32, nullptr, 2048);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("%s\n", f.detail.c_str());
    auto got = mem.get<uint16_t>(out, 32);
    unsigned bad = 0;
    for (unsigned r = 0; r < 4; r++)
      for (unsigned c = 0; c < 8; c++) bad += got[r * 8 + c] != t[(2 + r) * 16 + 4 + c];
    CHECK_EQ(bad, 0u);  // a 2-byte element type (bf16): a wrong elemtype mapping reads other bytes
    auto m = mem.get<tsim::TensorMapBits>(tm, 1)[0];
    CHECK_EQ((int)m.rank, 2);
    CHECK_EQ((int)m.dtype, 9);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  }
  {
    // f32 tensor 10 x 6 (dim 0 = 10), box 8 x 4 at (6, 4): columns 6..9 and rows 4..5 in bounds
    std::string lg;
    auto rm = tsim::parsePtx(kReducePtx, lg);
    CHECK(rm != nullptr);
    if (rm) {
      std::vector<float> t(16 * 6, 0.5f);  // rows padded to 16 floats (64 bytes)
      uint64_t g = mem.alloc(t.size() * 4);
      mem.put(g, t);
      Map map(2, 4, g, {10, 6}, {64}, {8, 4}, {1, 1}, 0);
      const tsim::KernelInfo* k = &rm->kernels()[0];
      std::vector<uint8_t> buf(k->paramBytes + 8, 0);
      memcpy(buf.data() + k->params[0].offset, &map.m, sizeof map.m);
      uint32_t c0 = 6, c1 = 4;
      memcpy(buf.data() + k->params[1].offset, &c0, 4);
      memcpy(buf.data() + k->params[2].offset, &c1, 4);
      tsim::LaunchConfig cfg;
      cfg.grid[0] = 2;
      cfg.block[0] = 32;
      cfg.dynamicSharedBytes = 1024;
      cfg.params = buf.data();
      cfg.threads = 2;
      tsim::Counters ctr;
      tsim::Fault f = tsim::launch(*rm, *k, cfg, mem, ctr);
      CHECK_EQ((int)f.kind, 0);
      if (f.kind) std::printf("%s\n", f.detail.c_str());
      auto got = mem.get<float>(g, t.size());
      unsigned bad = 0;
      for (unsigned r = 0; r < 6; r++)
        for (unsigned c = 0; c < 16; c++) {
          float want = 0.5f;
          if (r >= 4 && c >= 6 && c < 10) want += 2.0f * (float)(1 + (r - 4) * 8 + (c - 6));  // two CTAs
          bad += got[r * 16 + c] != want;
        }
      CHECK_EQ(bad, 0u);
    }
  }
  {
    // the tensor store read back (kReadbackPtx): f32 map 8 x 4, dense rows of 32 bytes
    std::string lg;
    auto rb = tsim::parsePtx(kReadbackPtx, lg);
    CHECK(rb != nullptr);
    for (uint32_t mode = 0; rb && mode < 3; mode++) {
      uint64_t g = mem.alloc(128), out = mem.alloc(128);
      mem.put(g, std::vector<uint32_t>(32, 0xAAAAAAAAu));
      Map map(2, 4, g, {8, 4}, {32}, {8, 4}, {1, 1}, 0);
      const tsim::KernelInfo* k = &rb->kernels()[0];
      std::vector<uint8_t> buf(k->paramBytes + 8, 0);
      memcpy(buf.data() + k->params[0].offset, &map.m, sizeof map.m);
      memcpy(buf.data() + k->params[1].offset, &g, 8);
      memcpy(buf.data() + k->params[2].offset, &out, 8);
      memcpy(buf.data() + k->params[3].offset, &mode, 4);
      tsim::LaunchConfig cfg;
      cfg.block[0] = 32;
      cfg.dynamicSharedBytes = 1024;
      cfg.params = buf.data();
      cfg.threads = 1;
      tsim::Counters ctr;
      tsim::Fault f = tsim::launch(*rb, *k, cfg, mem, ctr);
      CHECK_EQ((int)f.kind, 0);
      if (f.kind) std::printf("%s\n", f.detail.c_str());
      auto landed = mem.get<uint32_t>(g, 32);
      auto back = mem.get<uint32_t>(out, 32);
      unsigned badLanded = 0, badBack = 0;
      for (uint32_t t = 0; t < 32; t++) {
        badLanded += landed[t] != (mode == 2 ? 100 + t : t + 1);            // at the full wait or at exit
        badBack += back[t] != (mode == 1 ? 32 - t : 0xAAAAAAAAu);            // before the full wait: old words
      }
      if (badLanded || badBack) std::printf("tensor readback mode %u: %u landed, %u read back wrong\n", mode, badLanded, badBack);
      CHECK_EQ(badLanded, 0u);
      CHECK_EQ(badBack, 0u);
    }
  }
  const char* refused[] = {
      "cp.reduce.async.bulk.tensor.2d.shared::cluster.global.add.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r1];",
      "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r1], {%rs1};",
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1}], [%r1];",
      // .multicast::cluster needs its ctaMask operand (the form with it runs: ptx_cluster_test)
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r1, %r1}], [%r1];",
      "ld.global.b32 %r1, [%rd1, {%r1}];",
  };
  for (const char* b : refused) {
    std::string ptx = std::string(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b16 %rs<2>;\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ") + b + "\n ret;\n}\n";
    std::string lg;
    auto m = tsim::parsePtx(ptx, lg);
    if (m) std::printf("accepted: %s\n", b);
    CHECK(!m);
  }
  return finish("ptx_tma_test");
}
