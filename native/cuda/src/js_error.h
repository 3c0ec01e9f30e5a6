// Errors inside the addon. Driver code (driver.cc, and the worker threads of async.cc) throws
// JsError, a plain C++ exception that needs no JS environment; at the JS boundary (the method
// trampolines of addon.h, the async workers' completion) it becomes a Napi::Error whose `code` is
// stable ('E_ARG', ..., or the driver's name: 'CUDA_ERROR_INVALID_VALUE'). Nothing escapes into
// Node as a crash.
#pragma once
#include <napi.h>

#include <string>

namespace tcu {

struct JsError {
  std::string code;     // 'E_ARG', 'E_RANGE', ..., or the driver's name: 'CUDA_ERROR_INVALID_VALUE'
  std::string message;
  std::string call;     // the driver entry point that failed (empty for non-driver errors)
  int cuResult = 0;     // the CUresult (0 for non-driver errors)
  bool typeError = false;
};

[[noreturn]] void fail(const std::string& code, const std::string& message);
[[noreturn]] void failArg(const std::string& message);  // E_ARG, as a TypeError

// The JS error for `e`: Error (TypeError for E_ARG) with `code`, and `call` + `cuResult` for
// driver errors.
Napi::Error toJsError(Napi::Env env, const JsError& e);

// Runs `body` on the JS thread and rethrows any C++ exception as a Napi::Error (which
// node-addon-api turns into a pending JS exception). A Napi::Error without a `code` (a failed
// Node-API call) gets 'E_INTERNAL'.
template <class F>
auto atBoundary(Napi::Env env, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const Napi::Error& e) {
    Napi::Object err = e.Value();
    if (!err.IsEmpty() && !err.Has("code")) err.Set("code", "E_INTERNAL");
    throw;
  } catch (const JsError& e) {
    throw toJsError(env, e);
  } catch (const std::bad_alloc&) {
    throw toJsError(env, JsError{"E_NO_MEMORY", "out of host memory", "", 0, false});
  } catch (const std::exception& e) {
    throw toJsError(env, JsError{"E_INTERNAL", e.what(), "", 0, false});
  } catch (...) {
    throw toJsError(env, JsError{"E_INTERNAL", "unknown native exception", "", 0, false});
  }
}

}  // namespace tcu
