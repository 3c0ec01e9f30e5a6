// Promise-returning operations: the blocking driver call runs on a libuv worker thread, so the
// event loop keeps running; results are delivered on the main thread.
#include <cstring>
#include <functional>
#include <memory>
#include <optional>

#include "addon.h"

namespace tcu {

namespace {

// One promise-returning driver call: `run` on a libuv worker thread (Napi::AsyncWorker), then
// `finish` on the main thread gives the resolved value. Errors reject the promise with the coded
// JS error; nothing is thrown into the event loop.
class DriverWork : public Napi::AsyncWorker {
 public:
  DriverWork(Napi::Env env, const char* name, DriverRef drv)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)), drv_(std::move(drv)) {}

  std::function<void()> run;                      // worker thread; throws JsError
  std::function<Napi::Value(Napi::Env)> finish;   // main thread; the resolved value
  // Kept alive (and marked busy) until completion.
  std::shared_ptr<StreamState> stream;
  std::shared_ptr<DevicePtrState> ptr;
  std::shared_ptr<EventState> event;
  Napi::ObjectReference keep;

  // Queues the work; from here the worker owns itself (deleted after completion).
  Napi::Promise start() {
    try {
      Queue();
    } catch (...) {
      delete this;
      throw;
    }
    drv_->pendingAsync++;
    if (stream) stream->busy++;
    if (ptr) ptr->busy++;
    if (event) event->busy++;
    return deferred_.Promise();
  }

 protected:
  void Execute() override {
    try {
      drv_->bind();  // the context is current per thread
      run();
    } catch (const JsError& e) {
      error_ = e;
    } catch (const std::exception& e) {
      error_ = JsError{"E_INTERNAL", e.what(), "", 0, false};
    } catch (...) {
      error_ = JsError{"E_INTERNAL", "unknown native exception", "", 0, false};
    }
  }

  void OnOK() override {
    release();
    Napi::Env env = Env();
    try {
      try {
        if (error_) {
          deferred_.Reject(toJsError(env, *error_).Value());
          return;
        }
        deferred_.Resolve(atBoundary(env, [&] { return finish(env); }));
      } catch (const Napi::Error& e) {
        deferred_.Reject(e.Value());
      }
    } catch (...) {
      // Settling failed too: the environment is shutting down (a worker thread was terminated
      // while the wait ran) and the promise can no longer be observed. Nothing to report.
    }
  }

  void OnError(const Napi::Error& e) override {  // not reached: Execute never calls SetError
    release();
    deferred_.Reject(e.Value());
  }

 private:
  void release() {
    drv_->pendingAsync--;
    if (stream) stream->busy--;
    if (ptr) ptr->busy--;
    if (event) event->busy--;
  }

  Napi::Promise::Deferred deferred_;
  DriverRef drv_;
  std::optional<JsError> error_;
};

}  // namespace

Napi::Value Driver::synchronizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "synchronizeAsync");
  DriverRef d = state_;
  if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
  auto sync = d->need(d->api().cuCtxSynchronize, "cuCtxSynchronize");
  auto op = std::make_unique<DriverWork>(env, "tessera.synchronizeAsync", d);
  op->run = [d, sync] { d->check(sync(), "cuCtxSynchronize"); };
  op->finish = [](Napi::Env e) -> Napi::Value { return e.Undefined(); };
  return op.release()->start();
}

Napi::Value Driver::streamSynchronizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamSynchronizeAsync");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
  auto sync = d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize");
  auto op = std::make_unique<DriverWork>(env, "tessera.streamSynchronizeAsync", d);
  op->stream = s;
  CUstream raw = s->stream;
  op->run = [d, sync, raw] { d->check(sync(raw), "cuStreamSynchronize"); };
  StreamState* sp = s.get();
  op->finish = [sp](Napi::Env e) -> Napi::Value {
    if (sp->busy == 0) sp->dropStaging();
    return e.Undefined();
  };
  return op.release()->start();
}

