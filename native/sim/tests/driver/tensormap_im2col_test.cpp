// The im2col tensor maps through the driver, on the sm_100 device: a map from cuTensorMapEncodeIm2col
// passed by value to an `.target sm_90` kernel's .im2col load lands Triton's hardware-checked
// pixels (a [2, 4, 4, 32] f32 NHWC tensor, pixel p = p + 1, corners -1 / -1, 16 pixels from
// (N 0, H 1, W 2): 7, 0, 9, 10, 11, 0, 0, 0, 0, 0, 17, 18, 19, 0, 21, 22), and corners that differ
// per dimension, which check the corner order (W first) the driver and the sim agree on; a map from
// cuTensorMapEncodeIm2colWide lands an .im2col::w::128 row. cuTensorMapEncodeIm2colWide's argument
// checks (cuda.h), each CUDA_ERROR_INVALID_VALUE; packed and interleaved maps are
// CUDA_ERROR_NOT_SUPPORTED as for tiled maps; cuGetProcAddress finds it.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

static const char* kIm2colPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry i2c(.param .align 64 .b8 tm[128], .param .u64 out, .param .u32 bytes, .param .u32 n, .param .u32 h, .param .u32 w)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r20, [bytes];
  ld.param.u32 %r4, [n];
  ld.param.u32 %r3, [h];
  ld.param.u32 %r2, [w];
  mov.u32 %r1, 0;
  mov.u16 %rs1, 0;
  mov.u32 %r9, %tid.x;
  mov.u32 %r10, smem;
  add.u32 %r11, %r10, 1024;
  setp.eq.u32 %p1, %r9, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r10], 1;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], %r20;
  @%p1 cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r11], [%rd2, {%r1, %r2, %r3, %r4}], [%r10], {%rs1, %rs1};
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], 0;
  @!%p2 bra W;
  shl.b32 %r12, %r9, 2;
C:
  setp.ge.u32 %p3, %r12, %r20;
  @%p3 bra E;
  add.u32 %r13, %r11, %r12;
  ld.shared.u32 %r14, [%r13];
  cvt.u64.u32 %rd4, %r12;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r14;
  add.u32 %r12, %r12, 128;
  bra C;
E:
  ret;
}
)";

// .im2col::w::128 from (C 0, W 1 + wOffset 2, H 1, N 0)
static const char* kWidePtx = R"(
.version 8.6
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry wide(.param .align 64 .b8 tm[128], .param .u64 out, .param .u32 bytes)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r20, [bytes];
  mov.u32 %r1, 0;
  mov.u32 %r2, 1;
  mov.u32 %r3, 1;
  mov.u32 %r4, 0;
  mov.u16 %rs1, 0;
  mov.u16 %rs2, 2;
  mov.u32 %r9, %tid.x;
  mov.u32 %r10, smem;
  add.u32 %r11, %r10, 1024;
  setp.eq.u32 %p1, %r9, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r10], 1;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r10], %r20;
  @%p1 cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [%r11], [%rd2, {%r1, %r2, %r3, %r4}], [%r10], {%rs1, %rs2};
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], 0;
  @!%p2 bra W;
  shl.b32 %r12, %r9, 2;
C:
  setp.ge.u32 %p3, %r12, %r20;
  @%p3 bra E;
  add.u32 %r13, %r11, %r12;
  ld.shared.u32 %r14, [%r13];
  cvt.u64.u32 %rd4, %r12;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r14;
  add.u32 %r12, %r12, 128;
  bra C;
E:
  ret;
}
)";

