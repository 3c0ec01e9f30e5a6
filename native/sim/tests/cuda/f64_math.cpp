// f64 kernels from nvcc: IEEE operations must be bit-exact; libdevice's exp/log/sin are within
// their documented error (1-2 ulp), checked here with a relative tolerance.
#include <cmath>
#include <cstring>

#include "cuda_host.h"

using namespace cudatest;

namespace {
bool same(double x, double y) { return std::memcmp(&x, &y, 8) == 0 || (std::isnan(x) && std::isnan(y)); }
bool close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= 4e-16 * std::fabs(want) + 1e-300;
}
}  // namespace

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("f64_math");
  Rng rng;
  std::vector<double> a = {0.0, -0.0, 1.0, 3.0, 1e308, -1e-310, 0.1, 2.0};
  std::vector<double> b = {1.0, 3.0, 0.0, 7.0, 10.0, 0.5, 0.2, -0.0};
  while (a.size() < 300) {
    a.push_back((rng.uniform(-1.0f, 1.0f) + rng.uniform(-1.0f, 1.0f) * 1e-7) * std::ldexp(1.0, rng.next() % 40 - 20));
    b.push_back((rng.uniform(-1.0f, 1.0f) + rng.uniform(-1.0f, 1.0f) * 1e-7) * 10.0);
  }
  const int n = static_cast<int>(a.size());
  DeviceBuffer<double> dA(a), dB(b), dOut(8 * n);
  int count = n;
  CHECK_OK(run(s.fn("f64_ops"), (n + 63) / 64, 64, 0, {&dA.ptr, &dB.ptr, &count, &dOut.ptr}));
  auto out = dOut.read();
  int bad = 0;
  for (int i = 0; i < n; i++) {
    double x = a[i], y = b[i];
    const double* o = &out[8 * i];
    bool ok = same(o[0], x + y) && same(o[1], x * y) && same(o[2], std::fma(x, y, -1.0)) && same(o[3], x / y) &&
              same(o[4], std::sqrt(std::fabs(x))) && close(o[5], std::exp(y)) &&
              close(o[6], std::log(std::fabs(x) + 1e-300)) && close(o[7], std::sin(x));
    if (!ok && bad++ < 5)
      std::fprintf(stderr, "x=%a y=%a: %a %a %a %a %a %a %a %a\n", x, y, o[0], o[1], o[2], o[3], o[4], o[5], o[6],
                   o[7]);
  }
  CHECK(bad == 0);
  return tcheck::finish("f64_math");
}
