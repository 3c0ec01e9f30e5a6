// cuda::barrier with memcpy_async and a producer/consumer double buffer (mbarrier.cu) on the
// sim, against plain loops on the CPU.
#include "cuda_host.h"

using namespace cudatest;

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("mbarrier");
  std::vector<float> in(512);
  for (int i = 0; i < 512; i++) in[i] = static_cast<float>((i * 7) % 31 - 11);
  DeviceBuffer<float> dIn(in), dOut(128);
  CHECK_OK(run(s.fn("chunks"), 1, 128, 0, {&dIn.ptr, &dOut.ptr}));
  auto out = dOut.read();
  int bad = 0;
  for (int i = 0; i < 128; i++) {
    float want = 0;
    for (int c = 0; c < 4; c++) want += in[c * 128 + 127 - i];
    bad += out[i] != want;
  }
  CHECK(bad == 0);

  std::vector<int> iin(256);
  for (int i = 0; i < 256; i++) iin[i] = i * 3 - 100;
  DeviceBuffer<int> dI(iin), dO(256);
  CHECK_OK(run(s.fn("produce_consume"), 1, 64, 0, {&dI.ptr, &dO.ptr}));
  auto o = dO.read();
  bad = 0;
  for (int t = 0; t < 8; t++)
    for (int l = 0; l < 32; l++) bad += o[t * 32 + l] != iin[t * 32 + l] * (t + 1) + l;
  CHECK(bad == 0);
  return tcheck::finish("mbarrier");
}
