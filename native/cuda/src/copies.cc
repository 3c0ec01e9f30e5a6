// Device-to-device copies, stream-ordered memset, cross-stream waits and event queries.
#include "methods.h"

namespace tcu {

namespace {

void span(const DevicePtrState& p, uint64_t offset, uint64_t bytes, const std::string& what) {
  if (offset > p.bytes || bytes > p.bytes - offset) {
    fail("E_RANGE", what + ": " + std::to_string(bytes) + " bytes at offset " +
                        std::to_string(offset) + " exceed the allocation of " +
                        std::to_string(p.bytes) + " bytes");
  }
}

uint64_t optOffset(napi_env env, const Args& a, size_t i, const char* name) {
  return isNullish(env, a[i]) ? 0 : toU64(env, a[i], a.where(name), SIZE_MAX);
}

}  // namespace

// memcpyDtoD(dst, src, bytes, dstOffset = 0, srcOffset = 0)
napi_value Driver_memcpyDtoD(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyDtoD", 5);
    DriverRef d = driverOf(env, a);
    auto dst = livePtr(env, a[0], d, a.where("dst"));
    auto src = livePtr(env, a[1], d, a.where("src"));
    uint64_t bytes = toU64(env, a[2], a.where("bytes"), SIZE_MAX);
    uint64_t dOff = optOffset(env, a, 3, "dstOffset"), sOff = optOffset(env, a, 4, "srcOffset");
    span(*dst, dOff, bytes, a.where("dst"));
    span(*src, sOff, bytes, a.where("src"));
    if (bytes == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemcpyDtoD, "cuMemcpyDtoD_v2")(dst->addr + dOff, src->addr + sOff, bytes),
             "cuMemcpyDtoD_v2");
    return jsUndefined(env);
  });
}

// memcpyDtoDAsync(dst, src, bytes, stream | null, dstOffset = 0, srcOffset = 0)
napi_value Driver_memcpyDtoDAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyDtoDAsync", 6);
    DriverRef d = driverOf(env, a);
    auto dst = livePtr(env, a[0], d, a.where("dst"));
    auto src = livePtr(env, a[1], d, a.where("src"));
    uint64_t bytes = toU64(env, a[2], a.where("bytes"), SIZE_MAX);
    auto s = optStream(env, a[3], d, a.where("stream"));
    uint64_t dOff = optOffset(env, a, 4, "dstOffset"), sOff = optOffset(env, a, 5, "srcOffset");
    span(*dst, dOff, bytes, a.where("dst"));
    span(*src, sOff, bytes, a.where("src"));
    if (bytes == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")(
                 dst->addr + dOff, src->addr + sOff, bytes, s ? s->stream : nullptr),
             "cuMemcpyDtoDAsync_v2");
    return jsUndefined(env);
  });
}

// memsetD8Async(ptr, value, count, offset, stream | null)
napi_value Driver_memsetD8Async(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memsetD8Async", 5);
    DriverRef d = driverOf(env, a);
    auto p = livePtr(env, a[0], d, a.where("ptr"));
    uint64_t value = toU64(env, a[1], a.where("value"), 255);
    uint64_t count = toU64(env, a[2], a.where("count"), SIZE_MAX);
    uint64_t offset = optOffset(env, a, 3, "offset");
    auto s = optStream(env, a[4], d, a.where("stream"));
    span(*p, offset, count, a.where("count"));
    if (count == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemsetD8Async, "cuMemsetD8Async")(
                 p->addr + offset, static_cast<unsigned char>(value), count, s ? s->stream : nullptr),
             "cuMemsetD8Async");
    return jsUndefined(env);
  });
}

// streamWaitEvent(stream | null, event): later work on `stream` waits for the event's work.
napi_value Driver_streamWaitEvent(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamWaitEvent", 2);
    DriverRef d = driverOf(env, a);
    auto s = optStream(env, a[0], d, a.where("stream"));
    auto e = liveEvent(env, a[1], d, a.where("event"));
    d->bind();
    d->check(d->need(d->api().cuStreamWaitEvent, "cuStreamWaitEvent")(s ? s->stream : nullptr, e->event, 0),
             "cuStreamWaitEvent");
    return jsUndefined(env);
  });
}

// eventQuery(event) -> true when the recorded work completed (CUDA_ERROR_NOT_READY -> false).
napi_value Driver_eventQuery(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventQuery", 1);
    DriverRef d = driverOf(env, a);
    auto e = liveEvent(env, a[0], d, a.where("event"));
    d->bind();
    CUresult r = d->need(d->api().cuEventQuery, "cuEventQuery")(e->event);
    if (r == CUDA_ERROR_NOT_READY) return jsBool(env, false);
    d->check(r, "cuEventQuery");
    return jsBool(env, true);
  });
}

}  // namespace tcu
