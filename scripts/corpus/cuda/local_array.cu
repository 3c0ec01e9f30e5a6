// A local-memory array indexed at run time, and a __noinline__ device call.
__device__ __noinline__ int mix(int a, int b, int* scratch) {
  scratch[a & 15] += b;
  return scratch[(a + b) & 15] * 3 + a;
}
extern "C" __global__ void local_array(const int* in, int* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  int buf[16];
  for (int k = 0; k < 16; k++) buf[k] = in[(i + k) % n];
  int acc = 0;
  for (int k = 0; k < 16; k++) acc += mix(buf[(k * 5 + i) & 15], k, buf);
  out[i] = acc + buf[in[i] & 15];
}
