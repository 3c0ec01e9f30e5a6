// C (128 x N, f32) = A (128 x 64, f16, row-major) * B (64 x N, f16, row-major), N = 128 or 256, on
// one CTA of 4 warps with inline-PTX tcgen05: warp 0 allocates N columns of tensor memory, one
// thread issues four kind::f16 MMAs (K = 16 each) from shared-memory descriptors and commits them
// to an mbarrier, every warp waits on it and reads its 32 lanes of the accumulator back with
// tcgen05.ld.32x32b.x32. A is K-major and B MN-major (B's rows are N-contiguous, as stored), both
// 128B-swizzled: A row m at m * 128 bytes (8-row atoms, SBO 1024); B in atoms of 8 K-rows x 64 N
// (1024 bytes), the K atoms 1024 apart (SBO), the N atoms 8 KiB apart (LBO).
#include <cuda_fp16.h>

#include "tcgen05.cuh"

template <int N>
__device__ void tc_f16(const __half* A, const __half* B, float* C) {
  extern __shared__ uint8_t dyn[];
  uint8_t* sm = smem_aligned(dyn, 1024);
  uint8_t* sa = sm;                     // 128 x 64 f16, 16 KiB
  uint8_t* sb = sm + 16384;             // 64 x N f16
  uint64_t* bar = (uint64_t*)(sb + 64 * N * 2);
  uint32_t* slot = (uint32_t*)(bar + 1);
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;

  if (warp == 0) tmem_alloc(slot, N);
  if (t == 0) mbar_init(bar, 1);
  for (int i = t; i < 128 * 64; i += blockDim.x) {
    int m = i / 64, k = i % 64;
    *(__half*)(sa + swz128(m * 128 + k * 2)) = A[i];
  }
  for (int i = t; i < 64 * N; i += blockDim.x) {
    int k = i / N, n = i % N;
    *(__half*)(sb + (n / 64) * 8192 + swz128((k / 8) * 1024 + (k % 8) * 128 + (n % 64) * 2)) = B[i];
  }
  fence_proxy_async();
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = *slot;

  if (t == 0) {
    constexpr uint32_t id = idesc(1, 0, 0, false, true, 128, N);
    for (int kk = 0; kk < 4; kk++) {
      uint64_t da = sdesc(smem_addr(sa) + kk * 32, 16, 1024, 2);
      uint64_t db = sdesc(smem_addr(sb) + kk * 2048, 8192, 1024, 2);
      TC_MMA("f16", tmem, da, db, id, kk > 0);
    }
    tc_commit(bar);
  }
  mbar_wait(bar, 0);
  fence_after();

  for (int c = 0; c < N; c += 32) {
    uint32_t r[32];
    tmem_ld32(tmem + ((uint32_t)(warp * 32) << 16) + c, r);
    tmem_wait_ld();
    float* row = C + (warp * 32 + lane) * N + c;
    for (int j = 0; j < 32; j++) row[j] = __uint_as_float(r[j]);
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    tmem_dealloc(tmem, N);
  }
}

extern "C" __global__ void tc_f16_128x128x64(const __half* A, const __half* B, float* C) { tc_f16<128>(A, B, C); }
extern "C" __global__ void tc_f16_128x256x64(const __half* A, const __half* B, float* C) { tc_f16<256>(A, B, C); }
