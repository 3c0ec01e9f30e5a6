// C (128 x 256, f32) = A (128 x 64, f16) * B (64 x 256, f16), all row-major, on 2 CTAs of 4 warps,
// each computing a 128 x 128 tile: the operands come into shared memory by TMA
// (cp.async.bulk.tensor.2d with 128B-swizzled tensor maps passed as __grid_constant__ CUtensorMap),
// completing on an mbarrier with an expected transaction count; then one thread issues the
// tcgen05 kind::f16 MMAs straight from what TMA wrote: A's box (64 x 128) is the K-major 128B
// layout (row m at m * 128 bytes), B's two boxes (64 N x 64 K each) the MN-major one (the K groups
// of 8 rows 1024 bytes apart, SBO; the second box 8 KiB on, LBO).
#include <cuda.h>
#include <cuda_fp16.h>

#include "tcgen05.cuh"

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

extern "C" __global__ void tc_tma_f16(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, float* C) {
  constexpr int N = 128, LDC = 256;
  extern __shared__ uint8_t dyn[];
  uint8_t* sa = smem_aligned(dyn, 1024);  // 128 x 64 f16
  uint8_t* sb = sa + 16384;                // two boxes of 64 K x 64 N f16
  uint64_t* bars = (uint64_t*)(sb + 16384);  // [0] TMA, [1] MMA
  uint32_t* slot = (uint32_t*)(bars + 2);
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, n0 = blockIdx.x * N;

  if (warp == 0) tmem_alloc(slot, N);
  if (t == 0) {
    mbar_init(&bars[0], 1);
    mbar_init(&bars[1], 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = *slot;

  if (t == 0) {
    mbar_expect_tx(&bars[0], 16384 + 2 * 8192);
    tma_load_2d(sa, &mapA, 0, 0, &bars[0]);
    tma_load_2d(sb, &mapB, n0, 0, &bars[0]);
    tma_load_2d(sb + 8192, &mapB, n0 + 64, 0, &bars[0]);
    mbar_wait(&bars[0], 0);
    fence_after();
    constexpr uint32_t id = idesc(1, 0, 0, false, true, 128, N);
    for (int kk = 0; kk < 4; kk++)
      TC_MMA("f16", tmem, sdesc(smem_addr(sa) + kk * 32, 16, 1024, 2), sdesc(smem_addr(sb) + kk * 2048, 8192, 1024, 2), id, kk > 0);
    tc_commit(&bars[1]);
  }
  __syncwarp();
  mbar_wait(&bars[1], 0);
  fence_after();

  for (int c = 0; c < N; c += 32) {
    uint32_t r[32];
    tmem_ld32(tmem + ((uint32_t)(warp * 32) << 16) + c, r);
    tmem_wait_ld();
    float* row = C + (warp * 32 + lane) * LDC + n0 + c;
    for (int j = 0; j < 32; j++) row[j] = __uint_as_float(r[j]);
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    tmem_dealloc(tmem, N);
  }
}
