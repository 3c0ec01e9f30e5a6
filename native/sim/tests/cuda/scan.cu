// Inclusive prefix sum of one block (Hillis-Steele, double-buffered in shared memory), then a
// second pass that adds the totals of earlier blocks.
extern "C" __global__ void block_scan(const unsigned* in, unsigned* out, unsigned* blockTotals, int n) {
  __shared__ unsigned buf[2][1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int cur = 0;
  buf[0][t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    unsigned v = buf[cur][t];
    if (t >= off) v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][t];
  if (t == blockDim.x - 1) blockTotals[blockIdx.x] = buf[cur][t];
}

extern "C" __global__ void add_block_offsets(unsigned* out, const unsigned* blockTotals, int n) {
  __shared__ unsigned offset;
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (int b = 0; b < blockIdx.x; b++) s += blockTotals[b];
    offset = s;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += offset;
}
