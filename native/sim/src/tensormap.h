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
  uint8_t pad0;
  uint64_t addr;         // global address
  uint64_t dim[5];       // elements per dimension
  uint64_t stride[5];    // bytes; stride[0] = esize, stride[i] = globalStrides[i-1]
  uint16_t box[5];       // boxDim
  uint8_t estride[5];    // elementStrides
  uint8_t pad1[1];
};
static_assert(sizeof(TensorMapBits) <= 128, "a CUtensorMap is 128 bytes");
constexpr uint32_t kTensorMapMagic = 0x50414d54;  // "TMAP"

inline unsigned tensorMapElemBytes(unsigned dtype) {
  static const unsigned sz[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dtype < 13 ? sz[dtype] : 0;
}

}  // namespace tsim
