// Floating-point helpers shared by the float, conversion and tensor-core handlers.
#pragma once
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ptx_decode.h"

namespace tsim {

enum Rnd : uint8_t { kRn = 0, kRz, kRm, kRp, kRna };

inline float flushF32(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
inline uint32_t f32bits(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }
inline float bitsf32(uint32_t b) { float x; memcpy(&x, &b, 4); return x; }
inline float f16ToF32(uint16_t h) {  // inline: the tensor-core handlers convert every operand
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  if (e == 31) return bitsf32(s | 0x7f800000u | (m << 13));
  if (e == 0) {
    float v = std::ldexp((float)m, -24);
    return s ? -v : v;
  }
  return bitsf32(s | ((e + 112) << 23) | (m << 13));
}
inline float bf16ToF32(uint16_t h) { return bitsf32((uint32_t)h << 16); }
// Rounds an exact value to fmt (F16, BF16, TF32, F32, F64) with mode r; returns the bits.
// NaN -> the canonical NaN of fmt.
uint64_t roundTo(long double x, Ty fmt, int r);
inline uint16_t f32ToF16(float x) { return (uint16_t)roundTo(x, Ty::F16, kRn); }

// Switches the host rounding mode for directed-rounding float instructions.
struct RoundScope {
  int old = -1;
  explicit RoundScope(int r) {
    if (r == kRn || r == kRna) return;
    old = fegetround();
    fesetround(r == kRz ? FE_TOWARDZERO : r == kRm ? FE_DOWNWARD : FE_UPWARD);
  }
  ~RoundScope() { if (old >= 0) fesetround(old); }
};

bool decodeFloat(Decoder& dc, const Stmt& st, Inst& in);
int parseRnd(const Stmt& st, bool integerRounding);  // -1 when none given

}  // namespace tsim
