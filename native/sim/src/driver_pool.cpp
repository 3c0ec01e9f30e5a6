// Stream-ordered memory pools (cuMemPoolCreate, cuMemAllocFromPoolAsync, cuMemFreeAsync, ...) and
// peer copies between devices.
//
// A pool keeps freed blocks for reuse instead of giving them back: cuMemFreeAsync queues the free
// on the stream, and the block becomes reusable once the stream reaches it (all work queued
// before the free is done), so reuse by any stream is safe without a device-wide wait. Blocks are
// reserved from the device memory of the context that allocates (the memory checker still sees
// them as allocations, so an access past a block's end faults as before). Memory above the
// release threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, default 0) is returned when a free
// completes; cuMemPoolTrimTo returns cached blocks at once. Nothing here synchronizes the device.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {
constexpr size_t kAlign = 256;
size_t roundUp(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// A pool's blocks and counters; shared with the frees queued on streams, so destroying the pool
// handle never leaves a queued free pointing at freed state.
struct PoolState {
  std::mutex mu;
  CUdevice device = 0;
  CUctx_st* ctx = nullptr;  // the context whose memory holds the blocks
  uint64_t epoch = 0;       // its memoryEpoch: blocks die with that memory
  bool destroyed = false;
  std::multimap<size_t, uint64_t> cached;       // free blocks by size
  // Blocks whose free is queued on a stream but not yet reached: reusable by later allocations
  // on that same stream only (stream order puts the free before them), as on hardware.
  struct Pending { size_t size; uint64_t addr; CUstream stream; };
  std::vector<Pending> pending;
  std::unordered_map<uint64_t, size_t> live;    // handed-out blocks
  size_t reserved = 0, used = 0, reservedHigh = 0, usedHigh = 0;
  uint64_t releaseThreshold = 0;

  // The blocks belong to ctx's current memory; after a reset/teardown they are gone.
  void bindTo(CUctx_st* c) {
    if (ctx == c && epoch == c->memoryEpoch) return;
    cached.clear();
    pending.clear();
    live.clear();
    reserved = used = 0;
    ctx = c;
    epoch = c->memoryEpoch;
  }
  // Returns cached blocks to the device until at most `keep` bytes stay reserved. Caller holds mu.
  void trimTo(size_t keep) {
    if (!ctx || !ctx->memory || epoch != ctx->memoryEpoch) return;
    for (auto it = cached.begin(); it != cached.end() && reserved > keep;) {
      ctx->memory->release(it->second);
      reserved -= it->first;
      it = cached.erase(it);
    }
  }
};
}  // namespace

struct CUmemPoolHandle_st {
  std::shared_ptr<PoolState> state = std::make_shared<PoolState>();
};

namespace {
CUresult checkPool(CUmemoryPool p) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  std::lock_guard lock(d.mu);
  return (p && d.pools.count(p)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The pool holding a live block at `ptr` (its state), or null.
std::shared_ptr<PoolState> poolOf(CUdeviceptr ptr) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  for (CUmemoryPool p : d.pools) {
    std::lock_guard pl(p->state->mu);
    if (p->state->live.count(ptr)) return p->state;
  }
  return nullptr;
}

bool capturing(CUstream s) {
  if (!s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return false;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!s->capture) return false;
  s->captureInvalid = true;  // the sim records no memory nodes: the capture is invalidated
  return true;
}
}  // namespace

