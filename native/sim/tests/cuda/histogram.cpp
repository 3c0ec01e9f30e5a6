// Atomics on shared and global memory across concurrently simulated CTAs.
#include <climits>

#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("histogram");
  Rng rng;
  const int n = 20000;
  std::vector<unsigned> in(n);
  for (auto& x : in) x = rng.next() % 1000000;
  DeviceBuffer<unsigned> dIn(in), dBins(64), dMax(1);
  DeviceBuffer<int> dMin(std::vector<int>{INT_MAX});
  DeviceBuffer<float> dSum(1);
  int count = n;
  CHECK_OK(run(s.fn("histogram"), 12, 128, 0, {&dIn.ptr, &count, &dBins.ptr, &dMax.ptr, &dMin.ptr, &dSum.ptr}));
  std::vector<unsigned> want(64, 0);
  unsigned mx = 0;
  int mn = INT_MAX;
  for (unsigned v : in) {
    want[v % 64]++;
    mx = std::max(mx, v);
    mn = std::min(mn, static_cast<int>(v) - 500000);
  }
  CHECK(dBins.read() == want);
  CHECK(dMax.read()[0] == mx);
  CHECK(dMin.read()[0] == mn);
  CHECK(dSum.read()[0] == 0.5f * n);  // exact: every partial sum is a multiple of 0.5 below 2^24
  return tcheck::finish("histogram");
}
