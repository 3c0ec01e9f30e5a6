// f64 directed rounding and conversion intrinsics.
extern "C" __global__ void dround(const double* a, const double* b, double* od, long long* ol, float* of, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  double x = a[i], y = b[i];
  double* d = od + i * 6;
  d[0] = __dadd_rd(x, y); d[1] = __dmul_ru(x, y); d[2] = __fma_rz(x, y, 1.0); d[3] = __ddiv_rz(x, y);
  d[4] = __dsqrt_ru(fabs(x)); d[5] = __drcp_rn(y);
  ol[i * 2 + 0] = __double2ll_rn(x * 1e6); ol[i * 2 + 1] = __double2ll_ru(y * 1e6);
  of[i * 2 + 0] = __ll2float_rd((long long)(x * 1e12)); of[i * 2 + 1] = __ull2float_ru((unsigned long long)(fabs(y) * 1e15));
}
