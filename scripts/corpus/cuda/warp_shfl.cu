// All four shuffles, with full and partial widths.
extern "C" __global__ void warp_shfl(const int* in, int* out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[t];
  int a = __shfl_sync(0xffffffffu, v, (threadIdx.x * 7) & 31);
  int b = __shfl_up_sync(0xffffffffu, v, 3);
  int c = __shfl_down_sync(0xffffffffu, v, 5, 16);
  int d = __shfl_xor_sync(0xffffffffu, v, 6, 8);
  float f = __shfl_xor_sync(0xffffffffu, (float)v * 0.5f, 1);
  out[t * 5 + 0] = a; out[t * 5 + 1] = b; out[t * 5 + 2] = c; out[t * 5 + 3] = d; out[t * 5 + 4] = (int)(f * 2.0f);
}
