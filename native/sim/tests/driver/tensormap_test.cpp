// cuTensorMapEncodeTiled: the argument checks cuda.h documents (CUDA_ERROR_INVALID_VALUE each),
// the forms the sim does not simulate (CUDA_ERROR_NOT_SUPPORTED), and a tensor map passed by
// value as a 128-byte kernel parameter to a cp.async.bulk.tensor load on the sm_90 device (the
// sim pretends to be an H100 for this program), compared with the tensor's bytes. Also: a cluster
// launch is refused (CUDA_ERROR_NOT_SUPPORTED) since clusters are not simulated.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry box(.param .align 64 .b8 tm[128], .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  add.u32 %r3, %r2, 128;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  mov.u32 %r4, 2;
  mov.u32 %r5, 1;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 128;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r4, %r5}], [%r2];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  cvt.u64.u32 %rd4, %r6;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r8;
  ret;
}
)";

int main() {
  setenv("TESSERA_SIM_ARCH", "sm_90", 1);
  CHECK_OK(cuInit(0));
  CUdevice dev;
  CHECK_OK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_OK(cuCtxSetCurrent(ctx));
  // a 16 x 8 f32 tensor
  std::vector<float> host(16 * 8);
  for (unsigned i = 0; i < host.size(); i++) host[i] = (float)i;
  CUdeviceptr g, out;
  CHECK_OK(cuMemAlloc(&g, host.size() * 4));
  CHECK_OK(cuMemAlloc(&out, 128));
  CHECK_OK(cuMemcpyHtoD(g, host.data(), host.size() * 4));
  alignas(64) CUtensorMap map;
  cuuint64_t dim[2] = {16, 8}, stride[1] = {64};
  cuuint32_t boxd[2] = {8, 4}, es[2] = {1, 1};
  void* ga = reinterpret_cast<void*>(g);
  auto enc = [&](CUtensorMap* m, CUtensorMapDataType t, cuuint32_t rank, void* a, const cuuint64_t* d, const cuuint64_t* s,
                 const cuuint32_t* b, const cuuint32_t* e, CUtensorMapInterleave il, CUtensorMapSwizzle sw, CUtensorMapFloatOOBfill f) {
    return cuTensorMapEncodeTiled(m, t, rank, a, d, s, b, e, il, sw, CU_TENSOR_MAP_L2_PROMOTION_NONE, f);
  };
  const auto F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const auto NONE_IL = CU_TENSOR_MAP_INTERLEAVE_NONE;
  const auto NO_SW = CU_TENSOR_MAP_SWIZZLE_NONE;
  const auto NO_FILL = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  CHECK_OK(enc(&map, F32, 2, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL));
  // invalid arguments
  alignas(64) unsigned char raw[192];
  CHECK_CU(enc(reinterpret_cast<CUtensorMap*>(raw + 32), F32, 2, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);  // map not 64-aligned
  CHECK_CU(enc(&map, F32, 0, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, F32, 6, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, F32, 2, static_cast<char*>(ga) + 8, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  cuuint64_t badStride[1] = {72};
  CHECK_CU(enc(&map, F32, 2, ga, dim, badStride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  cuuint64_t zeroDim[2] = {16, 0};
  CHECK_CU(enc(&map, F32, 2, ga, zeroDim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  cuuint32_t bigBox[2] = {8, 257}, oddBox[2] = {3, 4}, wideBox[2] = {16, 4};
  CHECK_CU(enc(&map, F32, 2, ga, dim, stride, bigBox, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, F32, 2, ga, dim, stride, oddBox, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);  // 12 bytes
  CHECK_CU(enc(&map, F32, 2, ga, dim, stride, wideBox, es, NONE_IL, CU_TENSOR_MAP_SWIZZLE_32B, NO_FILL), CUDA_ERROR_INVALID_VALUE);  // 64 > 32
  cuuint32_t badEs[2] = {1, 9};
  CHECK_CU(enc(&map, F32, 2, ga, dim, stride, boxd, badEs, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, ga, dim, stride, boxd, es, NONE_IL, NO_SW, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, F32, 2, ga, dim, stride, boxd, es, CU_TENSOR_MAP_INTERLEAVE_16B, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);  // rank < 3
  CHECK_CU(enc(&map, static_cast<CUtensorMapDataType>(99), 2, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(enc(&map, F32, 2, ga, dim, nullptr, boxd, es, NONE_IL, NO_SW, NO_FILL), CUDA_ERROR_INVALID_VALUE);
  // the last valid encode wins; encode it again (a failed call must not matter)
  CHECK_OK(enc(&map, F32, 2, ga, dim, stride, boxd, es, NONE_IL, NO_SW, NO_FILL));
  CUmodule mod;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CUfunction fn;
  CHECK_OK(cuModuleGetFunction(&fn, mod, "box"));
  void* args[] = {&map, &out};
  CHECK_OK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1024, nullptr, args, nullptr));
  CHECK_OK(cuCtxSynchronize());
  float got[32];
  CHECK_OK(cuMemcpyDtoH(got, out, 128));
  int bad = 0;
  for (unsigned r = 0; r < 4; r++)
    for (unsigned c = 0; c < 8; c++) bad += got[r * 8 + c] != host[(1 + r) * 16 + 2 + c];
  CHECK(bad == 0);
  // a cluster of two CTAs (each copies the same box; exec_cluster.cpp runs them together)
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = 2;
  attr.value.clusterDim.y = 1;
  attr.value.clusterDim.z = 1;
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = 2; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = 32; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  cfg.sharedMemBytes = 1024;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK_OK(cuLaunchKernelEx(&cfg, fn, args, nullptr));
  CHECK_OK(cuCtxSynchronize());
  attr.value.clusterDim.x = 1;
  CHECK_OK(cuLaunchKernelEx(&cfg, fn, args, nullptr));
  CHECK_OK(cuCtxSynchronize());
  CHECK_OK(cuModuleUnload(mod));
  CHECK_OK(cuMemFree(g));
  CHECK_OK(cuMemFree(out));
  CHECK_OK(cuDevicePrimaryCtxRelease(dev));
  // cuTensorMapEncodeIm2col: NHWC f16 (C 64, W 10, H 9, N 2), every documented check is
  // CUDA_ERROR_INVALID_VALUE; a valid map encodes (its loads: tensormap_im2col_test)
  {
    cuuint64_t idim[4] = {64, 10, 9, 2}, istr[3] = {128, 1280, 11520};
    int lo[2] = {-1, -1}, hi[2] = {-1, -1};
    cuuint32_t ies[4] = {1, 1, 1, 1};
    auto im = [&](cuuint32_t rank, void* a, const cuuint64_t* d, const cuuint64_t* s, const int* l, const int* h, cuuint32_t cpp,
                  cuuint32_t ppc, CUtensorMapDataType t = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_128B,
                  CUtensorMapInterleave il = CU_TENSOR_MAP_INTERLEAVE_NONE, CUtensorMapFloatOOBfill f = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) {
      return cuTensorMapEncodeIm2col(&map, t, rank, a, d, s, l, h, cpp, ppc, ies, il, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, f);
    };
    CHECK_OK(im(4, ga, idim, istr, lo, hi, 64, 128));  // valid
    CHECK_CU(im(2, ga, idim, istr, lo, hi, 64, 128), CUDA_ERROR_INVALID_VALUE);  // rank below 3
    CHECK_CU(im(4, static_cast<char*>(ga) + 8, idim, istr, lo, hi, 64, 128), CUDA_ERROR_INVALID_VALUE);
    cuuint64_t badStr[3] = {120, 1280, 11520};
    CHECK_CU(im(4, ga, idim, badStr, lo, hi, 64, 128), CUDA_ERROR_INVALID_VALUE);  // stride not a multiple of 16
    int farLo[2] = {-129, 0}, farHi3[1] = {40000};
    CHECK_CU(im(4, ga, idim, istr, farLo, hi, 64, 128), CUDA_ERROR_INVALID_VALUE);  // rank 4: offsets in [-128, 127]
    int lo3[1] = {-300}, hi3[1] = {200};
    CHECK_OK(im(3, ga, idim, istr, lo3, hi3, 64, 128));   // rank 3: [-32768, 32767]
    CHECK_CU(im(3, ga, idim, istr, lo3, farHi3, 64, 128), CUDA_ERROR_INVALID_VALUE);
    int emptyLo[2] = {5, 0}, emptyHi[2] = {-5, 0};  // W box [5, 10 - 1 - 5]: empty
    CHECK_CU(im(4, ga, idim, istr, emptyLo, emptyHi, 64, 128), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(im(4, ga, idim, istr, lo, hi, 257, 128), CUDA_ERROR_INVALID_VALUE);   // channelsPerPixel over 256
    CHECK_CU(im(4, ga, idim, istr, lo, hi, 64, 1025), CUDA_ERROR_INVALID_VALUE);   // pixelsPerColumn over 1024
    CHECK_CU(im(4, ga, idim, istr, lo, hi, 128, 128), CUDA_ERROR_INVALID_VALUE);   // 256 bytes of channels > 128B swizzle
    CHECK_CU(im(4, ga, idim, istr, lo, hi, 64, 128, CU_TENSOR_MAP_DATA_TYPE_INT32, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
             CUDA_ERROR_INVALID_VALUE);  // NaN fill on an integer type
    CHECK_CU(im(4, ga, idim, istr, lo, hi, 64, 128, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_SWIZZLE_64B,
                CU_TENSOR_MAP_INTERLEAVE_32B),
             CUDA_ERROR_INVALID_VALUE);  // 32B interleave needs the 32B swizzle
    CHECK_CU(im(4, ga, idim, istr, nullptr, hi, 64, 128), CUDA_ERROR_INVALID_VALUE);
    void* viaProc = nullptr;
    CUdriverProcAddressQueryResult st;
    CHECK_OK(cuGetProcAddress("cuTensorMapEncodeIm2col", &viaProc, 12000, 0, &st));
    CHECK(viaProc == reinterpret_cast<void*>(&cuTensorMapEncodeIm2col));
  }
  return tcheck::finish("tensormap_test");
}
