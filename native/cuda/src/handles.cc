#include "handles.h"

namespace tcu {

namespace {
// Fixed random tags: napi_check_object_type_tag rejects objects that merely look like handles.
const napi_type_tag kTags[] = {
    {0x7e55e7a0d71e0001ull, 0x9c1f2b44a1d3c801ull},  // Driver
    {0x7e55e7a0d71e0002ull, 0x9c1f2b44a1d3c802ull},  // DevicePtr
    {0x7e55e7a0d71e0003ull, 0x9c1f2b44a1d3c803ull},  // Module
    {0x7e55e7a0d71e0004ull, 0x9c1f2b44a1d3c804ull},  // Function
    {0x7e55e7a0d71e0005ull, 0x9c1f2b44a1d3c805ull},  // Stream
    {0x7e55e7a0d71e0006ull, 0x9c1f2b44a1d3c806ull},  // Event
    {0x7e55e7a0d71e0007ull, 0x9c1f2b44a1d3c807ull},  // LaunchPlan
    {0x7e55e7a0d71e0008ull, 0x9c1f2b44a1d3c808ull},  // Graph
};
}  // namespace

const napi_type_tag& tagOf(Kind k) { return kTags[static_cast<int>(k)]; }

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Driver: return "Driver";
    case Kind::DevicePtr: return "DevicePtr";
    case Kind::Module: return "Module";
    case Kind::Function: return "Function";
    case Kind::Stream: return "Stream";
    case Kind::Event: return "Event";
    case Kind::LaunchPlan: return "LaunchPlan";
    case Kind::Graph: return "Graph";
  }
  return "?";
}

AddonData& AddonData::of(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

Napi::Object construct(Napi::Env env, Kind k, std::shared_ptr<void> state) {
  AddonData& data = AddonData::of(env);
  data.pending = std::move(state);
  data.pendingKind = k;
  Napi::Object obj;
  try {
    obj = data.ctors[static_cast<int>(k)].New({});
  } catch (...) {
    data.pending.reset();
    throw;
  }
  data.pending.reset();
  return obj;
}

std::shared_ptr<void> adopt(const Napi::CallbackInfo& info, Kind k) {
  AddonData& data = AddonData::of(info.Env());
  if (!data.pending || data.pendingKind != k || !info.IsConstructCall()) {
    failArg(std::string(kindName(k)) + " cannot be constructed directly" +
            (k == Kind::Driver ? ": use open(libraryPath?)" : ": the Driver's methods create it"));
  }
  std::shared_ptr<void> state = std::move(data.pending);
  data.pending.reset();
  info.This().As<Napi::Object>().TypeTag(&tagOf(k));
  return state;
}

Napi::Object checkKind(const Napi::Value& v, Kind k, const std::string& what) {
  if (!v.IsObject() || !v.As<Napi::Object>().CheckTypeTag(&tagOf(k))) {
    failArg(what + ": expected a " + kindName(k) + " handle");
  }
  return v.As<Napi::Object>();
}

// Safety-net releases: errors are ignored (a destructor must not throw), and nothing is
// called once the driver is closed (the context took the resource with it).
namespace {
template <class F> void releaseQuietly(bool done, const DriverRef& drv, F release) {
  if (done || drv->closed()) return;
  try {
    drv->bind();
    release(drv->api());
  } catch (...) {
  }
}
}  // namespace

DevicePtrState::~DevicePtrState() {
  releaseQuietly(freed, drv, [&](auto& api) {
    if (pooled && api.cuMemFreeAsync) api.cuMemFreeAsync(addr, nullptr);  // never a device-wide wait
    else api.cuMemFree(addr);
  });
}

GraphState::~GraphState() {
  releaseQuietly(destroyed, drv, [&](auto& api) { api.cuGraphExecDestroy(exec); });
}

ModuleState::~ModuleState() {
  releaseQuietly(unloaded, drv, [&](auto& api) { api.cuModuleUnload(mod); });
}

StreamState::~StreamState() {
  releaseQuietly(destroyed, drv, [&](auto& api) {
    api.cuStreamSynchronize(stream);
    api.cuStreamDestroy(stream);
  });
}

EventState::~EventState() {
  releaseQuietly(destroyed, drv, [&](auto& api) { api.cuEventDestroy(event); });
}

void checkOwner(const DriverRef& owner, const DriverRef& drv, const std::string& what) {
  if (owner != drv) fail("E_ARG", what + ": handle belongs to another driver");
}

std::shared_ptr<DevicePtrState> livePtr(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  auto p = DevicePtrHandle::of(v, what);
  checkOwner(p->drv, drv, what);
  if (p->freed) fail("E_FREED", what + ": device pointer was already freed");
  return p;
}

std::shared_ptr<ModuleState> liveModule(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  auto m = ModuleHandle::of(v, what);
  checkOwner(m->drv, drv, what);
  if (m->unloaded) fail("E_FREED", what + ": module was unloaded");
  return m;
}

std::shared_ptr<FunctionState> liveFunction(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  auto f = FunctionHandle::of(v, what);
  checkOwner(f->module->drv, drv, what);
  if (f->module->unloaded) {
    fail("E_FREED", what + ": the module of function '" + f->name + "' was unloaded");
  }
  return f;
}

std::shared_ptr<StreamState> liveStream(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  auto s = StreamHandle::of(v, what);
  checkOwner(s->drv, drv, what);
  if (s->destroyed) fail("E_FREED", what + ": stream was destroyed");
  return s;
}

std::shared_ptr<StreamState> optStream(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  if (isNullish(v)) return nullptr;
  return liveStream(v, drv, what);
}

std::shared_ptr<EventState> liveEvent(const Napi::Value& v, const DriverRef& drv, const std::string& what) {
  auto e = EventHandle::of(v, what);
  checkOwner(e->drv, drv, what);
  if (e->destroyed) fail("E_FREED", what + ": event was destroyed");
  return e;
}

}  // namespace tcu