// memcpyDtoHAsync(dst, ptr, stream | null, srcOffset = 0) -> Promise<dst>. The copy lands in a
// native staging buffer on the worker thread and is moved into `dst` on the main thread, so a
// buffer the caller detaches or resizes meanwhile is never written behind its back.
Napi::Value Driver::memcpyDtoHAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyDtoHAsync");
  DriverRef d = state_;
  Bytes dst = toBytes(a[0], a.where("dst"));
  auto p = livePtr(a[1], d, a.where("ptr"));
  auto s = optStream(a[2], d, a.where("stream"));
  uint64_t offset = isNullish(a[3]) ? 0 : toU64(a[3], a.where("srcOffset"), SIZE_MAX);
  if (offset > p->bytes || dst.length > p->bytes - offset) {
    fail("E_RANGE", a.where("dst") + ": " + std::to_string(dst.length) + " bytes at offset " +
                        std::to_string(offset) + " exceed the allocation of " +
                        std::to_string(p->bytes) + " bytes");
  }
  if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
  auto copySync = d->need(d->api().cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  auto copyAsync = s ? d->need(d->api().cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") : nullptr;
  auto streamSync = s ? d->need(d->api().cuStreamSynchronize, "cuStreamSynchronize") : nullptr;
  auto op = std::make_unique<DriverWork>(env, "tessera.memcpyDtoHAsync", d);
  op->stream = s;
  op->ptr = p;
  op->keep = Napi::Persistent(a[0].As<Napi::Object>());
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
  DriverWork* self = op.get();
  op->finish = [self, staging](Napi::Env) -> Napi::Value {
    Napi::Value target = self->keep.Value();
    Bytes now = toBytes(target, "memcpyDtoHAsync(dst)");
    if (now.length != staging->size()) {
      fail("E_RANGE", "memcpyDtoHAsync(dst): the destination changed size (detached?) while "
                      "the copy ran");
    }
    if (!staging->empty()) std::memcpy(now.data, staging->data(), staging->size());
    return target;
  };
  return op.release()->start();
}

// eventSynchronizeAsync(event) -> Promise<void>: settles when the recorded work completed.
Napi::Value Driver::eventSynchronizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "eventSynchronizeAsync");
  DriverRef d = state_;
  auto e = liveEvent(a[0], d, a.where("event"));
  if (d->closed()) fail("E_CLOSED", "driver '" + d->path() + "' was closed");
  auto sync = d->need(d->api().cuEventSynchronize, "cuEventSynchronize");
  auto op = std::make_unique<DriverWork>(env, "tessera.eventSynchronizeAsync", d);
  op->event = e;
  CUevent raw = e->event;
  op->run = [d, sync, raw] { d->check(sync(raw), "cuEventSynchronize"); };
  op->finish = [](Napi::Env e) -> Napi::Value { return e.Undefined(); };
  return op.release()->start();
}

// streamDone(stream | null) -> Promise<void>: settles when the work enqueued on the stream so far
// completed (a private event recorded now, waited on a worker thread), so work enqueued later does
// not delay it. Rejects with the driver's error (e.g. after a sticky fault).
Napi::Value Driver::streamDone(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamDone");
  DriverRef d = state_;
  auto s = optStream(a[0], d, a.where("stream"));
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
  auto op = std::make_unique<DriverWork>(env, "tessera.streamDone", d);
  op->stream = s;
  op->event = ev;
  CUevent raw = ev->event;
  op->run = [d, sync, raw] { d->check(sync(raw), "cuEventSynchronize"); };
  // Host sources of memcpyHtoDAsync enqueued before now are no longer read.
  StreamState* sp = s.get();
  uint64_t staged = s ? s->stagedPushed : 0;
  op->finish = [sp, staged](Napi::Env e) -> Napi::Value {
    if (sp) sp->dropStaging(staged);
    return e.Undefined();
  };
  return op.release()->start();
}

}  // namespace tcu
