// TMA out-of-bounds NaN fill: a map encoded with CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
// loads the elements of its box that lie outside the tensor as NaN (PTX ISA 5.5.3.3, "OOB-NaN"),
// for every float element type cuTensorMapEncodeTiled allows it on; in-bounds elements are the
// tensor's bits. The sim writes the canonical NaN of the type (0x7fff for f16/bf16, 0x7fffffff for
// f32/tf32 and their FTZ forms, 0x7fffffffffffffff for f64). Without the fill they are zero.
// Integer types with NaN fill: the driver refuses them (CUDA_ERROR_INVALID_VALUE), and a map made
// so on the device (tensormap.replace .elemtype) faults at the load, naming it.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);

// box(map, out, c0, c1, bytes): thread 0 loads the 2D box at (c0, c1) into shared memory; the
// warp copies its `bytes` bytes to out. intbox(map in global memory, out): makes the map's
// element type s32 (ISA .elemtype 3) and loads the box at (-2, -1).
static const char* kPtx = R"(
.version 8.3
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry box(.param .align 64 .b8 tm[128], .param .u64 out, .param .u32 c0, .param .u32 c1, .param .u32 bytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r4, [c0];
  ld.param.u32 %r5, [c1];
  ld.param.u32 %r9, [bytes];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  add.u32 %r3, %r2, 128;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], %r9;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r4, %r5}], [%r2];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  shl.b32 %r6, %r1, 2;
L:
  setp.ge.u32 %p3, %r6, %r9;
  @%p3 bra DONE;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  cvt.u64.u32 %rd4, %r6;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r8;
  add.u32 %r6, %r6, 128;
  bra.uni L;
DONE:
  ret;
}
.visible .entry intbox(.param .u64 tmap, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tmap];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  add.u32 %r3, %r2, 128;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 3;
  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 128;
  mov.u32 %r4, -2;
  mov.u32 %r5, -1;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r2];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  ret;
}
)";

struct Type {
  CUtensorMapDataType dt;
  unsigned esize;
  uint64_t nan;
  const char* name;
};

// bits of the small integer n (1..256: exact in every type below, normal, no FTZ or TF32 rounding)
static uint64_t valueBits(const Type& t, unsigned n) {
  float f = (float)n;
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  switch (t.dt) {
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: {
      unsigned e = 31 - __builtin_clz(n);
      return ((e + 15) << 10) | ((n - (1u << e)) << (10 - e));
    }
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return fb >> 16;
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: {
      double d = n;
      uint64_t b;
      std::memcpy(&b, &d, 8);
      return b;
    }
    default: return fb;
  }
}

