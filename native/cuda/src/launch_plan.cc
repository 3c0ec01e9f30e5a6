// createLaunchPlan(fn, paramOffsets, paramBytes) -> { params: Uint8Array, launch(...) }.
// The plan owns a persistent parameter buffer (a JS ArrayBuffer JS writes arguments into) and the
// void*[] of pointers into it, made once; launch() reads nine values and calls cuLaunchKernel:
// no allocation, no hashing, no per-argument work.
#include <vector>

#include "methods.h"

namespace tcu {

namespace {

struct PlanState {
  DriverRef drv;
  std::shared_ptr<FunctionState> fn;
  napi_ref buffer = nullptr;  // the ArrayBuffer behind `params` (strong)
  uint8_t* data = nullptr;
  size_t bytes = 0;
  std::vector<size_t> offsets;
  std::vector<void*> pointers;
};

void finalizePlan(napi_env env, void* data, void*) {
  auto* plan = static_cast<PlanState*>(data);
  if (plan->buffer) napi_delete_reference(env, plan->buffer);
  delete plan;
}

uint32_t dim(napi_env env, napi_value v, const char* name, bool allowZero) {
  uint32_t out = 0;
  double n = 0;
  if (napi_get_value_double(env, v, &n) != napi_ok || !(n >= (allowZero ? 0 : 1)) ||
      n > 4294967295.0 || n != static_cast<double>(static_cast<uint32_t>(n))) {
    failArg(std::string("LaunchPlan.launch(") + name + "): expected an integer " +
            (allowZero ? ">= 0" : ">= 1") + " below 2^32");
  }
  out = static_cast<uint32_t>(n);
  return out;
}

napi_value Plan_launch(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    size_t argc = 8;
    napi_value argv[8];
    void* data = nullptr;
    check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, &data), "callback info");
    if (argc < 8) failArg("LaunchPlan.launch(gx, gy, gz, bx, by, bz, sharedBytes, stream): expected 8 arguments, got " +
                          std::to_string(argc));
    auto* plan = static_cast<PlanState*>(data);
    static const char* names[7] = {"gx", "gy", "gz", "bx", "by", "bz", "sharedBytes"};
    uint32_t v[7];
    for (int i = 0; i < 7; ++i) v[i] = dim(env, argv[i], names[i], i == 6);
    auto s = optStream(env, argv[7], plan->drv, "LaunchPlan.launch(stream)");
    if (plan->fn->module->unloaded) fail("E_FREED", "LaunchPlan.launch: the module of '" + plan->fn->name + "' was unloaded");
    if (plan->bytes > 0) {
      napi_value ab = nullptr;
      bool detached = false;
      check(env, napi_get_reference_value(env, plan->buffer, &ab), "reference value");
      check(env, napi_is_detached_arraybuffer(env, ab, &detached), "is detached");
      if (detached) fail("E_FREED", "LaunchPlan.launch: the params buffer was detached (transferred?)");
    }
    plan->drv->bind();
    auto fn = plan->drv->need(plan->drv->api().cuLaunchKernel, "cuLaunchKernel");
    CUresult r = fn(plan->fn->fn, v[0], v[1], v[2], v[3], v[4], v[5], v[6], s ? s->stream : nullptr,
                    plan->pointers.empty() ? nullptr : plan->pointers.data(), nullptr);
    if (r != CUDA_SUCCESS) {
      try {
        plan->drv->check(r, "cuLaunchKernel");
      } catch (JsError& e) {
        e.message += " launching '" + plan->fn->name + "'";
        throw;
      }
    }
    return jsUndefined(env);
  });
}

}  // namespace

napi_value Driver_createLaunchPlan(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "createLaunchPlan", 3);
    DriverRef d = driverOf(env, a);
    auto f = liveFunction(env, a[0], d, a.where("fn"));
    uint64_t bytes = toU64(env, a[2], a.where("paramBytes"), 1u << 16);
    bool isArray = false;
    check(env, napi_is_array(env, a[1], &isArray), "is array");
    if (!isArray) failArg(a.where("paramOffsets") + ": expected an array of byte offsets");
    uint32_t n = 0;
    check(env, napi_get_array_length(env, a[1], &n), "array length");
    auto plan = std::make_unique<PlanState>();
    plan->drv = d;
    plan->fn = f;
    plan->bytes = bytes;
    for (uint32_t i = 0; i < n; ++i) {
      napi_value e = nullptr;
      check(env, napi_get_element(env, a[1], i, &e), "array element");
      std::string w = a.where("paramOffsets") + "[" + std::to_string(i) + "]";
      uint64_t off = toU64(env, e, w, SIZE_MAX);
      if (off >= bytes) {
        fail("E_RANGE", w + ": offset " + std::to_string(off) + " is outside the " +
                            std::to_string(bytes) + "-byte parameter buffer");
      }
      plan->offsets.push_back(off);
    }
    // An ArrayBuffer (8-byte aligned by V8's allocator) of at least 8 bytes.
    void* raw = nullptr;
    napi_value ab = nullptr, view = nullptr, obj = nullptr, launch = nullptr;
    check(env, napi_create_arraybuffer(env, bytes == 0 ? 8 : bytes, &raw, &ab), "create arraybuffer");
    check(env, napi_create_typedarray(env, napi_uint8_array, bytes, ab, 0, &view), "create typedarray");
    check(env, napi_create_reference(env, ab, 1, &plan->buffer), "create reference");
    plan->data = static_cast<uint8_t*>(raw);
    for (size_t off : plan->offsets) plan->pointers.push_back(plan->data + off);
    check(env, napi_create_object(env, &obj), "create object");
    PlanState* p = plan.get();
    check(env, napi_create_function(env, "launch", NAPI_AUTO_LENGTH, Plan_launch, p, &launch), "create function");
    // The launch function owns the state (it may outlive the plan object).
    napi_status st = napi_add_finalizer(env, launch, p, finalizePlan, nullptr, nullptr);
    if (st != napi_ok) {
      napi_delete_reference(env, plan->buffer);
      check(env, st, "add finalizer");
    }
    plan.release();
    setConst(env, obj, "params", view);
    setConst(env, obj, "launch", launch);
    setConst(env, obj, "paramCount", jsNumber(env, static_cast<double>(n)));
    return obj;
  });
}

}  // namespace tcu
