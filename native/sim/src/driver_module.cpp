// Module loading (PTX text only; cubins are refused so callers fall back to PTX), functions and
// their attributes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {

struct LogBuffer {
  char* buf = nullptr;
  unsigned size = 0;
  void** sizeSlot = nullptr;  // option value where the driver reports bytes written
};

void writeLog(LogBuffer& lb, const std::string& text) {
  if (!lb.buf || lb.size == 0) return;
  size_t n = std::min<size_t>(text.size(), lb.size - 1);
  std::memcpy(lb.buf, text.data(), n);
  lb.buf[n] = 0;
  if (lb.sizeSlot) *lb.sizeSlot = reinterpret_cast<void*>(static_cast<uintptr_t>(n + 1));
}

// The `.target` architecture: its SM number (0 when absent) and its suffix (`a`: arch-specific,
// `f`: family-specific, or none).
struct PtxTarget {
  int sm = 0;
  char suffix = 0;
  std::string name;
};
PtxTarget ptxTarget(const std::string& text) {
  PtxTarget t;
  size_t p = text.find(".target");
  if (p == std::string::npos) return t;
  p = text.find("sm_", p);
  if (p == std::string::npos) return t;
  size_t e = p + 3;
  while (e < text.size() && std::isalnum((unsigned char)text[e])) e++;
  t.name = text.substr(p, e - p);
  t.sm = std::atoi(text.c_str() + p + 3);
  char last = t.name.back();
  if (last == 'a' || last == 'f') t.suffix = last;
  return t;
}

// Why the device cannot run PTX for target t ("" when it can). Newer targets are refused, as the
// driver does; an arch-specific target (sm_90a, sm_100a) runs only on exactly that SM (its features
// are not forward compatible); of the Blackwell family the sim is sm_100 (B200) only, so the other
// Blackwell targets (sm_101, sm_103, sm_110, sm_120, sm_121, ...) are refused by name.
std::string targetRefusal(const PtxTarget& t, const tsimdrv::DeviceProps& props) {
  const int dev = props.major * 10 + props.minor;
  const std::string devName = "sm_" + std::to_string(dev);
  if (t.sm > 100)
    return "tessera-sim: PTX .target " + t.name + " is not simulated (of the Blackwell family the simulator is sm_100, "
           "B200: `.target sm_100a` or `sm_100`, with TESSERA_SIM_ARCH=sm_100)";
  if (t.sm > dev)
    return "tessera-sim: PTX .target " + t.name + " is newer than the simulated device " + devName +
           (t.sm == 100 ? " (TESSERA_SIM_ARCH=sm_100 simulates a Blackwell B200)" : t.sm == 90 ? " (TESSERA_SIM_ARCH=sm_90 simulates a Hopper H100)" : "");
  if (t.suffix == 'a' && t.sm != dev)
    return "tessera-sim: PTX .target " + t.name + " is architecture-specific: it runs only on " + t.name.substr(0, t.name.size() - 1) +
           ", not on the simulated device " + devName;
  if (t.suffix == 'f' && t.sm / 10 != dev / 10)
    return "tessera-sim: PTX .target " + t.name + " is family-specific: it runs only on compute capability " +
           std::to_string(t.sm / 10) + ".x, not on the simulated device " + devName;
  return "";
}

CUresult loadModule(CUmodule* out, const void* image, LogBuffer& info, LogBuffer& error) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
    writeLog(error, "tessera-sim: cubin (ELF) images cannot run on the simulator; load PTX text instead");
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  const bool fatbin = (bytes[0] == 0x50 && bytes[1] == 0xED && bytes[2] == 0x55 && bytes[3] == 0xBA) ||
                      (bytes[0] == 0xB1 && bytes[1] == 0x43 && bytes[2] == 0x62 && bytes[3] == 0x46);
  if (fatbin) {  // fatbinary / fatbin wrapper (short-circuit: never reads past a short string)
    writeLog(error, "tessera-sim: fatbinary images are not supported; load PTX text instead");
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  std::string text(static_cast<const char*>(image));
  const auto& props = Driver::get().props;
  std::string refusal = targetRefusal(ptxTarget(text), props);
  if (!refusal.empty()) {
    writeLog(error, refusal);
    return CUDA_ERROR_INVALID_PTX;
  }
  std::string log;
  std::shared_ptr<tsim::Module> module(tsim::parsePtx(text, log).release());
  if (!module) {
    writeLog(error, log.empty() ? "tessera-sim: invalid PTX" : log);
    if (Driver::get().verbose) std::fprintf(stderr, "tessera-sim: module load failed:\n%s\n", log.c_str());
    return CUDA_ERROR_INVALID_PTX;
  }
  if (!module->bindGlobals(*ctx->memory, log)) {
    writeLog(error, log);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  writeLog(info, log);
  auto* mod = new CUmod_st();
  mod->ctx = ctx;
  mod->module = module;
  for (const auto& g : module->globals()) mod->varAddrs.push_back(g.addr);
  for (const auto& k : module->kernels()) {
    auto f = std::make_unique<CUfunc_st>();
    f->module = mod;
    f->info = &k;
    f->maxDynamicShared = std::max(0, tsimdrv::kStaticSharedLimit - static_cast<int>(k.staticSharedBytes));
    mod->functions.push_back(std::move(f));
  }
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    d.modules.insert(mod);
    for (auto& f : mod->functions) d.functions.insert(f.get());
    ctx->modules.push_back(mod);
  }
  *out = mod;
  return CUDA_SUCCESS;
}

