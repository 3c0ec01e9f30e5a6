// The canonical shared-memory matrix layouts read through a matrix descriptor, shared by wgmma
// (exec_wgmma.cpp, the sm_90 descriptor) and tcgen05.mma (exec_tcgen05_mma.cpp, the sm_100
// descriptor); each decodes its own descriptor format into a SmemMatrix.
//
// A core matrix is 8 rows of 16 bytes. With R = 16 (none) / 32 / 64 / 128 bytes:
//   K-major: element (mn, k), byte kb = k * size:
//     none:  start + (mn%8)*16 + (mn/8)*SBO + (kb%16) + (kb/16)*LBO
//     swz:   start + (mn%8)*R  + (mn/8)*SBO + kb
//   MN-major, byte mb = mn * size:
//     none:  start + (k%8)*16 + (k/8)*LBO + (mb%16) + (mb/16)*SBO
//     swz:   start + (k%8)*R  + (k/8)*SBO + (mb%R) + (mb/R)*LBO
// then the swizzle XORs address bits [4, 4+b) with bits [7, 7+b), b = 1, 2, 3 for 32B/64B/128B
// (the address is the shared-memory address itself, so start addresses advanced inside a swizzle
// atom, as compilers do for successive K slices, read what hardware reads). The pattern repeats
// every 256/512/1024 bytes; one that starts off that boundary is named by the descriptor's base
// offset, (pattern start >> 7) & 7, and the row phase XORed in is then ((a >> 7) - base) & mask
// (the base offset is valid for the swizzling modes only; without swizzle it is ignored).
// tcgen05's 128B_base32b (128-byte swizzle with 32-byte atomicity, MN-major only: PTX ISA tables
// "Layout for swizzle atoms" and "Valid Combinations of Type-Size, Major-ness and Swizzling"): an
// atom is 4 K-rows of 128 bytes along MN, the atoms along MN LBO apart and along K SBO apart, and
// the 32-byte units of a row are XORed with the row phase: address bits [5, 7) with bits [7, 9)
// (the tensor-copy "32-byte atomicity sub-mode" pattern, repeating every 512 bytes).
#pragma once
#include <cstdint>

namespace tsim {

struct SmemMatrix {
  uint32_t start, lbo, sbo, swz;  // swz: 0 none, else R = 32/64/128 bytes
  uint32_t base;                  // the swizzle pattern's row phase at its start (base offset)
  bool atom32 = false;            // 128B_base32b (swz 128, MN-major only)
};

// Shared-memory byte address of element (mn, k) of an esize-byte type.
inline uint32_t smemElemAddr(const SmemMatrix& d, bool mnMajor, unsigned mn, unsigned k, unsigned esize) {
  uint32_t a;
  if (d.atom32) {  // MN-major (callers refuse K-major)
    const unsigned mb = mn * esize;
    a = d.start + (k % 4) * 128 + (k / 4) * d.sbo + (mb % 128) + (mb / 128) * d.lbo;
    return a ^ ((((a >> 7) - d.base) & 3u) << 5);
  }
  if (!mnMajor) {
    unsigned kb = k * esize;
    if (!d.swz) a = d.start + (mn % 8) * 16 + (mn / 8) * d.sbo + (kb % 16) + (kb / 16) * d.lbo;
    else a = d.start + (mn % 8) * d.swz + (mn / 8) * d.sbo + kb;
  } else {
    unsigned mb = mn * esize;
    if (!d.swz) a = d.start + (k % 8) * 16 + (k / 8) * d.lbo + (mb % 16) + (mb / 16) * d.sbo;
    else a = d.start + (k % 8) * d.swz + (k / 8) * d.sbo + (mb % d.swz) + (mb / d.swz) * d.lbo;
  }
  if (d.swz) {
    unsigned b = d.swz == 128 ? 3 : d.swz == 64 ? 2 : 1;
    a ^= (((a >> 7) - d.base) & ((1u << b) - 1)) << 4;
  }
  return a;
}

}  // namespace tsim
