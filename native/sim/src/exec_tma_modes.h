// The load modes of cp.async.bulk.tensor besides .tile (exec_tma_modes.cpp): .tile::gather4 /
// .tile::scatter4 (four rows of a 2-D tensor), .im2col (a column of pixels of an NWC / NHWC /
// NDHWC tensor) and .im2col::w / .im2col::w::128 (pixels along W only). exec_tma.cpp decodes the
// instruction, reads the tensor map and lands the box; this file says which elements the box holds.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "tensormap.h"

namespace tsim {

enum TmaLoadMode : uint8_t { kTmaTile = 0, kTmaGather4, kTmaScatter4, kTmaIm2col, kTmaIm2colW, kTmaIm2colW128 };

const char* tmaModeName(uint8_t mode);
// Elements of the instruction's tensorCoords vector ({col, row0, row1, row2, row3} for the four-row
// modes) and of its im2colInfo vector (the im2col offsets; {wHalo, wOffset} for the W modes).
unsigned tmaCoordCount(uint8_t mode, unsigned rank);
unsigned tmaInfoCount(uint8_t mode, unsigned rank);

// Why this copy cannot run with this map and these operands (the ISA leaves it undefined, or the
// sim does not implement it): a message for a named fault, "" when it can run.
std::string tmaModeCheck(const TensorMapBits& m, uint8_t mode, const int32_t* coord, const uint16_t* info);
// Bytes the box occupies in shared memory (the load's complete_tx count).
uint64_t tmaModeBytes(const TensorMapBits& m, uint8_t mode);
// Walks the box as exec_tma.cpp's walkBox does: f(element index in the shared box, global address
// or ~0 when out of bounds, run length of consecutive elements), in order.
using TmaRun = std::function<bool(uint64_t, uint64_t, unsigned)>;
bool tmaModeWalk(const TensorMapBits& m, uint8_t mode, const int32_t* coord, const uint16_t* info, const TmaRun& f);

}  // namespace tsim
