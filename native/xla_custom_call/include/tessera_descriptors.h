/* Descriptors of the Tessera XLA custom-call targets (docs/xla.md).
 * Generated from src/descriptor (node scripts/gen-descriptors.mjs); do not edit by hand. */
#ifndef TESSERA_DESCRIPTORS_H
#define TESSERA_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define TESSERA_DESC_ASSERT(c, m) static_assert(c, m)
extern "C" {
#else
#define TESSERA_DESC_ASSERT(c, m) _Static_assert(c, m)
#endif

enum ElementType {
  ElementType_BF16 = 0,
  ElementType_F16 = 1,
  ElementType_F32 = 2,
  ElementType_F64 = 3,
};

enum TesseraKernelParamKind {
  TesseraKernelParamKind_OPERAND = 0,
  TesseraKernelParamKind_RESULT = 1,
  TesseraKernelParamKind_SCALAR = 2,
};

enum TesseraKernelImageKind {
  TesseraKernelImageKind_PTX = 0,
  TesseraKernelImageKind_CUBIN = 1,
};

struct RMSNormDescriptor {
  int32_t n1;  /* offset 0 */
  int32_t n2;  /* offset 4 */
  double eps;  /* offset 8 */
  enum ElementType x_type;  /* offset 16 */
  enum ElementType w_type;  /* offset 20 */
  int32_t part_grad_size;  /* offset 24 */
};
TESSERA_DESC_ASSERT(sizeof(struct RMSNormDescriptor) == 32, "RMSNormDescriptor size");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, n1) == 0, "RMSNormDescriptor.n1 offset");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, n2) == 4, "RMSNormDescriptor.n2 offset");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, eps) == 8, "RMSNormDescriptor.eps offset");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, x_type) == 16, "RMSNormDescriptor.x_type offset");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, w_type) == 20, "RMSNormDescriptor.w_type offset");
TESSERA_DESC_ASSERT(offsetof(struct RMSNormDescriptor, part_grad_size) == 24, "RMSNormDescriptor.part_grad_size offset");

struct TesseraKernelCallHeader {
  uint32_t magic;  /* offset 0 */
  uint32_t version;  /* offset 4 */
  uint32_t total_size;  /* offset 8 */
  uint32_t grid[3];  /* offset 12 */
  uint32_t block[3];  /* offset 24 */
  uint32_t shared_bytes;  /* offset 36 */
  uint32_t num_operands;  /* offset 40 */
  uint32_t num_results;  /* offset 44 */
  uint32_t num_params;  /* offset 48 */
  uint32_t num_images;  /* offset 52 */
  uint32_t entry_len;  /* offset 56 */
  uint32_t flags;  /* offset 60 */
};
TESSERA_DESC_ASSERT(sizeof(struct TesseraKernelCallHeader) == 64, "TesseraKernelCallHeader size");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, magic) == 0, "TesseraKernelCallHeader.magic offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, version) == 4, "TesseraKernelCallHeader.version offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, total_size) == 8, "TesseraKernelCallHeader.total_size offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, grid) == 12, "TesseraKernelCallHeader.grid offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, block) == 24, "TesseraKernelCallHeader.block offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, shared_bytes) == 36, "TesseraKernelCallHeader.shared_bytes offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, num_operands) == 40, "TesseraKernelCallHeader.num_operands offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, num_results) == 44, "TesseraKernelCallHeader.num_results offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, num_params) == 48, "TesseraKernelCallHeader.num_params offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, num_images) == 52, "TesseraKernelCallHeader.num_images offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, entry_len) == 56, "TesseraKernelCallHeader.entry_len offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelCallHeader, flags) == 60, "TesseraKernelCallHeader.flags offset");

struct TesseraKernelParam {
  enum TesseraKernelParamKind kind;  /* offset 0 */
  uint32_t index;  /* offset 4 */
  uint32_t size;  /* offset 8 */
  uint32_t reserved;  /* offset 12 */
  uint64_t value;  /* offset 16 */
};
TESSERA_DESC_ASSERT(sizeof(struct TesseraKernelParam) == 24, "TesseraKernelParam size");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelParam, kind) == 0, "TesseraKernelParam.kind offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelParam, index) == 4, "TesseraKernelParam.index offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelParam, size) == 8, "TesseraKernelParam.size offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelParam, reserved) == 12, "TesseraKernelParam.reserved offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelParam, value) == 16, "TesseraKernelParam.value offset");

struct TesseraKernelImage {
  enum TesseraKernelImageKind kind;  /* offset 0 */
  uint32_t arch;  /* offset 4 */
  uint32_t offset;  /* offset 8 */
  uint32_t size;  /* offset 12 */
};
TESSERA_DESC_ASSERT(sizeof(struct TesseraKernelImage) == 16, "TesseraKernelImage size");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelImage, kind) == 0, "TesseraKernelImage.kind offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelImage, arch) == 4, "TesseraKernelImage.arch offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelImage, offset) == 8, "TesseraKernelImage.offset offset");
TESSERA_DESC_ASSERT(offsetof(struct TesseraKernelImage, size) == 12, "TesseraKernelImage.size offset");

#ifdef __cplusplus
}
#endif
#undef TESSERA_DESC_ASSERT

#endif /* TESSERA_DESCRIPTORS_H */
