// Device information, allocations and synchronous copies.
#include <cstring>

#include "methods.h"

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

napi_value Driver_deviceInfo(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "deviceInfo", 0);
    DriverRef d = driverOf(env, a);
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
    napi_value o = jsObject(env);
    setConst(env, o, "name", jsString(env, name));
    setConst(env, o, "ccMajor", jsNumber(env, attr(d, kCcMajor, "cuDeviceGetAttribute(CC major)")));
    setConst(env, o, "ccMinor", jsNumber(env, attr(d, kCcMinor, "cuDeviceGetAttribute(CC minor)")));
    setConst(env, o, "smCount",
             jsNumber(env, attr(d, kMultiprocessorCount, "cuDeviceGetAttribute(SM count)")));
    setConst(env, o, "totalMemory", jsNumber(env, static_cast<double>(total)));
    setConst(env, o, "warpSize", jsNumber(env, attr(d, kWarpSize, "cuDeviceGetAttribute(warp)")));
    setConst(env, o, "maxThreadsPerBlock",
             jsNumber(env, attr(d, kMaxThreadsPerBlock, "cuDeviceGetAttribute(max threads)")));
    setConst(env, o, "maxSharedPerBlock",
             jsNumber(env, attr(d, kMaxSharedPerBlock, "cuDeviceGetAttribute(max shared)")));
    setConst(env, o, "maxSharedOptin",
             jsNumber(env, attr(d, kMaxSharedPerBlockOptin, "cuDeviceGetAttribute(opt-in shared)")));
    setConst(env, o, "driverVersion", jsNumber(env, version));
    setConst(env, o, "isSim", jsBool(env, d->isSim()));
    setConst(env, o, "libraryPath", jsString(env, d->path()));
    return o;
  });
}

napi_value Driver_memGetInfo(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memGetInfo", 0);
    DriverRef d = driverOf(env, a);
    d->bind();
    size_t freeBytes = 0, total = 0;
    d->check(d->need(d->api().cuMemGetInfo, "cuMemGetInfo_v2")(&freeBytes, &total),
             "cuMemGetInfo_v2");
    napi_value o = jsObject(env);
    setConst(env, o, "free", jsNumber(env, static_cast<double>(freeBytes)));
    setConst(env, o, "total", jsNumber(env, static_cast<double>(total)));
    return o;
  });
}

napi_value Driver_memAlloc(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memAlloc", 1);
    DriverRef d = driverOf(env, a);
    uint64_t bytes = toU64(env, a[0], a.where("bytes"), SIZE_MAX);
    if (bytes == 0) fail("E_RANGE", a.where("bytes") + ": must be at least 1");
    d->bind();
    auto p = std::make_shared<DevicePtrState>();
    p->drv = d;
    p->freed = true;  // until the allocation succeeds, there is nothing to free
    d->check(d->need(d->api().cuMemAlloc, "cuMemAlloc_v2")(&p->addr, bytes), "cuMemAlloc_v2");
    p->freed = false;
    p->bytes = bytes;
    napi_value obj = wrapNew(env, p, Kind::DevicePtr);
    // Device memory counts as external memory, so GC pressure is real for dropped handles.
    int64_t total = 0;
    if (napi_adjust_external_memory(env, static_cast<int64_t>(bytes), &total) == napi_ok) {
      p->reported = static_cast<int64_t>(bytes);
    }
    setConst(env, obj, "address", jsBigU64(env, p->addr));
    setConst(env, obj, "bytes", jsNumber(env, static_cast<double>(bytes)));
    return obj;
  });
}

napi_value Driver_memFree(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memFree", 1);
    DriverRef d = driverOf(env, a);
    auto p = livePtr(env, a[0], d, a.where("ptr"));
    if (p->busy > 0) fail("E_BUSY", a.where("ptr") + ": an asynchronous copy still uses it");
    d->bind();
    d->check(d->need(d->api().cuMemFree, "cuMemFree_v2")(p->addr), "cuMemFree_v2");
    p->freed = true;
    int64_t total = 0;
    if (p->reported) napi_adjust_external_memory(env, -p->reported, &total);
    p->reported = 0;
    return jsUndefined(env);
  });
}

