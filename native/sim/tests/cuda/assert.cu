// assert() in device code: nvcc calls the driver-provided __assertfail.
#include <cassert>

extern "C" __global__ void checked(const int* in, int* out) {
  int v = in[threadIdx.x];
  assert(v != 7);
  out[threadIdx.x] = v * 2;
}
