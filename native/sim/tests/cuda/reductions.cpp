// Shared-memory and shuffle block reductions from nvcc, checked against CPU sums.
#include <cmath>

#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("reductions");
  Rng rng;

  // Floats: the tree order differs from a serial sum, so compare with a relative tolerance.
  const int n = 5000, block = 256, grid = (n + 2 * block - 1) / (2 * block);
  std::vector<float> in(n);
  for (auto& x : in) x = rng.uniform(-1.0f, 1.0f);
  DeviceBuffer<float> dIn(in), dOut(grid);
  int count = n;
  CHECK_OK(run(s.fn("block_sum_shared"), grid, block, block * sizeof(float), {&dIn.ptr, &dOut.ptr, &count}));
  std::vector<float> partial = dOut.read();
  for (int b = 0; b < grid; b++) {
    double want = 0;
    for (int i = b * 2 * block; i < std::min(n, (b + 1) * 2 * block); i++) want += in[i];
    CHECK(std::fabs(partial[b] - want) <= 1e-4 * (1 + std::fabs(want)));
  }

  // Integers: exact. A block size that is not a multiple of 32 leaves a partial last warp.
  const int m = 3001, block2 = 200, grid2 = (m + block2 - 1) / block2;
  std::vector<int> ints(m);
  for (auto& x : ints) x = static_cast<int>(rng.next() % 2001) - 1000;
  DeviceBuffer<int> dInts(ints), dSums(grid2);
  count = m;
  CHECK_OK(run(s.fn("block_sum_shuffle"), grid2, block2, 0, {&dInts.ptr, &dSums.ptr, &count}));
  std::vector<int> sums = dSums.read();
  for (int b = 0; b < grid2; b++) {
    int want = 0;
    for (int i = b * block2; i < std::min(m, (b + 1) * block2); i++) want += ints[i];
    CHECK(sums[b] == want);
  }
  return tcheck::finish("reductions");
}
