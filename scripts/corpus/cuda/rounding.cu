// Directed-rounding intrinsics and conversions.
extern "C" __global__ void rounding(const float* a, const float* b, const double* d, int* oi, float* of, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  double z = d[i];
  float* f = of + i * 8;
  f[0] = __fadd_rd(x, y); f[1] = __fadd_ru(x, y); f[2] = __fmul_rz(x, y); f[3] = __fdiv_rn(x, y);
  f[4] = __double2float_rz(z); f[5] = rintf(x * 3.0f); f[6] = nearbyintf(y * 5.0f); f[7] = __fsqrt_rd(fabsf(x));
  int* o = oi + i * 6;
  o[0] = __float2int_rn(x * 10.0f); o[1] = __float2int_rd(x * 10.0f); o[2] = __float2int_ru(y * 10.0f);
  o[3] = __double2int_rz(z * 100.0); o[4] = (int)__float2uint_rn(fabsf(x) * 100.0f); o[5] = (int)lrintf(y * 7.0f);
}
