// wmma kernels from nvcc (wmma.cu) against CPU matmuls. Inputs are small integers (exact in f16,
// tf32 and f32), so every product and sum is exact; the integer kernels check wrapping and
// .satfinite clamping at the s32 limits.
#include <cstdint>
#include <cstring>

#include "cuda_host.h"

using namespace cudatest;

namespace {
uint16_t half(int v) {  // exact binary16 encoding of a small integer (|v| < 2048)
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = static_cast<unsigned>(v < 0 ? -v : v);
  int e = 31 - __builtin_clz(m);
  unsigned mant = (m << (10 - e)) & 1023;
  return sign | static_cast<uint16_t>((e + 15) << 10) | static_cast<uint16_t>(mant);
}
float fromHalf(uint16_t h) {  // normal halves only (the results here are small integers)
  if ((h & 0x7fff) == 0) return 0.0f;
  int e = ((h >> 10) & 31) - 15;
  float m = 1.0f + (h & 1023) / 1024.0f;
  float v = m * static_cast<float>(1 << (e + 8)) / 256.0f;
  return (h & 0x8000) ? -v : v;
}
int small(Rng& r) { return static_cast<int>(r.next() % 9) - 4; }
}  // namespace

int main() {
  Session s;
  if (!s.ok) return tcheck::finish("wmma");
  Rng rng;
  {  // f16 m16n16k16: A row-major, B col-major (B[k][n] at n*16 + k)
    std::vector<int> a(256), b(256), c(256);
    for (auto& x : a) x = small(rng);
    for (auto& x : b) x = small(rng);
    for (auto& x : c) x = small(rng);
    std::vector<uint16_t> ha(256), hb(256), hc(256);
    for (int i = 0; i < 256; i++) { ha[i] = half(a[i]); hb[i] = half(b[i]); hc[i] = half(c[i]); }
    DeviceBuffer<uint16_t> dA(ha), dB(hb), dC(hc), d16(256);
    DeviceBuffer<float> d32(256);
    CHECK_OK(run(s.fn("wmma_f16"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dC.ptr, &d32.ptr, &d16.ptr}));
    auto r32 = d32.read();
    auto r16 = d16.read();
    int bad = 0;
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
        int dot = 0;
        for (int k = 0; k < 16; k++) dot += a[i * 16 + k] * b[j * 16 + k];
        float want32 = (dot + 0.5f) * 2.0f;           // fill 0.5, then scaled by 2
        if (r32[j * 16 + i] != want32 && bad++ < 5)   // stored column-major
          std::fprintf(stderr, "f32 D[%d][%d] = %g, want %g\n", i, j, r32[j * 16 + i], want32);
        float want16 = static_cast<float>(dot + c[i * 16 + j]);
        if (fromHalf(r16[i * 16 + j]) != want16 && bad++ < 5)
          std::fprintf(stderr, "f16 D[%d][%d] = %g, want %g\n", i, j, fromHalf(r16[i * 16 + j]), want16);
      }
    CHECK(bad == 0);
  }
  {  // tf32 m16n16k8: A 16x8 row-major, B 8x16 row-major, C in place
    std::vector<float> a(128), b(128), c(256);
    for (auto& x : a) x = static_cast<float>(small(rng));
    for (auto& x : b) x = static_cast<float>(small(rng));
    for (auto& x : c) x = static_cast<float>(small(rng));
    DeviceBuffer<float> dA(a), dB(b), dC(c);
    CHECK_OK(run(s.fn("wmma_tf32"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dC.ptr}));
    auto r = dC.read();
    int bad = 0;
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
        float want = c[i * 16 + j];
        for (int k = 0; k < 8; k++) want += a[i * 8 + k] * b[k * 16 + j];
        if (r[i * 16 + j] != want && bad++ < 5) std::fprintf(stderr, "tf32 D[%d][%d] = %g, want %g\n", i, j, r[i * 16 + j], want);
      }
    CHECK(bad == 0);
  }
  {  // f16 m32n8k16: A 32x16 col-major (A[m][k] at k*32 + m) through shared memory, B 16x8 row-major
    std::vector<int> a(512), b(128);
    for (auto& x : a) x = small(rng);
    for (auto& x : b) x = small(rng);
    std::vector<uint16_t> ha(512), hb(128);
    for (int i = 0; i < 512; i++) ha[i] = half(a[i]);
    for (int i = 0; i < 128; i++) hb[i] = half(b[i]);
    DeviceBuffer<uint16_t> dA(ha), dB(hb);
    DeviceBuffer<float> dD(256);
    CHECK_OK(run(s.fn("wmma_32x8"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dD.ptr}));
    auto r = dD.read();
    int bad = 0;
    for (int m = 0; m < 32; m++)
      for (int n = 0; n < 8; n++) {
        float want = 1.0f;
        for (int k = 0; k < 16; k++) want += static_cast<float>(a[k * 32 + m] * b[k * 8 + n]);
        if (r[m * 8 + n] != want && bad++ < 5) std::fprintf(stderr, "32x8 D[%d][%d] = %g, want %g\n", m, n, r[m * 8 + n], want);
      }
    CHECK(bad == 0);
  }
  {  // u8 m8n32k16 with .satfinite: A 8x16 row-major, B 16x32 col-major (B[k][n] at n*16 + k), C 8x32
     // row-major around the s32 limits so about half the sums clamp
    std::vector<uint8_t> a(128), b(512);
    std::vector<int32_t> c(256);
    for (auto& x : a) x = static_cast<uint8_t>(rng.next());
    for (auto& x : b) x = static_cast<uint8_t>(rng.next());
    for (int i = 0; i < 256; i++) c[i] = (i & 1 ? INT32_MAX : INT32_MIN) - (i & 1 ? 1 : -1) * static_cast<int32_t>(rng.next() % 2000000);
    DeviceBuffer<uint8_t> dA(a), dB(b);
    DeviceBuffer<int32_t> dC(c), dD(256);
    CHECK_OK(run(s.fn("wmma_u8_sat"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dC.ptr, &dD.ptr}));
    auto r = dD.read();
    int bad = 0, clamped = 0;
    for (int m = 0; m < 8; m++)
      for (int n = 0; n < 32; n++) {
        int64_t want = c[m * 32 + n];
        for (int k = 0; k < 16; k++) want += static_cast<int64_t>(a[m * 16 + k]) * b[n * 16 + k];
        if (want > INT32_MAX) { want = INT32_MAX; clamped++; }
        if (want < INT32_MIN) { want = INT32_MIN; clamped++; }
        if (r[m * 32 + n] != want && bad++ < 5)
          std::fprintf(stderr, "u8 D[%d][%d] = %d, want %lld\n", m, n, r[m * 32 + n], static_cast<long long>(want));
      }
    CHECK(bad == 0);
    CHECK(clamped > 0);
  }
  {  // s8 m32n8k16, wrapping: A 32x16 col-major (A[m][k] at k*32 + m), B 16x8 row-major, C 32x8
     // col-major near INT32_MAX so some sums wrap
    std::vector<int8_t> a(512), b(128);
    std::vector<int32_t> c(256);
    for (auto& x : a) x = static_cast<int8_t>(rng.next());
    for (auto& x : b) x = static_cast<int8_t>(rng.next());
    for (auto& x : c) x = INT32_MAX - static_cast<int32_t>(rng.next() % 200000);
    DeviceBuffer<int8_t> dA(a), dB(b);
    DeviceBuffer<int32_t> dC(c), dD(256);
    CHECK_OK(run(s.fn("wmma_s8_wrap"), 1, 32, 0, {&dA.ptr, &dB.ptr, &dC.ptr, &dD.ptr}));
    auto r = dD.read();
    int bad = 0, wrapped = 0;
    for (int m = 0; m < 32; m++)
      for (int n = 0; n < 8; n++) {
        int64_t sum = c[n * 32 + m];
        for (int k = 0; k < 16; k++) sum += static_cast<int64_t>(a[k * 32 + m]) * b[k * 8 + n];
        if (sum > INT32_MAX) wrapped++;
        int32_t want = static_cast<int32_t>(static_cast<uint32_t>(sum));
        if (r[m * 8 + n] != want && bad++ < 5) std::fprintf(stderr, "s8 D[%d][%d] = %d, want %d\n", m, n, r[m * 8 + n], want);
      }
    CHECK(bad == 0);
    CHECK(wrapped > 0);
  }
  return tcheck::finish("wmma");
}