// Validates a function handle against the live set and the current context.
CUresult lookupFunction(CUfunction f, CUctx_st** ctxOut) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!f || !d.functions.count(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (ctxOut) *ctxOut = ctx;
  return CUDA_SUCCESS;
}

}  // namespace

TSIM_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  LogBuffer none;
  return loadModule(module, image, none, none);
}

TSIM_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                     CUjit_option* options, void** optionValues) {
  if (numOptions > 0 && (!options || !optionValues)) return CUDA_ERROR_INVALID_VALUE;
  LogBuffer info, error;
  for (unsigned i = 0; i < numOptions; i++) {
    void*& v = optionValues[i];
    switch (options[i]) {
      case CU_JIT_INFO_LOG_BUFFER: info.buf = static_cast<char*>(v); break;
      case CU_JIT_ERROR_LOG_BUFFER: error.buf = static_cast<char*>(v); break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        info.size = static_cast<unsigned>(reinterpret_cast<uintptr_t>(v));
        info.sizeSlot = &v;
        break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        error.size = static_cast<unsigned>(reinterpret_cast<uintptr_t>(v));
        error.sizeSlot = &v;
        break;
      default:
        if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
        break;  // optimisation level, target, wall time, ...: nothing to do for the simulator
    }
  }
  // Sizes are reported back through the option values: "nothing written" reads 0.
  if (info.sizeSlot) *info.sizeSlot = nullptr;
  if (error.sizeSlot) *error.sizeSlot = nullptr;
  if (info.buf && info.size) info.buf[0] = 0;
  if (error.buf && error.size) error.buf[0] = 0;
  return loadModule(module, image, info, error);
}

TSIM_API CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!fname) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(fname, std::ios::binary);
  if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string data = ss.str();
  return cuModuleLoadData(module, data.c_str());
}

TSIM_API CUresult cuModuleUnload(CUmodule hmod) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!hmod || !d.modules.count(hmod)) return CUDA_ERROR_INVALID_HANDLE;
    d.modules.erase(hmod);
    for (auto& f : hmod->functions) d.functions.erase(f.get());
    auto& mods = hmod->ctx->modules;
    mods.erase(std::remove(mods.begin(), mods.end(), hmod), mods.end());
  }
  // Module variables may still be read by queued launches: wait for them before releasing.
  tsimdrv::synchronizeContext(hmod->ctx);
  for (uint64_t a : hmod->varAddrs) hmod->ctx->memory->release(a, true);
  delete hmod;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!hfunc || !name) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!hmod || !d.modules.count(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& f : hmod->functions)
    if (f->info->name == name) {
      *hfunc = f.get();
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

TSIM_API CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!hmod || !d.modules.count(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  for (const auto& g : hmod->module->globals())
    if (g.name == name) {
      if (dptr) *dptr = g.addr;
      if (bytes) *bytes = g.bytes;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

TSIM_API CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = lookupFunction(hfunc, nullptr)) return r;
  const tsim::KernelInfo& k = *hfunc->info;
  const auto& props = Driver::get().props;
  auto product = [](const unsigned* v) { return v[0] ? v[0] * (v[1] ? v[1] : 1) * (v[2] ? v[2] : 1) : 0u; };
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
      unsigned limit = tsimdrv::kMaxThreadsPerBlock;
      if (unsigned m = product(k.maxntid)) limit = std::min(limit, m);
      if (unsigned r = product(k.reqntid)) limit = std::min(limit, r);
      *pi = static_cast<int>(limit);
      return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_cast<int>(k.staticSharedBytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = static_cast<int>(k.localBytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = static_cast<int>(k.numRegs); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = props.major * 10 + props.minor; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = hfunc->maxDynamicShared; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = hfunc->carveout; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = k.explicitCluster ? 1 : 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = static_cast<int>(k.reqCluster[0]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = static_cast<int>(k.reqCluster[1]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = static_cast<int>(k.reqCluster[2]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = hfunc->nonPortableCluster ? 1 : 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

TSIM_API CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  if (CUresult r = lookupFunction(hfunc, nullptr)) return r;
  const auto& props = Driver::get().props;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (value < 0 || value > props.sharedOptin - static_cast<int>(hfunc->info->staticSharedBytes))
        return CUDA_ERROR_INVALID_VALUE;
      hfunc->maxDynamicShared = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
      hfunc->carveout = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      if (props.major < 9) return CUDA_ERROR_NOT_SUPPORTED;
      if (value != 0 && value != 1) return CUDA_ERROR_INVALID_VALUE;
      hfunc->nonPortableCluster = value != 0;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      return props.major >= 9 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

TSIM_API CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  if (CUresult r = lookupFunction(hfunc, nullptr)) return r;
  return config <= CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TSIM_API CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = lookupFunction(hfunc, nullptr)) return r;
  *name = hfunc->info->name.c_str();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuFuncGetModule(CUmodule* hmod, CUfunction hfunc) {
  if (!hmod) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = lookupFunction(hfunc, nullptr)) return r;
  *hmod = hfunc->module;
  return CUDA_SUCCESS;
}
