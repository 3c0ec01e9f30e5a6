// Two-pass inclusive scan from nvcc against a serial CPU scan.
#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("scan");
  Rng rng;
  const int n = 2500, block = 512, grid = (n + block - 1) / block;
  std::vector<unsigned> in(n);
  for (auto& x : in) x = rng.next() % 100;
  DeviceBuffer<unsigned> dIn(in), dOut(n), dTotals(grid);
  int count = n;
  CHECK_OK(run(s.fn("block_scan"), grid, block, 0, {&dIn.ptr, &dOut.ptr, &dTotals.ptr, &count}));
  CHECK_OK(run(s.fn("add_block_offsets"), grid, block, 0, {&dOut.ptr, &dTotals.ptr, &count}));
  std::vector<unsigned> out = dOut.read();
  unsigned acc = 0;
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    acc += in[i];
    if (out[i] != acc) wrong++;
  }
  CHECK(wrong == 0);
  return tcheck::finish("scan");
}