int main() {
  setenv("TESSERA_SIM_ARCH", "sm_90", 1);
  CHECK_OK(cuInit(0));
  CUdevice dev;
  CHECK_OK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CUfunction box, intbox;
  CHECK_OK(cuModuleGetFunction(&box, mod, "box"));
  CHECK_OK(cuModuleGetFunction(&intbox, mod, "intbox"));
  const Type types[] = {
      {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 0x7fff, "f16"},
      {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, 0x7fff, "bf16"},
      {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 0x7fffffff, "f32"},
      {CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 4, 0x7fffffff, "f32_ftz"},
      {CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 4, 0x7fffffff, "tf32"},
      {CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, 4, 0x7fffffff, "tf32_ftz"},
      {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8, 0x7fffffffffffffffull, "f64"},
  };
  // each tensor: H = 3 rows of 48 bytes (W = 48 / esize elements); the box is 32 bytes wide
  // (bw = 32 / esize) and 4 rows high, so every box below has rows or columns outside
  const unsigned H = 3, rowBytes = 48, boxRows = 4;
  CUdeviceptr g, out;
  CHECK_OK(cuMemAlloc(&g, rowBytes * H));
  CHECK_OK(cuMemAlloc(&out, 32 * boxRows));
  for (const Type& t : types) {
    const unsigned W = rowBytes / t.esize, bw = 32 / t.esize;
    std::vector<uint8_t> host(rowBytes * H);
    for (unsigned i = 0; i < W * H; i++) {
      uint64_t b = valueBits(t, i + 1);
      std::memcpy(host.data() + i * t.esize, &b, t.esize);
    }
    CHECK_OK(cuMemcpyHtoD(g, host.data(), host.size()));
    for (int fill = 0; fill < 2; fill++) {
      alignas(64) CUtensorMap map;
      cuuint64_t dim[2] = {W, H}, stride[1] = {rowBytes};
      cuuint32_t boxd[2] = {bw, boxRows}, es[2] = {1, 1};
      CHECK_OK(cuTensorMapEncodeTiled(&map, t.dt, 2, reinterpret_cast<void*>(g), dim, stride, boxd, es,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
      // left and top outside; right and bottom outside; every element outside
      const int at[3][2] = {{-2, -1}, {(int)W - 2, 1}, {(int)W + 3, -7}};
      for (auto& c : at) {
        int c0 = c[0], c1 = c[1];
        unsigned bytes = 32 * boxRows;
        void* args[] = {&map, &out, &c0, &c1, &bytes};
        CHECK_OK(cuMemsetD8(out, 0xa5, bytes));
        CHECK_OK(cuLaunchKernel(box, 1, 1, 1, 32, 1, 1, 1024, nullptr, args, nullptr));
        CHECK_OK(cuCtxSynchronize());
        std::vector<uint8_t> got(bytes);
        CHECK_OK(cuMemcpyDtoH(got.data(), out, bytes));
        unsigned bad = 0, outside = 0;
        for (unsigned r = 0; r < boxRows; r++)
          for (unsigned k = 0; k < bw; k++) {
            int gx = c0 + (int)k, gy = c1 + (int)r;
            bool in = gx >= 0 && gx < (int)W && gy >= 0 && gy < (int)H;
            uint64_t want = in ? valueBits(t, gy * W + gx + 1) : fill ? t.nan : 0, have = 0;
            std::memcpy(&have, got.data() + (r * bw + k) * t.esize, t.esize);
            outside += !in;
            if (have != want) {
              if (!bad) std::fprintf(stderr, "%s fill=%d box (%d, %d) element (%u, %u): 0x%llx, want 0x%llx\n", t.name, fill, c0, c1,
                                     k, r, (unsigned long long)have, (unsigned long long)want);
              bad++;
            }
          }
        CHECK(outside > 0);
        CHECK(bad == 0);
      }
    }
  }
  // integer types: refused at encode with the fill
  {
    alignas(64) CUtensorMap map;
    cuuint64_t dim[2] = {12, H}, stride[1] = {rowBytes};
    cuuint32_t boxd[2] = {8, boxRows}, es[2] = {1, 1};
    for (CUtensorMapDataType dt : {CU_TENSOR_MAP_DATA_TYPE_UINT8, CU_TENSOR_MAP_DATA_TYPE_UINT16, CU_TENSOR_MAP_DATA_TYPE_UINT32,
                                   CU_TENSOR_MAP_DATA_TYPE_INT32, CU_TENSOR_MAP_DATA_TYPE_UINT64, CU_TENSOR_MAP_DATA_TYPE_INT64})
      CHECK_CU(cuTensorMapEncodeTiled(&map, dt, 2, reinterpret_cast<void*>(g), dim, stride, boxd, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
               CUDA_ERROR_INVALID_VALUE);
    // ... and a NaN-fill f32 map turned s32 on the device faults at the load (last: the fault is sticky)
    CHECK_OK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, reinterpret_cast<void*>(g), dim, stride, boxd, es,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
    CUdeviceptr gm;
    CHECK_OK(cuMemAlloc(&gm, 128));
    CHECK_OK(cuMemcpyHtoD(gm, &map, 128));
    void* args[] = {&gm, &out};
    CHECK_OK(cuLaunchKernel(intbox, 1, 1, 1, 32, 1, 1, 1024, nullptr, args, nullptr));
    CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_INSTRUCTION);
    char msg[512] = {0};
    CHECK_OK(tesseraSimGetLastFault(msg, sizeof msg));
    CHECK(std::strstr(msg, "NaN out-of-bounds fill on an element type without NaN") != nullptr);
  }
  CHECK_OK(cuDevicePrimaryCtxRelease(dev));
  return tcheck::finish("tensormap_nan_fill_test");
}
