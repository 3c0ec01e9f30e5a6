// f32 libm (precise) and the fast-math intrinsics.
extern "C" __global__ void f32_libm(const float* x, float* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float v = x[i];
  float* o = out + i * 12;
  o[0] = sinf(v); o[1] = cosf(v); o[2] = expf(v * 0.1f); o[3] = logf(fabsf(v) + 1e-3f);
  o[4] = powf(fabsf(v) + 0.5f, 1.3f); o[5] = tanhf(v * 0.2f); o[6] = erff(v * 0.2f); o[7] = sqrtf(fabsf(v));
  o[8] = __expf(v * 0.1f); o[9] = __sinf(v); o[10] = __fdividef(v, 3.0f); o[11] = __frsqrt_rn(fabsf(v) + 1.0f);
}
