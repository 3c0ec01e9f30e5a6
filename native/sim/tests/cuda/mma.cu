// One warp computes D = A(16x16, f16, row-major) * B(16x8, f16) + C(16x8, f32) with
// mma.sync.aligned.m16n8k16.row.col via inline PTX. Fragments follow the PTX ISA layout:
// group = lane / 4, tig = lane % 4;
//   A: a[r] (r=0..3) holds two halves at row group + 8*(r&1), cols 2*tig + 8*(r>>1) + {0,1}
//   B: b[r] (r=0..1) holds two halves at rows 2*tig + 8*r + {0,1}, col group
//   C/D: c[j] (j=0..3) at row group + 8*(j>>1), col 2*tig + (j&1)
#include <cuda_fp16.h>

__device__ unsigned pack(__half lo, __half hi) {
  return static_cast<unsigned>(__half_as_ushort(lo)) | (static_cast<unsigned>(__half_as_ushort(hi)) << 16);
}

extern "C" __global__ void mma_16x8x16(const __half* A, const __half* B, const float* C, float* D) {
  unsigned lane = threadIdx.x & 31, group = lane >> 2, tig = lane & 3;
  unsigned a[4], b[2];
  float c[4], d[4];
  for (int r = 0; r < 4; r++) {
    unsigned row = group + 8 * (r & 1), col = 2 * tig + 8 * (r >> 1);
    a[r] = pack(A[row * 16 + col], A[row * 16 + col + 1]);
  }
  for (int r = 0; r < 2; r++) {
    unsigned k = 2 * tig + 8 * r;
    b[r] = pack(B[k * 8 + group], B[(k + 1) * 8 + group]);  // B stored row-major (k, n)
  }
  for (int j = 0; j < 4; j++) c[j] = C[(group + 8 * (j >> 1)) * 8 + 2 * tig + (j & 1)];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
  for (int j = 0; j < 4; j++) D[(group + 8 * (j >> 1)) * 8 + 2 * tig + (j & 1)] = d[j];
}