int main() {
  setenv("TESSERA_SIM_ARCH", "sm_100", 1);
  CHECK_OK(cuInit(0));
  CUdevice dev;
  CHECK_OK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_OK(cuCtxSetCurrent(ctx));
  alignas(64) CUtensorMap map;
  // .im2col: Triton's "multi-batch padded" case
  {
    std::vector<float> host(2 * 16 * 32);
    for (unsigned p = 0; p < 32; p++)
      for (unsigned c = 0; c < 32; c++) host[p * 32 + c] = (float)(p + 1);
    CUdeviceptr g, out;
    CHECK_OK(cuMemAlloc(&g, host.size() * 4));
    CHECK_OK(cuMemAlloc(&out, 16 * 128));
    CHECK_OK(cuMemcpyHtoD(g, host.data(), host.size() * 4));
    cuuint64_t dim[4] = {32, 4, 4, 2}, str[3] = {128, 512, 2048};
    int lo[2] = {-1, -1}, hi[2] = {-1, -1};
    cuuint32_t es[4] = {1, 1, 1, 1};
    CHECK_OK(cuTensorMapEncodeIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, reinterpret_cast<void*>(g), dim, str, lo, hi, 32, 16, es,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    CUmodule mod;
    CHECK_OK(cuModuleLoadData(&mod, kIm2colPtx));
    CUfunction fn;
    CHECK_OK(cuModuleGetFunction(&fn, mod, "i2c"));
    unsigned bytes = 16 * 128, n = 0, h = 1, w = 2;
    void* args[] = {&map, &out, &bytes, &n, &h, &w};
    CHECK_OK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1024 + bytes, nullptr, args, nullptr));
    CHECK_OK(cuCtxSynchronize());
    std::vector<float> got(16 * 32);
    CHECK_OK(cuMemcpyDtoH(got.data(), out, bytes));
    const float want[16] = {7, 0, 9, 10, 11, 0, 0, 0, 0, 0, 17, 18, 19, 0, 21, 22};
    int bad = 0;
    for (unsigned p = 0; p < 16; p++)
      for (unsigned c = 0; c < 32; c++) bad += got[p * 32 + c] != want[p];
    CHECK(bad == 0);
    // corners differing per dimension (W [-1, 2], H [0, 3]) from (N 0, H 0, W -1): the W column
    // -1 padded in every row; swapped arrays would put W -1 outside the box (a fault)
    int lo2[2] = {-1, 0}, hi2[2] = {-1, 0};
    CHECK_OK(cuTensorMapEncodeIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, reinterpret_cast<void*>(g), dim, str, lo2, hi2, 32, 16, es,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    h = 0;
    w = (unsigned)-1;
    CHECK_OK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1024 + bytes, nullptr, args, nullptr));
    CHECK_OK(cuCtxSynchronize());
    CHECK_OK(cuMemcpyDtoH(got.data(), out, bytes));
    const float want2[16] = {0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15};
    bad = 0;
    for (unsigned p = 0; p < 16; p++)
      for (unsigned c = 0; c < 32; c++) bad += got[p * 32 + c] != want2[p];
    CHECK(bad == 0);
    CHECK_OK(cuModuleUnload(mod));
    CHECK_OK(cuMemFree(g));
    CHECK_OK(cuMemFree(out));
  }
  // .im2col::w::128: NHWC f16 [1, 2, 140, 32], W box [0, 139]; 128 pixels from W 3 of row H 1
  {
    const unsigned W = 140, H = 2, C = 32;
    std::vector<uint16_t> host(H * W * C);
    for (unsigned i = 0; i < host.size(); i++) host[i] = (uint16_t)(i * 3 + 1);
    CUdeviceptr g, out;
    CHECK_OK(cuMemAlloc(&g, host.size() * 2));
    CHECK_OK(cuMemAlloc(&out, 128 * C * 2));
    CHECK_OK(cuMemcpyHtoD(g, host.data(), host.size() * 2));
    cuuint64_t dim[4] = {C, W, H, 1}, str[3] = {C * 2, W * C * 2, H * W * C * 2};
    cuuint32_t es[4] = {1, 1, 1, 1};
    CHECK_OK(cuTensorMapEncodeIm2colWide(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, reinterpret_cast<void*>(g), dim, str, 0, 0, C, 0, es,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128, CU_TENSOR_MAP_SWIZZLE_64B,
                                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    CUmodule mod;
    CHECK_OK(cuModuleLoadData(&mod, kWidePtx));
    CUfunction fn;
    CHECK_OK(cuModuleGetFunction(&fn, mod, "wide"));
    unsigned bytes = 128 * C * 2;
    void* args[] = {&map, &out, &bytes};
    CHECK_OK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1024 + bytes, nullptr, args, nullptr));
    CHECK_OK(cuCtxSynchronize());
    std::vector<uint16_t> got(128 * C);
    CHECK_OK(cuMemcpyDtoH(got.data(), out, bytes));
    int bad = 0;
    for (unsigned k = 0; k < 128; k++)
      for (unsigned c = 0; c < C; c++) {
        unsigned at = k * C * 2 + c * 2;
        at ^= ((at >> 7) & 3) << 4;  // the 64B swizzle
        bad += got[at / 2] != host[((1 * W) + 3 + k) * C + c];
      }
    CHECK(bad == 0);
    CHECK_OK(cuModuleUnload(mod));
    CHECK_OK(cuMemFree(g));
    CHECK_OK(cuMemFree(out));
  }
  // cuTensorMapEncodeIm2colWide's argument checks: NHWC f16 (C 32, W 10, H 9, N 2)
  {
    CUdeviceptr g;
    CHECK_OK(cuMemAlloc(&g, 32 * 10 * 9 * 2 * 2));
    void* ga = reinterpret_cast<void*>(g);
    cuuint64_t dim[4] = {32, 10, 9, 2}, str[3] = {64, 640, 5760};
    cuuint32_t es[4] = {1, 1, 1, 1};
    const auto W = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, W128 = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128;
    auto wide = [&](cuuint32_t rank, void* a, const cuuint64_t* d, const cuuint64_t* s, int lo, int hi, cuuint32_t cpp, cuuint32_t ppc,
                    CUtensorMapIm2ColWideMode mode = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_64B,
                    CUtensorMapDataType t = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CUtensorMapInterleave il = CU_TENSOR_MAP_INTERLEAVE_NONE,
                    CUtensorMapFloatOOBfill f = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, const cuuint32_t* e = nullptr) {
      return cuTensorMapEncodeIm2colWide(&map, t, rank, a, d, s, lo, hi, cpp, ppc, e ? e : es, il, mode, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, f);
    };
    CHECK_OK(wide(4, ga, dim, str, -1, -1, 32, 64));                     // valid
    CHECK_OK(wide(4, ga, dim, str, -1, -1, 32, 0, W128));                // pixelsPerColumn ignored in W128 mode
    CHECK_OK(wide(4, ga, dim, str, -1, -1, 64, 64, W, CU_TENSOR_MAP_SWIZZLE_128B));
    CHECK_OK(wide(3, ga, dim, str, -32768, 32767, 32, 64));
    CHECK_CU(wide(2, ga, dim, str, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);  // rank below 3
    CHECK_CU(wide(6, ga, dim, str, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, static_cast<char*>(ga) + 8, dim, str, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);  // 16-byte alignment
    cuuint64_t badStr[3] = {72, 640, 5760}, zeroDim[4] = {32, 0, 9, 2};
    CHECK_CU(wide(4, ga, dim, badStr, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, zeroDim, str, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -32769, 0, 32, 64), CUDA_ERROR_INVALID_VALUE);  // corners in [-32768, 32767]
    CHECK_CU(wide(4, ga, dim, str, 0, 32768, 32, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, 5, -6, 32, 64), CUDA_ERROR_INVALID_VALUE);      // W box [5, 3]: empty
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 0, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 257, 64, W, CU_TENSOR_MAP_SWIZZLE_128B), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 0), CUDA_ERROR_INVALID_VALUE);      // W mode: pixelsPerColumn 1..1024
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 1025), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 64, 64), CUDA_ERROR_INVALID_VALUE);     // 128 bytes of channels > 64B swizzle
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 64, W, CU_TENSOR_MAP_SWIZZLE_NONE), CUDA_ERROR_INVALID_VALUE);  // wide maps swizzle
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 16, 64, W, CU_TENSOR_MAP_SWIZZLE_32B), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 64, W, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 64, static_cast<CUtensorMapIm2ColWideMode>(2)), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 16, 64, W, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_DATA_TYPE_INT32, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
             CUDA_ERROR_INVALID_VALUE);  // NaN fill on an integer type (16 x 4 bytes fits the span)
    cuuint32_t badEs[4] = {1, 9, 1, 1};
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 64, W, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, badEs),
             CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(wide(4, ga, dim, nullptr, -1, -1, 32, 64), CUDA_ERROR_INVALID_VALUE);
    // valid, but not simulated: interleaved layouts, the packed types
    CHECK_CU(wide(4, ga, dim, str, -1, -1, 32, 64, W, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_INTERLEAVE_16B),
             CUDA_ERROR_NOT_SUPPORTED);
    cuuint64_t pdim[4] = {128, 10, 9, 2}, pstr[3] = {64, 640, 5760};
    CHECK_CU(wide(4, ga, pdim, pstr, -1, -1, 128, 64, W, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B),
             CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU(wide(4, ga, pdim, pstr, -1, -1, 128, 64, W, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B),
             CUDA_ERROR_INVALID_VALUE);  // the packed types take 128B / 128B_ATOM_32B only
    CHECK_OK(cuMemFree(g));
    void* viaProc = nullptr;
    CUdriverProcAddressQueryResult st;
    CHECK_OK(cuGetProcAddress("cuTensorMapEncodeIm2colWide", &viaProc, 12080, 0, &st));
    CHECK(viaProc == reinterpret_cast<void*>(&cuTensorMapEncodeIm2colWide));
  }
  CHECK_OK(cuDevicePrimaryCtxRelease(dev));
  return tcheck::finish("tensormap_im2col_test");
}
