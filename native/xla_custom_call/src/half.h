// Host-side f16 and bf16 <-> f32 (round to nearest even, NaN kept quiet), for the CPU targets.
#pragma once
#include <cstdint>
#include <cstring>

namespace tx {

struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };

inline float bits_to_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t f32_to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

inline float to_float(f16 h) {
  const uint32_t sign = uint32_t(h.bits & 0x8000) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1f, man = h.bits & 0x3ff;
  if (exp == 0x1f) return bits_to_f32(sign | 0x7f800000 | (man << 13));
  if (exp == 0) {
    if (man == 0) return bits_to_f32(sign);
    float v = float(man) * (1.0f / 16777216.0f);  // man * 2^-24
    return sign ? -v : v;
  }
  return bits_to_f32(sign | ((exp + 112) << 23) | (man << 13));
}

inline f16 to_f16(float f) {
  const uint32_t u = f32_to_bits(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000);
  const uint32_t a = u & 0x7fffffff;
  if (a > 0x7f800000) return f16{uint16_t(sign | 0x7e00)};
  if (a >= 0x477ff000) return f16{uint16_t(sign | 0x7c00)};  // rounds to >= 65520: inf
  if (a < 0x38800000) {                                       // below 2^-14: subnormal or zero
    const float v = bits_to_f32(a) * 16777216.0f;             // in units of 2^-24, exact
    const uint32_t i = uint32_t(v);
    const float rem = v - float(i);
    uint32_t r = i + ((rem > 0.5f || (rem == 0.5f && (i & 1))) ? 1 : 0);
    return f16{uint16_t(sign | r)};
  }
  uint32_t m = a - (112u << 23);  // rebias exponent
  const uint32_t lsb = (m >> 13) & 1;
  m += 0xfff + lsb;
  return f16{uint16_t(sign | (m >> 13))};
}

inline float to_float(bf16 b) { return bits_to_f32(uint32_t(b.bits) << 16); }
inline bf16 to_bf16(float f) {
  const uint32_t u = f32_to_bits(f);
  if ((u & 0x7fffffff) > 0x7f800000) return bf16{uint16_t((u >> 16) | 0x40)};
  return bf16{uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16)};
}

// Conversions used by the templates: load(x) -> accumulation type, store<T>(v).
inline float load(f16 v) { return to_float(v); }
inline float load(bf16 v) { return to_float(v); }
inline float load(float v) { return v; }
inline double load(double v) { return v; }

template <class T> inline T store(double v);
template <> inline f16 store<f16>(double v) { return to_f16(float(v)); }
template <> inline bf16 store<bf16>(double v) { return to_bf16(float(v)); }
template <> inline float store<float>(double v) { return float(v); }
template <> inline double store<double>(double v) { return v; }

}  // namespace tx
