// Block-scaled MMA from inline PTX: C (128 x 64, f32) = (A * 2^(sa - 127)) (B * 2^(sb - 127)),
// A (128 x 64) and B (64 x 64) e4m3, one ue8m0 scale per row of A (column of B) per 32 of K, on
// one CTA of 4 warps. The scales lie in shared memory as 32 rows of 16 bytes (the ((32,4),4) tile:
// row r byte 4 * j + id holds the scale of row r + 32 * j for K block `id`); one thread copies
// them into tensor memory with tcgen05.cp.32x128b.warpx4 (every lane quarter gets the 32 rows)
// and, without waiting (the ISA pipelines a thread's tcgen05.cp before its tcgen05.mma), issues
// two kind::mxf8f6f4.block_scale.scale_vec::1X MMAs (K = 32), the k-th with scale factor ids k for
// A and B. A and B are K-major with the 64B swizzle (row at 64 bytes, SBO 512).
#include "tcgen05.cuh"

__device__ __forceinline__ void tc_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc_) {
  asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;\n" ::"r"(taddr), "l"(sdesc_) : "memory");
}

extern "C" __global__ void tc_mxf8_e4m3_scaled(const uint8_t* A, const uint8_t* B, const uint8_t* SA, const uint8_t* SB, float* C) {
  constexpr int M = 128, N = 64, K = 64, SFA = 64, SFB = 72;  // TMEM columns: D 0-63, scales of A 64-67, of B 72-73
  __shared__ alignas(1024) uint8_t sa[M * K];
  __shared__ alignas(1024) uint8_t sb[N * K];
  __shared__ alignas(128) uint8_t ssa[512];
  __shared__ alignas(128) uint8_t ssb[512];
  __shared__ uint64_t bar;
  __shared__ uint32_t slot;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (warp == 0) tmem_alloc(&slot, 128);
  if (t == 0) mbar_init(&bar, 1);
  for (int i = t; i < M * K; i += blockDim.x) sa[swz64((i / K) * 64 + i % K)] = A[i];
  for (int i = t; i < K * N; i += blockDim.x) {
    int k = i / N, n = i % N;
    sb[swz64(n * 64 + k)] = B[i];
  }
  for (int i = t; i < 512; i += blockDim.x) {
    ssa[i] = SA[i];
    ssb[i] = SB[i];
  }
  fence_proxy_async();
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = slot;
  if (t == 0) {
    tc_cp_32x128b_warpx4(tmem + SFA, sdesc(smem_addr(ssa), 0, 128, 0));
    tc_cp_32x128b_warpx4(tmem + SFB, sdesc(smem_addr(ssb), 0, 128, 0));
    for (int kk = 0; kk < 2; kk++) {
      // block-scaled descriptor: B's scale id (4-5), e4m3 A/B (0), N >> 3 (17-22), ue8m0 (23),
      // M >> 7 (27-28), A's scale id (29-30)
      const uint32_t id = (uint32_t)kk << 4 | (uint32_t)(N >> 3) << 17 | 1u << 23 | (uint32_t)(M >> 7) << 27 | (uint32_t)kk << 29;
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
          "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(tmem),
          "l"(sdesc(smem_addr(sa) + kk * 32, 16, 512, 4)), "l"(sdesc(smem_addr(sb) + kk * 32, 16, 512, 4)), "r"(id), "r"(tmem + SFA),
          "r"(tmem + SFB), "r"((uint32_t)(kk > 0))
          : "memory");
    }
    tc_commit(&bar);
  }
  mbar_wait(&bar, 0);
  fence_after();
  for (int c = 0; c < N; c += 32) {
    uint32_t r[32];
    tmem_ld32(tmem + ((uint32_t)(warp * 32) << 16) + c, r);
    tmem_wait_ld();
    for (int j = 0; j < 32; j++) C[(warp * 32 + lane) * N + c + j] = __uint_as_float(r[j]);
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    tmem_dealloc(tmem, 128);
  }
}
