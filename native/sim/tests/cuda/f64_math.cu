// Double precision: correctly rounded add/mul/fma/div/sqrt, plus libdevice exp/log/sin (long
// polynomial code in PTX: a good workout for the f64 instructions).
extern "C" __global__ void f64_ops(const double* a, const double* b, int n, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i];
  out[8 * i + 0] = x + y;
  out[8 * i + 1] = x * y;
  out[8 * i + 2] = fma(x, y, -1.0);
  out[8 * i + 3] = x / y;
  out[8 * i + 4] = sqrt(fabs(x));
  out[8 * i + 5] = exp(y);
  out[8 * i + 6] = log(fabs(x) + 1e-300);
  out[8 * i + 7] = sin(x);
}
