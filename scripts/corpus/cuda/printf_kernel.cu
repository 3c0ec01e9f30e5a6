// printf from a kernel (a call to vprintf), beside a checked result.
#include <cstdio>
extern "C" __global__ void printf_kernel(const int* in, int* out) {
  int t = threadIdx.x;
  if (t == 0) printf("corpus printf: block %d first %d\n", blockIdx.x, in[0]);
  out[t] = in[t] * 2 + 1;
}
