// cuda::memcpy_async of 1 KiB into shared memory with a block-scope cuda::barrier: on sm_90 libcu++
// issues cp.async.bulk with mbarrier::complete_tx and waits with mbarrier.try_wait (expect_tx).
#include <cuda/barrier>

extern "C" __global__ void bulk_copy(const float* in, float* out) {
  __shared__ alignas(128) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) cuda::memcpy_async(buf, in + blockIdx.x * 256, cuda::aligned_size_t<16>(1024), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x] * 2.0f + threadIdx.x;
}
