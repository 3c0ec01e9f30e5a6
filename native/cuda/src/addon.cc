// Module entry: exports open(libraryPath?) -> Driver, and the Driver class whose methods live in
// memory.cc, module.cc, stream.cc and async.cc. Per-environment state (the Driver constructor)
// is instance data; there is no other mutable global.
#include <node_api.h>

#include "methods.h"

namespace tcu {

namespace {

struct InstanceData {
  napi_ref driverCtor = nullptr;
};

void finalizeInstance(napi_env env, void* data, void*) {
  auto* d = static_cast<InstanceData*>(data);
  if (d->driverCtor) napi_delete_reference(env, d->driverCtor);
  delete d;
}

// Only open() can construct a Driver: it passes the state in a tagged external.
const napi_type_tag kOpenToken = {0x7e55e7a0d71e00ffull, 0x9c1f2b44a1d3c8ffull};

napi_value Driver_ctor(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "Driver", 1);
    bool ok = false;
    if (typeOf(env, a[0]) == napi_external) {
      check(env, napi_check_object_type_tag(env, a[0], &kOpenToken, &ok), "check tag");
    }
    if (!ok) failArg("Driver cannot be constructed directly: use open(libraryPath?)");
    void* data = nullptr;
    check(env, napi_get_value_external(env, a[0], &data), "external");
    DriverRef state = *static_cast<DriverRef*>(data);
    wrapInto(env, a.self(), state, Kind::Driver);
    setConst(env, a.self(), "libraryPath", jsString(env, state->path()));
    setConst(env, a.self(), "isSim", jsBool(env, state->isSim()));
    return a.self();
  });
}

// open(libraryPath = "libcuda.so.1") -> Driver
napi_value Open(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "open", 1);
    std::string path = "libcuda.so.1";
    if (a.count() > 0 && typeOf(env, a[0]) != napi_undefined) {
      path = toStr(env, a[0], a.where("libraryPath"));
      if (path.empty() || path.find('\0') != std::string::npos) {
        fail("E_ARG", a.where("libraryPath") + ": not a valid path");
      }
    }
    DriverRef state = DriverState::open(path);
    InstanceData* inst = nullptr;
    check(env, napi_get_instance_data(env, reinterpret_cast<void**>(&inst)), "instance data");
    napi_value ctor = nullptr, token = nullptr, driver = nullptr;
    check(env, napi_get_reference_value(env, inst->driverCtor, &ctor), "constructor");
    // The external only lives through this call; the constructor copies the shared_ptr.
    check(env, napi_create_external(env, &state, nullptr, nullptr, &token), "external");
    check(env, napi_type_tag_object(env, token, &kOpenToken), "tag");
    check(env, napi_new_instance(env, ctor, 1, &token, &driver), "new Driver");
    return driver;
  });
}

napi_value Init(napi_env env, napi_value exports) {
  return guard(env, [&] {
    std::vector<napi_property_descriptor> methods;
#define TCU_PROP(name) \
  methods.push_back({#name, nullptr, Driver_##name, nullptr, nullptr, nullptr, napi_default, nullptr});
    TCU_METHODS(TCU_PROP)
#undef TCU_PROP
    napi_value ctor = nullptr;
    check(env, napi_define_class(env, "Driver", NAPI_AUTO_LENGTH, Driver_ctor, nullptr,
                                 methods.size(), methods.data(), &ctor),
          "define Driver");
    auto* inst = new InstanceData();
    napi_status s = napi_create_reference(env, ctor, 1, &inst->driverCtor);
    if (s != napi_ok) {
      delete inst;
      check(env, s, "reference Driver");
    }
    s = napi_set_instance_data(env, inst, finalizeInstance, nullptr);
    if (s != napi_ok) {
      napi_delete_reference(env, inst->driverCtor);
      delete inst;
      check(env, s, "instance data");
    }
    napi_value openFn = nullptr;
    check(env, napi_create_function(env, "open", NAPI_AUTO_LENGTH, Open, nullptr, &openFn), "open");
    setConst(env, exports, "open", openFn);
    setConst(env, exports, "Driver", ctor);
    setConst(env, exports, "abiVersion", jsNumber(env, 1));
    return exports;
  });
}

}  // namespace

DriverRef driverOf(napi_env env, const Args& a) {
  return unwrapAs<DriverState>(env, a.self(), Kind::Driver, std::string(a.method()) + ": this");
}

}  // namespace tcu

NAPI_MODULE_INIT() { return tcu::Init(env, exports); }
