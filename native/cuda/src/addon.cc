// Module entry: exports open(libraryPath?) -> Driver, the Driver class (methods in memory.cc,
// module.cc, stream.cc, copies.cc, async.cc, launch_plan.cc, sim_ext.cc, custom_call.cc) and
// abiVersion. Per-environment state (the classes' constructors) is instance data, freed at the
// environment's teardown; there is no other mutable global, so each worker thread gets its own.
#include "addon.h"

namespace tcu {

Napi::Function withMethods(Napi::Function ctor, const std::vector<Napi::PropertyDescriptor>& methods) {
  Napi::Object proto = ctor.Get("prototype").As<Napi::Object>();
  for (const auto& m : methods) proto.DefineProperty(m);
  return ctor;
}

Napi::Function Driver::Define(Napi::Env env) {
  return withMethods(DefineClass(env, "Driver", {}), {
#define TCU_PROP(name) method<Driver, Kind::Driver, &Driver::name>(env, #name),
    TCU_METHODS(TCU_PROP)
#undef TCU_PROP
  });
}

Driver::Driver(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Driver>(info) {
  atBoundary(info.Env(), [&] {
    state_ = std::static_pointer_cast<DriverState>(adopt(info, Kind::Driver));
    Napi::Object self = info.This().As<Napi::Object>();
    setConst(self, "libraryPath", Napi::String::New(info.Env(), state_->path()));
    setConst(self, "isSim", Napi::Boolean::New(info.Env(), state_->isSim()));
  });
}

namespace {

std::string libraryPathArg(Args& a) {
  std::string path = "libcuda.so.1";
  if (a.count() > 0 && !a[0].IsUndefined()) {
    path = toStr(a[0], a.where("libraryPath"));
    if (path.empty() || path.find('\0') != std::string::npos) {
      fail("E_ARG", a.where("libraryPath") + ": not a valid path");
    }
  }
  return path;
}

// open(libraryPath = "libcuda.so.1", ordinal = 0) -> Driver (that device's primary context)
Napi::Value Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return atBoundary(env, [&]() -> Napi::Value {
    Args a(info, "open");
    std::string path = libraryPathArg(a);
    int ordinal = isNullish(a[1]) ? 0 : static_cast<int>(toU64(a[1], a.where("ordinal"), 1 << 20));
    return construct(env, Kind::Driver, DriverState::open(path, ordinal));
  });
}

// deviceCount(libraryPath = "libcuda.so.1") -> devices the driver reports (cuInit, no context)
Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return atBoundary(env, [&]() -> Napi::Value {
    Args a(info, "deviceCount");
    return Napi::Number::New(env, DriverState::deviceCount(libraryPathArg(a)));
  });
}

// externalMemory() -> bytes this isolate counts as external memory (device allocations included:
// memAlloc reports them). V8's heap statistics do not show these adjustments, so this is how a
// test or a user sees that GC pressure follows device memory.
Napi::Value ExternalMemory(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(Napi::MemoryManagement::AdjustExternalMemory(info.Env(), 0)));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData(data);  // deleted at the environment's teardown
  auto keep = [&](Kind k, Napi::Function ctor) {
    data->ctors[static_cast<int>(k)] = Napi::Persistent(ctor);
    return ctor;
  };
  Napi::Function driver = keep(Kind::Driver, Driver::Define(env));
  keep(Kind::DevicePtr, DevicePtrHandle::Define(env));
  keep(Kind::Module, ModuleHandle::Define(env));
  keep(Kind::Function, FunctionHandle::Define(env));
  keep(Kind::Stream, StreamHandle::Define(env));
  keep(Kind::Event, EventHandle::Define(env));
  keep(Kind::LaunchPlan, defineLaunchPlan(env));
  keep(Kind::Graph, GraphHandle::Define(env));
  setConst(exports, "open", Napi::Function::New<Open>(env, "open"));
  setConst(exports, "Driver", driver);
  setConst(exports, "deviceCount", Napi::Function::New<DeviceCount>(env, "deviceCount"));
  setConst(exports, "externalMemory", Napi::Function::New<ExternalMemory>(env, "externalMemory"));
  setConst(exports, "abiVersion", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace

}  // namespace tcu

static Napi::Object InitTessera(Napi::Env env, Napi::Object exports) { return tcu::Init(env, exports); }

NODE_API_MODULE(tessera_cuda, InitTessera)
