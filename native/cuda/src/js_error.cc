#include "js_error.h"

namespace tcu {

void fail(const std::string& code, const std::string& message) {
  throw JsError{code, message, "", 0, false};
}

void failArg(const std::string& message) { throw JsError{"E_ARG", message, "", 0, true}; }

Napi::Error toJsError(Napi::Env env, const JsError& e) {
  Napi::Error err = e.typeError ? Napi::TypeError::New(env, e.message) : Napi::Error::New(env, e.message);
  err.Set("code", Napi::String::New(env, e.code));
  if (!e.call.empty()) {
    err.Set("call", Napi::String::New(env, e.call));
    err.Set("cuResult", Napi::Number::New(env, e.cuResult));
  }
  return err;
}

}  // namespace tcu
