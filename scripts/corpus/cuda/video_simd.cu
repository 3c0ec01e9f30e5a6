// SIMD video intrinsics.
extern "C" __global__ void video_simd(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned* o = out + i * 8;
  o[0] = __vabsdiffu4(x, y); o[1] = __vadd2(x, y); o[2] = __vcmpgtu4(x, y); o[3] = __vsub4(x, y);
  o[4] = __vmaxu2(x, y); o[5] = __vavgu4(x, y); o[6] = __vsads2(x, y); o[7] = __vcmpeq2(x, x ^ (y & 0xffffu));
}
