// Kernel images compiled by nvcc at build time and embedded in the library (cmake/embed.cmake).
#pragma once
#include <cstddef>

namespace tx {
struct EmbeddedImage {
  bool cubin;
  unsigned arch;
  const unsigned char* data;
  size_t size;
};
}  // namespace tx
