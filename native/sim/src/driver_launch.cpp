// cuLaunchKernel / cuLaunchKernelEx: the launch checks the hardware makes, parameter packing, and
// the launch itself on the stream's worker.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {

struct Dims {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  unsigned cluster[3] = {0, 0, 0};  // cuLaunchKernelEx's cluster dimension (0 = not given)
};

// The cluster shape of a launch: the attribute's, else the kernel's .reqnctapercluster, else one
// CTA. A shape the kernel or device does not allow is CUDA_ERROR_INVALID_CLUSTER_SIZE.
CUresult clusterShape(const Dims& d, const CUfunc_st& f, unsigned* out, bool* explicitShape) {
  const tsim::KernelInfo& k = *f.info;
  const bool given = d.cluster[0] != 0, req = k.reqCluster[0] != 0;
  *explicitShape = given || req;
  for (int j = 0; j < 3; j++) out[j] = given ? d.cluster[j] : req ? (k.reqCluster[j] ? k.reqCluster[j] : 1) : 1;
  if (!given && !req) return k.explicitCluster ? CUDA_ERROR_INVALID_CLUSTER_SIZE : CUDA_SUCCESS;
  const uint64_t n = uint64_t(out[0]) * out[1] * out[2];
  if (Driver::get().props.major < 9) return n <= 1 && !req && !k.explicitCluster ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
  for (int j = 0; j < 3; j++)
    if (!out[j] || d.grid[j] % out[j] != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (given && req)
    for (int j = 0; j < 3; j++)
      if (out[j] != (k.reqCluster[j] ? k.reqCluster[j] : 1)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (n > (f.nonPortableCluster ? 16u : 8u)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (k.maxClusterRank && n > k.maxClusterRank) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  return CUDA_SUCCESS;
}

unsigned product(const unsigned* v) { return v[0] ? v[0] * (v[1] ? v[1] : 1) * (v[2] ? v[2] : 1) : 0; }

CUresult validateShape(const Dims& d, const CUfunc_st& f) {
  const tsim::KernelInfo& k = *f.info;
  const auto& props = Driver::get().props;
  if (!d.grid[0] || !d.grid[1] || !d.grid[2]) return CUDA_ERROR_INVALID_VALUE;
  if (d.grid[0] > 2147483647u || d.grid[1] > 65535u || d.grid[2] > 65535u) return CUDA_ERROR_INVALID_VALUE;
  if (!d.block[0] || !d.block[1] || !d.block[2]) return CUDA_ERROR_INVALID_VALUE;
  if (d.block[0] > 1024 || d.block[1] > 1024 || d.block[2] > 64) return CUDA_ERROR_INVALID_VALUE;
  const uint64_t threads = uint64_t(d.block[0]) * d.block[1] * d.block[2];
  if (threads > tsimdrv::kMaxThreadsPerBlock) return CUDA_ERROR_INVALID_VALUE;
  if (unsigned m = product(k.maxntid); m && threads > m) return CUDA_ERROR_INVALID_VALUE;
  if (k.reqntid[0]) {
    for (int i = 0; i < 3; i++)
      if (d.block[i] != (k.reqntid[i] ? k.reqntid[i] : 1)) return CUDA_ERROR_INVALID_VALUE;
  }
  if (d.shared > static_cast<unsigned>(f.maxDynamicShared)) return CUDA_ERROR_INVALID_VALUE;
  if (uint64_t(d.shared) + k.staticSharedBytes > static_cast<uint64_t>(props.sharedOptin))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult packParams(const tsim::KernelInfo& k, void** kernelParams, void** extra, std::vector<uint8_t>& out) {
  out.assign(k.paramBytes, 0);
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  if (kernelParams) {
    for (size_t i = 0; i < k.params.size(); i++) {
      if (!kernelParams[i]) return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(out.data() + k.params[i].offset, kernelParams[i], k.params[i].size);
    }
    return CUDA_SUCCESS;
  }
  if (extra) {
    const void* buffer = nullptr;
    size_t size = 0;
    bool haveSize = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[i + 1]) return CUDA_ERROR_INVALID_VALUE;
        size = *static_cast<const size_t*>(extra[i + 1]);
        haveSize = true;
      } else return CUDA_ERROR_INVALID_VALUE;
    }
    if (k.paramBytes == 0) return CUDA_SUCCESS;
    if (!buffer || !haveSize || size < k.paramBytes) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(out.data(), buffer, k.paramBytes);
    return CUDA_SUCCESS;
  }
  return k.params.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// A launch's captured vprintf records, appended to its tag's (a tag may span launches).
void keepPrints(uint64_t tag, tsim::PrintCapture& c) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.printsMu);
  tsim::PrintCapture& all = d.prints[tag];
  all.dropped += c.dropped;
  for (auto& r : c.records) {
    size_t bytes = r.text.size() + r.args.size() + sizeof r.ctaid + sizeof r.tid;
    if (all.bytes + bytes > tsim::PrintCapture::kMaxBytes) { all.dropped++; continue; }
    all.bytes += bytes;
    all.records.push_back(std::move(r));
  }
}

