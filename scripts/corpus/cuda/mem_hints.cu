// Cache-hinted loads/stores (__ldg, __ldcs, __ldcg, __stcs, __stwt), __nanosleep, 64-bit and bf16x2 atomics.
#include <cuda_bf16.h>
extern "C" __global__ void mem_hints(const float* x, float* y, unsigned long long* acc, long long* mx,
                                     __nv_bfloat162* bacc, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float a = __ldg(x + i);
  float b = __ldcs(x + (n - 1 - i));
  float c = __ldcg(x + ((i * 7) % n));
  __nanosleep(100);
  __stcs(y + i, a + b);
  __stwt(y + n + i, c * 2.0f);
  atomicAdd(acc, (unsigned long long)(i + 1) << 20);
  atomicMax(mx, (long long)a * -1000000000LL);
  atomicAdd(bacc, __floats2bfloat162_rn(1.0f, a > 0 ? 2.0f : 0.0f));
}
