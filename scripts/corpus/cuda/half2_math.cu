// half2 and bf16x2 arithmetic, including the relu and saturate variants.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void half2_math(const __half2* a, const __half2* b, const __half2* c, __half2* out,
                                      const __nv_bfloat162* p, const __nv_bfloat162* q, __nv_bfloat162* bout, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i], z = c[i];
  out[i * 8 + 0] = __hadd2(x, y);
  out[i * 8 + 1] = __hmul2(x, y);
  out[i * 8 + 2] = __hfma2(x, y, z);
  out[i * 8 + 3] = __hmax2(x, y);
  out[i * 8 + 4] = __hmin2(x, y);
  out[i * 8 + 5] = __hfma2_relu(x, y, z);
  out[i * 8 + 6] = __hadd2_sat(x, y);
  out[i * 8 + 7] = __hsub2(__habs2(x), __hneg2(y));
  __nv_bfloat162 u = p[i], v = q[i];
  bout[i * 4 + 0] = __hadd2(u, v);
  bout[i * 4 + 1] = __hfma2(u, v, u);
  bout[i * 4 + 2] = __hmax2(u, v);
  bout[i * 4 + 3] = __hfma2_relu(u, v, v);
}
