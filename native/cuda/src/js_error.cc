#include "js_error.h"

namespace tcu {

void fail(const std::string& code, const std::string& message) {
  throw JsError{code, message, "", 0, false};
}

void failArg(const std::string& message) { throw JsError{"E_ARG", message, "", 0, true}; }

void check(napi_env env, napi_status status, const char* what) {
  if (status == napi_ok) return;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) throw PendingJsException{};
  const napi_extended_error_info* info = nullptr;
  napi_get_last_error_info(env, &info);
  std::string detail = info && info->error_message ? info->error_message : "unknown";
  throw JsError{"E_INTERNAL", std::string(what) + ": N-API call failed (" + detail + ")", "", 0, false};
}

static void setProp(napi_env env, napi_value obj, const char* key, napi_value v) {
  napi_set_named_property(env, obj, key, v);
}

napi_value makeJsError(napi_env env, const JsError& e) {
  napi_value code = nullptr, msg = nullptr, err = nullptr;
  napi_create_string_utf8(env, e.code.c_str(), e.code.size(), &code);
  napi_create_string_utf8(env, e.message.c_str(), e.message.size(), &msg);
  if (e.typeError) {
    napi_create_type_error(env, code, msg, &err);
  } else {
    napi_create_error(env, code, msg, &err);
  }
  if (err == nullptr) return nullptr;
  if (!e.call.empty()) {
    napi_value call = nullptr, result = nullptr;
    napi_create_string_utf8(env, e.call.c_str(), e.call.size(), &call);
    napi_create_int32(env, e.cuResult, &result);
    setProp(env, err, "call", call);
    setProp(env, err, "cuResult", result);
  }
  return err;
}

void throwJs(napi_env env, const JsError& e) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  napi_value err = makeJsError(env, e);
  if (err != nullptr) napi_throw(env, err);
}

}  // namespace tcu
