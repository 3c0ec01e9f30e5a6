// Device memory: allocation, copies, memsets and pointer attributes. All host memory is treated
// as pageable, so copies follow the pageable rules of the real driver: an async host-to-device
// copy snapshots the source before returning, a device-to-host copy returns once it is done.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {

CUresult deviceRange(CUctx_st* ctx, CUdeviceptr p, size_t n, uint8_t** out) {
  *out = n == 0 ? nullptr : ctx->memory->hostRange(p, n);
  return (n == 0 || *out) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The host bytes of [p, p+n) when the work runs: a range freed meanwhile (a pool trimmed, a graph
// replayed after a free) is a sticky ILLEGAL_ADDRESS fault, never a write into freed host memory.
uint8_t* resolveAtRun(CUctx_st* ctx, CUdeviceptr p, size_t n) {
  uint8_t* h = ctx->memory ? ctx->memory->hostRange(p, n) : nullptr;
  if (h) return h;
  int expected = CUDA_SUCCESS;
  ctx->sticky.compare_exchange_strong(expected, CUDA_ERROR_ILLEGAL_ADDRESS);
  Driver& d = Driver::get();
  char buf[160];
  std::snprintf(buf, sizeof buf, "tessera-sim: copy or memset of %zu bytes at 0x%llx: no live allocation holds it (freed before the work ran)",
                n, static_cast<unsigned long long>(p));
  std::lock_guard lock(d.reportMu);
  d.lastFault = buf;
  return nullptr;
}

// Runs work on the stream; when `wait`, blocks until it ran and returns the context's error.
CUresult submit(CUctx_st* ctx, CUstream s, std::function<void()> work, bool wait) {
  if (wait) {
    if (CUresult r = tsimdrv::refuseDuringCapture(ctx, s, false)) return r;
  }
  tsimdrv::WaitPoint wp = tsimdrv::enqueueWork(ctx, s, std::move(work));
  if (!wait) return CUDA_SUCCESS;
  wp.progress->waitFor(wp.ticket);
  return static_cast<CUresult>(ctx->sticky.load());
}

CUresult copyHtoD(CUdeviceptr dst, const void* src, size_t n, CUstream s, bool sync) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, s)) return r;
  uint8_t* d;
  if (CUresult r = deviceRange(ctx, dst, n, &d)) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (!src) return CUDA_ERROR_INVALID_VALUE;
  auto snapshot = std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t*>(src),
                                                         static_cast<const uint8_t*>(src) + n);
  return submit(ctx, s, [ctx, dst, snapshot] {
    if (uint8_t* to = resolveAtRun(ctx, dst, snapshot->size())) {
      std::memcpy(to, snapshot->data(), snapshot->size());
      ctx->memory->markInit(dst, snapshot->size());  // initcheck's shadow, when the bytes land
    }
  }, sync);
}

CUresult copyDtoH(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, s)) return r;
  uint8_t* from;
  if (CUresult r = deviceRange(ctx, src, n, &from)) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (!dst) return CUDA_ERROR_INVALID_VALUE;
  return submit(ctx, s, [ctx, dst, src, n] {
    if (uint8_t* from = resolveAtRun(ctx, src, n)) std::memcpy(dst, from, n);
  }, true);
}

CUresult copyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, bool sync) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, s)) return r;
  uint8_t *to, *from;
  if (CUresult r = deviceRange(ctx, dst, n, &to)) return r;
  if (CUresult r = deviceRange(ctx, src, n, &from)) return r;
  if (n == 0) return CUDA_SUCCESS;
  return submit(ctx, s, [ctx, dst, src, n] {
    uint8_t* to = resolveAtRun(ctx, dst, n);
    uint8_t* from = to ? resolveAtRun(ctx, src, n) : nullptr;
    if (!from) return;
    std::memmove(to, from, n);
    ctx->memory->markInit(dst, n);  // initcheck's shadow
  }, sync);
}

template <typename T>
CUresult memsetN(CUdeviceptr dst, T value, size_t count, CUstream s, bool sync) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, s)) return r;
  if (dst % sizeof(T) != 0) return CUDA_ERROR_INVALID_VALUE;
  uint8_t* d;
  if (count > SIZE_MAX / sizeof(T)) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = deviceRange(ctx, dst, count * sizeof(T), &d)) return r;
  if (count == 0) return CUDA_SUCCESS;
  return submit(ctx, s, [ctx, dst, value, count] {
    uint8_t* d = resolveAtRun(ctx, dst, count * sizeof(T));
    if (!d) return;
    ctx->memory->markInit(dst, count * sizeof(T));  // initcheck's shadow
    if (sizeof(T) == 1) { std::memset(d, static_cast<int>(value), count); return; }
    for (size_t i = 0; i < count; i++) std::memcpy(d + i * sizeof(T), &value, sizeof(T));
  }, sync);
}

// The context owning a device pointer (any live context), with its allocation.
CUcontext owningContext(CUdeviceptr p, tsimdrv::Allocation& a) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  for (CUcontext c : d.primaryCtxs)
    if (c->primaryRefs > 0 && c->memory && c->memory->find(p, a)) return c;
  for (CUcontext c : d.contexts)
    if (c->memory && c->memory->find(p, a)) return c;
  return nullptr;
}

// The page-locked host block containing p, if any.
bool hostBlock(CUdeviceptr p, void** base, size_t* bytes) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  for (auto& [b, n] : d.hostAllocs) {
    auto start = reinterpret_cast<uintptr_t>(b);
    if (p >= start && p < start + n) {
      *base = b;
      *bytes = n;
      return true;
    }
  }
  return false;
}

