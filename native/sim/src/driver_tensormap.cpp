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
// the map (tensormap.h, kind kTmIm2col) for cp.async.bulk.tensor's .im2col loads (exec_tma_modes.cpp).
// As for tiled maps, the packed 4/6-bit types and interleaved layouts are CUDA_ERROR_NOT_SUPPORTED.
// The corner arrays pair with the spatial dimensions innermost first (W, H, D: globalDim[1], [2],
// [3]), as CUTLASS and Triton's launcher fill them.
namespace {

// The im2col kinds' encoding (tensormap.h): shared by cuTensorMapEncodeIm2col and ...Wide.
void writeIm2colMap(CUtensorMap* out, tsim::TensorMapKind kind, unsigned dt, unsigned rank, uintptr_t ga, const cuuint64_t* dim,
                    const cuuint64_t* strides, const int* lower, const int* upper, unsigned corners, unsigned channels,
                    unsigned pixels, const cuuint32_t* elementStrides, unsigned sw, CUtensorMapFloatOOBfill oobFill) {
  tsim::TensorMapBits m;
  std::memset(&m, 0, sizeof m);
  m.magic = tsim::kTensorMapMagic;
  m.version = 1;
  m.kind = kind;
  m.rank = static_cast<uint8_t>(rank);
  m.dtype = static_cast<uint8_t>(dt);
  m.swizzle = static_cast<uint8_t>(sw);
  m.oobFill = static_cast<uint8_t>(oobFill);
  m.esize = static_cast<uint8_t>(tsim::tensorMapElemBytes(dt));
  m.addr = ga;
  for (unsigned i = 0; i < rank; i++) {
    m.dim[i] = dim[i];
    m.stride[i] = i == 0 ? m.esize : strides[i - 1];
    m.estride[i] = static_cast<uint8_t>(elementStrides[i]);
  }
  tsim::setIm2colBox(m, channels, pixels, lower, upper, corners);
  std::memset(out, 0, sizeof(CUtensorMap));
  std::memcpy(out, &m, sizeof m);
}

}  // namespace

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
  if (packed || il != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_NOT_SUPPORTED;  // not simulated (as for tiled maps)
  writeIm2colMap(tensorMap, tsim::kTmIm2col, dt, tensorRank, ga, globalDim, globalStrides, pixelBoxLowerCorner, pixelBoxUpperCorner,
                 spatial, channelsPerPixel, pixelsPerColumn, elementStrides, sw, oobFill);
  return CUDA_SUCCESS;
}

// cuTensorMapEncodeIm2colWide (CUDA 12.8; sm_100): the checks cuda.h documents, each
// CUDA_ERROR_INVALID_VALUE, then a map of kind kTmIm2colW or kTmIm2colW128 for the
// .im2col::w / .im2col::w::128 loads. The W corners pair with globalDim[1]; pixelsPerColumn is
// ignored (and not checked) in W128 mode, as the header says.
TSIM_API CUresult cuTensorMapEncodeIm2colWide(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                              void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                              int pixelBoxLowerCornerWidth, int pixelBoxUpperCornerWidth, cuuint32_t channelsPerPixel,
                                              cuuint32_t pixelsPerColumn, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                              CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                              CUtensorMapFloatOOBfill oobFill) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!tensorMap || reinterpret_cast<uintptr_t>(tensorMap) % 64) return CUDA_ERROR_INVALID_VALUE;
  const unsigned dt = static_cast<unsigned>(tensorDataType);
  if (dt > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B) return CUDA_ERROR_INVALID_VALUE;
  if (tensorRank < 3 || tensorRank > 5) return CUDA_ERROR_INVALID_VALUE;
  const unsigned il = static_cast<unsigned>(interleave), sw = static_cast<unsigned>(swizzle), md = static_cast<unsigned>(mode);
  if (il > CU_TENSOR_MAP_INTERLEAVE_32B || md > CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128) return CUDA_ERROR_INVALID_VALUE;
  // only these swizzles exist for wide maps
  if (sw != CU_TENSOR_MAP_SWIZZLE_64B && sw != CU_TENSOR_MAP_SWIZZLE_128B && sw != CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)
    return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(l2Promotion) > CU_TENSOR_MAP_L2_PROMOTION_L2_256B) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<unsigned>(oobFill) > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) return CUDA_ERROR_INVALID_VALUE;
  const bool packed16 = dt == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B || dt == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B;
  const bool packed = packed16 || dt == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
  const uintptr_t ga = reinterpret_cast<uintptr_t>(globalAddress);
  if (!globalAddress || ga % 16 || ((il == CU_TENSOR_MAP_INTERLEAVE_32B || packed16) && ga % 32)) return CUDA_ERROR_INVALID_VALUE;
  if (!globalDim || !globalStrides || !elementStrides) return CUDA_ERROR_INVALID_VALUE;
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
  const int lo = pixelBoxLowerCornerWidth, hi = pixelBoxUpperCornerWidth;
  if (lo < -32768 || lo > 32767 || hi < -32768 || hi > 32767) return CUDA_ERROR_INVALID_VALUE;
  if ((int64_t)globalDim[1] + hi - lo <= 0) return CUDA_ERROR_INVALID_VALUE;  // the W box [lo, W - 1 + hi] is empty
  if (channelsPerPixel == 0 || channelsPerPixel > 256 || (packed16 && channelsPerPixel != 128)) return CUDA_ERROR_INVALID_VALUE;
  if (md == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W && (pixelsPerColumn == 0 || pixelsPerColumn > 1024)) return CUDA_ERROR_INVALID_VALUE;
  const bool isFloat = dt >= CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && dt <= CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
  if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !isFloat) return CUDA_ERROR_INVALID_VALUE;
  if (dt == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B && il != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_INVALID_VALUE;
  if (packed16 && sw == CU_TENSOR_MAP_SWIZZLE_64B) return CUDA_ERROR_INVALID_VALUE;  // the packed types take 128B / 128B_ATOM_32B
  if (il == CU_TENSOR_MAP_INTERLEAVE_NONE && !packed) {
    // the bounding box's inner dimension (channels x element size) fits in the swizzle span
    const unsigned span = sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
    if ((uint64_t)channelsPerPixel * tsim::tensorMapElemBytes(dt) > span) return CUDA_ERROR_INVALID_VALUE;
  }
  if (packed || il != CU_TENSOR_MAP_INTERLEAVE_NONE) return CUDA_ERROR_NOT_SUPPORTED;  // not simulated (as for tiled maps)
  const unsigned pixels = md == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 ? 128 : pixelsPerColumn;
  writeIm2colMap(tensorMap, md == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 ? tsim::kTmIm2colW128 : tsim::kTmIm2colW, dt, tensorRank, ga,
                 globalDim, globalStrides, &lo, &hi, 1, channelsPerPixel, pixels, elementStrides, sw, oobFill);
  return CUDA_SUCCESS;
}
