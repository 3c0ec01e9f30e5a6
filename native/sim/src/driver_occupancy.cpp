// Occupancy queries, from the same limits the device reports (threads, blocks and shared memory
// per SM). Registers are left out: the register count is only the parser's estimate, and a launch
// the sim accepts must never report zero occupancy.
#include <algorithm>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {
constexpr int kThreadsPerSm = 2048, kBlocksPerSm = 32;

CUresult blocksPerSm(CUfunction f, int blockSize, size_t dynamicShared, int* out) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!out || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!f || !d.functions.count(f)) return CUDA_ERROR_INVALID_HANDLE;
  }
  const tsim::KernelInfo& k = *f->info;
  if (blockSize > tsimdrv::kMaxThreadsPerBlock) { *out = 0; return CUDA_SUCCESS; }
  const int warps = (blockSize + 31) / 32;
  int n = std::min(kBlocksPerSm, kThreadsPerSm / (warps * 32));
  const size_t shared = k.staticSharedBytes + dynamicShared + 1024;  // 1 KiB reserved per block
  n = std::min<int>(n, static_cast<int>(d.props.sharedPerSm / shared));
  *out = std::max(n, 0);
  return CUDA_SUCCESS;
}
}  // namespace

TSIM_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize) {
  return blocksPerSm(func, blockSize, dynamicSMemSize, numBlocks);
}

TSIM_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func,
                                                                       int blockSize, size_t dynamicSMemSize,
                                                                       unsigned int flags) {
  if (flags & ~1u) return CUDA_ERROR_INVALID_VALUE;
  return blocksPerSm(func, blockSize, dynamicSMemSize, numBlocks);
}
