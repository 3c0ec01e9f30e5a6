// Split arrive/wait barriers as CUDA code writes them: cuda::barrier in shared memory with
// cuda::memcpy_async completing on it (sm_80: mbarrier.* and cp.async.mbarrier.arrive), used for
// several phases in a loop, and a producer/consumer pair of barriers across two warps.
#include <cuda/barrier>
#include <cuda/std/utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
// a block_barrier in __shared__ is initialised by init(), not by its constructor (the libcu++ idiom)
#pragma nv_diag_suppress static_var_with_dynamic_init

// out[i] = sum over the 4 chunks of in[chunk * 128 + i], one memcpy_async per chunk per thread,
// each chunk waited for on the same barrier (one phase per chunk).
extern "C" __global__ void chunks(const float* in, float* out) {
  __shared__ float s[128];
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  float acc = 0;
  for (int c = 0; c < 4; c++) {
    cuda::memcpy_async(&s[threadIdx.x], &in[c * 128 + threadIdx.x], sizeof(float), bar);
    bar.arrive_and_wait();
    acc += s[127 - threadIdx.x];
    bar.arrive_and_wait();  // everyone has read s before the next chunk overwrites it
  }
  out[threadIdx.x] = acc;
}

// Warp 0 produces tiles, warp 1 consumes them: `full` says a tile is ready, `empty` that it
// was read (the consumer arrives on it without waiting); two tiles in flight, 8 tiles in all.
extern "C" __global__ void produce_consume(const int* in, int* out) {
  __shared__ int tile[2][32];
  __shared__ block_barrier full[2], empty[2];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2; i++) {
      init(&full[i], 64);
      init(&empty[i], 64);
    }
  }
  __syncthreads();
  for (int t = 0; t < 8; t++) {
    int b = t & 1;
    if (warp == 0) {
      if (t >= 2) empty[b].arrive_and_wait();  // the consumer is done with this buffer
      tile[b][lane] = in[t * 32 + lane] * (t + 1);
      full[b].arrive_and_wait();
    } else {
      full[b].arrive_and_wait();
      out[t * 32 + lane] = tile[b][lane] + lane;
      if (t < 6) {
        auto token = empty[b].arrive();  // the consumer only signals; the producer waits
        (void)token;
      }
    }
  }
}
