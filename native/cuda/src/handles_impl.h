// Template bodies for handles.h.
#pragma once
#include "args.h"
#include "js_error.h"

#include <type_traits>

namespace tcu {

const napi_type_tag& tagOf(Kind k);

template <class T>
void finalizeHolder(napi_env env, void* data, void*) {
  auto* holder = static_cast<std::shared_ptr<T>*>(data);
  if constexpr (std::is_same_v<T, DevicePtrState>) {
    // Dropped without memFree: the memory goes when the state does; V8 hears of it now.
    int64_t unused = 0;
    if ((*holder)->reported) napi_adjust_external_memory(env, -(*holder)->reported, &unused);
    (*holder)->reported = 0;
  }
  delete holder;
}

template <class T>
void wrapInto(napi_env env, napi_value obj, std::shared_ptr<T> state, Kind k) {
  auto* holder = new std::shared_ptr<T>(std::move(state));
  napi_status s = napi_wrap(env, obj, holder, finalizeHolder<T>, nullptr, nullptr);
  if (s != napi_ok) {
    delete holder;
    check(env, s, "wrap");
  }
  check(env, napi_type_tag_object(env, obj, &tagOf(k)), "type tag");
}

template <class T>
napi_value wrapNew(napi_env env, std::shared_ptr<T> state, Kind k) {
  napi_value obj = jsObject(env);
  wrapInto(env, obj, std::move(state), k);
  return obj;
}

template <class T>
std::shared_ptr<T> unwrapAs(napi_env env, napi_value v, Kind k, const std::string& what) {
  bool ok = false;
  if (typeOf(env, v) == napi_object) {
    check(env, napi_check_object_type_tag(env, v, &tagOf(k), &ok), "check type tag");
  }
  if (!ok) failArg(what + ": expected a " + kindName(k) + " handle");
  void* data = nullptr;
  check(env, napi_unwrap(env, v, &data), "unwrap");
  return *static_cast<std::shared_ptr<T>*>(data);
}

}  // namespace tcu
