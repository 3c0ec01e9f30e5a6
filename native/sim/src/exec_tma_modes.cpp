// Which elements a cp.async.bulk.tensor box holds in the modes besides .tile (PTX ISA 5.5.3.4
// ".tile::scatter4 and .tile::gather4 modes", 5.5.4 "im2col mode", 5.5.5 "im2col::w and
// im2col::w::128 modes"; CUDA driver cuTensorMapEncodeIm2col / cuTensorMapEncodeIm2colWide).
//
// .tile::gather4 / .tile::scatter4 (sm_100a): a 2-D tiled map whose box is one row (boxDim[1] = 1)
//   of boxDim[0] elements; tensorCoords {col, row0, row1, row2, row3} name four rows that share the
//   start column. Shared memory holds the four rows one after the other (row i at element
//   i * boxDim[0]), swizzled as a tile box is.
// .im2col (sm_90): the tensor is NWC / NHWC / NDHWC (dimension 0 is C, the last N). The map's
//   bounding box bounds the filter-base position in each spatial dimension s to
//   [lower[s], dim[s] + upper[s]) (the corners are offsets from the first and the last pixel).
//   tensorCoords give the channel start, the first base position (inside the box: the ISA's rule)
//   and the batch. pixelsPerColumn bases are visited W fastest, each spatial step the map's
//   elementStride for that dimension; a base past the box's end wraps to the box's lower corner
//   and steps the next dimension, past the last spatial dimension N steps by one. The pixel read
//   for a base is base + the instruction's im2col offsets (one per spatial dimension); its
//   channelsPerPixel channels from the channel start form one row of the box. A pixel outside the
//   tensor (or a batch past N) reads as the map's fill (zero, or NaN: exec_tma.cpp), as do
//   channels past C. Triton's im2col tutorial (python/tutorials/gluon, checked on hardware) gives
//   the same walk: boxes [lower, dim + upper), the wrap to the lower corner, the step into the
//   next image, strides as the convolution stride.
// .im2col::w / .im2col::w::128 (sm_100a): H and D (and N) are the coordinates themselves, the
//   pixels run along W only from W + wOffset, pixelsPerColumn of them (128 in ::w::128), each
//   elementStride[1] apart; the W box moves by wOffset too. The first pixel may lie left of the
//   box. Not implemented (named faults, the ISA shows them only as figures): wHalo > 0 (the halo
//   pixels' placement) and pixels past the box's right edge.
#include "exec_tma_modes.h"

#include <algorithm>

