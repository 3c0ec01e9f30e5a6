// cuTensorMapEncodeTiled: builds the 128-byte tensor map TMA instructions read (tensormap.h), with
// the argument checks the driver documents (cuda.h), each failing with CUDA_ERROR_INVALID_VALUE.
// Interleaved layouts, the packed 4/6-bit types and the 128B_ATOM swizzles are accepted as the
// driver accepts them only where the sim can run them: otherwise CUDA_ERROR_NOT_SUPPORTED.
#include <cstring>

#include "driver_state.h"
#include "tensormap.h"

using tsimdrv::Driver;

TSIM_API CUresult cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                         void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                         const cuuint32_t* boxDim, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                         CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                         CUtensorMapFloatOOBfill oobFill) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!tensorMap || reinterpret_cast<uintptr_t>(tensorMap) % 64) return CUDA_ERROR_INVALID_VALUE;
  const unsigned dt = static_cast<unsigned>(tensorDataType);
  if (dt > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B) return CUDA_ERROR_INVALID_VALUE;
  if (tensorRank == 0 || tensorRank > 5) return CUDA_ERROR_INVALID_VALUE;
  const unsigned il = static_cast<unsigned>(interleave), sw = static_cast<unsigned>(swizzle);
  if (il > CU_TENSOR_MAP_INTERLEAVE_32B || sw > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(l2Promotion) > CU_TENSOR_MAP_L2_PROMOTION_L2_256B) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(oobFill) > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) return CUDA_ERROR_INVALID_VALUE;
  if (il != CU_TENSOR_MAP_INTERLEAVE_NONE && tensorRank < 3) return CUDA_ERROR_INVALID_VALUE;
  const uintptr_t ga = reinterpret_cast<uintptr_t>(globalAddress);
  if (!globalAddress || ga % 16 || (il == CU_TENSOR_MAP_INTERLEAVE_32B && ga % 32)) return CUDA_ERROR_INVALID_VALUE;
  if (!globalDim || !boxDim || !elementStrides || (tensorRank > 1 && !globalStrides)) return CUDA_ERROR_INVALID_VALUE;
  const bool packed = dt >= CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
  const bool isFloat = dt >= CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && dt <= CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
  if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !isFloat) return CUDA_ERROR_INVALID_VALUE;
  if (il == CU_TENSOR_MAP_INTERLEAVE_32B && sw != CU_TENSOR_MAP_SWIZZLE_32B) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < tensorRank; i++) {
    if (globalDim[i] == 0 || globalDim[i] > (1ull << 32)) return CUDA_ERROR_INVALID_VALUE;
    if (boxDim[i] == 0 || boxDim[i] > 256) return CUDA_ERROR_INVALID_VALUE;
    if (elementStrides[i] == 0 || elementStrides[i] > 8) return CUDA_ERROR_INVALID_VALUE;
  }
  for (unsigned i = 0; i + 1 < tensorRank; i++) {
    if (globalStrides[i] % 16 || globalStrides[i] >= (1ull << 40)) return CUDA_ERROR_INVALID_VALUE;
    if (il == CU_TENSOR_MAP_INTERLEAVE_32B && globalStrides[i] % 32) return CUDA_ERROR_INVALID_VALUE;
  }
  if (packed) return CUDA_ERROR_NOT_SUPPORTED;  // the 4/6-bit packed types are not simulated
  const unsigned es = tsim::tensorMapElemBytes(dt);
  if (il == CU_TENSOR_MAP_INTERLEAVE_NONE) {
    if ((uint64_t)boxDim[0] * es % 16) return CUDA_ERROR_INVALID_VALUE;
    if (sw != CU_TENSOR_MAP_SWIZZLE_NONE) {
      const unsigned span = sw == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
      if ((uint64_t)boxDim[0] * es > span) return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (il != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_NOT_SUPPORTED;  // interleaved layouts are not simulated
  tsim::TensorMapBits m;
  std::memset(&m, 0, sizeof m);
  m.magic = tsim::kTensorMapMagic;
  m.version = 1;
  m.rank = static_cast<uint8_t>(tensorRank);
  m.dtype = static_cast<uint8_t>(dt);
  m.swizzle = static_cast<uint8_t>(sw);
  m.interleave = static_cast<uint8_t>(il);
  m.oobFill = static_cast<uint8_t>(oobFill);
  m.esize = static_cast<uint8_t>(es);
  m.addr = ga;
  for (unsigned i = 0; i < tensorRank; i++) {
    m.dim[i] = globalDim[i];
    m.stride[i] = i == 0 ? es : globalStrides[i - 1];
    m.box[i] = static_cast<uint16_t>(boxDim[i]);
    m.estride[i] = static_cast<uint8_t>(elementStrides[i]);
  }
  std::memset(tensorMap, 0, sizeof(CUtensorMap));
  std::memcpy(tensorMap, &m, sizeof m);
  return CUDA_SUCCESS;
}

// cuTensorMapEncodeIm2col: every argument check cuda.h documents (CUDA_ERROR_INVALID_VALUE), then
// CUDA_ERROR_NOT_SUPPORTED: im2col tensor copies are not simulated (the sim would have to guess the
// hardware's traversal of the bounding box where the ISA text it is checked against is not at
// hand; refused rather than run wrong). The corner arrays pair with the spatial dimensions
// innermost first (W, H, D: globalDim[1], [2], [3]), as Triton's launcher fills them.
TSIM_API CUresult cuTensorMapEncodeIm2col(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                          void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                          const int* pixelBoxLowerCorner, const int* pixelBoxUpperCorner,
                                          cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn, const cuuint32_t* elementStrides,
                                          CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                          CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!tensorMap || reinterpret_cast<uintptr_t>(tensorMap) % 64) return CUDA_ERROR_INVALID_VALUE;
  const unsigned dt = static_cast<unsigned>(tensorDataType);
  if (dt > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B) return CUDA_ERROR_INVALID_VALUE;
  if (tensorRank < 3 || tensorRank > 5) return CUDA_ERROR_INVALID_VALUE;
  const unsigned il = static_cast<unsigned>(interleave), sw = static_cast<unsigned>(swizzle);
  if (il > CU_TENSOR_MAP_INTERLEAVE_32B || sw > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(l2Promotion) > CU_TENSOR_MAP_L2_PROMOTION_L2_256B) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(oobFill) > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) return CUDA_ERROR_INVALID_VALUE;
  const bool packed16 = dt == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B || dt == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B;
  const bool packed = packed16 || dt == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
  const uintptr_t ga = reinterpret_cast<uintptr_t>(globalAddress);
  if (!globalAddress || ga % 16 || ((il == CU_TENSOR_MAP_INTERLEAVE_32B || packed16) && ga % 32)) return CUDA_ERROR_INVALID_VALUE;
  if (!globalDim || !globalStrides || !pixelBoxLowerCorner || !pixelBoxUpperCorner || !elementStrides) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < tensorRank; i++) {
    if (globalDim[i] == 0 || globalDim[i] > (1ull << 32)) return CUDA_ERROR_INVALID_VALUE;
    if (elementStrides[i] == 0 || elementStrides[i] > 8) return CUDA_ERROR_INVALID_VALUE;
  }
  if (packed16 && globalDim[0] % 128) return CUDA_ERROR_INVALID_VALUE;
  if (dt == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B && globalDim[0] % 2) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i + 1 < tensorRank; i++) {
    if (globalStrides[i] % 16 || globalStrides[i] >= (1ull << 40)) return CUDA_ERROR_INVALID_VALUE;
    if ((il == CU_TENSOR_MAP_INTERLEAVE_32B || packed16) && globalStrides[i] % 32) return CUDA_ERROR_INVALID_VALUE;
  }
  // the corners: one offset per spatial dimension, in a range that narrows with the rank
  const unsigned spatial = tensorRank - 2;
  const int lim = tensorRank == 3 ? 32768 : tensorRank == 4 ? 128 : 16;
  for (unsigned i = 0; i < spatial; i++) {
    const int lo = pixelBoxLowerCorner[i], hi = pixelBoxUpperCorner[i];
    if (lo < -lim || lo > lim - 1 || hi < -lim || hi > lim - 1) return CUDA_ERROR_INVALID_VALUE;
    // the bounding box [lo, dim - 1 + hi] of that dimension must not be empty
    if ((int64_t)globalDim[i + 1] + hi - lo <= 0) return CUDA_ERROR_INVALID_VALUE;
  }
  if (channelsPerPixel == 0 || channelsPerPixel > 256 || (packed16 && channelsPerPixel != 128)) return CUDA_ERROR_INVALID_VALUE;
  if (pixelsPerColumn == 0 || pixelsPerColumn > 1024) return CUDA_ERROR_INVALID_VALUE;
  const bool isFloat = dt >= CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && dt <= CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
  if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !isFloat) return CUDA_ERROR_INVALID_VALUE;
  if (il == CU_TENSOR_MAP_INTERLEAVE_32B && sw != CU_TENSOR_MAP_SWIZZLE_32B) return CUDA_ERROR_INVALID_VALUE;
  if (dt == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B && il != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_INVALID_VALUE;
  if (il == CU_TENSOR_MAP_INTERLEAVE_NONE && sw != CU_TENSOR_MAP_SWIZZLE_NONE && !packed) {
    // the bounding box's inner dimension (channels x element size) fits in the swizzle span
    const unsigned span = sw == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
    if ((uint64_t)channelsPerPixel * tsim::tensorMapElemBytes(dt) > span) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_ERROR_NOT_SUPPORTED;  // valid, but im2col copies are not simulated (above)
}
