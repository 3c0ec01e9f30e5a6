// One warpgroup computes C (64 x 16, f32) = A (64 x 16, f16, row-major) * B (16 x 16, f16) with
// inline-PTX wgmma.mma_async.m64n16k16 reading both operands from shared memory through matrix
// descriptors (no swizzle: 8 x 16-byte core matrices; A K-major, B stored N x K, K-major).
#include <cuda_fp16.h>
#include <stdint.h>

__device__ uint64_t desc(const void* smem, unsigned lbo, unsigned sbo) {
  uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
  return (uint64_t)((a & 0x3ffff) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32;
}

extern "C" __global__ void wgmma_f16(const __half* A, const __half* B, float* C) {
  __shared__ alignas(128) __half sa[64 * 16];
  __shared__ alignas(128) __half sb[16 * 16];
  int t = threadIdx.x;
  // core-matrix layout: element (r, k) of a K-major operand at ((r/8)*2 + k/8)*64 + (r%8)*8 + k%8
  // halves: core matrices along K are 128 bytes apart (LBO), along M/N 256 bytes apart (SBO)
  for (int i = t; i < 64 * 16; i += 128) {
    int r = i / 16, k = i % 16;
    sa[((r / 8) * 2 + k / 8) * 64 + (r % 8) * 8 + k % 8] = A[i];
  }
  for (int i = t; i < 16 * 16; i += 128) {
    int k = i / 16, n = i % 16;  // B is K x N row-major in global memory
    sb[((n / 8) * 2 + k / 8) * 64 + (n % 8) * 8 + k % 8] = B[i];
  }
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  uint64_t da = desc(sa, 128, 256), db = desc(sb, 128, 256);
  float d[8];
  for (int i = 0; i < 8; i++) d[i] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(da), "l"(db), "r"(0));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  int w = t / 32, l = t % 32, row = 16 * w + l / 4, col = 2 * (l % 4);
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 4; i++) C[(row + 8 * (i >> 1)) * 16 + 8 * j + col + (i & 1)] = d[4 * j + i];
}
