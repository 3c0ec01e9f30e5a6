// Tensor-core mma.sync (inline PTX in a CUDA kernel) against a CPU matmul. Inputs are small
// integers and halves so every product and sum is exact in f32.
#include <cstring>

#include "cuda_host.h"

using namespace cudatest;

namespace {
uint16_t half(int v) {  // exact binary16 encoding of a small integer or half-integer*2 (|v| < 2048)
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = static_cast<unsigned>(v < 0 ? -v : v);
  int e = 31 - __builtin_clz(m);
  unsigned mant = (m << (10 - e)) & 1023;
  return sign | static_cast<uint16_t>((e + 15) << 10) | static_cast<uint16_t>(mant);
}
}  // namespace

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("mma");
  Rng rng;
  std::vector<int> a(16 * 16), b(16 * 8);
  for (auto& x : a) x = static_cast<int>(rng.next() % 17) - 8;
  for (auto& x : b) x = static_cast<int>(rng.next() % 17) - 8;
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); i++) ha[i] = half(a[i]);
  for (size_t i = 0; i < b.size(); i++) hb[i] = half(b[i]);
  std::vector<float> c(16 * 8);
  for (auto& x : c) x = static_cast<float>(static_cast<int>(rng.next() % 100) - 50) * 0.25f;
  DeviceBuffer<uint16_t> dA(ha), dB(hb);
  DeviceBuffer<float> dC(c), dD(16 * 8);
  CHECK_OK(run(s.fn("mma_16x8x16"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dC.ptr, &dD.ptr}));
  auto d = dD.read();
  int bad = 0;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      float want = c[i * 8 + j];
      for (int k = 0; k < 16; k++) want += static_cast<float>(a[i * 16 + k] * b[k * 8 + j]);
      if (d[i * 8 + j] != want && bad++ < 5) std::fprintf(stderr, "D[%d][%d] = %g, want %g\n", i, j, d[i * 8 + j], want);
    }
  CHECK(bad == 0);
  return tcheck::finish("mma");
}
