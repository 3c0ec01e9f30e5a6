// What a server needs from the driver: the device's ordinal, allocations from a stream-ordered
// pool (no device-wide wait on free), peer copies between devices, and stream capture into CUDA
// graphs replayed with one call.
#include "addon.h"

namespace tcu {

namespace {
uint64_t poolAttr(const DriverRef& d, int which) {
  unsigned long long v = 0;
  d->check(d->need(d->api().cuMemPoolGetAttribute, "cuMemPoolGetAttribute")(d->pool(), which, &v),
           "cuMemPoolGetAttribute");
  return v;
}
CUstream rawStream(const std::shared_ptr<StreamState>& s) { return s ? s->stream : nullptr; }
}  // namespace

// ordinal() -> the device ordinal this driver opened
Napi::Value Driver::ordinal(const Napi::CallbackInfo& info) {
  Args a(info, "ordinal");
  return Napi::Number::New(info.Env(), state_->device());
}

// memAllocAsync(bytes, stream | null) -> DevicePtr from the device's pool, valid in stream order.
// The driver's CUDA_ERROR_OUT_OF_MEMORY is thrown as is (the runtime trims and retries).
Napi::Value Driver::memAllocAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memAllocAsync");
  DriverRef d = state_;
  uint64_t bytes = toU64(a[0], a.where("bytes"), SIZE_MAX);
  if (bytes == 0) fail("E_RANGE", a.where("bytes") + ": must be at least 1");
  auto s = optStream(a[1], d, a.where("stream"));
  d->bind();
  CUmemoryPool pool = d->pool();
  auto p = std::make_shared<DevicePtrState>();
  p->drv = d;
  p->freed = true;
  p->pooled = true;
  d->check(d->need(d->api().cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync")(&p->addr, bytes, pool, rawStream(s)),
           "cuMemAllocFromPoolAsync");
  p->freed = false;
  return wrapAllocation(env, p, bytes);
}

// memFreeAsync(ptr, stream | null): the block returns to the pool when the stream reaches this
// point. Works for memAlloc pointers too (cuMemFreeAsync frees those in stream order as well).
Napi::Value Driver::memFreeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memFreeAsync");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  auto s = optStream(a[1], d, a.where("stream"));
  if (p->busy > 0) fail("E_BUSY", a.where("ptr") + ": an asynchronous copy still uses it");
  d->bind();
  d->check(d->need(d->api().cuMemFreeAsync, "cuMemFreeAsync")(p->addr, rawStream(s)), "cuMemFreeAsync");
  p->freed = true;
  unreportAllocation(env, *p);
  return env.Undefined();
}

// memPoolTrim(keepBytes = 0): gives the pool's unused blocks back until at most keepBytes stay reserved.
Napi::Value Driver::memPoolTrim(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memPoolTrim");
  DriverRef d = state_;
  uint64_t keep = isNullish(a[0]) ? 0 : toU64(a[0], a.where("keepBytes"), SIZE_MAX);
  d->bind();
  d->check(d->need(d->api().cuMemPoolTrimTo, "cuMemPoolTrimTo")(d->pool(), keep), "cuMemPoolTrimTo");
  return env.Undefined();
}

// memPoolStats() -> { reserved, used, reservedHigh, usedHigh } in bytes (the driver's pool attributes)
Napi::Value Driver::memPoolStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memPoolStats");
  DriverRef d = state_;
  d->bind();
  Napi::Object o = Napi::Object::New(env);
  auto n = [&](uint64_t v) { return Napi::Number::New(env, static_cast<double>(v)); };
  setConst(o, "reserved", n(poolAttr(d, kPoolReservedMemCurrent)));
  setConst(o, "used", n(poolAttr(d, kPoolUsedMemCurrent)));
  setConst(o, "reservedHigh", n(poolAttr(d, kPoolReservedMemHigh)));
  setConst(o, "usedHigh", n(poolAttr(d, kPoolUsedMemHigh)));
  return o;
}

// canAccessPeer(otherDriver) -> whether this device can map the other's memory (cuDeviceCanAccessPeer)
Napi::Value Driver::canAccessPeer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "canAccessPeer");
  DriverRef d = state_;
  DriverRef other = Driver::Unwrap(checkKind(a[0], Kind::Driver, a.where("peer")))->state_;
  if (other->path() != d->path()) return Napi::Boolean::New(env, false);  // another driver library
  if (other->closed()) fail("E_CLOSED", a.where("peer") + ": driver was closed");
  int can = 0;
  d->check(d->need(d->api().cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer")(&can, d->device(), other->device()),
           "cuDeviceCanAccessPeer");
  return Napi::Boolean::New(env, can != 0);
}

