// Errors inside the addon are C++ exceptions of type JsError, caught at the N-API boundary
// (guard) and turned into a JS Error with a stable `code`. Nothing escapes into Node as a crash.
#pragma once
#include <node_api.h>

#include <exception>
#include <new>
#include <string>

namespace tcu {

struct JsError {
  std::string code;     // 'E_ARG', 'E_RANGE', ..., or the driver's name: 'CUDA_ERROR_INVALID_VALUE'
  std::string message;
  std::string call;     // the driver entry point that failed (empty for non-driver errors)
  int cuResult = 0;     // the CUresult (0 for non-driver errors)
  bool typeError = false;
};

// Thrown when a JS exception is already pending (e.g. from napi_* on a revoked proxy).
struct PendingJsException {};

[[noreturn]] void fail(const std::string& code, const std::string& message);
[[noreturn]] void failArg(const std::string& message);  // E_ARG, as a TypeError
void check(napi_env env, napi_status status, const char* what);

napi_value makeJsError(napi_env env, const JsError& e);
void throwJs(napi_env env, const JsError& e);

// Runs `body` and turns any exception into a pending JS exception (then returns nullptr).
template <class F>
napi_value guard(napi_env env, F&& body) noexcept {
  try {
    return body();
  } catch (const JsError& e) {
    throwJs(env, e);
  } catch (const PendingJsException&) {
    // already pending
  } catch (const std::bad_alloc&) {
    throwJs(env, JsError{"E_NO_MEMORY", "out of host memory", "", 0, false});
  } catch (const std::exception& e) {
    throwJs(env, JsError{"E_INTERNAL", e.what(), "", 0, false});
  } catch (...) {
    throwJs(env, JsError{"E_INTERNAL", "unknown native exception", "", 0, false});
  }
  return nullptr;
}

}  // namespace tcu
