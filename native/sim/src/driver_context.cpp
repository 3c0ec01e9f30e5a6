// Primary and created contexts, and the per-thread current-context stack.
#include <algorithm>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {
CUresult initialized() {
  return Driver::get().initialized.load() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}
CUresult checkDev(CUdevice dev) {
  if (CUresult r = initialized()) return r;
  return dev >= 0 && dev < Driver::get().deviceCount ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
bool isPrimary(CUcontext ctx) {
  auto& v = Driver::get().primaryCtxs;
  return std::find(v.begin(), v.end(), ctx) != v.end();
}
void dropFromStacks(CUcontext ctx) {
  auto& stack = tsimdrv::ctxStack();
  for (auto& c : stack)
    if (c == ctx) c = nullptr;
  while (!stack.empty() && stack.back() == nullptr) stack.pop_back();
}
}  // namespace

TSIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (CUresult r = checkDev(dev)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  CUctx_st* ctx = tsimdrv::primaryOf(dev);
  std::lock_guard life(ctx->lifeMu);  // waits for a release's teardown still under way
  {
    // Under the lock: a second thread retaining at the same time must see the resources.
    std::lock_guard lock(d.mu);
    if (ctx->primaryRefs++ == 0 && !ctx->memory) tsimdrv::createContextResources(ctx);
  }
  *pctx = ctx;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  if (CUresult r = checkDev(dev)) return r;
  Driver& d = Driver::get();
  CUctx_st* ctx = tsimdrv::primaryOf(dev);
  std::lock_guard life(ctx->lifeMu);  // a retain meanwhile waits for the teardown below
  bool last = false;
  {
    std::lock_guard lock(d.mu);
    if (ctx->primaryRefs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    last = --ctx->primaryRefs == 0;
  }
  // As the real driver: the primary context is reset once its last reference is released, so a
  // sticky error does not outlive it.
  if (last) {
    tsimdrv::teardownContext(ctx);
    std::lock_guard lock(d.mu);
    if (ctx->primaryRefs == 0) ctx->sticky = CUDA_SUCCESS;
  }
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  if (CUresult r = checkDev(dev)) return r;
  CUctx_st* ctx = tsimdrv::primaryOf(dev);
  std::lock_guard life(ctx->lifeMu);
  // Destroys every allocation, module, stream and event, and clears a sticky error.
  tsimdrv::teardownContext(ctx);
  std::lock_guard lock(Driver::get().mu);
  if (ctx->primaryRefs > 0) tsimdrv::createContextResources(ctx);
  ctx->sticky = CUDA_SUCCESS;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (CUresult r = checkDev(dev)) return r;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  *flags = tsimdrv::primaryOf(dev)->flags;
  *active = tsimdrv::primaryOf(dev)->primaryRefs > 0;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  if (CUresult r = checkDev(dev)) return r;
  if (flags & ~0x1fu) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  tsimdrv::primaryOf(dev)->flags = flags;
  return CUDA_SUCCESS;
}

CUresult tsimCreateContext(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  if (CUresult r = checkDev(dev)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~0x1fu) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  auto* ctx = new CUctx_st();
  ctx->flags = flags;
  ctx->device = dev;
  tsimdrv::createContextResources(ctx);
  {
    std::lock_guard lock(d.mu);
    d.contexts.insert(ctx);
  }
  tsimdrv::ctxStack().push_back(ctx);
  *pctx = ctx;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags, CUdevice dev) {
  if (params && (params->numExecAffinityParams != 0 || params->cigParams)) return CUDA_ERROR_NOT_SUPPORTED;
  return tsimCreateContext(pctx, flags, dev);
}

TSIM_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
  if (CUresult r = initialized()) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!ctx || isPrimary(ctx) || !d.contexts.count(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    d.contexts.erase(ctx);
  }
  tsimdrv::teardownContext(ctx);
  dropFromStacks(ctx);
  delete ctx;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (CUresult r = initialized()) return r;
  Driver& d = Driver::get();
  if (ctx) {
    std::lock_guard lock(d.mu);
    if (!isPrimary(ctx) && !d.contexts.count(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  auto& stack = tsimdrv::ctxStack();
  if (stack.empty()) {
    if (ctx) stack.push_back(ctx);
  } else if (ctx) {
    stack.back() = ctx;
  } else {
    stack.pop_back();
  }
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (CUresult r = initialized()) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  auto& stack = tsimdrv::ctxStack();
  *pctx = stack.empty() ? nullptr : stack.back();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (CUresult r = initialized()) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!ctx || (!isPrimary(ctx) && !d.contexts.count(ctx))) return CUDA_ERROR_INVALID_CONTEXT;
  }
  tsimdrv::ctxStack().push_back(ctx);
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  if (CUresult r = initialized()) return r;
  auto& stack = tsimdrv::ctxStack();
  if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx) *pctx = stack.back();
  stack.pop_back();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxGetDevice(CUdevice* device) {
  if (CUresult r = initialized()) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  auto& stack = tsimdrv::ctxStack();
  if (stack.empty() || !stack.back()) return CUDA_ERROR_INVALID_CONTEXT;
  *device = stack.back()->device;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxGetFlags(unsigned int* flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = ctx->flags;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  if (CUresult r = initialized()) return r;
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  if (!ctx) {
    auto& stack = tsimdrv::ctxStack();
    if (stack.empty() || !stack.back()) return CUDA_ERROR_INVALID_CONTEXT;
  }
  *version = 3020;  // the value the real driver reports for contexts created by the v2+ API
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxSynchronize(void) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  auto& stack = tsimdrv::ctxStack();
  CUcontext ctx = stack.empty() ? nullptr : stack.back();
  {
    std::lock_guard lock(d.mu);
    if (!tsimdrv::contextAlive(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (CUresult r = tsimdrv::refuseDuringCapture(ctx, nullptr, true)) return r;
  return tsimdrv::synchronizeContext(ctx);
}

TSIM_API CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (limit < 0 || static_cast<size_t>(limit) >= sizeof ctx->limits / sizeof ctx->limits[0])
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  ctx->limits[limit] = value;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!pvalue) return CUDA_ERROR_INVALID_VALUE;
  if (limit < 0 || static_cast<size_t>(limit) >= sizeof ctx->limits / sizeof ctx->limits[0])
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  static const size_t defaults[] = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0, 0};
  *pvalue = ctx->limits[limit] ? ctx->limits[limit] : defaults[limit];
  return CUDA_SUCCESS;
}
