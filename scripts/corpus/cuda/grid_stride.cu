// A grid-stride loop with 64-bit indexing (saxpy on doubles and an int64 hash).
extern "C" __global__ void grid_stride(const double* x, double* y, long long* h, double a, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    y[i] = a * x[i] + y[i];
    unsigned long long k = (unsigned long long)i * 0x9E3779B97F4A7C15ull;
    h[i] = (long long)(k ^ (k >> 29)) / 7 + i % 13;
  }
}