namespace tsim {

const char* tmaModeName(uint8_t mode) {
  switch (mode) {
    case kTmaGather4: return ".tile::gather4";
    case kTmaScatter4: return ".tile::scatter4";
    case kTmaIm2col: return ".im2col";
    case kTmaIm2colW: return ".im2col::w";
    case kTmaIm2colW128: return ".im2col::w::128";
    default: return ".tile";
  }
}

unsigned tmaCoordCount(uint8_t mode, unsigned rank) { return mode == kTmaGather4 || mode == kTmaScatter4 ? 5 : rank; }

unsigned tmaInfoCount(uint8_t mode, unsigned rank) {
  if (mode == kTmaIm2col) return rank - 2;
  return mode == kTmaIm2colW || mode == kTmaIm2colW128 ? 2 : 0;
}

namespace {

bool fourRows(uint8_t mode) { return mode == kTmaGather4 || mode == kTmaScatter4; }
bool wide(uint8_t mode) { return mode == kTmaIm2colW || mode == kTmaIm2colW128; }

// One row of n elements starting at element c0 of dimension 0 (rowAddr: the row's element 0, valid
// only when in): the out-of-bounds parts and the in-bounds run, in order.
bool row(const TensorMapBits& m, uint64_t idx, bool in, uint64_t rowAddr, int64_t c0, unsigned n, const TmaRun& f) {
  if (!in) return f(idx, ~0ull, n);
  int64_t lo = std::max<int64_t>(0, -c0), hi = std::min<int64_t>(n, (int64_t)m.dim[0] - c0);
  if (hi <= lo) return f(idx, ~0ull, n);
  if (lo > 0 && !f(idx, ~0ull, (unsigned)lo)) return false;
  if (!f(idx + lo, rowAddr + (uint64_t)(c0 + lo) * m.esize, (unsigned)(hi - lo))) return false;
  return hi >= (int64_t)n || f(idx + hi, ~0ull, (unsigned)(n - hi));
}

bool inDim(const TensorMapBits& m, unsigned d, int64_t v) { return v >= 0 && (uint64_t)v < m.dim[d]; }

// The W modes' first pixel: W + wOffset.
int64_t wStart(const int32_t* coord, const uint16_t* info) { return (int64_t)coord[1] + info[1]; }

}  // namespace

std::string tmaModeCheck(const TensorMapBits& m, uint8_t mode, const int32_t* coord, const uint16_t* info) {
  const std::string name = tmaModeName(mode);
  const Im2colBox ib = im2colBox(m);
  if (fourRows(mode)) {
    if (m.kind != kTmTiled) return name + " needs a tiled tensor map (cuTensorMapEncodeTiled), not an im2col one";
    if (m.box[1] != 1)
      return name + " needs a tensor map whose box is one row (boxDim[1] = 1; this map's is " + std::to_string(m.box[1]) + ")";
    return "";
  }
  if (mode == kTmaIm2col) {
    if (m.kind != kTmIm2col) return ".im2col needs a tensor map made by cuTensorMapEncodeIm2col";
    const unsigned ns = m.rank - 2;
    const unsigned lim = m.rank == 3 ? 65536 : m.rank == 4 ? 256 : 32;  // the ISA's im2col offset ranges
    for (unsigned s = 0; s < ns; s++) {
      if (info[s] >= lim)
        return ".im2col: im2col offset " + std::to_string(s) + " is " + std::to_string(info[s]) + ", outside [0, " + std::to_string(lim - 1) +
               "] for a " + std::to_string(m.rank) + "d tensor";
      const int64_t b = coord[1 + s], lo = ib.lower[s], end = (int64_t)m.dim[1 + s] + ib.upper[s];
      if (b < lo || b >= end)
        return ".im2col: the filter base coordinate " + std::to_string(b) + " of spatial dimension " + std::to_string(1 + s) +
               " lies outside the bounding box [" + std::to_string(lo) + ", " + std::to_string(end - 1) + "] (the ISA requires it inside)";
    }
    if (m.estride[m.rank - 1] != 1) return ".im2col with an elementStride on N other than 1 is not implemented";
  } else {
    const bool w128 = mode == kTmaIm2colW128;
    if (m.kind != (w128 ? kTmIm2colW128 : kTmIm2colW))
      return name + " needs a tensor map made by cuTensorMapEncodeIm2colWide with mode " +
             (w128 ? "CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128" : "CU_TENSOR_MAP_IM2COL_WIDE_MODE_W");
    if (info[1] >= 32) return name + ": wOffset " + std::to_string(info[1]) + " is outside [0, 31]";
    if (info[0] >= (w128 ? 32 : 512)) return name + ": wHalo " + std::to_string(info[0]) + " is outside [0, " + (w128 ? "31]" : "511]");
    if (info[0]) return name + " with wHalo > 0 is not implemented (the ISA gives the halo pixels' placement only as figures)";
    const int64_t end = (int64_t)m.dim[1] + ib.upper[0] + info[1];
    const int64_t last = wStart(coord, info) + ((int64_t)ib.pixels - 1) * std::max<unsigned>(1, m.estride[1]);
    if (last >= end)
      return name + ": pixels past the bounding box's right edge (W " + std::to_string(last) + " >= " + std::to_string(end) +
             ") are not implemented";
  }
  if (!ib.channels || !ib.pixels) return name + ": the tensor map's box is empty";
  if ((ib.channels * m.esize) % 16)
    return name + ": channelsPerPixel x element size (" + std::to_string(ib.channels * m.esize) +
           " bytes) not a multiple of 16 is not implemented (the padding of narrower pixel rows is not documented)";
  return "";
}

uint64_t tmaModeBytes(const TensorMapBits& m, uint8_t mode) {
  if (fourRows(mode)) return 4ull * m.box[0] * m.esize;
  const Im2colBox ib = im2colBox(m);
  return (uint64_t)ib.pixels * ib.channels * m.esize;
}

bool tmaModeWalk(const TensorMapBits& m, uint8_t mode, const int32_t* coord, const uint16_t* info, const TmaRun& f) {
  if (fourRows(mode)) {
    const unsigned n = m.box[0];
    for (unsigned i = 0; i < 4; i++) {
      const int64_t r = coord[1 + i];
      const bool in = inDim(m, 1, r);
      if (!row(m, (uint64_t)i * n, in, in ? m.addr + (uint64_t)r * m.stride[1] : 0, coord[0], n, f)) return false;
    }
    return true;
  }
  const Im2colBox ib = im2colBox(m);
  const unsigned ns = m.rank - 2, nDim = m.rank - 1;
  int64_t base[3] = {0, 0, 0}, n = coord[nDim];
  for (unsigned s = 0; s < ns; s++) base[s] = coord[1 + s];
  const bool w = wide(mode);
  if (w) base[0] = wStart(coord, info);
  for (unsigned k = 0; k < ib.pixels; k++) {
    // the pixel: base + offsets (the W modes read the base itself)
    bool in = inDim(m, nDim, n);
    uint64_t a = m.addr + (in ? (uint64_t)n * m.stride[nDim] : 0);
    for (unsigned s = 0; s < ns && in; s++) {
      const int64_t p = base[s] + (w ? 0 : info[s]);
      in = inDim(m, 1 + s, p);
      if (in) a += (uint64_t)p * m.stride[1 + s];
    }
    if (!row(m, (uint64_t)k * ib.channels, in, a, coord[0], ib.channels, f)) return false;
    // the next base: W modes step along W only (tmaModeCheck keeps them inside the box)
    if (w) {
      base[0] += std::max<unsigned>(1, m.estride[1]);
      continue;
    }
    unsigned s = 0;
    for (; s < ns; s++) {
      base[s] += std::max<unsigned>(1, m.estride[1 + s]);
      if (base[s] < (int64_t)m.dim[1 + s] + ib.upper[s]) break;
      base[s] = ib.lower[s];
    }
    if (s == ns) n++;
  }
  return true;
}

}  // namespace tsim