CUresult pointerAttribute(void* data, CUpointer_attribute attr, CUdeviceptr p, bool strict) {
  tsimdrv::Allocation a;
  CUcontext ctx = owningContext(p, a);
  void* hostBase = nullptr;
  size_t hostBytes = 0;
  if (!ctx && hostBlock(p, &hostBase, &hostBytes)) {
    switch (attr) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned*>(data) = CU_MEMORYTYPE_HOST; return CUDA_SUCCESS;
      case CU_POINTER_ATTRIBUTE_HOST_POINTER: *static_cast<void**>(data) = reinterpret_cast<void*>(p); return CUDA_SUCCESS;
      case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = reinterpret_cast<CUdeviceptr>(hostBase); return CUDA_SUCCESS;
      case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data) = hostBytes; return CUDA_SUCCESS;
      default: break;
    }
  }
  if (!ctx) {
    if (strict) return CUDA_ERROR_INVALID_VALUE;
    // cuPointerGetAttributes on unknown memory: reports "not CUDA memory" instead of failing.
    switch (attr) {
      case CU_POINTER_ATTRIBUTE_CONTEXT: *static_cast<CUcontext*>(data) = nullptr; return CUDA_SUCCESS;
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned*>(data) = 0; return CUDA_SUCCESS;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = -2; return CUDA_SUCCESS;
      default: std::memset(data, 0, sizeof(void*)); return CUDA_SUCCESS;
    }
  }
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *static_cast<CUcontext*>(data) = ctx; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned*>(data) = CU_MEMORYTYPE_DEVICE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = p; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: return CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *static_cast<int*>(data) = 1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *static_cast<unsigned long long*>(data) = a.base; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<int*>(data) = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = ctx->device; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = a.base; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data) = a.bytes; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED: *static_cast<int*>(data) = 1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: *static_cast<int*>(data) = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

TSIM_API CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  uint64_t p = ctx->memory->allocate(bytesize);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = p;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemFree_v2(CUdeviceptr dptr) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (dptr == 0) return CUDA_SUCCESS;
  if (CUresult r = tsimdrv::refuseDuringCapture(ctx, nullptr, true)) return r;
  // Queued work may still use the allocation: like the real driver, wait for the device first.
  if (CUresult r = tsimdrv::synchronizeContext(ctx)) return r;
  return ctx->memory->release(dptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TSIM_API CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  *total = ctx->memory->capacity();
  *free = *total - ctx->memory->used();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  tsimdrv::Allocation a;
  if (!ctx->memory->find(dptr, a)) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = a.base;
  if (psize) *psize = a.bytes;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) { return copyHtoD(dst, src, n, nullptr, true); }
TSIM_API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) { return copyDtoH(dst, src, n, nullptr); }
TSIM_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copyDtoD(dst, src, n, nullptr, true); }
TSIM_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return copyHtoD(dst, src, n, s, false);
}
TSIM_API CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return copyDtoH(dst, src, n, s);
}
TSIM_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copyDtoD(dst, src, n, s, false);
}

// Unified-addressing copies: the direction follows from which side is device memory.
TSIM_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  tsimdrv::Allocation a;
  bool dDev = ctx->memory->find(dst, a), sDev = ctx->memory->find(src, a);
  if (dDev && sDev) return copyDtoD(dst, src, n, s, false);
  if (dDev) return copyHtoD(dst, reinterpret_cast<const void*>(src), n, s, false);
  if (sDev) return copyDtoH(reinterpret_cast<void*>(dst), src, n, s);
  if (n) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}
TSIM_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  if (CUresult r = cuMemcpyAsync(dst, src, n, nullptr)) return r;
  return cuCtxSynchronize();
}

TSIM_API CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return memsetN<uint8_t>(d, v, n, nullptr, true); }
TSIM_API CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return memsetN<uint16_t>(d, v, n, nullptr, true); }
TSIM_API CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) { return memsetN<uint32_t>(d, v, n, nullptr, true); }
TSIM_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return memsetN<uint8_t>(d, v, n, s, false);
}
TSIM_API CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return memsetN<uint16_t>(d, v, n, s, false);
}
TSIM_API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) {
  return memsetN<uint32_t>(d, v, n, s, false);
}

TSIM_API CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  return pointerAttribute(data, attribute, ptr, true);
}

TSIM_API CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                         CUdeviceptr ptr) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (numAttributes > 0 && (!attributes || !data)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < numAttributes; i++) {
    if (!data[i]) continue;
    CUresult r = pointerAttribute(data[i], attributes[i], ptr, false);
    if (r == CUDA_ERROR_INVALID_VALUE && attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER) {
      *static_cast<void**>(data[i]) = nullptr;
      continue;
    }
    if (r) return r;
  }
  return CUDA_SUCCESS;
}

// Page-locked host memory. On the sim every host byte is equally reachable, so this is plain
// host memory that the pointer queries recognise; copies from it behave like the pageable kind.
TSIM_API CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!pp || bytesize == 0 || (flags & ~0x7u)) return CUDA_ERROR_INVALID_VALUE;
  if (flags & CU_MEMHOSTALLOC_DEVICEMAP) return CUDA_ERROR_NOT_SUPPORTED;  // no mapped memory
  void* p = std::calloc(1, bytesize);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  d.hostAllocs[p] = bytesize;
  *pp = p;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

TSIM_API CUresult cuMemFreeHost(void* p) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    auto it = d.hostAllocs.find(p);
    if (it == d.hostAllocs.end()) return CUDA_ERROR_INVALID_VALUE;
    d.hostAllocs.erase(it);
  }
  std::free(p);
  return CUDA_SUCCESS;
}
