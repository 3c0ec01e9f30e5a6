// Device information, allocations and synchronous copies.
#include <cstring>

#include "addon.h"

namespace tcu {

namespace {

int attr(const DriverRef& d, int which, const char* name) {
  int v = 0;
  d->check(d->need(d->api().cuDeviceGetAttribute, "cuDeviceGetAttribute")(&v, which, d->device()),
           name);
  return v;
}

// [offset, offset+bytes) must lie inside the allocation.
void checkSpan(const DevicePtrState& p, uint64_t offset, uint64_t bytes, const std::string& what) {
  if (offset > p.bytes || bytes > p.bytes - offset) {
    fail("E_RANGE", what + ": " + std::to_string(bytes) + " bytes at offset " +
                        std::to_string(offset) + " exceed the allocation of " +
                        std::to_string(p.bytes) + " bytes");
  }
}

}  // namespace

Napi::Value Driver::deviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "deviceInfo");
  DriverRef d = state_;
  d->bind();
  const Api& api = d->api();
  char name[256] = {0};
  d->check(d->need(api.cuDeviceGetName, "cuDeviceGetName")(name, sizeof name - 1, d->device()),
           "cuDeviceGetName");
  size_t total = 0;
  d->check(d->need(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2")(&total, d->device()),
           "cuDeviceTotalMem_v2");
  int version = 0;
  if (api.cuDriverGetVersion) d->check(api.cuDriverGetVersion(&version), "cuDriverGetVersion");
  Napi::Object o = Napi::Object::New(env);
  setConst(o, "name", Napi::String::New(env, name));
  setConst(o, "ccMajor", Napi::Number::New(env, attr(d, kCcMajor, "cuDeviceGetAttribute(CC major)")));
  setConst(o, "ccMinor", Napi::Number::New(env, attr(d, kCcMinor, "cuDeviceGetAttribute(CC minor)")));
  setConst(o, "smCount",
           Napi::Number::New(env, attr(d, kMultiprocessorCount, "cuDeviceGetAttribute(SM count)")));
  setConst(o, "totalMemory", Napi::Number::New(env, static_cast<double>(total)));
  setConst(o, "warpSize", Napi::Number::New(env, attr(d, kWarpSize, "cuDeviceGetAttribute(warp)")));
  setConst(o, "maxThreadsPerBlock",
           Napi::Number::New(env, attr(d, kMaxThreadsPerBlock, "cuDeviceGetAttribute(max threads)")));
  setConst(o, "maxSharedPerBlock",
           Napi::Number::New(env, attr(d, kMaxSharedPerBlock, "cuDeviceGetAttribute(max shared)")));
  setConst(o, "maxSharedOptin",
           Napi::Number::New(env, attr(d, kMaxSharedPerBlockOptin, "cuDeviceGetAttribute(opt-in shared)")));
  setConst(o, "driverVersion", Napi::Number::New(env, version));
  setConst(o, "isSim", Napi::Boolean::New(env, d->isSim()));
  setConst(o, "libraryPath", Napi::String::New(env, d->path()));
  return o;
}

Napi::Value Driver::memGetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memGetInfo");
  DriverRef d = state_;
  d->bind();
  size_t freeBytes = 0, total = 0;
  d->check(d->need(d->api().cuMemGetInfo, "cuMemGetInfo_v2")(&freeBytes, &total),
           "cuMemGetInfo_v2");
  Napi::Object o = Napi::Object::New(env);
  setConst(o, "free", Napi::Number::New(env, static_cast<double>(freeBytes)));
  setConst(o, "total", Napi::Number::New(env, static_cast<double>(total)));
  return o;
}

Napi::Value Driver::memAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memAlloc");
  DriverRef d = state_;
  uint64_t bytes = toU64(a[0], a.where("bytes"), SIZE_MAX);
  if (bytes == 0) fail("E_RANGE", a.where("bytes") + ": must be at least 1");
  d->bind();
  auto p = std::make_shared<DevicePtrState>();
  p->drv = d;
  p->freed = true;  // until the allocation succeeds, there is nothing to free
  d->check(d->need(d->api().cuMemAlloc, "cuMemAlloc_v2")(&p->addr, bytes), "cuMemAlloc_v2");
  p->freed = false;
  return wrapAllocation(env, p, bytes);
}

