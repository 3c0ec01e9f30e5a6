// 64-bin histogram: per-block bins in shared memory (shared atomics), merged with global atomics;
// plus a global atomicMax/atomicMin and a float atomicAdd.
#define BINS 64
extern "C" __global__ void histogram(const unsigned* in, int n, unsigned* bins, unsigned* maxOut, int* minOut,
                                     float* fsum) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i];
    atomicAdd(&local[v % BINS], 1u);
    atomicMax(maxOut, v);
    atomicMin(minOut, static_cast<int>(v) - 500000);
    atomicAdd(fsum, 0.5f);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
