#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

namespace tx {
namespace {

template <class F>
bool bind(void* lib, const char* name, F* slot) {
  *slot = reinterpret_cast<F>(dlsym(lib, name));
  return *slot != nullptr;
}

Status bind_all(void* lib, Driver* d) {
  bool ok = true;
  std::string missing;
  auto b = [&](const char* name, auto* slot) {
    if (!bind(lib, name, slot)) { ok = false; missing += std::string(missing.empty() ? "" : ", ") + name; }
  };
  // Versioned names: what cuda.h's macros map the plain names to.
  b("cuInit", &d->Init);
  b("cuGetErrorName", &d->GetErrorName);
  b("cuCtxGetCurrent", &d->CtxGetCurrent);
  b("cuCtxGetDevice", &d->CtxGetDevice);
  b("cuCtxPushCurrent_v2", &d->CtxPushCurrent);
  b("cuCtxPopCurrent_v2", &d->CtxPopCurrent);
  b("cuCtxSynchronize", &d->CtxSynchronize);
  b("cuDeviceGet", &d->DeviceGet);
  b("cuDeviceGetAttribute", &d->DeviceGetAttribute);
  b("cuDevicePrimaryCtxRetain", &d->DevicePrimaryCtxRetain);
  b("cuDevicePrimaryCtxRelease_v2", &d->DevicePrimaryCtxRelease);
  b("cuModuleLoadDataEx", &d->ModuleLoadDataEx);
  b("cuModuleGetFunction", &d->ModuleGetFunction);
  b("cuFuncSetAttribute", &d->FuncSetAttribute);
  b("cuLaunchKernel", &d->LaunchKernel);
  b("cuMemAlloc_v2", &d->MemAlloc);
  b("cuMemFree_v2", &d->MemFree);
  b("cuMemcpyHtoD_v2", &d->MemcpyHtoD);
  b("cuMemcpyDtoH_v2", &d->MemcpyDtoH);
  if (!ok) return Status::error("the CUDA driver at " + d->path + " lacks " + missing);
  return {};
}

struct Loaded {
  Driver d;
  Status status;
};

Loaded load() {
  Loaded l;
  void* lib = nullptr;
  std::string tried;
  // 1. A driver the process already has: in the global scope, or one of our names already open.
  if (dlsym(RTLD_DEFAULT, "cuLaunchKernel") && dlsym(RTLD_DEFAULT, "cuModuleLoadDataEx")) {
    lib = RTLD_DEFAULT;
    l.d.path = "(the process's global scope)";
  }
  const char* env_cuda = std::getenv("TESSERA_CUDA_LIB");
  const char* env_sim = std::getenv("TESSERA_SIM_LIB");
  std::vector<std::string> names;
  if (env_cuda && *env_cuda) names.push_back(env_cuda);
  if (env_sim && *env_sim) names.push_back(env_sim);
  names.push_back("libcuda.so.1");
  // The sim by its soname too: the Node addon opens it by path, privately (RTLD_LOCAL).
  std::vector<std::string> open_names = names;
  open_names.push_back("libtessera_sim.so");
  for (size_t i = 0; !lib && i < open_names.size(); ++i) {
    if ((lib = dlopen(open_names[i].c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))) l.d.path = open_names[i];
  }
  // 2. Else load one, explicit environment first.
  for (size_t i = 0; !lib && i < names.size(); ++i) {
    if ((lib = dlopen(names[i].c_str(), RTLD_NOW | RTLD_LOCAL))) l.d.path = names[i];
    else {
      const char* why = dlerror();
      tried += "\n  " + names[i] + ": " + (why ? why : "not found");
    }
  }
  if (!lib) {
    l.status = Status::error("no CUDA driver: set TESSERA_SIM_LIB to build/lib/libtessera_sim.so (the sim) or install one; tried" + tried);
    return l;
  }
  l.status = bind_all(lib, &l.d);
  if (l.status.ok) l.status = cu_check(l.d, l.d.Init(0), "cuInit");
  return l;
}

}  // namespace

Status driver(const Driver** out) {
  // Process-wide: a C library loaded by XLA has no per-environment instance to hang this on.
  static const Loaded loaded = load();
  if (!loaded.status.ok) return loaded.status;
  *out = &loaded.d;
  return {};
}

Status cu_check(const Driver& d, CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return {};
  const char* name = nullptr;
  if (d.GetErrorName) d.GetErrorName(r, &name);
  return Status::error(std::string(what) + " failed: " + (name ? name : ("CUresult " + std::to_string(int(r)))));
}

Status current_context(const Driver& d, CUcontext* out) {
  CUcontext ctx = nullptr;
  TX_RETURN_IF_ERROR(cu_check(d, d.CtxGetCurrent(&ctx), "cuCtxGetCurrent"));
  if (!ctx) return Status::error("no CUDA context is current on the calling thread");
  *out = ctx;
  return {};
}

Status function_in(const Driver& d, const std::vector<Image>& images, const std::string& entry, CUfunction* out) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    CUmodule m;
    bool cached = false;
    TX_RETURN_IF_ERROR(module_for(d, images, &m, &cached));
    const CUresult r = d.ModuleGetFunction(out, m, entry.c_str());
    if (r == CUDA_SUCCESS) return {};
    if (r == CUDA_ERROR_NOT_FOUND) return Status::error("entry '" + entry + "' is not in the kernel's module");
    // A cached module of a context that was destroyed and re-created at the same address: reload.
    if (cached && attempt == 0 && (r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_CONTEXT_IS_DESTROYED)) {
      forget_module(m);
      continue;
    }
    return cu_check(d, r, ("cuModuleGetFunction(" + entry + ")").c_str());
  }
  return Status::error("unreachable");
}

