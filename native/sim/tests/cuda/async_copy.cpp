// cp.async through the CUDA libraries (async_copy.cu) against the plain copies they stand for.
#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("async_copy");
  std::vector<float> in(256);
  for (int i = 0; i < 256; i++) in[i] = static_cast<float>(i * 3 + 1);
  DeviceBuffer<float> dIn(in), dOut(256);
  CHECK_OK(run(s.fn("cg_copy"), 1, 256, 0, {&dIn.ptr, &dOut.ptr}));
  auto out = dOut.read();
  int bad = 0;
  for (int i = 0; i < 256; i++) bad += out[i] != in[255 - i];
  CHECK(bad == 0);
  DeviceBuffer<float> dOut2(128);
  CHECK_OK(run(s.fn("pipe_copy"), 1, 128, 0, {&dIn.ptr, &dOut2.ptr}));
  auto out2 = dOut2.read();
  bad = 0;
  for (int i = 0; i < 128; i++) bad += out2[i] != in[127 - i] + in[128 + i];
  CHECK(bad == 0);
  return tcheck::finish("async_copy");
}
