// Dynamic extern shared memory: a block-wide tree reduction and a reversed copy.
extern "C" __global__ void dyn_shared(const float* in, float* sums, float* rev) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x;
  float v = in[blockIdx.x * blockDim.x + t];
  s[t] = v;
  s[blockDim.x + t] = v;
  __syncthreads();
  rev[blockIdx.x * blockDim.x + t] = s[blockDim.x + blockDim.x - 1 - t];
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}
