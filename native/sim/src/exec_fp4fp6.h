// The 4- and 6-bit floating-point formats of sm_100 (PTX ISA "Alternate floating point data
// formats"): e2m1 (bias 1, largest 6), e2m3 (bias 1, largest 7.5), e3m2 (bias 3, largest 28); no
// infinities and no NaN, subnormals at the smallest exponent, the sign in the top bit.
#pragma once
#include <cmath>
#include <cstdint>

namespace tsim {

struct MiniFloat {
  int ebits, mbits;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  double maxValue() const { return std::ldexp(2.0 - std::ldexp(1.0, -mbits), (1 << ebits) - 1 - bias()); }
};
constexpr MiniFloat kE2M1{2, 1}, kE2M3{2, 3}, kE3M2{3, 2};

inline double miniToDouble(uint32_t b, MiniFloat f) {
  const int nb = f.ebits + f.mbits;
  int s = (b >> nb) & 1, e = (b >> f.mbits) & ((1 << f.ebits) - 1), m = b & ((1 << f.mbits) - 1);
  double v = e == 0 ? std::ldexp((double)m, 1 - f.bias() - f.mbits) : std::ldexp((double)((1 << f.mbits) | m), e - f.bias() - f.mbits);
  return s ? -v : v;
}

// Rounds finite x to nearest-even in f with .satfinite (magnitudes beyond the largest value,
// infinities included, give that value with x's sign); .relu turns negative results into +0.
// The caller handles NaN, which these formats cannot hold (cvt: positive MAX_NORM).
inline uint32_t toMiniSatfinite(long double x, MiniFloat f, bool relu) {
  const int nb = f.ebits + f.mbits, emin = 1 - f.bias();
  const uint32_t sign = std::signbit(x) ? 1u << nb : 0;
  if (relu && sign) return 0;
  long double a = std::fabs(x);
  if (a == 0) return sign;
  if (a >= (long double)f.maxValue()) return sign | ((1u << nb) - 1);
  int e;
  std::frexp(a, &e);  // a = g * 2^e, g in [0.5, 1): the leading bit has weight 2^(e-1)
  int lead = std::max(e - 1, emin);
  long double q = std::nearbyint(std::ldexp(a, f.mbits - lead));  // ties to even (default rounding)
  // q counts steps of 2^(lead - mbits); rounding up to 2^(mbits+1) steps moves to the next binade,
  // which the encoding below absorbs (mantissa overflow carries into the exponent)
  uint32_t code;
  if (lead == emin && q < (1 << f.mbits)) code = (uint32_t)q;  // subnormal (or zero)
  else code = (uint32_t)((lead - emin) << f.mbits) + (uint32_t)q;  // = (lead + bias) << mbits | (q - 2^mbits)
  return sign | code;
}

}  // namespace tsim