// memcpyHtoD(ptr, src, dstOffset = 0)
napi_value Driver_memcpyHtoD(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyHtoD", 3);
    DriverRef d = driverOf(env, a);
    auto p = livePtr(env, a[0], d, a.where("ptr"));
    Bytes src = toBytes(env, a[1], a.where("src"));
    uint64_t offset = isNullish(env, a[2]) ? 0 : toU64(env, a[2], a.where("dstOffset"), SIZE_MAX);
    checkSpan(*p, offset, src.length, a.where("src"));
    if (src.length == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemcpyHtoD, "cuMemcpyHtoD_v2")(p->addr + offset, src.data,
                                                                src.length),
             "cuMemcpyHtoD_v2");
    return jsUndefined(env);
  });
}

// memcpyDtoH(dst, ptr, srcOffset = 0)
napi_value Driver_memcpyDtoH(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyDtoH", 3);
    DriverRef d = driverOf(env, a);
    Bytes dst = toBytes(env, a[0], a.where("dst"));
    auto p = livePtr(env, a[1], d, a.where("ptr"));
    uint64_t offset = isNullish(env, a[2]) ? 0 : toU64(env, a[2], a.where("srcOffset"), SIZE_MAX);
    checkSpan(*p, offset, dst.length, a.where("dst"));
    if (dst.length == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemcpyDtoH, "cuMemcpyDtoH_v2")(dst.data, p->addr + offset,
                                                                dst.length),
             "cuMemcpyDtoH_v2");
    return jsUndefined(env);
  });
}

// memcpyHtoDAsync(ptr, src, stream, dstOffset = 0): `src` is copied to a staging buffer owned by
// the stream, so the caller may reuse it at once.
napi_value Driver_memcpyHtoDAsync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memcpyHtoDAsync", 4);
    DriverRef d = driverOf(env, a);
    auto p = livePtr(env, a[0], d, a.where("ptr"));
    Bytes src = toBytes(env, a[1], a.where("src"));
    auto s = liveStream(env, a[2], d, a.where("stream"));
    uint64_t offset = isNullish(env, a[3]) ? 0 : toU64(env, a[3], a.where("dstOffset"), SIZE_MAX);
    checkSpan(*p, offset, src.length, a.where("src"));
    if (src.length == 0) return jsUndefined(env);
    d->bind();
    auto fn = d->need(d->api().cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    std::vector<uint8_t> copy(src.data, src.data + src.length);
    d->check(fn(p->addr + offset, copy.data(), copy.size(), s->stream), "cuMemcpyHtoDAsync_v2");
    s->staging.push_back(std::move(copy));
    s->stagedPushed++;  // moving a vector keeps its heap buffer in place
    return jsUndefined(env);
  });
}

// memsetD8(ptr, value, count = bytes - offset, offset = 0)
napi_value Driver_memsetD8(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "memsetD8", 4);
    DriverRef d = driverOf(env, a);
    auto p = livePtr(env, a[0], d, a.where("ptr"));
    uint64_t value = toU64(env, a[1], a.where("value"), 255);
    uint64_t offset = isNullish(env, a[3]) ? 0 : toU64(env, a[3], a.where("offset"), SIZE_MAX);
    if (offset > p->bytes) fail("E_RANGE", a.where("offset") + ": beyond the allocation");
    uint64_t count =
        isNullish(env, a[2]) ? p->bytes - offset : toU64(env, a[2], a.where("count"), SIZE_MAX);
    checkSpan(*p, offset, count, a.where("count"));
    if (count == 0) return jsUndefined(env);
    d->bind();
    d->check(d->need(d->api().cuMemsetD8, "cuMemsetD8_v2")(
                 p->addr + offset, static_cast<unsigned char>(value), count),
             "cuMemsetD8_v2");
    return jsUndefined(env);
  });
}

}  // namespace tcu
