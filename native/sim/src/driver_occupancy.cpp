// Occupancy queries, from the same limits the device reports (threads, blocks and shared memory
// per SM). Registers are left out: the register count is only the parser's estimate, and a launch
// the sim accepts must never report zero occupancy.
//
// Clusters (sm_90): the CTAs of a cluster must be resident in one GPC at once. The sim's device is
// laid out as H100's: 8 GPCs over the SMs in pairs (TPCs), as evenly as they go (132 SMs: two GPCs
// of 18, six of 16); a GPC holds floor(its SMs * CTAs per SM / cluster size) clusters.
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
constexpr int kGpcs = 8;

// SMs of GPC g: the device's TPCs (2 SMs each) dealt out over the GPCs, the first ones getting
// the remainder.
int gpcSms(int g) {
  const int tpcs = Driver::get().props.smCount / 2;
  return 2 * (tpcs / kGpcs + (g < tpcs % kGpcs ? 1 : 0));
}

// The cluster shape a launch configuration names (its CLUSTER_DIMENSION attribute) checked
// against the kernel's .reqnctapercluster / .maxclusterrank and the portable limit, as a launch
// checks it: its CTA count in *n (0 when neither the configuration nor the kernel names one).
CUresult configCluster(const CUlaunchConfig& config, const CUfunc_st& f, unsigned* n) {
  if (config.numAttrs > 0 && !config.attrs) return CUDA_ERROR_INVALID_VALUE;
  const tsim::KernelInfo& k = *f.info;
  unsigned c[3] = {0, 0, 0};
  for (unsigned i = 0; i < config.numAttrs; i++) {
    const CUlaunchAttribute& a = config.attrs[i];
    if (a.id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) continue;
    c[0] = a.value.clusterDim.x;
    c[1] = a.value.clusterDim.y;
    c[2] = a.value.clusterDim.z;
    if (!c[0] || !c[1] || !c[2]) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  const bool given = c[0] != 0, req = k.reqCluster[0] != 0;
  if (given && req)
    for (int j = 0; j < 3; j++)
      if (c[j] != (k.reqCluster[j] ? k.reqCluster[j] : 1)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (!given && req)
    for (int j = 0; j < 3; j++) c[j] = k.reqCluster[j] ? k.reqCluster[j] : 1;
  const uint64_t size = uint64_t(c[0]) * c[1] * c[2];
  if (size > (f.nonPortableCluster ? 16u : 8u)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (k.maxClusterRank && size > k.maxClusterRank) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  *n = (unsigned)size;
  return CUDA_SUCCESS;
}

// CTAs per SM for a launch configuration's block and dynamic shared memory.
CUresult configBlocksPerSm(const CUlaunchConfig& config, CUfunction f, int* perSm) {
  const uint64_t threads = uint64_t(config.blockDimX) * config.blockDimY * config.blockDimZ;
  if (!threads) return CUDA_ERROR_INVALID_VALUE;
  if (threads > tsimdrv::kMaxThreadsPerBlock) {
    *perSm = 0;
    return CUDA_SUCCESS;
  }
  return blocksPerSm(f, static_cast<int>(threads), config.sharedMemBytes, perSm);
}

// Context, handles and device checks shared by the cluster queries.
CUresult clusterQueryChecks(void* out, CUfunction f, const CUlaunchConfig* config) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!out || !config) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!f || !d.functions.count(f)) return CUDA_ERROR_INVALID_HANDLE;
  }
  if (d.props.major < 9) return CUDA_ERROR_NOT_SUPPORTED;  // no clusters before sm_90
  return CUDA_SUCCESS;
}

}  // namespace

// The most clusters of the configuration's shape that can be resident at once: per GPC, the CTAs
// it holds (its SMs times the CTAs per SM) divided by the cluster size. Without a shape in the
// configuration or the kernel: CUDA_ERROR_INVALID_CLUSTER_SIZE, as cuda.h says.
TSIM_API CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func, const CUlaunchConfig* config) {
  if (CUresult r = clusterQueryChecks(numClusters, func, config)) return r;
  unsigned n = 0;
  if (CUresult r = configCluster(*config, *func, &n)) return r;
  if (!n) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  int perSm = 0;
  if (CUresult r = configBlocksPerSm(*config, func, &perSm)) return r;
  int total = 0;
  for (int g = 0; g < kGpcs; g++) total += gpcSms(g) * perSm / static_cast<int>(n);
  *numClusters = total;
  return CUDA_SUCCESS;
}

// The largest cluster the kernel can be launched with (the configuration's cluster shape is
// ignored): the kernel's .reqnctapercluster size when it has one, else 8 (16 once the kernel allows
// non-portable sizes) capped by .maxclusterrank and by the CTAs the smallest GPC holds at once.
TSIM_API CUresult cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func, const CUlaunchConfig* config) {
  if (CUresult r = clusterQueryChecks(clusterSize, func, config)) return r;
  if (config->numAttrs > 0 && !config->attrs) return CUDA_ERROR_INVALID_VALUE;
  const tsim::KernelInfo& k = *func->info;
  int perSm = 0;
  if (CUresult r = configBlocksPerSm(*config, func, &perSm)) return r;
  int fit = gpcSms(kGpcs - 1) * perSm;  // the last GPC is the smallest
  if (k.reqCluster[0]) {
    int req = static_cast<int>(k.reqCluster[0] * (k.reqCluster[1] ? k.reqCluster[1] : 1) * (k.reqCluster[2] ? k.reqCluster[2] : 1));
    *clusterSize = req <= fit ? req : 0;
    return CUDA_SUCCESS;
  }
  int n = func->nonPortableCluster ? 16 : 8;
  if (k.maxClusterRank) n = std::min(n, static_cast<int>(k.maxClusterRank));
  *clusterSize = std::min(n, fit);
  return CUDA_SUCCESS;
}

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
