// cp.async through the pipeline primitives: 4-, 8- and 16-byte copies, double-buffered stages.
#include <cuda_pipeline.h>
extern "C" __global__ void pipeline_async(const float4* in16, const float2* in8, const float* in4, float* out, int tiles) {
  __shared__ float4 s16[2][64];
  __shared__ float2 s8[2][64];
  __shared__ float s4[2][64];
  int t = threadIdx.x;
  float acc = 0.0f;
  __pipeline_memcpy_async(&s16[0][t], &in16[t], 16);
  __pipeline_memcpy_async(&s8[0][t], &in8[t], 8);
  __pipeline_memcpy_async(&s4[0][t], &in4[t], 4);
  __pipeline_commit();
  for (int k = 0; k < tiles; k++) {
    int cur = k & 1;
    if (k + 1 < tiles) {
      __pipeline_memcpy_async(&s16[cur ^ 1][t], &in16[(k + 1) * 64 + t], 16);
      __pipeline_memcpy_async(&s8[cur ^ 1][t], &in8[(k + 1) * 64 + t], 8);
      __pipeline_memcpy_async(&s4[cur ^ 1][t], &in4[(k + 1) * 64 + t], 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float4 a = s16[cur][63 - t];
    float2 b = s8[cur][(t + 1) & 63];
    acc += a.x + 2.0f * a.y + 3.0f * a.z + 4.0f * a.w + 5.0f * b.x + 6.0f * b.y + 7.0f * s4[cur][t ^ 5];
    __syncthreads();
  }
  out[t] = acc;
}
