// Divergent control flow: each thread runs a data-dependent loop (Collatz steps) with nested
// branches and an early exit, then the warp votes on the results.
extern "C" __global__ void collatz(const unsigned long long* start, int n, int* steps, unsigned* ballots,
                                   int* anyBig) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int count = -1;
  if (i < n) {
    unsigned long long x = start[i];
    count = 0;
    while (x != 1) {
      if (x & 1) {
        x = 3 * x + 1;
      } else {
        x >>= 1;
      }
      if (++count > 1000) {
        count = -2;
        break;
      }
    }
    steps[i] = count;
  }
  unsigned ballot = __ballot_sync(0xffffffffu, count > 50);
  int big = __any_sync(0xffffffffu, count > 150);
  if ((threadIdx.x & 31) == 0) {
    ballots[i / 32] = ballot;
    anyBig[i / 32] = big;
  }
}