// memcpyPeerAsync(dst, src, bytes, stream | null, dstOffset = 0, srcOffset = 0): `dst` is this
// driver's, `src` another device's of the same driver library. Ordered on `stream` only: the
// caller orders the source's work before it.
Napi::Value Driver::memcpyPeerAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyPeerAsync");
  DriverRef d = state_;
  auto dst = livePtr(a[0], d, a.where("dst"));
  auto src = DevicePtrHandle::of(a[1], a.where("src"));
  if (src->freed) fail("E_FREED", a.where("src") + ": device pointer was already freed");
  if (src->drv->path() != d->path()) fail("E_ARG", a.where("src") + ": belongs to another driver library");
  if (src->drv->closed()) fail("E_CLOSED", a.where("src") + ": its driver was closed");
  uint64_t bytes = toU64(a[2], a.where("bytes"), SIZE_MAX);
  auto s = optStream(a[3], d, a.where("stream"));
  uint64_t dstOff = isNullish(a[4]) ? 0 : toU64(a[4], a.where("dstOffset"), SIZE_MAX);
  uint64_t srcOff = isNullish(a[5]) ? 0 : toU64(a[5], a.where("srcOffset"), SIZE_MAX);
  if (dstOff > dst->bytes || bytes > dst->bytes - dstOff) fail("E_RANGE", a.where("dst") + ": span exceeds the allocation");
  if (srcOff > src->bytes || bytes > src->bytes - srcOff) fail("E_RANGE", a.where("src") + ": span exceeds the allocation");
  if (bytes == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemcpyPeerAsync, "cuMemcpyPeerAsync")(dst->addr + dstOff, d->context(), src->addr + srcOff,
                                                                   src->drv->context(), bytes, rawStream(s)),
           "cuMemcpyPeerAsync");
  return env.Undefined();
}

// streamBeginCapture(stream): work queued on `stream` is recorded, not run, until streamEndCapture.
// Thread-local mode: only this thread's unsafe calls break the capture.
Napi::Value Driver::streamBeginCapture(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamBeginCapture");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  d->bind();
  d->check(d->need(d->api().cuStreamBeginCapture, "cuStreamBeginCapture_v2")(s->stream, kStreamCaptureModeThreadLocal),
           "cuStreamBeginCapture_v2");
  return env.Undefined();
}

// streamEndCapture(stream) -> Graph { nodes } (instantiated; the captured CUgraph is destroyed).
// A capture that an unsupported call invalidated throws CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, and
// the stream is an ordinary stream again.
Napi::Value Driver::streamEndCapture(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamEndCapture");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  d->bind();
  const Api& api = d->api();
  CUgraph graph = nullptr;
  d->check(d->need(api.cuStreamEndCapture, "cuStreamEndCapture")(s->stream, &graph), "cuStreamEndCapture");
  auto g = std::make_shared<GraphState>();
  g->drv = d;
  g->destroyed = true;
  CUresult r = d->need(api.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")(&g->exec, graph, 0);
  if (api.cuGraphDestroy) api.cuGraphDestroy(graph);  // the exec does not need it
  d->check(r, "cuGraphInstantiateWithFlags");
  g->destroyed = false;
  return GraphHandle::New(env, g);
}

// streamIsCapturing(stream) -> 'none' | 'active' | 'invalidated'
Napi::Value Driver::streamIsCapturing(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "streamIsCapturing");
  DriverRef d = state_;
  auto s = liveStream(a[0], d, a.where("stream"));
  d->bind();
  int status = 0;
  d->check(d->need(d->api().cuStreamIsCapturing, "cuStreamIsCapturing")(s->stream, &status), "cuStreamIsCapturing");
  return Napi::String::New(env, status == 1 ? "active" : status == 2 ? "invalidated" : "none");
}

// graphLaunch(graph, stream | null): queues the whole graph with one driver call.
Napi::Value Driver::graphLaunch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "graphLaunch");
  DriverRef d = state_;
  auto g = GraphHandle::of(a[0], a.where("graph"));
  checkOwner(g->drv, d, a.where("graph"));
  if (g->destroyed) fail("E_FREED", a.where("graph") + ": graph was destroyed");
  auto s = optStream(a[1], d, a.where("stream"));
  d->bind();
  d->check(d->need(d->api().cuGraphLaunch, "cuGraphLaunch")(g->exec, rawStream(s)), "cuGraphLaunch");
  return env.Undefined();
}

// graphDestroy(graph): launches already queued still run (the driver keeps what they need).
Napi::Value Driver::graphDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "graphDestroy");
  DriverRef d = state_;
  auto g = GraphHandle::of(a[0], a.where("graph"));
  checkOwner(g->drv, d, a.where("graph"));
  if (g->destroyed) fail("E_FREED", a.where("graph") + ": graph was already destroyed");
  g->destroyed = true;
  if (!d->closed()) {
    d->bind();
    d->check(d->need(d->api().cuGraphExecDestroy, "cuGraphExecDestroy")(g->exec), "cuGraphExecDestroy");
  }
  return env.Undefined();
}

// simDeviceSyncs() -> device-wide synchronizations the sim has done so far; null on the real driver.
Napi::Value Driver::simDeviceSyncs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "simDeviceSyncs");
  auto get = state_->api().tesseraSimGetDeviceSyncCount;
  unsigned long long n = 0;
  if (get == nullptr || get(&n) != CUDA_SUCCESS) return env.Null();
  return Napi::Number::New(env, static_cast<double>(n));
}

}  // namespace tcu
