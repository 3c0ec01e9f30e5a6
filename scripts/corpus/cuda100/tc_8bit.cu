// 8-bit tcgen05 MMAs from inline PTX on one CTA of 4 warps, M = 128, K = 64 (two MMAs of 32):
// - tc_f8f6f4_e4m3_e5m2: kind::f8f6f4, A e4m3 (K-major, no swizzle: core matrices of 8 rows x 16
//   bytes, the two along K 128 bytes apart (LBO), the 8-row groups 512 apart (SBO)) times B e5m2
//   (K-major, 64B swizzle: row n at n * 64, SBO 512), N = 64, f32 accumulator, read back with
//   tcgen05.ld.32x32b.x8;
// - tc_i8_s8u8_mn_a: kind::i8, A s8 MN-major (A's columns M-contiguous, 64B swizzle: atoms of 8 K-rows
//   x 64 M, the K groups 512 bytes apart (SBO), the two M halves 4 KiB apart (LBO)) times B u8
//   (K-major, no swizzle, the 8-row groups 128 bytes apart (SBO), the 16-byte K chunks 2 KiB apart
//   (LBO)), N = 128, s32 accumulator.
#include "tcgen05.cuh"

template <uint32_t NCOLS>
__device__ void setup(uint64_t* bar, uint32_t* slot) {
  if (threadIdx.x / 32 == 0) tmem_alloc(slot, NCOLS);
  if (threadIdx.x == 0) mbar_init(bar, 1);
}

template <int N>
__device__ void finish(uint32_t tmem, uint64_t* bar, uint32_t* out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  mbar_wait(bar, 0);
  fence_after();
  for (int c = 0; c < N; c += 8) {
    uint32_t r[8];
    tmem_ld8(tmem + ((uint32_t)(warp * 32) << 16) + c, r);
    tmem_wait_ld();
    for (int j = 0; j < 8; j++) out[(warp * 32 + lane) * N + c + j] = r[j];
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    tmem_dealloc(tmem, N < 32 ? 32 : N);
  }
}

extern "C" __global__ void tc_f8f6f4_e4m3_e5m2(const uint8_t* A, const uint8_t* B, uint32_t* C) {
  constexpr int N = 64;
  extern __shared__ uint8_t dyn[];
  uint8_t* sa = smem_aligned(dyn, 1024);  // 128 x 64 bytes
  uint8_t* sb = sa + 8192;                 // 64 x 64 bytes
  uint64_t* bar = (uint64_t*)(sb + 4096);
  uint32_t* slot = (uint32_t*)(bar + 1);
  const int t = threadIdx.x;
  setup<N>(bar, slot);
  for (int i = t; i < 128 * 64; i += blockDim.x) {
    int m = i / 64, kb = i % 64;
    sa[(m % 8) * 16 + (m / 8) * 512 + (kb % 16) + (kb / 16) * 128] = A[i];
  }
  for (int i = t; i < 64 * N; i += blockDim.x) {
    int k = i / N, n = i % N;  // B is K x N row-major in global memory
    sb[swz64(n * 64 + k)] = B[i];
  }
  fence_proxy_async();
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = *slot;
  if (t == 0) {
    constexpr uint32_t id = idesc(1, 0, 1, false, false, 128, N);  // f32 = e4m3 x e5m2
    for (int kk = 0; kk < 2; kk++)
      TC_MMA("f8f6f4", tmem, sdesc(smem_addr(sa) + kk * 256, 128, 512, 0), sdesc(smem_addr(sb) + kk * 32, 16, 512, 4), id, kk > 0);
    tc_commit(bar);
  }
  finish<N>(tmem, bar, C);
}

extern "C" __global__ void tc_i8_s8u8_mn_a(const int8_t* A, const uint8_t* B, int32_t* C) {
  constexpr int N = 128;
  extern __shared__ uint8_t dyn[];
  uint8_t* sa = smem_aligned(dyn, 1024);  // 64 x 128 bytes (K rows of M)
  uint8_t* sb = sa + 8192;                 // 128 x 64 bytes
  uint64_t* bar = (uint64_t*)(sb + 8192);
  uint32_t* slot = (uint32_t*)(bar + 1);
  const int t = threadIdx.x;
  setup<N>(bar, slot);
  for (int i = t; i < 128 * 64; i += blockDim.x) {
    int m = i / 64, k = i % 64;
    sa[(m / 64) * 4096 + swz64((k / 8) * 512 + (k % 8) * 64 + m % 64)] = (uint8_t)A[i];
  }
  for (int i = t; i < 64 * N; i += blockDim.x) {
    int k = i / N, n = i % N;
    sb[(k / 16) * 2048 + (n / 8) * 128 + (n % 8) * 16 + k % 16] = B[i];
  }
  fence_proxy_async();
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = *slot;
  if (t == 0) {
    constexpr uint32_t id = idesc(2, 1, 0, true, false, 128, N);  // s32 = s8 (MN-major) x u8
    for (int kk = 0; kk < 2; kk++)
      TC_MMA("i8", tmem, sdesc(smem_addr(sa) + kk * 2048, 4096, 512, 4), sdesc(smem_addr(sb) + kk * 4096, 2048, 128, 0), id, kk > 0);
    tc_commit(bar);
  }
  finish<N>(tmem, bar, (uint32_t*)C);
}
