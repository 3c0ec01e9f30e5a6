// fp8 conversions (cuda_fp8.h) on sm_90: float2 -> e4m3x2 / e5m2x2 with saturation to the largest
// finite value, and back to half2 (cvt.rn.satfinite.e4m3x2.f32, cvt.rn.f16x2.e4m3x2, ...).
#include <cuda_fp16.h>
#include <cuda_fp8.h>

extern "C" __global__ void fp8_cvt(const float2* in, unsigned short* e4, unsigned short* e5, __half2* back4, __half2* back5, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = in[i];
  __nv_fp8x2_storage_t a = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
  __nv_fp8x2_storage_t b = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
  e4[i] = a;
  e5[i] = b;
  __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(a, __NV_E4M3);
  __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(b, __NV_E5M2);
  back4[i] = h4;
  back5[i] = h5;
}