namespace {
std::mutex g_mu;
std::map<std::pair<CUcontext, uint64_t>, CUmodule> g_modules;
}  // namespace

void forget_module(CUmodule m) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto it = g_modules.begin(); it != g_modules.end();) it = it->second == m ? g_modules.erase(it) : std::next(it);
}

Status module_for(const Driver& d, const std::vector<Image>& images, CUmodule* out, bool* cached) {
  *cached = false;
  CUcontext ctx = nullptr;
  TX_RETURN_IF_ERROR(current_context(d, &ctx));
  // Key: context + FNV-1a of every image's bytes and sizes.
  uint64_t h = 1469598103934665603ull;
  for (const Image& im : images) {
    for (size_t i = 0; i < im.size; ++i) h = (h ^ im.data[i]) * 1099511628211ull;
    h = (h ^ im.size ^ (uint64_t(im.arch) << 32) ^ (im.cubin ? 1 : 0)) * 1099511628211ull;
  }
  // Process-wide: modules outlive any one call, and XLA gives the library no state of its own.
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_modules.find({ctx, h});
  if (it != g_modules.end()) { *out = it->second; *cached = true; return {}; }

  CUdevice dev;
  int major = 0, minor = 0;
  TX_RETURN_IF_ERROR(cu_check(d, d.CtxGetDevice(&dev), "cuCtxGetDevice"));
  TX_RETURN_IF_ERROR(cu_check(d, d.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute"));
  TX_RETURN_IF_ERROR(cu_check(d, d.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute"));
  const unsigned cc = unsigned(major * 10 + minor);
  std::vector<const Image*> order;
  for (const Image& im : images) if (im.cubin && im.arch / 10 == cc / 10 && im.arch <= cc) order.push_back(&im);
  for (const Image& im : images) if (!im.cubin && im.arch <= cc) order.push_back(&im);
  if (order.empty()) return Status::error("no image runs on this device (sm_" + std::to_string(cc) + ")");
  std::string why;
  for (const Image* im : order) {
    std::string text;
    const void* bytes = im->data;
    if (!im->cubin) { text.assign(reinterpret_cast<const char*>(im->data), im->size); bytes = text.c_str(); }  // NUL-terminated
    char log[2048] = {};
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[2] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
    CUmodule m = nullptr;
    CUresult r = d.ModuleLoadDataEx(&m, bytes, 2, opts, vals);
    if (r == CUDA_SUCCESS) {
      g_modules[{ctx, h}] = m;
      *out = m;
      return {};
    }
    why += std::string(im->cubin ? " cubin sm_" : " ptx sm_") + std::to_string(im->arch) + ": " + cu_check(d, r, "cuModuleLoadDataEx").message +
           (log[0] ? std::string(" (") + log + ")" : "") + ";";
  }
  return Status::error("no image could be loaded:" + why);
}

}  // namespace tx
