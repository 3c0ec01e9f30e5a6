// Device-to-device copies, stream-ordered memset, cross-stream waits and event queries.
#include "addon.h"

namespace tcu {

namespace {

void span(const DevicePtrState& p, uint64_t offset, uint64_t bytes, const std::string& what) {
  if (offset > p.bytes || bytes > p.bytes - offset) {
    fail("E_RANGE", what + ": " + std::to_string(bytes) + " bytes at offset " +
                        std::to_string(offset) + " exceed the allocation of " +
                        std::to_string(p.bytes) + " bytes");
  }
}

uint64_t optOffset(const Args& a, size_t i, const char* name) {
  return isNullish(a[i]) ? 0 : toU64(a[i], a.where(name), SIZE_MAX);
}

}  // namespace

// memcpyDtoD(dst, src, bytes, dstOffset = 0, srcOffset = 0)
Napi::Value Driver::memcpyDtoD(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyDtoD");
  DriverRef d = state_;
  auto dst = livePtr(a[0], d, a.where("dst"));
  auto src = livePtr(a[1], d, a.where("src"));
  uint64_t bytes = toU64(a[2], a.where("bytes"), SIZE_MAX);
  uint64_t dOff = optOffset(a, 3, "dstOffset"), sOff = optOffset(a, 4, "srcOffset");
  span(*dst, dOff, bytes, a.where("dst"));
  span(*src, sOff, bytes, a.where("src"));
  if (bytes == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemcpyDtoD, "cuMemcpyDtoD_v2")(dst->addr + dOff, src->addr + sOff, bytes),
           "cuMemcpyDtoD_v2");
  return env.Undefined();
}

// memcpyDtoDAsync(dst, src, bytes, stream | null, dstOffset = 0, srcOffset = 0)
Napi::Value Driver::memcpyDtoDAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyDtoDAsync");
  DriverRef d = state_;
  auto dst = livePtr(a[0], d, a.where("dst"));
  auto src = livePtr(a[1], d, a.where("src"));
  uint64_t bytes = toU64(a[2], a.where("bytes"), SIZE_MAX);
  auto s = optStream(a[3], d, a.where("stream"));
  uint64_t dOff = optOffset(a, 4, "dstOffset"), sOff = optOffset(a, 5, "srcOffset");
  span(*dst, dOff, bytes, a.where("dst"));
  span(*src, sOff, bytes, a.where("src"));
  if (bytes == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")(
               dst->addr + dOff, src->addr + sOff, bytes, s ? s->stream : nullptr),
           "cuMemcpyDtoDAsync_v2");
  return env.Undefined();
}

// memsetD8Async(ptr, value, count, offset, stream | null)
Napi::Value Driver::memsetD8Async(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memsetD8Async");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  uint64_t value = toU64(a[1], a.where("value"), 255);
  uint64_t count = toU64(a[2], a.where("count"), SIZE_MAX);
  uint64_t offset = optOffset(a, 3, "offset");
  auto s = optStream(a[4], d, a.where("stream"));
  span(*p, offset, count, a.where("count"));
  if (count == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemsetD8Async, "cuMemsetD8Async")(
               p->addr + offset, static_cast<unsigned char>(value), count, s ? s->stream : nullptr),
           "cuMemsetD8Async");
  return env.Undefined();
}

// streamWaitEvent(stream | null, event): later work on `stream` waits for the event's work.
Napi::Value Driver::streamWaitEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamWaitEvent");
  DriverRef d = state_;
  auto s = optStream(a[0], d, a.where("stream"));
  auto e = liveEvent(a[1], d, a.where("event"));
  d->bind();
  d->check(d->need(d->api().cuStreamWaitEvent, "cuStreamWaitEvent")(s ? s->stream : nullptr, e->event, 0),
           "cuStreamWaitEvent");
  return env.Undefined();
}

// eventQuery(event) -> true when the recorded work completed (CUDA_ERROR_NOT_READY -> false).
Napi::Value Driver::eventQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventQuery");
  DriverRef d = state_;
  auto e = liveEvent(a[0], d, a.where("event"));
  d->bind();
  CUresult r = d->need(d->api().cuEventQuery, "cuEventQuery")(e->event);
  if (r == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(env, false);
  d->check(r, "cuEventQuery");
  return Napi::Boolean::New(env, true);
}

}  // namespace tcu
