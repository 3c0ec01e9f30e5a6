// float atomicMax through an atomicCAS loop, atomicAdd on double and half2, atomicInc/Exch.
#include <cuda_fp16.h>
__device__ float atomicMaxFloat(float* addr, float val) {
  int* a = (int*)addr;
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(a, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}
extern "C" __global__ void atomics_cas(const float* x, int n, float* fmax, double* dsum, __half2* hsum,
                                       unsigned* inc, int* exch) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float v = x[i];
  atomicMaxFloat(fmax + (i & 3), v);
  atomicAdd(dsum + (i & 1), (double)v);
  atomicAdd(hsum, __floats2half2_rn(v > 0 ? 1.0f : 0.0f, 0.5f));
  atomicInc(inc, 16u);
  atomicExch(exch, 7);
}