TSIM_API CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!pool || !props) return CUDA_ERROR_INVALID_VALUE;
  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_NOT_SUPPORTED;  // device-resident pools only
  if (props->location.id < 0 || props->location.id >= d.deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE) return CUDA_ERROR_NOT_SUPPORTED;  // no IPC
  auto* p = new CUmemPoolHandle_st();
  p->state->device = props->location.id;
  std::lock_guard lock(d.mu);
  d.pools.insert(p);
  *pool = p;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  if (CUresult r = checkPool(pool)) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (std::find(d.defaultPools.begin(), d.defaultPools.end(), pool) != d.defaultPools.end())
      return CUDA_ERROR_INVALID_VALUE;  // a device's default pool cannot be destroyed
    d.pools.erase(pool);
  }
  {
    // Cached blocks go back now; blocks still allocated go back when freed (cuMemFree).
    std::lock_guard pl(pool->state->mu);
    pool->state->destroyed = true;
    pool->state->trimTo(0);
  }
  delete pool;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice dev) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= d.deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(d.mu);
  CUmemoryPool& slot = d.defaultPools[static_cast<size_t>(dev)];
  if (!slot) {
    slot = new CUmemPoolHandle_st();
    slot->state->device = dev;
    d.pools.insert(slot);
  }
  *pool = slot;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (CUresult r = checkPool(pool)) return r;
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (capturing(hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  PoolState& s = *pool->state;
  if (s.device != ctx->device) return CUDA_ERROR_INVALID_VALUE;  // the pool lives on another device
  const size_t rounded = roundUp(bytesize);
  std::lock_guard pl(s.mu);
  s.bindTo(ctx);
  uint64_t p = 0;
  size_t size = rounded;
  // Best fit among cached blocks, at most twice the request (no large block spent on a small one).
  auto it = s.cached.lower_bound(rounded);
  auto same = std::find_if(s.pending.begin(), s.pending.end(), [&](const PoolState::Pending& b) {
    return b.stream == hStream && b.size >= rounded && b.size <= 2 * rounded;
  });
  if (same != s.pending.end()) {
    size = same->size;
    p = same->addr;
    s.pending.erase(same);
  } else if (it != s.cached.end() && it->first <= 2 * rounded) {
    size = it->first;
    p = it->second;
    s.cached.erase(it);
  } else {
    p = ctx->memory->allocate(rounded);
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    // (reserved and checked as `rounded`; narrowed to the request below)
    s.reserved += rounded;
    s.reservedHigh = std::max(s.reservedHigh, s.reserved);
  }
  // The memory checker sees the request's size, not the block's: an access past the requested
  // bytes faults even inside the block, as with cuMemAlloc.
  ctx->memory->resize(p, bytesize);
  s.live[p] = size;
  s.used += size;
  s.usedHigh = std::max(s.usedHigh, s.used);
  *dptr = p;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  CUmemoryPool pool = nullptr;
  if (CUresult r = cuDeviceGetDefaultMemPool(&pool, ctx->device)) return r;
  return cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream);
}

TSIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  std::shared_ptr<PoolState> s = poolOf(dptr);
  if (!s) {
    // Not a pool block: an ordinary allocation is freed in stream order too.
    tsimdrv::Allocation a;
    if (!ctx->memory->find(dptr, a) || a.base != dptr || a.moduleVar) return CUDA_ERROR_INVALID_VALUE;
    if (capturing(hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    tsimdrv::enqueueWork(ctx, hStream, [ctx, dptr] { ctx->memory->release(dptr); });
    return CUDA_SUCCESS;
  }
  if (capturing(hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  {
    std::lock_guard pl(s->mu);
    if (s->ctx != ctx) return CUDA_ERROR_INVALID_CONTEXT;
    auto it = s->live.find(dptr);
    if (it == s->live.end()) return CUDA_ERROR_INVALID_VALUE;
    // Freed in stream order: later allocations on this stream may take it at once; every other
    // stream once the stream has reached the free (the work queued before it is done).
    s->used -= it->second;
    if (!s->destroyed) s->pending.push_back({it->second, dptr, hStream});
    s->live.erase(it);
  }
  tsimdrv::enqueueWork(ctx, hStream, [s, dptr] {
    std::lock_guard pl(s->mu);
    if (!s->ctx || s->epoch != s->ctx->memoryEpoch) return;
    auto it = std::find_if(s->pending.begin(), s->pending.end(), [&](const PoolState::Pending& b) { return b.addr == dptr; });
    if (s->destroyed) {
      if (it != s->pending.end()) s->pending.erase(it);
      if (!s->live.count(dptr)) {
        s->ctx->memory->release(dptr);
      }
      return;
    }
    if (it == s->pending.end()) return;  // reused on the same stream meanwhile
    s->cached.emplace(it->size, it->addr);
    s->pending.erase(it);
    if (s->reserved > s->releaseThreshold) s->trimTo(s->releaseThreshold);
  });
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  if (CUresult r = checkPool(pool)) return r;
  std::lock_guard pl(pool->state->mu);
  pool->state->trimTo(minBytesToKeep);
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  if (CUresult r = checkPool(pool)) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  PoolState& s = *pool->state;
  std::lock_guard pl(s.mu);
  switch (attr) {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: s.releaseThreshold = *static_cast<cuuint64_t*>(value); return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      if (*static_cast<cuuint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;  // may only be reset
      s.reservedHigh = s.reserved;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      if (*static_cast<cuuint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;
      s.usedHigh = s.used;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      return CUDA_SUCCESS;  // reuse here only ever follows completed frees: always safe
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

TSIM_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  if (CUresult r = checkPool(pool)) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  PoolState& s = *pool->state;
  std::lock_guard pl(s.mu);
  if (s.ctx && s.epoch != s.ctx->memoryEpoch) {  // the memory was reset: nothing is held anymore
    s.cached.clear();
    s.live.clear();
    s.reserved = s.used = 0;
  }
  auto* out = static_cast<cuuint64_t*>(value);
  switch (attr) {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *out = s.releaseThreshold; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *out = s.reserved; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *out = s.reservedHigh; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *out = s.used; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *out = s.usedHigh; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      *static_cast<int*>(value) = 1;
      return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

// --- peers ---------------------------------------------------------------------------------
// Simulated devices cannot map each other's memory (no peer access, as GPUs on separate PCIe
// roots); cuMemcpyPeer still copies between them, as the real driver does (it stages the copy).

TSIM_API CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= d.deviceCount || peerDev < 0 || peerDev >= d.deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  *canAccessPeer = 0;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  {
    Driver& d = Driver::get();
    std::lock_guard lock(d.mu);
    if (!tsimdrv::contextAlive(peerContext)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

TSIM_API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src, CUcontext srcContext,
                                    size_t n, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  {
    Driver& d = Driver::get();
    std::lock_guard lock(d.mu);
    if (!tsimdrv::contextAlive(dstContext) || !tsimdrv::contextAlive(srcContext)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (int st = srcContext->sticky.load()) return static_cast<CUresult>(st);
  if (int st = dstContext->sticky.load()) return static_cast<CUresult>(st);
  if (n == 0) return CUDA_SUCCESS;
  if (!dstContext->memory->hostRange(dst, n) || !srcContext->memory->hostRange(src, n)) return CUDA_ERROR_INVALID_VALUE;
  if (capturing(hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  // Ordered on hStream only (the caller orders the source's work before it, as on hardware);
  // both ranges are resolved when the copy runs.
  tsimdrv::enqueueWork(ctx, hStream, [dstContext, dst, srcContext, src, n, ctx] {
    uint8_t* to = dstContext->memory ? dstContext->memory->hostRange(dst, n) : nullptr;
    uint8_t* from = srcContext->memory ? srcContext->memory->hostRange(src, n) : nullptr;
    if (!to || !from) {
      int expected = CUDA_SUCCESS;
      ctx->sticky.compare_exchange_strong(expected, CUDA_ERROR_ILLEGAL_ADDRESS);
      return;
    }
    std::memmove(to, from, n);
    dstContext->memory->markInit(dst, n);  // initcheck's shadow of the destination
  });
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src, CUcontext srcContext, size_t n) {
  if (CUresult r = cuMemcpyPeerAsync(dst, dstContext, src, srcContext, n, nullptr)) return r;
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  tsimdrv::WaitPoint wp = ctx->legacy->tail();
  wp.progress->waitFor(wp.ticket);
  return static_cast<CUresult>(ctx->sticky.load());
}

// Pool destruction of the default pools and of pools never destroyed happens at process exit
// with the driver singleton (leaked on purpose, like the driver itself).
