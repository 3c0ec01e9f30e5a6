// __syncthreads_count/and/or, __syncwarp with partial masks, shared-memory atomics, __threadfence.
extern "C" __global__ void sync_count(const int* in, int* out) {
  __shared__ int s_sum, s_min, s_or;
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  if (t == 0) { s_sum = 0; s_min = 0x7fffffff; s_or = 0; }
  __syncthreads();
  atomicAdd(&s_sum, v);
  atomicMin(&s_min, v);
  atomicOr(&s_or, 1 << (v & 31));
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(v > -900);
  int o = __syncthreads_or(v > 990);
  int w = 0;
  if ((t & 31) < 8) { w = v; __syncwarp(0xffu); }
  __threadfence();
  int* r = out + (blockIdx.x * blockDim.x + t) * 7;
  r[0] = c; r[1] = a; r[2] = o; r[3] = s_sum; r[4] = s_min; r[5] = s_or; r[6] = w;
}