void reportFault(CUctx_st* ctx, const tsim::Fault& f) {
  Driver& d = Driver::get();
  std::string text = tsimdrv::formatFault(f);
  {
    std::lock_guard lock(d.reportMu);
    d.lastFault = text;
  }
  if (d.verbose) std::fprintf(stderr, "%s\n", text.c_str());
  int expected = CUDA_SUCCESS;
  ctx->sticky.compare_exchange_strong(expected, tsimdrv::faultResult(f));  // first error wins
}

CUresult launch(CUfunction f, const Dims& dims, CUstream s, void** kernelParams, void** extra) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  std::shared_ptr<tsim::Module> module;
  {
    std::lock_guard lock(d.mu);
    if (!f || !d.functions.count(f)) return CUDA_ERROR_INVALID_HANDLE;
    if (f->module->ctx != ctx) return CUDA_ERROR_INVALID_HANDLE;
    module = f->module->module;
  }
  if (CUresult r = tsimdrv::checkStream(ctx, s)) return r;
  if (CUresult r = validateShape(dims, *f)) return r;
  unsigned cluster[3];
  bool explicitCluster = false;
  if (CUresult r = clusterShape(dims, *f, cluster, &explicitCluster)) return r;
  auto params = std::make_shared<std::vector<uint8_t>>();
  if (CUresult r = packParams(*f->info, kernelParams, extra, *params)) return r;

  const tsim::KernelInfo* info = f->info;
  tsim::LaunchConfig cfg;
  std::memcpy(cfg.grid, dims.grid, sizeof cfg.grid);
  std::memcpy(cfg.block, dims.block, sizeof cfg.block);
  cfg.dynamicSharedBytes = dims.shared;
  cfg.instructionBudget = d.budget.load();
  cfg.threads = d.cpuThreads;
  cfg.memcheck = d.memcheck;
  cfg.sanitize = d.sanitizeEnv | d.sanitize.load();
  cfg.trackInit = d.trackInit.load();
  std::memcpy(cfg.cluster, cluster, sizeof cfg.cluster);
  cfg.explicitCluster = explicitCluster;
  cfg.clusterSkew = d.clusterSkew;
  const uint64_t printTag = d.printTag.load();
  tsimdrv::enqueueWork(ctx, s, [ctx, module, info, cfg, params, printTag]() mutable {
    cfg.params = params->data();
    tsim::PrintCapture capture;
    if (printTag) cfg.prints = &capture;
    tsim::Counters counters;
    tsim::Fault fault = tsim::launch(*module, *info, cfg, *ctx->memory, counters);
    if (printTag) keepPrints(printTag, capture);  // before the stream can report the launch done
    if (fault.kind != tsim::Fault::None) {
      if (fault.kernel.empty()) fault.kernel = info->name;
      reportFault(ctx, fault);
      return;
    }
    Driver& drv = Driver::get();
    std::lock_guard lock(drv.reportMu);
    drv.lastCounters = counters;
    drv.haveCounters = true;
  });
  return CUDA_SUCCESS;
}

}  // namespace

TSIM_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  Dims d{{gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes};
  return launch(f, d, hStream, kernelParams, extra);
}

