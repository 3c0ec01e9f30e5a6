// f64 libm: each thread computes several functions of its input.
extern "C" __global__ void f64_libm(const double* x, double* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  double v = x[i];
  double* o = out + i * 10;
  o[0] = sin(v); o[1] = exp(v * 0.1); o[2] = pow(fabs(v) + 0.5, 1.7); o[3] = lgamma(fabs(v) + 0.1);
  o[4] = erfinv(v / 16.0); o[5] = log1p(fabs(v)); o[6] = atan2(v, 3.0); o[7] = cbrt(v);
  o[8] = sqrt(fabs(v)); o[9] = fma(v, v, -1.0) / (v + 20.0);
}
