// C (64 x 64, f32) = A (64 x 64, bf16) * B (64 x 64, bf16), all row-major, on one CTA of 4 warps
// with A in tensor memory: each warp writes its 16 rows of A with tcgen05.st.32x32b (M = 64 puts
// row m in lane 32 * (m / 16) + m % 16, the ISA's layout for half the datapath; a row's K in
// cells of two bf16, low half first) and waits with tcgen05.wait::st; one thread issues the four
// kind::f16 MMAs (K = 16) as `[d_tmem], [a_tmem], b_desc` in two batches, each committed to the
// same mbarrier: the issuing thread waits for the first one's phase (parity 0) before the second
// batch, and every warp waits for parity 1. B is K-major with the 32B swizzle: each
// 16-element K slice an atom column of its own (rows n at (n / 8) * 256 + (n % 8) * 32).
#include <cuda_bf16.h>

#include "tcgen05.cuh"

extern "C" __global__ void tc_bf16_tmem_a_m64(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) {
  constexpr int M = 64, N = 64, K = 64, ACOL = 64;  // D in columns 0-63, A in 64-95
  __shared__ alignas(1024) uint8_t sb[K / 16 * (N / 8) * 256];
  __shared__ uint64_t bar;
  __shared__ uint32_t slot;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (warp == 0) tmem_alloc(&slot, 128);
  if (t == 0) mbar_init(&bar, 1);
  const unsigned short* bb = (const unsigned short*)B;
  for (int i = t; i < K * N; i += blockDim.x) {
    int k = i / N, n = i % N;
    uint32_t off = (k / 16) * ((N / 8) * 256) + (n / 8) * 256 + (n % 8) * 32 + (k % 16) * 2;
    *(unsigned short*)(sb + (off ^ (((off >> 7) & 1) << 4))) = bb[i];
  }
  fence_proxy_async();
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = slot, lanes = (uint32_t)(warp * 32) << 16;

  // A into tensor memory: lanes 0-15 of this warp's quarter hold rows 16 * warp + lane. D's
  // columns are zeroed first in all 32 lanes: the M = 64 MMA leaves lanes 16-31 alone, and the
  // 32x32b loads below read them too (unwritten, they would be uninitialised reads)
  {
    const unsigned short* ab = (const unsigned short*)A;
    uint32_t r[32];
    for (int j = 0; j < 32; j++) r[j] = 0;
    tmem_st32(tmem + lanes, r);
    tmem_st32(tmem + lanes + 32, r);
    for (int j = 0; j < 32; j++) {
      int m = 16 * warp + lane;
      r[j] = lane < 16 ? (uint32_t)ab[m * K + 2 * j] | (uint32_t)ab[m * K + 2 * j + 1] << 16 : 0u;
    }
    tmem_st32(tmem + lanes + ACOL, r);
    tmem_wait_st();
  }
  fence_before();
  __syncthreads();
  fence_after();

  if (t == 0) {
    constexpr uint32_t id = idesc(1, 1, 1, false, false, M, N);  // f32 = bf16 x bf16
    for (int kk = 0; kk < 4; kk++) {
      uint64_t db = sdesc(smem_addr(sb) + kk * ((N / 8) * 256), 16, 256, 6);
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}\n" ::"r"(tmem),
          "r"(tmem + ACOL + kk * 8), "l"(db), "r"(id), "r"((uint32_t)(kk > 0))
          : "memory");
      if (kk == 1) {
        tc_commit(&bar);
        mbar_wait(&bar, 0);
      }
    }
    tc_commit(&bar);
  }
  // the second phase cannot complete before thread 0's second commit, so after this barrier a
  // parity-1 wait is at most one phase behind
  __syncthreads();
  mbar_wait(&bar, 1);
  fence_after();

  for (int c = 0; c < N; c += 32) {
    uint32_t r[32];
    tmem_ld32(tmem + lanes + c, r);
    tmem_wait_ld();
    if (lane < 16)
      for (int j = 0; j < 32; j++) C[(16 * warp + lane) * N + c + j] = __uint_as_float(r[j]);
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    tmem_dealloc(tmem, 128);
  }
}
