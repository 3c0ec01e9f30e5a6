// Asynchronous copies as CUDA code writes them: cooperative_groups::memcpy_async + wait, and a
// two-stage cuda::pipeline (both compile to cp.async with commit/wait groups on sm_80).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_copy(const float* in, float* out) {
  __shared__ float s[256];
  auto g = cg::this_thread_block();
  cg::memcpy_async(g, s, in, sizeof(float) * 256);
  cg::wait(g);
  out[threadIdx.x] = s[255 - threadIdx.x];
}

extern "C" __global__ void pipe_copy(const float* in, float* out) {
  __shared__ float s[2][128];
  auto pipeline = cuda::make_pipeline();
  for (int st = 0; st < 2; st++) {
    pipeline.producer_acquire();
    cuda::memcpy_async(&s[st][threadIdx.x], &in[st * 128 + threadIdx.x], sizeof(float), pipeline);
    pipeline.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<0>(pipeline);
  __syncthreads();
  out[threadIdx.x] = s[0][127 - threadIdx.x] + s[1][threadIdx.x];
}
