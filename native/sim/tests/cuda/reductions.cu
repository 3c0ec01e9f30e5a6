// Block sums two ways: a shared-memory tree and warp shuffles (+ one shared slot per warp).
extern "C" __global__ void block_sum_shared(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + t;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  buf[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

extern "C" __global__ void block_sum_shuffle(const int* in, int* out, int n) {
  __shared__ int warpSums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nw = (blockDim.x + 31) / 32;
    v = lane < nw ? warpSums[lane] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
