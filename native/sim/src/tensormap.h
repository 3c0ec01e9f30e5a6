// The sim's encoding of the 128-byte opaque CUtensorMap (driver_tensormap.cpp writes it,
// exec_tma.cpp reads it). Only the driver and the sim's own instructions look inside.
#pragma once
#include <cstdint>
#include <cstring>

namespace tsim {

struct TensorMapBits {
  uint32_t magic;        // kTensorMapMagic
  uint8_t version;       // 1
  uint8_t rank;          // 1..5
  uint8_t dtype;         // CUtensorMapDataType
  uint8_t swizzle;       // CUtensorMapSwizzle
  uint8_t interleave;    // CUtensorMapInterleave
  uint8_t oobFill;       // CUtensorMapFloatOOBfill
  uint8_t esize;         // element bytes
  uint8_t kind;          // TensorMapKind: how the box is described (0 for every tiled map)
  uint64_t addr;         // global address
  uint64_t dim[5];       // elements per dimension
  uint64_t stride[5];    // bytes; stride[0] = esize, stride[i] = globalStrides[i-1]
  uint16_t box[5];       // boxDim; im2col kinds: im2colBox() below
  uint8_t estride[5];    // elementStrides (im2col: the traversal strides of W, H, D)
  uint8_t pad1[1];
  int16_t upper[3];      // im2col kinds: pixelBoxUpperCorner (W, H, D)
  uint16_t pad2;
};
static_assert(sizeof(TensorMapBits) == 128, "a CUtensorMap is 128 bytes");
constexpr uint32_t kTensorMapMagic = 0x50414d54;  // "TMAP"

// cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col, cuTensorMapEncodeIm2colWide (mode W or W128).
enum TensorMapKind : uint8_t { kTmTiled = 0, kTmIm2col = 1, kTmIm2colW = 2, kTmIm2colW128 = 3 };

// An im2col map has no boxDim: box[0] holds channelsPerPixel, box[1] pixelsPerColumn and
// box[2..4] the pixelBoxLowerCorner (W, H, D; int16, as the driver's ranges allow), the upper
// corner is in `upper`. A wide map uses index 0 (W) of both corners only.
struct Im2colBox {
  unsigned channels, pixels;
  int lower[3], upper[3];
};
inline Im2colBox im2colBox(const TensorMapBits& m) {
  Im2colBox b;
  b.channels = m.box[0];
  b.pixels = m.box[1];
  for (int i = 0; i < 3; i++) {
    b.lower[i] = (int16_t)m.box[2 + i];
    b.upper[i] = m.upper[i];
  }
  return b;
}
inline void setIm2colBox(TensorMapBits& m, unsigned channels, unsigned pixels, const int* lower, const int* upper, unsigned n) {
  m.box[0] = (uint16_t)channels;
  m.box[1] = (uint16_t)pixels;
  for (unsigned i = 0; i < 3; i++) {
    m.box[2 + i] = (uint16_t)(int16_t)(i < n ? lower[i] : 0);
    m.upper[i] = (int16_t)(i < n ? upper[i] : 0);
  }
}

inline unsigned tensorMapElemBytes(unsigned dtype) {
  static const unsigned sz[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dtype < 13 ? sz[dtype] : 0;
}

}  // namespace tsim
