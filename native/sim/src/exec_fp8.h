// The 8-bit floating-point formats of sm_89/sm_90 (PTX ISA "Alternate floating point data
// formats"): e4m3 (bias 7, no infinities, S.1111.111 is NaN, largest finite 448) and e5m2 (bias 15,
// IEEE-like: infinities and NaNs at exponent 31, largest finite 57344).
#pragma once
#include <cmath>
#include <cstdint>

namespace tsim {

inline double e4m3ToDouble(uint8_t b) {
  int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  double v;
  if (e == 15 && m == 7) return std::nan("");
  if (e == 0) v = std::ldexp((double)m, -9);
  else v = std::ldexp(1.0 + m / 8.0, e - 7);
  return s ? -v : v;
}
inline double e5m2ToDouble(uint8_t b) {
  int s = b >> 7, e = (b >> 2) & 31, m = b & 3;
  double v;
  if (e == 31) {
    if (m) return std::nan("");
    v = INFINITY;
  } else if (e == 0) {
    v = std::ldexp((double)m, -16);
  } else {
    v = std::ldexp(1.0 + m / 4.0, e - 15);
  }
  return s ? -v : v;
}

// Rounds x to nearest-even in e4m3 (e5m2 when e5) with .satfinite: a NaN gives 0x7f, a magnitude
// beyond the largest finite value (infinities included) gives that value with x's sign. .relu
// turns negative results into +0.
inline uint8_t toFp8Satfinite(long double x, bool e5, bool relu) {
  const int mbits = e5 ? 2 : 3, emin = e5 ? -14 : -6, bias = e5 ? 15 : 7;
  const long double maxv = e5 ? 57344.0L : 448.0L;
  if (x != x) return 0x7f;
  bool neg = std::signbit(x);
  if (relu && neg) return 0;
  long double a = std::fabs(x);
  uint8_t sign = neg ? 0x80 : 0;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit has weight 2^(e-1)
  int lead = e - 1;
  if (lead < emin) lead = emin;
  long double step = std::ldexp(1.0L, lead - mbits);
  long double q = std::nearbyint(a / step);  // ties to even (default rounding mode)
  long double v = q * step;
  if (v > maxv) v = maxv;
  if (v == 0) return sign;
  std::frexp(v, &e);
  lead = e - 1;
  if (lead < emin) {  // subnormal
    return (uint8_t)(sign | (uint8_t)(v / std::ldexp(1.0L, emin - mbits)));
  }
  unsigned mant = (unsigned)(v / std::ldexp(1.0L, lead - mbits)) - (1u << mbits);
  return (uint8_t)(sign | ((lead + bias) << mbits) | mant);
}

}  // namespace tsim