Napi::Value Driver::memFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memFree");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  if (p->busy > 0) fail("E_BUSY", a.where("ptr") + ": an asynchronous copy still uses it");
  d->bind();
  d->check(d->need(d->api().cuMemFree, "cuMemFree_v2")(p->addr), "cuMemFree_v2");
  p->freed = true;
  unreportAllocation(env, *p);
  return env.Undefined();
}

Napi::Object wrapAllocation(Napi::Env env, const std::shared_ptr<DevicePtrState>& p, size_t bytes) {
  p->bytes = bytes;
  Napi::Object obj = DevicePtrHandle::New(env, p);
  // Device memory counts as external memory, so GC pressure is real for dropped handles.
  Napi::MemoryManagement::AdjustExternalMemory(env, static_cast<int64_t>(bytes));
  p->reported = static_cast<int64_t>(bytes);
  setConst(obj, "address", bigU64(env, p->addr));
  setConst(obj, "bytes", Napi::Number::New(env, static_cast<double>(bytes)));
  return obj;
}

void unreportAllocation(Napi::Env env, DevicePtrState& p) {
  if (p.reported) Napi::MemoryManagement::AdjustExternalMemory(env, -p.reported);
  p.reported = 0;
}

// memcpyHtoD(ptr, src, dstOffset = 0)
Napi::Value Driver::memcpyHtoD(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyHtoD");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  Bytes src = toBytes(a[1], a.where("src"));
  uint64_t offset = isNullish(a[2]) ? 0 : toU64(a[2], a.where("dstOffset"), SIZE_MAX);
  checkSpan(*p, offset, src.length, a.where("src"));
  if (src.length == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemcpyHtoD, "cuMemcpyHtoD_v2")(p->addr + offset, src.data,
                                                              src.length),
           "cuMemcpyHtoD_v2");
  return env.Undefined();
}

// memcpyDtoH(dst, ptr, srcOffset = 0)
Napi::Value Driver::memcpyDtoH(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyDtoH");
  DriverRef d = state_;
  Bytes dst = toBytes(a[0], a.where("dst"));
  auto p = livePtr(a[1], d, a.where("ptr"));
  uint64_t offset = isNullish(a[2]) ? 0 : toU64(a[2], a.where("srcOffset"), SIZE_MAX);
  checkSpan(*p, offset, dst.length, a.where("dst"));
  if (dst.length == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemcpyDtoH, "cuMemcpyDtoH_v2")(dst.data, p->addr + offset,
                                                              dst.length),
           "cuMemcpyDtoH_v2");
  return env.Undefined();
}

// memcpyHtoDAsync(ptr, src, stream, dstOffset = 0): `src` is copied to a staging buffer owned by
// the stream, so the caller may reuse it at once.
Napi::Value Driver::memcpyHtoDAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memcpyHtoDAsync");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  Bytes src = toBytes(a[1], a.where("src"));
  auto s = liveStream(a[2], d, a.where("stream"));
  uint64_t offset = isNullish(a[3]) ? 0 : toU64(a[3], a.where("dstOffset"), SIZE_MAX);
  checkSpan(*p, offset, src.length, a.where("src"));
  if (src.length == 0) return env.Undefined();
  d->bind();
  auto fn = d->need(d->api().cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  std::vector<uint8_t> copy(src.data, src.data + src.length);
  d->check(fn(p->addr + offset, copy.data(), copy.size(), s->stream), "cuMemcpyHtoDAsync_v2");
  s->staging.push_back(std::move(copy));
  s->stagedPushed++;  // moving a vector keeps its heap buffer in place
  return env.Undefined();
}

// memsetD8(ptr, value, count = bytes - offset, offset = 0)
Napi::Value Driver::memsetD8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "memsetD8");
  DriverRef d = state_;
  auto p = livePtr(a[0], d, a.where("ptr"));
  uint64_t value = toU64(a[1], a.where("value"), 255);
  uint64_t offset = isNullish(a[3]) ? 0 : toU64(a[3], a.where("offset"), SIZE_MAX);
  if (offset > p->bytes) fail("E_RANGE", a.where("offset") + ": beyond the allocation");
  uint64_t count =
      isNullish(a[2]) ? p->bytes - offset : toU64(a[2], a.where("count"), SIZE_MAX);
  checkSpan(*p, offset, count, a.where("count"));
  if (count == 0) return env.Undefined();
  d->bind();
  d->check(d->need(d->api().cuMemsetD8, "cuMemsetD8_v2")(
               p->addr + offset, static_cast<unsigned char>(value), count),
           "cuMemsetD8_v2");
  return env.Undefined();
}

}  // namespace tcu
