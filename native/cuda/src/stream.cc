// Streams, events, context synchronization, the sim's fault report, and close().
#include "methods.h"

namespace tcu {

napi_value Driver_streamCreate(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamCreate", 1);
    DriverRef d = driverOf(env, a);
    uint32_t flags = isNullish(env, a[0]) ? 0 : toU32(env, a[0], a.where("flags"));
    d->bind();
    auto s = std::make_shared<StreamState>();
    s->drv = d;
    s->destroyed = true;
    d->check(d->need(d->api().cuStreamCreate, "cuStreamCreate")(&s->stream, flags),
             "cuStreamCreate");
    s->destroyed = false;
    return wrapNew(env, s, Kind::Stream);
  });
}

napi_value Driver_streamSynchronize(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamSynchronize", 1);
    DriverRef d = driverOf(env, a);
    auto s = liveStream(env, a[0], d, a.where("stream"));
    d->bind();
    d->check(d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize")(s->stream),
             "cuStreamSynchronize");
    if (s->busy == 0) s->dropStaging();
    return jsUndefined(env);
  });
}

napi_value Driver_streamDestroy(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamDestroy", 1);
    DriverRef d = driverOf(env, a);
    auto s = liveStream(env, a[0], d, a.where("stream"));
    if (s->busy > 0) fail("E_BUSY", a.where("stream") + ": asynchronous work still uses it");
    d->bind();
    // Synchronize first: staged host buffers must outlive the copies that read them.
    d->check(d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize")(s->stream),
             "cuStreamSynchronize");
    d->check(d->need(d->api().cuStreamDestroy, "cuStreamDestroy_v2")(s->stream),
             "cuStreamDestroy_v2");
    s->destroyed = true;
    s->dropStaging();
    return jsUndefined(env);
  });
}

napi_value Driver_eventCreate(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventCreate", 1);
    DriverRef d = driverOf(env, a);
    uint32_t flags = isNullish(env, a[0]) ? 0 : toU32(env, a[0], a.where("flags"));
    d->bind();
    auto e = std::make_shared<EventState>();
    e->drv = d;
    e->destroyed = true;
    d->check(d->need(d->api().cuEventCreate, "cuEventCreate")(&e->event, flags), "cuEventCreate");
    e->destroyed = false;
    return wrapNew(env, e, Kind::Event);
  });
}

// eventRecord(event, stream | null)
napi_value Driver_eventRecord(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventRecord", 2);
    DriverRef d = driverOf(env, a);
    auto e = liveEvent(env, a[0], d, a.where("event"));
    auto s = optStream(env, a[1], d, a.where("stream"));
    d->bind();
    d->check(d->need(d->api().cuEventRecord, "cuEventRecord")(e->event, s ? s->stream : nullptr),
             "cuEventRecord");
    return jsUndefined(env);
  });
}

napi_value Driver_eventSynchronize(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventSynchronize", 1);
    DriverRef d = driverOf(env, a);
    auto e = liveEvent(env, a[0], d, a.where("event"));
    d->bind();
    d->check(d->need(d->api().cuEventSynchronize, "cuEventSynchronize")(e->event),
             "cuEventSynchronize");
    return jsUndefined(env);
  });
}

// eventElapsed(start, end) -> milliseconds
napi_value Driver_eventElapsed(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventElapsed", 2);
    DriverRef d = driverOf(env, a);
    auto start = liveEvent(env, a[0], d, a.where("start"));
    auto end = liveEvent(env, a[1], d, a.where("end"));
    d->bind();
    float ms = 0;
    d->check(d->need(d->api().cuEventElapsedTime, "cuEventElapsedTime")(&ms, start->event,
                                                                        end->event),
             "cuEventElapsedTime");
    return jsNumber(env, ms);
  });
}

napi_value Driver_eventDestroy(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventDestroy", 1);
    DriverRef d = driverOf(env, a);
    auto e = liveEvent(env, a[0], d, a.where("event"));
    if (e->busy > 0) fail("E_BUSY", a.where("event") + ": an eventSynchronizeAsync still waits on it");
    d->bind();
    d->check(d->need(d->api().cuEventDestroy, "cuEventDestroy_v2")(e->event), "cuEventDestroy_v2");
    e->destroyed = true;
    return jsUndefined(env);
  });
}

napi_value Driver_synchronize(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "synchronize", 0);
    DriverRef d = driverOf(env, a);
    d->bind();
    d->check(d->need(d->api().cuCtxSynchronize, "cuCtxSynchronize")(), "cuCtxSynchronize");
    return jsUndefined(env);
  });
}

// lastFault() -> string | null: the sim's report of the last launch fault (null on the real
// driver, which has no such extension, and when there was none).
napi_value Driver_lastFault(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "lastFault", 0);
    DriverRef d = driverOf(env, a);
    std::string report = d->lastFault();
    return report.empty() ? jsNull(env) : jsString(env, report);
  });
}

napi_value Driver_close(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "close", 0);
    driverOf(env, a)->close();
    return jsUndefined(env);
  });
}

}  // namespace tcu
