// A passing assert() runs normally; a failing one stops the launch with CUDA_ERROR_ASSERT (and
// the message on stderr), as on the real driver.
#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("assert");
  std::vector<int> in(64);
  for (int i = 0; i < 64; i++) in[i] = i + 10;
  DeviceBuffer<int> dIn(in), dOut(64);
  CHECK_OK(run(s.fn("checked"), 1, 64, 0, {&dIn.ptr, &dOut.ptr}));
  auto out = dOut.read();
  int bad = 0;
  for (int i = 0; i < 64; i++) bad += out[i] != 2 * (i + 10);
  CHECK(bad == 0);
  in[5] = 7;
  DeviceBuffer<int> dBad(in);
  CHECK(run(s.fn("checked"), 1, 64, 0, {&dBad.ptr, &dOut.ptr}) == CUDA_ERROR_ASSERT);
  return tcheck::finish("assert");
}
