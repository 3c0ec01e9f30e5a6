// f16 kernels from nvcc against a CPU reference of IEEE binary16 rounding.
#include <cmath>
#include <cstring>

#include "cuda_host.h"

using namespace cudatest;

namespace {
// binary16 encoding of a float, rounding to nearest even (towardZero: truncating).
uint16_t toHalf(float f, bool towardZero) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  float a = std::fabs(f);
  if (std::isnan(f)) return sign | 0x7e00;
  if (std::isinf(a)) return sign | 0x7c00;
  // Scale into integer units of the target precision and round.
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp16 = e - 1;  // unbiased exponent of a
  if (exp16 < -14) exp16 = -14;  // subnormal range shares the minimum exponent
  double unit = std::ldexp(1.0, exp16 - 10);
  double q = a / unit;
  double r = towardZero ? std::floor(q) : std::nearbyint(q);  // default FP env: ties to even
  double v = r * unit;
  if (v > 65504.0) return sign | (towardZero ? 0x7bff : 0x7c00);  // RZ saturates at the max finite
  // Re-encode v exactly.
  if (v == 0) return sign;
  int ve;
  std::frexp(v, &ve);
  int ue = ve - 1;
  if (ue < -14) return sign | static_cast<uint16_t>(v / std::ldexp(1.0, -24));
  uint16_t mant = static_cast<uint16_t>(v / std::ldexp(1.0, ue - 10)) - 1024;
  return sign | static_cast<uint16_t>((ue + 15) << 10) | mant;
}
float fromHalf(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float s = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 31) return m ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(static_cast<float>(m), -24);
  return s * std::ldexp(static_cast<float>(m + 1024), e - 25);
}
}  // namespace

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("half");
  Rng rng;
  std::vector<float> in = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65520.0f, 70000.0f, -1e9f, 1e-8f, 6e-8f,
                           5.96e-8f, 3e-5f, 1.0009765625f, 1.00048828125f, 1.00146484375f, 0.333333343f,
                           INFINITY, -INFINITY, 2049.0f, 2051.0f, -1e-30f};
  while (in.size() < 500) in.push_back(rng.uniform(-70000.0f, 70000.0f) / (1 << (rng.next() % 20)));
  const int n = static_cast<int>(in.size());
  DeviceBuffer<float> dIn(in), dBack(n), dSums(n), dProd(2 * n);
  DeviceBuffer<unsigned short> dRn(n), dRz(n);
  int count = n;
  CHECK_OK(run(s.fn("half_ops"), (n + 127) / 128, 128, 0,
               {&dIn.ptr, &count, &dRn.ptr, &dRz.ptr, &dBack.ptr, &dSums.ptr, &dProd.ptr}));
  auto rn = dRn.read(), rz = dRz.read();
  auto back = dBack.read(), sums = dSums.read(), prod = dProd.read();
  int bad = 0;
  for (int i = 0; i < n; i++) {
    uint16_t wantRn = toHalf(in[i], false), wantRz = toHalf(in[i], true);
    float h = fromHalf(wantRn);
    uint16_t wantSum = toHalf(h + 1.0f, false);  // exact in float, then one rounding to half
    uint16_t wantSq = toHalf(h * h, false);
    bool ok = rn[i] == wantRn && rz[i] == wantRz && std::memcmp(&back[i], &h, 4) == 0 &&
              toHalf(sums[i], false) == wantSum && fromHalf(wantSum) == sums[i] &&
              (std::isnan(prod[2 * i]) ? std::isnan(fromHalf(wantSq)) : prod[2 * i] == fromHalf(wantSq)) &&
              prod[2 * i + 1] == 1.0f;
    if (!ok && bad++ < 5)
      std::fprintf(stderr, "in=%a rn=%04x/%04x rz=%04x/%04x sum=%a sq=%a\n", in[i], rn[i], wantRn, rz[i], wantRz,
                   sums[i], prod[2 * i]);
  }
  CHECK(bad == 0);
  return tcheck::finish("half");
}
