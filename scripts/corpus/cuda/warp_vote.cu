// Votes and match under full and partial membermasks.
extern "C" __global__ void warp_vote(const int* in, unsigned* out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[t];
  unsigned lane = threadIdx.x & 31;
  unsigned r0 = __ballot_sync(0xffffffffu, v > 0);
  unsigned r1 = __all_sync(0xffffffffu, v > -90);
  unsigned r2 = __any_sync(0xffffffffu, v > 95);
  unsigned r3 = __match_any_sync(0xffffffffu, v & 3);
  int pred;
  unsigned r4 = __match_all_sync(0xffffffffu, v >> 30, &pred);
  unsigned r5 = 0;
  if (lane < 16) r5 = __ballot_sync(0x0000ffffu, v & 1);
  unsigned r6 = __activemask();
  out[t * 8 + 0] = r0; out[t * 8 + 1] = r1; out[t * 8 + 2] = r2; out[t * 8 + 3] = r3;
  out[t * 8 + 4] = r4; out[t * 8 + 5] = pred; out[t * 8 + 6] = r5; out[t * 8 + 7] = r6;
}
