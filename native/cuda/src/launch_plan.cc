// createLaunchPlan(fn, paramOffsets, paramBytes) -> LaunchPlan { params: Uint8Array, paramCount,
// launch(...) }. The plan owns a persistent parameter buffer (a JS ArrayBuffer JS writes
// arguments into) and the void*[] of pointers into it, made once; launch() reads nine values and
// calls cuLaunchKernel: no allocation, no hashing, no per-argument work.
#include <vector>

#include "addon.h"

namespace tcu {

namespace {

struct PlanState {
  DriverRef drv;
  std::shared_ptr<FunctionState> fn;
  Napi::Reference<Napi::ArrayBuffer> buffer;  // the ArrayBuffer behind `params` (strong)
  uint8_t* data = nullptr;
  size_t bytes = 0;
  std::vector<void*> pointers;
};

uint32_t dim(const Napi::Value& v, const char* name, bool allowZero) {
  double n = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(n >= (allowZero ? 0 : 1)) || n > 4294967295.0 || n != static_cast<double>(static_cast<uint32_t>(n))) {
    failArg(std::string("LaunchPlan.launch(") + name + "): expected an integer " +
            (allowZero ? ">= 0" : ">= 1") + " below 2^32");
  }
  return static_cast<uint32_t>(n);
}

class LaunchPlan : public Napi::ObjectWrap<LaunchPlan> {
 public:
  explicit LaunchPlan(const Napi::CallbackInfo& info) : Napi::ObjectWrap<LaunchPlan>(info) {
    atBoundary(info.Env(), [&] { plan_ = std::static_pointer_cast<PlanState>(adopt(info, Kind::LaunchPlan)); });
  }

  // launch(gx, gy, gz, bx, by, bz, sharedBytes, stream | null)
  Napi::Value launch(const Napi::CallbackInfo& info) {
    PlanState& plan = *plan_;
    if (info.Length() < 8) {
      failArg("LaunchPlan.launch(gx, gy, gz, bx, by, bz, sharedBytes, stream): expected 8 arguments, got " +
              std::to_string(info.Length()));
    }
    static const char* names[7] = {"gx", "gy", "gz", "bx", "by", "bz", "sharedBytes"};
    uint32_t v[7];
    for (int i = 0; i < 7; ++i) v[i] = dim(info[i], names[i], i == 6);
    auto s = optStream(info[7], plan.drv, "LaunchPlan.launch(stream)");
    if (plan.fn->module->unloaded) fail("E_FREED", "LaunchPlan.launch: the module of '" + plan.fn->name + "' was unloaded");
    if (plan.bytes > 0 && plan.buffer.Value().IsDetached()) {
      fail("E_FREED", "LaunchPlan.launch: the params buffer was detached (transferred?)");
    }
    plan.drv->bind();
    auto fn = plan.drv->need(plan.drv->api().cuLaunchKernel, "cuLaunchKernel");
    CUresult r = fn(plan.fn->fn, v[0], v[1], v[2], v[3], v[4], v[5], v[6], s ? s->stream : nullptr,
                    plan.pointers.empty() ? nullptr : plan.pointers.data(), nullptr);
    if (r != CUDA_SUCCESS) {
      try {
        plan.drv->check(r, "cuLaunchKernel");
      } catch (JsError& e) {
        e.message += " launching '" + plan.fn->name + "'";
        throw;
      }
    }
    return info.Env().Undefined();
  }

 private:
  std::shared_ptr<PlanState> plan_;
};

}  // namespace

Napi::Function defineLaunchPlan(Napi::Env env) {
  return withMethods(LaunchPlan::DefineClass(env, "LaunchPlan", {}),
                     {method<LaunchPlan, Kind::LaunchPlan, &LaunchPlan::launch>(env, "launch")});
}

Napi::Value Driver::createLaunchPlan(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "createLaunchPlan");
  DriverRef d = state_;
  auto f = liveFunction(a[0], d, a.where("fn"));
  uint64_t bytes = toU64(a[2], a.where("paramBytes"), 1u << 16);
  Napi::Array list = toArray(a[1], a.where("paramOffsets"), "an array of byte offsets");
  uint32_t n = list.Length();
  std::vector<size_t> offsets;
  for (uint32_t i = 0; i < n; ++i) {
    std::string w = a.where("paramOffsets") + "[" + std::to_string(i) + "]";
    uint64_t off = toU64(list.Get(i), w, SIZE_MAX);
    if (off >= bytes) {
      fail("E_RANGE", w + ": offset " + std::to_string(off) + " is outside the " +
                          std::to_string(bytes) + "-byte parameter buffer");
    }
    offsets.push_back(off);
  }
  auto plan = std::make_shared<PlanState>();
  plan->drv = d;
  plan->fn = f;
  plan->bytes = bytes;
  // An ArrayBuffer (8-byte aligned by V8's allocator) of at least 8 bytes.
  Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(env, bytes == 0 ? 8 : bytes);
  Napi::Uint8Array view = Napi::Uint8Array::New(env, bytes, ab, 0);
  plan->buffer = Napi::Persistent(ab);
  plan->data = static_cast<uint8_t*>(ab.Data());
  for (size_t off : offsets) plan->pointers.push_back(plan->data + off);
  Napi::Object obj = construct(env, Kind::LaunchPlan, plan);
  setConst(obj, "params", view);
  setConst(obj, "paramCount", Napi::Number::New(env, static_cast<double>(n)));
  return obj;
}

}  // namespace tcu
