// Shuffles of 64-bit values (split into two shfl.sync each) and a warp-level double reduction.
extern "C" __global__ void shfl64(const double* in, const long long* li, double* od, long long* ol) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  double v = in[t];
  long long l = li[t];
  double s = v;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  od[t * 2 + 0] = s;
  od[t * 2 + 1] = __shfl_sync(0xffffffffu, v, 31 - (threadIdx.x & 31));
  ol[t * 2 + 0] = __shfl_down_sync(0xffffffffu, l, 1);
  ol[t * 2 + 1] = __shfl_up_sync(0xffffffffu, l, 2, 4);
}
