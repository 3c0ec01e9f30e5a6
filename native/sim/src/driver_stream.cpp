// Streams, events and host functions.
#include <algorithm>

#include "driver_state.h"

using tsimdrv::Driver;

namespace {
CUresult lookupEvent(CUevent e) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  return (e && d.events.count(e)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

std::shared_ptr<EventRecord> recordOf(CUevent e) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  return e->record;
}

// Where a stream handle's queue ends right now (for synchronize/query).
tsimdrv::WaitPoint streamTail(CUctx_st* ctx, CUstream s) {
  if (!s || s == CU_STREAM_LEGACY) return ctx->legacy->tail();
  if (s == CU_STREAM_PER_THREAD) return ctx->perThread->tail();
  return s->queue->tail();
}
}  // namespace

TSIM_API CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!phStream || (flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING))) return CUDA_ERROR_INVALID_VALUE;
  auto* s = new CUstream_st();
  s->ctx = ctx;
  s->flags = flags;
  s->priority = std::clamp(priority, -5, 0);  // out-of-range priorities are clamped, as documented
  s->queue = std::make_unique<tsimdrv::StreamQueue>();
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    d.streams.insert(s);
    ctx->streams.push_back(s);
  }
  *phStream = s;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamCreate(CUstream* phStream, unsigned int flags) {
  return cuStreamCreateWithPriority(phStream, flags, 0);
}

TSIM_API CUresult cuStreamDestroy_v2(CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD || !d.streams.count(hStream))
      return CUDA_ERROR_INVALID_HANDLE;
    d.streams.erase(hStream);
    auto& v = hStream->ctx->streams;
    v.erase(std::remove(v.begin(), v.end(), hStream), v.end());
  }
  delete hStream->capture;  // a capture never ended dies with its stream
  delete hStream;  // the queue finishes its queued work before the worker exits
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamSynchronize(CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (CUresult r = tsimdrv::refuseDuringCapture(ctx, hStream, false)) return r;
  tsimdrv::WaitPoint wp = streamTail(ctx, hStream);
  wp.progress->waitFor(wp.ticket);
  return static_cast<CUresult>(ctx->sticky.load());
}

TSIM_API CUresult cuStreamQuery(CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (CUresult r = tsimdrv::refuseDuringCapture(ctx, hStream, false)) return r;
  tsimdrv::WaitPoint wp = streamTail(ctx, hStream);
  return wp.progress->reached(wp.ticket) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

TSIM_API CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) ? 0 : hStream->flags;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!priority) return CUDA_ERROR_INVALID_VALUE;
  *priority = (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) ? 0 : hStream->priority;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = ctx;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (CUresult r = lookupEvent(hEvent)) return r;
  if (flags & ~1u) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<EventRecord> rec = recordOf(hEvent);
  if (!rec) return CUDA_SUCCESS;  // never recorded: nothing to wait for
  // The wait happens in the stream's worker, so the host does not block.
  tsimdrv::enqueueWork(ctx, hStream, [rec] { rec->point.progress->waitFor(rec->point.ticket); });
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!fn) return CUDA_ERROR_INVALID_VALUE;
  tsimdrv::enqueueWork(ctx, hStream, [fn, userData] { fn(userData); });
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuEventCreate(CUevent* phEvent, unsigned int flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (!phEvent || (flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) return CUDA_ERROR_INVALID_VALUE;
  auto* e = new CUevent_st();
  e->ctx = ctx;
  e->flags = flags;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    d.events.insert(e);
    ctx->events.push_back(e);
  }
  *phEvent = e;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = lookupEvent(hEvent)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (hEvent->ctx != ctx) return CUDA_ERROR_INVALID_HANDLE;
  auto rec = std::make_shared<EventRecord>();
  EventRecord* raw = rec.get();
  rec->point = tsimdrv::enqueueWork(ctx, hStream, [raw] { raw->ms = tsimdrv::hostMillis(); });
  // The enqueued work runs later, but `rec` is published before anyone can wait on it.
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  hEvent->record = rec;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  if (flags & ~1u) return CUDA_ERROR_INVALID_VALUE;
  return cuEventRecord(hEvent, hStream);
}

TSIM_API CUresult cuEventQuery(CUevent hEvent) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = lookupEvent(hEvent)) return r;
  std::shared_ptr<EventRecord> rec = recordOf(hEvent);
  if (!rec) return CUDA_SUCCESS;
  return rec->point.progress->reached(rec->point.ticket) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

TSIM_API CUresult cuEventSynchronize(CUevent hEvent) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = lookupEvent(hEvent)) return r;
  std::shared_ptr<EventRecord> rec = recordOf(hEvent);
  if (!rec) return CUDA_SUCCESS;
  rec->point.progress->waitFor(rec->point.ticket);
  return static_cast<CUresult>(ctx->sticky.load());
}

TSIM_API CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = lookupEvent(hStart)) return r;
  if (CUresult r = lookupEvent(hEnd)) return r;
  if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  std::shared_ptr<EventRecord> a = recordOf(hStart), b = recordOf(hEnd);
  if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->point.progress->reached(a->point.ticket) || !b->point.progress->reached(b->point.ticket))
    return CUDA_ERROR_NOT_READY;
  *pMilliseconds = static_cast<float>(b->ms - a->ms);
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuEventDestroy_v2(CUevent hEvent) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!hEvent || !d.events.count(hEvent)) return CUDA_ERROR_INVALID_HANDLE;
    d.events.erase(hEvent);
    auto& v = hEvent->ctx->events;
    v.erase(std::remove(v.begin(), v.end(), hEvent), v.end());
  }
  delete hEvent;  // queued records hold their own EventRecord
  return CUDA_SUCCESS;
}

// The pre-10.0 form of cuLaunchHostFunc; the callback also receives the stream and its status.
TSIM_API CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData,
                                      unsigned int flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  tsimdrv::enqueueWork(ctx, hStream, [hStream, callback, userData, ctx] {
    callback(hStream, static_cast<CUresult>(ctx->sticky.load()), userData);
  });
  return CUDA_SUCCESS;
}
