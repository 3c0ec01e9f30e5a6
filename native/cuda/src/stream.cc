// Streams, events, context synchronization, the sim's fault report, and close().
#include "addon.h"

namespace tcu {

Napi::Value Driver::streamCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamCreate");
  DriverRef d = state_;
  uint32_t flags = isNullish(a[0]) ? 0 : toU32(a[0], a.where("flags"));
  d->bind();
  auto s = std::make_shared<StreamState>();
  s->drv = d;
  s->destroyed = true;
  d->check(d->need(d->api().cuStreamCreate, "cuStreamCreate")(&s->stream, flags),
           "cuStreamCreate");
  s->destroyed = false;
  return StreamHandle::New(env, s);
}

Napi::Value Driver::streamSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamSynchronize");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  d->bind();
  d->check(d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize")(s->stream),
           "cuStreamSynchronize");
  if (s->busy == 0) s->dropStaging();
  return env.Undefined();
}

Napi::Value Driver::streamDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamDestroy");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  if (s->busy > 0) fail("E_BUSY", a.where("stream") + ": asynchronous work still uses it");
  d->bind();
  // Synchronize first: staged host buffers must outlive the copies that read them.
  d->check(d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize")(s->stream),
           "cuStreamSynchronize");
  d->check(d->need(d->api().cuStreamDestroy, "cuStreamDestroy_v2")(s->stream),
           "cuStreamDestroy_v2");
  s->destroyed = true;
  s->dropStaging();
  return env.Undefined();
}

Napi::Value Driver::eventCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventCreate");
  DriverRef d = state_;
  uint32_t flags = isNullish(a[0]) ? 0 : toU32(a[0], a.where("flags"));
  d->bind();
  auto e = std::make_shared<EventState>();
  e->drv = d;
  e->destroyed = true;
  d->check(d->need(d->api().cuEventCreate, "cuEventCreate")(&e->event, flags), "cuEventCreate");
  e->destroyed = false;
  return EventHandle::New(env, e);
}

// eventRecord(event, stream | null)
Napi::Value Driver::eventRecord(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventRecord");
  DriverRef d = state_;
  auto e = liveEvent(a[0], d, a.where("event"));
  auto s = optStream(a[1], d, a.where("stream"));
  d->bind();
  d->check(d->need(d->api().cuEventRecord, "cuEventRecord")(e->event, s ? s->stream : nullptr),
           "cuEventRecord");
  return env.Undefined();
}

Napi::Value Driver::eventSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventSynchronize");
  DriverRef d = state_;
  auto e = liveEvent(a[0], d, a.where("event"));
  d->bind();
  d->check(d->need(d->api().cuEventSynchronize, "cuEventSynchronize")(e->event),
           "cuEventSynchronize");
  return env.Undefined();
}

// eventElapsed(start, end) -> milliseconds
Napi::Value Driver::eventElapsed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventElapsed");
  DriverRef d = state_;
  auto start = liveEvent(a[0], d, a.where("start"));
  auto end = liveEvent(a[1], d, a.where("end"));
  d->bind();
  float ms = 0;
  d->check(d->need(d->api().cuEventElapsedTime, "cuEventElapsedTime")(&ms, start->event,
                                                                      end->event),
           "cuEventElapsedTime");
  return Napi::Number::New(env, ms);
}

Napi::Value Driver::eventDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventDestroy");
  DriverRef d = state_;
  auto e = liveEvent(a[0], d, a.where("event"));
  if (e->busy > 0) fail("E_BUSY", a.where("event") + ": an eventSynchronizeAsync still waits on it");
  d->bind();
  d->check(d->need(d->api().cuEventDestroy, "cuEventDestroy_v2")(e->event), "cuEventDestroy_v2");
  e->destroyed = true;
  return env.Undefined();
}

Napi::Value Driver::synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "synchronize");
  DriverRef d = state_;
  d->bind();
  d->check(d->need(d->api().cuCtxSynchronize, "cuCtxSynchronize")(), "cuCtxSynchronize");
  return env.Undefined();
}

// lastFault() -> string | null: the sim's report of the last launch fault (null on the real
// driver, which has no such extension, and when there was none).
Napi::Value Driver::lastFault(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "lastFault");
  DriverRef d = state_;
  std::string report = d->lastFault();
  if (report.empty()) return env.Null();
  return Napi::String::New(env, report);
}

Napi::Value Driver::close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "close");
  state_->close();
  return env.Undefined();
}

}  // namespace tcu
