// Promise-returning operations: the blocking driver call runs on a libuv worker thread, so the
// event loop keeps running; results are delivered on the main thread.
#include <cstring>
#include <functional>
#include <optional>

#include "methods.h"

namespace tcu {

namespace {

struct AsyncOp {
  DriverRef drv;
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  std::function<void()> run;                     // worker thread; throws JsError
  std::function<napi_value(napi_env)> finish;    // main thread; the resolved value
  std::optional<JsError> error;
  // Kept alive (and marked busy) until completion.
  std::shared_ptr<StreamState> stream;
  std::shared_ptr<DevicePtrState> ptr;
  std::shared_ptr<EventState> event;
  napi_ref keep = nullptr;
};

void execute(napi_env, void* data) {
  auto* op = static_cast<AsyncOp*>(data);
  try {
    op->drv->bind();  // the context is current per thread
    op->run();
  } catch (const JsError& e) {
    op->error = e;
  } catch (const std::exception& e) {
    op->error = JsError{"E_INTERNAL", e.what(), "", 0, false};
  } catch (...) {
    op->error = JsError{"E_INTERNAL", "unknown native exception", "", 0, false};
  }
}

void complete(napi_env env, napi_status status, void* data) {
  std::unique_ptr<AsyncOp> op(static_cast<AsyncOp*>(data));
  op->drv->pendingAsync--;
  if (op->stream) op->stream->busy--;
  if (op->ptr) op->ptr->busy--;
  if (op->event) op->event->busy--;
  napi_value outcome = nullptr;
  bool ok = false;
  if (status == napi_cancelled) {
    outcome = makeJsError(env, JsError{"E_CANCELLED", "asynchronous driver call was cancelled", "", 0, false});
  } else if (op->error) {
    outcome = makeJsError(env, *op->error);
  } else {
    try {
      outcome = op->finish(env);
      ok = true;
    } catch (const JsError& e) {
      outcome = makeJsError(env, e);
    } catch (...) {
      napi_value pending = nullptr;
      napi_get_and_clear_last_exception(env, &pending);
      outcome = pending ? pending : makeJsError(env, JsError{"E_INTERNAL", "completion failed", "", 0, false});
    }
  }
  if (outcome == nullptr) napi_get_undefined(env, &outcome);
  if (ok) {
    napi_resolve_deferred(env, op->deferred, outcome);
  } else {
    napi_reject_deferred(env, op->deferred, outcome);
  }
  if (op->keep) napi_delete_reference(env, op->keep);
  napi_delete_async_work(env, op->work);
}

// Queues `op` and returns its promise.
napi_value start(napi_env env, std::unique_ptr<AsyncOp> op, const char* name) {
  napi_value promise = nullptr, resource = jsString(env, name);
  check(env, napi_create_promise(env, &op->deferred, &promise), "create promise");
  check(env, napi_create_async_work(env, nullptr, resource, execute, complete, op.get(), &op->work),
        "create async work");
  napi_status s = napi_queue_async_work(env, op->work);
  if (s != napi_ok) {
    napi_delete_async_work(env, op->work);
    if (op->keep) napi_delete_reference(env, op->keep);
    // The promise is abandoned: nothing will settle it, and the caller gets the throw instead.
    check(env, s, "queue async work");
  }
  op->drv->pendingAsync++;
  if (op->stream) op->stream->busy++;
  if (op->ptr) op->ptr->busy++;
  if (op->event) op->event->busy++;
  op.release();  // owned by the queued work until complete()
  return promise;
}

}  // namespace

napi_value Driver_synchronizeAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "synchronizeAsync", 0);
    DriverRef d = driverOf(env, a);
    if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
    auto sync = d->need(d->api().cuCtxSynchronize, "cuCtxSynchronize");
    auto op = std::make_unique<AsyncOp>();
    op->drv = d;
    op->run = [d, sync] { d->check(sync(), "cuCtxSynchronize"); };
    op->finish = [](napi_env e) { return jsUndefined(e); };
    return start(env, std::move(op), "tessera.synchronizeAsync");
  });
}

napi_value Driver_streamSynchronizeAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamSynchronizeAsync", 1);
    DriverRef d = driverOf(env, a);
    auto s = liveStream(env, a[0], d, a.where("stream"));
    if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
    auto sync = d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize");
    auto op = std::make_unique<AsyncOp>();
    op->drv = d;
    op->stream = s;
    CUstream raw = s->stream;
    op->run = [d, sync, raw] { d->check(sync(raw), "cuStreamSynchronize"); };
    StreamState* sp = s.get();
    op->finish = [sp](napi_env e) {
      if (sp->busy == 0) sp->dropStaging();
      return jsUndefined(e);
    };
    return start(env, std::move(op), "tessera.streamSynchronizeAsync");
  });
}