TSIM_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                            unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                            void** kernelParams) {
  Dims d{{gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes};
  return launch(f, d, hStream, kernelParams, nullptr);
}

TSIM_API CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!config || (config->numAttrs > 0 && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
  Dims d{{config->gridDimX, config->gridDimY, config->gridDimZ},
         {config->blockDimX, config->blockDimY, config->blockDimZ},
         config->sharedMemBytes};
  for (unsigned i = 0; i < config->numAttrs; i++) {
    const CUlaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
        const unsigned c[3] = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
        if (!c[0] || !c[1] || !c[2]) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        if (uint64_t(c[0]) * c[1] * c[2] > 1 && Driver::get().props.major < 9) return CUDA_ERROR_NOT_SUPPORTED;
        std::memcpy(d.cluster, c, sizeof c);  // checked against the grid and kernel in launch()
        break;
      }
      default:
        if (static_cast<int>(a.id) < 0 || static_cast<int>(a.id) > 64)
          return CUDA_ERROR_INVALID_VALUE;
        break;  // priority, cooperative, access policy, ...: no effect on a simulated device
    }
  }
  return launch(f, d, config->hStream, kernelParams, extra);
}

TSIM_API CUresult tesseraSimGetLastFault(char* buf, size_t size) {
  if (!buf || size == 0) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.reportMu);
  size_t n = std::min(size - 1, d.lastFault.size());
  std::memcpy(buf, d.lastFault.data(), n);
  buf[n] = 0;
  return d.lastFault.empty() ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS;
}

TSIM_API CUresult tesseraSimGetLaunchCounters(void* out, size_t size) {
  if (!out || size != sizeof(tsim::Counters)) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.reportMu);
  if (!d.haveCounters) return CUDA_ERROR_NOT_FOUND;
  std::memcpy(out, &d.lastCounters, sizeof(tsim::Counters));
  return CUDA_SUCCESS;
}

// Sanitizers for the launches queued from now on (bit 0 racecheck, 1 synccheck, 2 initcheck), on
// top of the TESSERA_SIM_*CHECK environment variables. Turning initcheck on starts tracking which
// device bytes are written, for allocations made from then on (earlier ones count as written).
TSIM_API CUresult tesseraSimSetSanitize(unsigned flags) {
  if (flags & ~7u) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  if (flags & 4u) d.trackInit = true;
  d.sanitize = flags;
  return CUDA_SUCCESS;
}

// vprintf capture for the launches queued from now on: tag 0 (the default) writes to stdout as
// the driver's printf buffer does; another tag keeps each call for tesseraSimTakePrints.
TSIM_API CUresult tesseraSimSetPrintCapture(unsigned long long tag) {
  Driver::get().printTag = tag;
  return CUDA_SUCCESS;
}

// Takes the records of tag's completed launches, in the order their threads called vprintf, into
// buf (*size: its capacity in, the bytes needed out; buf may be null when there is nothing). Per record, little-endian u32s ctaid[3],
// tid[3], text bytes, argument bytes, then the text and the arguments. *dropped: calls past the
// capture's limit. buf too small (or null): CUDA_ERROR_INVALID_VALUE with *size set, nothing taken.
TSIM_API CUresult tesseraSimTakePrints(unsigned long long tag, void* buf, size_t* size, unsigned long long* dropped) {
  if (!size || !dropped) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.printsMu);
  auto it = d.prints.find(tag);
  size_t need = 0;
  if (it != d.prints.end())
    for (auto& r : it->second.records) need += 8 * 4 + r.text.size() + r.args.size();
  if (need > 0 && (!buf || *size < need)) {
    *size = need;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *size = need;
  *dropped = it == d.prints.end() ? 0 : it->second.dropped;
  if (it == d.prints.end()) return CUDA_SUCCESS;
  uint8_t* p = static_cast<uint8_t*>(buf);
  auto u32 = [&](uint32_t v) { std::memcpy(p, &v, 4); p += 4; };
  for (auto& r : it->second.records) {
    for (unsigned v : r.ctaid) u32(v);
    for (unsigned v : r.tid) u32(v);
    u32(static_cast<uint32_t>(r.text.size()));
    u32(static_cast<uint32_t>(r.args.size()));
    std::memcpy(p, r.text.data(), r.text.size());
    p += r.text.size();
    std::memcpy(p, r.args.data(), r.args.size());
    p += r.args.size();
  }
  d.prints.erase(it);
  return CUDA_SUCCESS;
}

TSIM_API CUresult tesseraSimSetInstructionBudget(uint64_t threadInstructions) {
  Driver::get().budget = threadInstructions;
  return CUDA_SUCCESS;
}
