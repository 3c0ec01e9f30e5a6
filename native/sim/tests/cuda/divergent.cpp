// Divergent loops and warp votes from nvcc against the same computation on the CPU.
#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("divergent");
  const int n = 1000;  // not a multiple of 32: the last warp has inactive lanes
  std::vector<unsigned long long> start(n);
  for (int i = 0; i < n; i++) start[i] = 1 + static_cast<unsigned long long>(i) * 7919 % 100000;
  const int warps = (n + 31) / 32;
  DeviceBuffer<unsigned long long> dStart(start);
  DeviceBuffer<int> dSteps(n), dAny(warps);
  DeviceBuffer<unsigned> dBallots(warps);
  int count = n;
  CHECK_OK(run(s.fn("collatz"), (n + 127) / 128, 128, 0, {&dStart.ptr, &count, &dSteps.ptr, &dBallots.ptr, &dAny.ptr}));
  auto steps = dSteps.read();
  auto ballots = dBallots.read();
  auto any = dAny.read();
  std::vector<int> want(n);
  for (int i = 0; i < n; i++) {
    unsigned long long x = start[i];
    int c = 0;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      if (++c > 1000) { c = -2; break; }
    }
    want[i] = c;
  }
  CHECK(steps == want);
  bool votesOk = true;
  for (int w = 0; w < warps; w++) {
    unsigned b = 0;
    int big = 0;
    for (int l = 0; l < 32 && w * 32 + l < n; l++) {
      if (want[w * 32 + l] > 50) b |= 1u << l;
      if (want[w * 32 + l] > 150) big = 1;
    }
    votesOk = votesOk && ballots[w] == b && (any[w] != 0) == (big != 0);
  }
  CHECK(votesOk);
  return tcheck::finish("divergent");
}