// memcpyDtoHAsync(dst, ptr, stream | null, srcOffset = 0) -> Promise<dst>. The copy lands in a
// native staging buffer on the worker thread and is moved into `dst` on the main thread, so a
// buffer the caller detaches or resizes meanwhile is never written behind its back.
napi_value Driver_memcpyDtoHAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyDtoHAsync", 4);
    DriverRef d = driverOf(env, a);
    Bytes dst = toBytes(env, a[0], a.where("dst"));
    auto p = livePtr(env, a[1], d, a.where("ptr"));
    auto s = optStream(env, a[2], d, a.where("stream"));
    uint64_t offset = isNullish(env, a[3]) ? 0 : toU64(env, a[3], a.where("srcOffset"), SIZE_MAX);
    if (offset > p->bytes || dst.length > p->bytes - offset) {
      fail("E_RANGE", a.where("dst") + ": " + std::to_string(dst.length) + " bytes at offset " +
                          std::to_string(offset) + " exceed the allocation of " +
                          std::to_string(p->bytes) + " bytes");
    }
    if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
    auto copySync = d->need(d->api().cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    auto copyAsync = s ? d->need(d->api().cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") : nullptr;
    auto streamSync = s ? d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize") : nullptr;
    auto op = std::make_unique<AsyncOp>();
    op->drv = d;
    op->stream = s;
    op->ptr = p;
    check(env, napi_create_reference(env, a[0], 1, &op->keep), "create reference");
    auto staging = std::make_shared<std::vector<uint8_t>>(dst.length);
    CUdeviceptr src = p->addr + offset;
    CUstream raw = s ? s->stream : nullptr;
    op->run = [d, staging, src, raw, copySync, copyAsync, streamSync] {
      if (staging->empty()) return;
      if (copyAsync) {
        d->check(copyAsync(staging->data(), src, staging->size(), raw), "cuMemcpyDtoHAsync_v2");
        d->check(streamSync(raw), "cuStreamSynchronize");
      } else {
        d->check(copySync(staging->data(), src, staging->size()), "cuMemcpyDtoH_v2");
      }
    };
    AsyncOp* self = op.get();
    op->finish = [self, staging](napi_env e) {
      napi_value target = nullptr;
      check(e, napi_get_reference_value(e, self->keep, &target), "reference value");
      Bytes now = toBytes(e, target, "memcpyDtoHAsync(dst)");
      if (now.length != staging->size()) {
        fail("E_RANGE", "memcpyDtoHAsync(dst): the destination changed size (detached?) while "
                        "the copy ran");
      }
      if (!staging->empty()) std::memcpy(now.data, staging->data(), staging->size());
      return target;
    };
    return start(env, std::move(op), "tessera.memcpyDtoHAsync");
  });
}

// eventSynchronizeAsync(event) -> Promise<void>: settles when the recorded work completed.
napi_value Driver_eventSynchronizeAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "eventSynchronizeAsync", 1);
    DriverRef d = driverOf(env, a);
    auto e = liveEvent(env, a[0], d, a.where("event"));
    if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
    auto sync = d->need(d->api().cuEventSynchronize, "cuEventSynchronize");
    auto op = std::make_unique<AsyncOp>();
    op->drv = d;
    op->event = e;
    CUevent raw = e->event;
    op->run = [d, sync, raw] { d->check(sync(raw), "cuEventSynchronize"); };
    op->finish = [](napi_env en) { return jsUndefined(en); };
    return start(env, std::move(op), "tessera.eventSynchronizeAsync");
  });
}

// streamDone(stream | null) -> Promise<void>: settles when the work enqueued on the stream so far
// completed (a private event recorded now, waited on a worker thread), so work enqueued later does
// not delay it. Rejects with the driver's error (e.g. after a sticky fault).
napi_value Driver_streamDone(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "streamDone", 1);
    DriverRef d = driverOf(env, a);
    auto s = optStream(env, a[0], d, a.where("stream"));
    if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
    auto create = d->need(d->api().cuEventCreate, "cuEventCreate");
    auto record = d->need(d->api().cuEventRecord, "cuEventRecord");
    auto sync = d->need(d->api().cuEventSynchronize, "cuEventSynchronize");
    d->bind();
    auto ev = std::make_shared<EventState>();
    ev->drv = d;
    ev->destroyed = true;
    d->check(create(&ev->event, 2 /* CU_EVENT_DISABLE_TIMING */), "cuEventCreate");
    ev->destroyed = false;  // from here ~EventState destroys it
    CUresult r = record(ev->event, s ? s->stream : nullptr);
    d->check(r, "cuEventRecord");
    auto op = std::make_unique<AsyncOp>();
    op->drv = d;
    op->stream = s;
    op->event = ev;
    CUevent raw = ev->event;
    op->run = [d, sync, raw] { d->check(sync(raw), "cuEventSynchronize"); };
    // Host sources of memcpyHtoDAsync enqueued before now are no longer read.
    StreamState* sp = s.get();
    uint64_t staged = s ? s->stagedPushed : 0;
    op->finish = [sp, staged](napi_env en) {
      if (sp) sp->dropStaging(staged);
      return jsUndefined(en);
    };
    return start(env, std::move(op), "tessera.streamDone");
  });
}

}  // namespace tcu
