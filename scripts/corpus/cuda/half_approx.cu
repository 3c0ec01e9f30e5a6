// half-precision math functions, division, and directed float->half conversions.
#include <cuda_fp16.h>
extern "C" __global__ void half_approx(const float* x, __half* out, __half* cvt, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float v = x[i];
  __half h = __float2half_rn(v);
  __half* o = out + i * 5;
  o[0] = hexp(h); o[1] = hsin(h); o[2] = hsqrt(__habs(h)); o[3] = hrcp(h); o[4] = __hdiv(h, __float2half_rn(3.0f));
  cvt[i * 3 + 0] = __float2half_rz(v); cvt[i * 3 + 1] = __float2half_rd(v); cvt[i * 3 + 2] = __float2half_ru(v);
}
